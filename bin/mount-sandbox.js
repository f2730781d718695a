#!/usr/bin/env node
'use strict';

// mount-sandbox <check|explain|exec|apparmor> [--help]: validate a program config, explain how a
// virtual path resolves, run a command confined to the sandbox, print the AppArmor profile its
// launcher needs on Ubuntu. Each command's help is in COMMANDS.
const os = require('os');
const path = require('path');
const fs = require('fs');
const ms = require('../lib/index.js');
// The CLI's only private import (see there for why it is not public API).
const { sandboxFor, protectionOf, rulesFor, loadTrustedProgramConfig, launcherPath, apparmor } = require('../lib/cli-support.js');
const { version } = require('../package.json');

const CONFIG_OPTION = '  --config dir|file   the program config file, or the directory to search upward from for\n' +
  '                      golem-forge.config.{yaml,yml,json} (default: the current directory)';
const WORKER_OPTION = '  --worker file       answer for the narrower sandbox this .worker file gets from call_worker';

const COMMANDS = {
  check: {
    synopsis: 'mount-sandbox check [dir]',
    summary: 'Validate the program config found from dir upward and print its mount table.',
    help: `Find golem-forge.config.yaml, .yml or .json in dir (default: the current directory) or the
nearest directory above it, validate it and print the effective mount table: each mount's
virtual target, host source, ro/rw, approvals and policies, marking sources that do not exist
yet. Says so when the config has no sandbox section (no file access).

Exit status: 0 valid; 1 invalid (file:line:column: keyPath: expected ...); 2 usage error.`,
  },
  explain: {
    synopsis: 'mount-sandbox explain <virtual-path> [--config dir|file] [--worker file]',
    summary: 'Say how a virtual path resolves and which rule allows or refuses each operation.',
    help: `Say where a virtual path such as /src/app.ts resolves on the host, which mount's rules
apply, and for read, write and delete whether the sandbox allows it (with the approval) or
refuses it, with the message a model would get. Paths are as the sandbox sees them: with
--worker, as that worker sees them (a worker restricted to /src sees its files at /).

Options:
${CONFIG_OPTION}
${WORKER_OPTION}

Exit status: 0 explained; 1 invalid config or worker file; 2 usage error.`,
  },
  exec: {
    synopsis: 'mount-sandbox exec [options] -- command [args...]',
    summary: 'Run a command confined by the kernel to the sandbox, as sandbox.exec() does.',
    help: `Run a command confined by the kernel to the program's sandbox (or a worker's narrower
one), as sandbox.exec() does: it can read and write only what the sandbox allows, and has no
network unless --network. Its output is passed through as it is.

Options:
${CONFIG_OPTION}
${WORKER_OPTION}
  --cwd /virtual/dir  the working directory, a virtual path (default: /)
  --network           let the command use the network
  --timeout ms        kill the command after this many milliseconds (default 30000, at most 300000)
  --allow-weaker      run even when an enforcement layer the kernel lacks is required
  --verbose           print the enforcement layers applied to stderr

Exit status: the command's; 124 on timeout; 128+n when killed by signal n; 1 when the sandbox
refuses to run it; 2 usage error.`,
  },
  apparmor: {
    synopsis: 'mount-sandbox apparmor',
    summary: 'Print the AppArmor profile that lets exec\'s launcher create user namespaces (Ubuntu 24.04).',
    help: `Print on stdout the AppArmor profile that allows msb-launch, the program exec runs first,
to create user namespaces where ${apparmor.SYSCTL} is 1 (Ubuntu 23.10 and
later), naming the launcher this package uses by its real path. Print on stderr whether this
kernel restricts them, and the two commands that install and load the profile:
  ${apparmor.LOAD_COMMANDS.join('\n  ')}
Nothing is installed or loaded. Run it again after the package moves or is reinstalled elsewhere.

Exit status: 0 printed; 1 no launcher was found; 2 usage error.`,
  },
};

const USAGE = `Usage:
${Object.values(COMMANDS).map((c) => `  ${c.synopsis}\n      ${c.summary}`).join('\n')}
  mount-sandbox <command> --help
      That command's options and exit status.
  mount-sandbox --version`;

const commandHelp = (name) => `Usage: ${COMMANDS[name].synopsis}\n\n${COMMANDS[name].help}`;

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
    else if (arg === '--version' || arg === '-V') flags.version = true;
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
  if (stat && !stat.isDirectory()) {
    // The file named is used even with other config names beside it, but not from a place a
    // config above lets a sandbox write: a script's "--config golem-forge.config.yaml" run in a
    // directory a command made would otherwise read what that command planted. Anything but a
    // directory is taken as the file meant, and refused if it is not one (a FIFO, a device).
    return loadTrustedProgramConfig(target);
  }
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

// What exec does to a protected file (explain's file verdicts are the file API's).
function protectionVerdict(sandbox, host) {
  const holder = host === null ? null : protectionOf(sandbox, host);
  if (holder === null) return null;
  const what = holder === host ? 'this file' : path.basename(holder);
  return `protected: read-only to commands run by exec (${what}: the next run trusts it)`;
}

async function explain(args) {
  const p = args.positional[1];
  if (!p) throw new UsageError('explain needs a virtual path, such as /src/app.ts');
  const { config, sandbox, worker } = await sandboxOf(args);
  const out = [`config: ${config.file}`];
  if (worker) out.push(`worker: ${worker.name ?? path.basename(worker.file)} (sandbox: ${worker.sandbox.kind})`);
  if (sandbox === null) {
    out.push(`${p}: no sandbox, so no file access (${args.flags.worker ? 'the worker is a pure function' : 'the config has no sandbox section'})`);
    return out;
  }
  out.push(`path: ${p}`);
  let host = null;
  try {
    host = sandbox.resolve(p);
    out.push(`resolves to: ${host}`);
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    out.push(`resolves to: ${refusal(error)}`);
  }
  out.push(`rules from: ${whereItResolves(sandbox, p)}`);
  out.push(`read:   ${await readVerdict(sandbox, p)}`);
  out.push(`write:  ${changeVerdict(sandbox, p, 'write')}`);
  out.push(`delete: ${changeVerdict(sandbox, p, 'delete')}`);
  const protection = protectionVerdict(sandbox, host);
  if (protection !== null) out.push(protection);
  return out;
}

// The config's sandbox, whose commands cannot change what the next run trusts; with --worker,
// the worker's narrower one, from a worker file no command could have written. explain and exec
// answer for this same sandbox.
async function sandboxOf(args) {
  const config = await loadConfig(args.flags.config);
  if (args.flags.worker && !fs.existsSync(args.flags.worker)) {
    throw new UsageError(`${path.resolve(args.flags.worker)} does not exist`);
  }
  return { config, ...(await sandboxFor(config, args.flags.worker || undefined)) };
}

async function exec(args) {
  if (!args.command || args.command.length === 0) throw new UsageError('exec needs a command after --');
  const options = { network: args.flags.network === true, allowWeakerEnforcement: args.flags.allowWeaker === true };
  if (args.flags.cwd !== undefined) options.cwd = args.flags.cwd;
  if (args.flags.timeout !== undefined) {
    options.timeoutMs = Number(args.flags.timeout);
    if (!Number.isSafeInteger(options.timeoutMs)) throw new UsageError('--timeout needs a number of milliseconds');
  }
  const { sandbox } = await sandboxOf(args);
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

// Whether this kernel needs the profile, as the first line of what `apparmor` says on stderr.
function restrictionLine() {
  const restricted = apparmor.kernelRestrictsUserNamespaces();
  if (restricted) return `this kernel restricts user namespaces (${apparmor.SYSCTL} = 1): exec needs this profile. Install and load it, as root:`;
  const setting = restricted === null ? `no ${apparmor.SYSCTL}` : `${apparmor.SYSCTL} = 0`;
  return `this kernel does not restrict user namespaces (${setting}): exec needs no profile here. Where it does, install and load it, as root:`;
}

function appArmorProfile(args) {
  if (args.positional.length > 1) throw new UsageError('apparmor takes no arguments');
  const profile = apparmor.profileFor(fs.realpathSync(launcherPath()));
  const stderr = `mount-sandbox: ${restrictionLine()}\n${apparmor.LOAD_COMMANDS.map((line) => `  ${line}\n`).join('')}`;
  return { code: 0, lines: [], stdout: profile, stderr };
}

async function main(argv) {
  const args = parseArgs(argv);
  const command = args.positional[0];
  if (args.flags.version) return { code: 0, lines: [version] };
  if (command === 'help' && COMMANDS[args.positional[1]]) return { code: 0, lines: [commandHelp(args.positional[1])] };
  if (args.flags.help || command === 'help') {
    return { code: 0, lines: [COMMANDS[command] ? commandHelp(command) : USAGE] };
  }
  if (!command) return { code: 2, lines: [USAGE] };
  if (command === 'check') return { code: 0, lines: await check(args) };
  if (command === 'explain') return { code: 0, lines: await explain(args) };
  if (command === 'exec') return exec(args);
  if (command === 'apparmor') return appArmorProfile(args);
  throw new UsageError(`unknown command ${command}`);
}

// After a usage error: the usage of the command that was asked for, if there is one.
function usageFor(argv) {
  const command = argv.find((arg) => !arg.startsWith('-'));
  return COMMANDS[command] ? `Usage: ${COMMANDS[command].synopsis}\n(mount-sandbox ${command} --help for more)` : USAGE;
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
      process.stderr.write(`mount-sandbox: ${error.message}\n\n${usageFor(process.argv.slice(2))}\n`);
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
