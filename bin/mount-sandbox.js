#!/usr/bin/env node
'use strict';

// mount-sandbox check [dir]            validate a program config, print its mount table
// mount-sandbox explain <path> [--worker file.worker] [--config dir|file]
//                                      how a virtual path resolves and what each operation gets
// mount-sandbox exec [options] -- cmd args...
//                                      run a command confined to the sandbox (sandbox.exec)
const os = require('os');
const path = require('path');
const fs = require('fs');
const ms = require('../lib/index.js');
const { rulesFor } = require('../lib/errors.js');
const { addProtectedFiles } = require('../lib/protected.js');

const USAGE = `Usage:
  mount-sandbox check [dir]
      Find golem-forge.config.{yaml,yml,json} from dir (default: .) upward, validate it and
      print the effective mount table.
  mount-sandbox explain <virtual-path> [--worker file.worker] [--config dir|file]
      Say how a virtual path resolves and which rule allows or refuses each operation,
      for the program's sandbox or for the sandbox a worker would get.
  mount-sandbox exec [--config dir|file] [--worker file.worker] [--cwd /virtual/dir]
                     [--network] [--timeout ms] [--allow-weaker] [--verbose] -- cmd args...
      Run a command confined by the kernel to that sandbox, as sandbox.exec() does. Exits
      with the command's status (124 on timeout, 128+n when killed by signal n); --verbose
      prints the enforcement layers applied to stderr.`;

class UsageError extends Error {}

const VALUE_FLAGS = ['--worker', '--config', '--cwd', '--timeout'];
const BOOLEAN_FLAGS = { '--network': 'network', '--allow-weaker': 'allowWeaker', '--verbose': 'verbose' };

function parseArgs(argv) {
  const positional = [];
  const flags = {};
  let command = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      command = argv.slice(i + 1);
      break;
    }
    if (arg === '--help' || arg === '-h') flags.help = true;
    else if (BOOLEAN_FLAGS[arg]) flags[BOOLEAN_FLAGS[arg]] = true;
    else if (VALUE_FLAGS.includes(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      flags[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  return { positional, flags, command };
}

async function loadConfig(where) {
  const target = path.resolve(where || '.');
  const stat = fs.existsSync(target) ? fs.statSync(target) : null;
  if (stat && stat.isFile()) return ms.loadProgramConfig(target);
  if (!stat) throw new UsageError(`${target} does not exist`);
  const config = await ms.findProgramConfig(target);
  if (!config) {
    throw new UsageError(`no ${ms.CONFIG_FILE_NAMES.join(' / ')} found in ${target} or above`);
  }
  return config;
}

function describeRules({ readonly, approval, policy }) {
  const parts = [readonly ? 'ro' : 'rw', `write: ${approval.write}`, `delete: ${approval.delete}`];
  if (policy.allowedSuffixes) parts.push(`allowed: ${policy.allowedSuffixes.join(' ') || '(none)'}`);
  if (policy.deniedSuffixes.length) parts.push(`denied: ${policy.deniedSuffixes.join(' ')}`);
  if (policy.maxFileBytes !== null) parts.push(`maxFileBytes: ${policy.maxFileBytes}`);
  return parts.join(', ');
}

function mountRows(table) {
  const rows = [];
  if (table.root !== null) rows.push({ target: '/', source: table.root, rules: describeRules(table) });
  for (const m of table.mounts) rows.push({ target: m.target, source: m.source, rules: describeRules(m) });
  return rows;
}

function printTable(out, rows) {
  const width = Math.max(...rows.map((r) => r.target.length));
  for (const r of rows) {
    const missing = fs.existsSync(r.source) ? '' : '  (missing: created on first use)';
    out.push(`  ${r.target.padEnd(width)}  ${r.source}  [${r.rules}]${missing}`);
  }
}

async function check(args) {
  const config = await loadConfig(args.positional[1]);
  const out = [`config: ${config.file}`, `delegation: maxDepth ${config.delegation.maxDepth}`];
  if (config.sandbox === null) {
    out.push('sandbox: none (no sandbox section: workers get no file access)');
    return out;
  }
  const layout = { mounts: 'mounts', sandboxed: 'zones, sandboxed mode', direct: 'zones, direct mode' };
  out.push(`sandbox: ${layout[config.sandbox.layout]}${config.sandbox.root === null ? ' ("/" lists the zones only)' : ''}`);
  // Built through the addon, so what is printed is what a sandbox would enforce.
  const sandbox = ms.createMountSandbox(ms.sandboxConfigFrom(config));
  printTable(out, mountRows(sandbox.describe()));
  out.push('ok');
  return out;
}

function refusal(error) {
  return `refused (${error.code}): ${error.toLLMMessage ? error.toLLMMessage() : error.message}`;
}

async function readVerdict(sandbox, p) {
  try {
    await sandbox.read(p, { offset: 0, length: 0 }); // every read rule, no data
    const info = await sandbox.stat(p);
    return `allowed (file, ${info.size} bytes)`;
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    if (error.code === 'NOT_FOUND') return 'nothing there (not found)';
    if (error.code !== 'IS_DIRECTORY') return refusal(error);
  }
  try {
    const names = await sandbox.list(p);
    return `allowed (directory, ${names.length} entries)`;
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    return refusal(error);
  }
}

function changeVerdict(sandbox, p, operation) {
  const error = sandbox.checkChange(p, operation);
  if (error) return refusal(error);
  return `allowed, approval: ${sandbox.approvalFor(p, operation)}`;
}

function whereItResolves(sandbox, p) {
  const table = sandbox.describe();
  const rules = rulesFor(table, p);
  if (rules !== table) return `mount ${rules.target} [${describeRules(rules)}]`;
  if (table.root !== null) return `root / [${describeRules(table)}]`;
  return 'no mount (outside the sandbox, or a directory that only holds mounts)';
}

async function explain(args) {
  const p = args.positional[1];
  if (!p) throw new UsageError('explain needs a virtual path, such as /src/app.ts');
  const config = await loadConfig(args.flags.config);
  const out = [`config: ${config.file}`];
  const programSandbox = ms.sandboxConfigFrom(config);
  let sandbox = programSandbox === null ? null : ms.createMountSandbox(programSandbox);
  if (args.flags.worker) {
    if (!fs.existsSync(args.flags.worker)) throw new UsageError(`${path.resolve(args.flags.worker)} does not exist`);
    const worker = await ms.loadWorkerFile(args.flags.worker);
    out.push(`worker: ${worker.name ?? path.basename(worker.file)} (sandbox: ${worker.sandbox.kind})`);
    sandbox = ms.sandboxForWorker(sandbox, worker);
  }
  if (sandbox === null) {
    out.push(`${p}: no sandbox, so no file access (${args.flags.worker ? 'the worker is a pure function' : 'the config has no sandbox section'})`);
    return out;
  }
  out.push(`path: ${p}`);
  try {
    out.push(`resolves to: ${sandbox.resolve(p)}`);
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    out.push(`resolves to: ${refusal(error)}`);
  }
  out.push(`rules from: ${whereItResolves(sandbox, p)}`);
  out.push(`read:   ${await readVerdict(sandbox, p)}`);
  out.push(`write:  ${changeVerdict(sandbox, p, 'write')}`);
  out.push(`delete: ${changeVerdict(sandbox, p, 'delete')}`);
  return out;
}

async function sandboxFor(args) {
  const config = await loadConfig(args.flags.config);
  const programSandbox = ms.sandboxConfigFrom(config);
  let sandbox = programSandbox === null ? null : addProtectedFiles(ms.createMountSandbox(programSandbox), [config.file]);
  if (args.flags.worker) {
    if (!fs.existsSync(args.flags.worker)) throw new UsageError(`${path.resolve(args.flags.worker)} does not exist`);
    sandbox = ms.sandboxForWorker(sandbox, await ms.loadWorkerFile(args.flags.worker));
  }
  return sandbox;
}

async function exec(args) {
  if (!args.command || args.command.length === 0) throw new UsageError('exec needs a command after --');
  const options = { network: args.flags.network === true, allowWeakerEnforcement: args.flags.allowWeaker === true };
  if (args.flags.cwd !== undefined) options.cwd = args.flags.cwd;
  if (args.flags.timeout !== undefined) {
    options.timeoutMs = Number(args.flags.timeout);
    if (!Number.isSafeInteger(options.timeoutMs)) throw new UsageError('--timeout needs a number of milliseconds');
  }
  const sandbox = await sandboxFor(args);
  if (sandbox === null) throw new UsageError('this sandbox allows no file access, so there is nothing to run a command in');
  const result = await sandbox.exec(args.command, options);
  const lines = [];
  if (args.flags.verbose) {
    const { landlockAbi, layers, missing } = result.enforcement;
    lines.push(`[mount-sandbox] Landlock ABI ${landlockAbi}; applied: ${layers.join(', ')}; missing: ${missing.join(', ') || 'none'}`);
  }
  let code = result.exitCode;
  if (result.timedOut) code = 124;
  else if (result.signal) code = 128 + (os.constants.signals[result.signal] || 0);
  return { code, lines, stdout: result.stdout, stderr: result.stderr };
}

async function main(argv) {
  const args = parseArgs(argv);
  const command = args.positional[0];
  if (args.flags.help) return { code: 0, lines: [USAGE] };
  if (!command) return { code: 2, lines: [USAGE] };
  if (command === 'check') return { code: 0, lines: await check(args) };
  if (command === 'explain') return { code: 0, lines: await explain(args) };
  if (command === 'exec') return exec(args);
  throw new UsageError(`unknown command ${command}`);
}

main(process.argv.slice(2)).then(
  ({ code, lines, stdout, stderr }) => {
    if (stdout !== undefined) {
      // exec: the command's own output, as it produced it.
      process.stdout.write(stdout);
      process.stderr.write(stderr);
      if (lines.length) process.stderr.write(`${lines.join('\n')}\n`);
    } else {
      (code === 0 ? process.stdout : process.stderr).write(`${lines.join('\n')}\n`);
    }
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`mount-sandbox: ${error.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (ms.isSandboxError(error)) {
      process.stderr.write(`mount-sandbox: ${error.message}\n`);
      process.exitCode = 1;
    } else if (error && typeof error.syscall === 'string') {
      // An unreadable file or directory: the message names it; a stack trace would not help.
      process.stderr.write(`mount-sandbox: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`mount-sandbox: ${error.stack || error}\n`);
      process.exitCode = 1;
    }
  },
);
