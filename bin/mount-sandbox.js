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
const {
  sandboxFor, protectionOf, rulesFor, checkConfigsAbove, launcherPath, apparmor, MAX_TIMEOUT_MS,
} = require('../lib/cli-support.js');
const { version } = require('../package.json');

const CONFIG_OPTION = '  --config dir|file   the program config file, or the directory to search upward from for\n' +
  '                      golem-forge.config.{yaml,yml,json} (default: the current directory)';
const WORKER_OPTION = {
  explain: '  --worker file       answer for the narrower sandbox this .worker file gets from call_worker',
  exec: '  --worker file       run the command in the narrower sandbox this .worker file gets from\n' +
    '                      call_worker',
};

const COMMANDS = {
  check: {
    synopsis: 'mount-sandbox check [dir | --config dir|file]',
    takes: ['--config'],
    summary: 'Validate the program config and print its mount table.',
    help: `Validate the program config --config names (a dir argument, kept for older scripts, is
the same as --config dir: give one or the other) and print the effective mount table: each
mount's virtual target, host source, ro/rw, approvals and policies, marking sources that do not
exist yet. Says so when the config has no sandbox section (no file access).

Options:
${CONFIG_OPTION}

Exit status: 0 valid; 1 invalid (file:line:column: keyPath: expected ...); 2 usage error.`,
  },
  explain: {
    synopsis: 'mount-sandbox explain <virtual-path> [--config dir|file] [--worker file]',
    takes: ['--config', '--worker'],
    summary: 'Say how a virtual path resolves and which rule allows or refuses each operation.',
    help: `Say where a virtual path such as /src/app.ts resolves on the host, which mount's rules
apply, and for read, write and delete whether the sandbox allows it (with the approval) or
refuses it, with the message a model would get. Paths are as the sandbox sees them: with
--worker, as that worker sees them (a worker restricted to /src sees its files at /).

Options:
${CONFIG_OPTION}
${WORKER_OPTION.explain}

Exit status: 0 explained; 1 invalid config or worker file; 2 usage error.`,
  },
  exec: {
    synopsis: 'mount-sandbox exec [options] -- command [args...]',
    takes: ['--config', '--worker', '--cwd', '--timeout', '--network', '--allow-weaker', '--verbose'],
    summary: 'Run a command confined by the kernel to the sandbox, as sandbox.exec() does.',
    help: `Run a command confined by the kernel to the program's sandbox (or a worker's narrower
one), as sandbox.exec() does: it can read and write only what the sandbox allows, and has no
network unless --network. Its output is passed through as it is.

Options:
${CONFIG_OPTION}
${WORKER_OPTION.exec}
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
    takes: [],
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

// A usage error (exit 2) prints its message and the command's usage; a refusal (exit 1) its
// message alone. Neither is a bug, so neither prints a stack trace.
class UsageError extends Error {}
class Refusal extends Error {}

// Every value printed that came from a config, a worker file, the command line or the filesystem
// goes through shown(): control characters (C0, DEL, C1), format characters (bidi controls such as
// U+202E, zero-width ones), line and paragraph separators and lone surrogates are written as
// escapes (\n, \t, \x1b, \u202e), and a backslash is doubled, so that a value is printed on
// its own line, reaches the terminal as text and reads back unambiguously: a mount source with a
// newline cannot forge a row of check's table. The JSON output (--json) is JSON.stringify's.
const UNSAFE = /[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const NAMED_ESCAPES = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCode(code) {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

function shown(value) {
  return String(value).replace(UNSAFE, (c) => NAMED_ESCAPES[c] ?? escapeCode(c.codePointAt(0)));
}

// The options that take a value, and those that are switches; each command takes only those its
// COMMANDS entry lists.
const VALUE_OPTIONS = ['--config', '--worker', '--cwd', '--timeout'];
const SWITCHES = ['--network', '--allow-weaker', '--verbose'];
const PATH_OPTIONS = ['--config', '--worker'];

// { positional, options, command, problem }: options by name ('--config': 'dir'), `command` what
// follows `--`, `problem` the first usage error found (reported once the command is known, so
// that the usage printed is that command's).
function parseArgs(argv) {
  const positional = [];
  const options = {};
  const flags = {};
  let command = null;
  let problem = null;
  const set = (name, value) => {
    if (Object.hasOwn(options, name)) problem ??= `${name} given twice`;
    options[name] = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      command = argv.slice(i + 1);
      break;
    }
    if (arg === '--help' || arg === '-h') flags.help = true;
    else if (arg === '--version' || arg === '-V') flags.version = true;
    else if (SWITCHES.includes(arg)) set(arg, true);
    else if (VALUE_OPTIONS.includes(arg)) {
      const value = argv[i + 1];
      // "--config --verbose" is a forgotten value, not a config named --verbose; "--config ''"
      // an empty variable, not the current directory.
      const missing = value === undefined || value.startsWith('--') || (value === '' && PATH_OPTIONS.includes(arg));
      if (missing) problem ??= `${arg} needs a value`;
      else set(arg, value);
      i++;
    } else if (arg.startsWith('-') && arg !== '-') problem ??= `unknown option ${arg}`;
    else positional.push(arg);
  }
  return { positional, options, flags, command, problem };
}

// exec's values as sandbox.exec() takes them, checked here so that a bad one is a usage error.
function checkExecOptions(options) {
  const timeout = options['--timeout'];
  // Digits only: Number() would take "1e3", "0x10", " 100" and "" too.
  if (timeout !== undefined && !(/^[0-9]+$/.test(timeout) && Number(timeout) >= 1 && Number(timeout) <= MAX_TIMEOUT_MS)) {
    throw new UsageError(`--timeout needs a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(timeout)}`);
  }
  const cwd = options['--cwd'];
  if (cwd !== undefined && !cwd.startsWith('/')) {
    throw new UsageError(`--cwd needs a virtual path starting with /, got ${JSON.stringify(cwd)}`);
  }
}

// Each command's arguments: only its own options, its positional arguments, `--` for exec alone.
function checkArgs(name, args) {
  const { takes } = COMMANDS[name];
  for (const option of Object.keys(args.options)) {
    if (!takes.includes(option)) throw new UsageError(`${name} does not take ${option}`);
  }
  const extra = args.positional.slice(1);
  if (name !== 'exec' && args.command !== null) throw new UsageError(`${name} runs no command: -- is for exec`);
  if (name === 'check') {
    if (extra.length > 1) throw new UsageError(`check takes at most one directory, got ${extra.length}`);
    if (extra.length === 1 && args.options['--config'] !== undefined) {
      throw new UsageError('check takes the config as a directory argument or as --config, not both');
    }
  } else if (name === 'explain') {
    if (extra.length === 0) throw new UsageError('explain needs a virtual path, such as /src/app.ts');
    if (extra.length > 1) throw new UsageError(`explain takes one virtual path, got ${extra.length}`);
  } else if (name === 'exec') {
    if (extra.length > 0) throw new UsageError(`exec takes its command after --: ${COMMANDS.exec.synopsis}`);
    if (!args.command || args.command.length === 0) throw new UsageError('exec needs a command after --');
    if (args.command[0] === '') throw new UsageError('exec needs a program to run after --, not an empty name');
    checkExecOptions(args.options);
  } else if (extra.length > 0) {
    throw new UsageError(`${name} takes no arguments`);
  }
}

async function loadConfig(where) {
  const target = path.resolve(where || '.');
  const stat = fs.existsSync(target) ? fs.statSync(target) : null;
  if (stat && stat.isFile()) {
    // The file named is used even with other config names beside it, but not from a place a
    // config above lets a sandbox write: a script's "--config golem-forge.config.yaml" run in a
    // directory a command made would otherwise read what that command planted.
    const config = await ms.loadProgramConfig(target);
    await checkConfigsAbove(config);
    return config;
  }
  if (!stat) throw new UsageError(`${target} does not exist`);
  // A FIFO would block the read, and a device is no config; findProgramConfig would search upward
  // from either as from a directory.
  if (!stat.isDirectory()) throw new UsageError(`${target} is neither a config file nor a directory`);
  const config = await ms.findProgramConfig(target);
  if (!config) {
    throw new UsageError(`no ${ms.CONFIG_FILE_NAMES.join(' / ')} found in ${target} or above`);
  }
  return config;
}

function describeRules({ readonly, approval, policy }) {
  const parts = [readonly ? 'ro' : 'rw', `write: ${shown(approval.write)}`, `delete: ${shown(approval.delete)}`];
  const list = (suffixes) => suffixes.map(shown).join(' ');
  if (policy.allowedSuffixes) parts.push(`allowed: ${list(policy.allowedSuffixes) || '(none)'}`);
  if (policy.deniedSuffixes.length) parts.push(`denied: ${list(policy.deniedSuffixes)}`);
  if (policy.maxFileBytes !== null) parts.push(`maxFileBytes: ${shown(policy.maxFileBytes)}`);
  return parts.join(', ');
}

function mountRows(table) {
  const rows = [];
  if (table.root !== null) rows.push({ target: '/', source: table.root, rules: describeRules(table) });
  for (const m of table.mounts) rows.push({ target: m.target, source: m.source, rules: describeRules(m) });
  return rows;
}

function printTable(out, rows) {
  const width = Math.max(...rows.map((r) => shown(r.target).length));
  for (const r of rows) {
    const missing = fs.existsSync(r.source) ? '' : '  (missing: created on first use)';
    out.push(`  ${shown(r.target).padEnd(width)}  ${shown(r.source)}  [${r.rules}]${missing}`);
  }
}

async function check(args) {
  const config = await loadConfig(args.positional[1] ?? args.options['--config']);
  const out = [`config: ${shown(config.file)}`, `delegation: maxDepth ${shown(config.delegation.maxDepth)}`];
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
  return `refused (${shown(error.code)}): ${shown(error.toLLMMessage ? error.toLLMMessage() : error.message)}`;
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
  return `allowed, approval: ${shown(sandbox.approvalFor(p, operation))}`;
}

function whereItResolves(sandbox, p) {
  const table = sandbox.describe();
  const rules = rulesFor(table, p);
  if (rules !== table) return `mount ${shown(rules.target)} [${describeRules(rules)}]`;
  if (table.root !== null) return `root / [${describeRules(table)}]`;
  return 'no mount (outside the sandbox, or a directory that only holds mounts)';
}

// What exec does to a protected file (explain's file verdicts are the file API's).
function protectionVerdict(sandbox, host) {
  const holder = host === null ? null : protectionOf(sandbox, host);
  if (holder === null) return null;
  const what = holder === host ? 'this file' : shown(path.basename(holder));
  return `protected: read-only to commands run by exec (${what}: the next run trusts it)`;
}

async function explain(args) {
  const p = args.positional[1];
  const { config, sandbox, worker } = await sandboxOf(args);
  const out = [`config: ${shown(config.file)}`];
  if (worker) out.push(`worker: ${shown(worker.name ?? path.basename(worker.file))} (sandbox: ${shown(worker.sandbox.kind)})`);
  if (sandbox === null) {
    out.push(`${shown(p)}: no sandbox, so no file access (${args.options['--worker'] !== undefined ? 'the worker is a pure function' : 'the config has no sandbox section'})`);
    return out;
  }
  out.push(`path: ${shown(p)}`);
  let host = null;
  try {
    host = sandbox.resolve(p);
    out.push(`resolves to: ${shown(host)}`);
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
  const config = await loadConfig(args.options['--config']);
  const workerFile = args.options['--worker'];
  if (workerFile !== undefined && !fs.existsSync(workerFile)) {
    throw new UsageError(`${path.resolve(workerFile)} does not exist`);
  }
  // Reading a FIFO would wait for a writer forever (a directory is refused as the read fails).
  if (workerFile !== undefined) {
    const stat = fs.statSync(workerFile);
    if (!stat.isFile() && !stat.isDirectory()) throw new Refusal(`${path.resolve(workerFile)} is not a regular file`);
  }
  return { config, ...(await sandboxFor(config, workerFile)) };
}

async function exec(args) {
  const given = args.options;
  const options = { network: given['--network'] === true, allowWeakerEnforcement: given['--allow-weaker'] === true };
  if (given['--cwd'] !== undefined) options.cwd = given['--cwd'];
  if (given['--timeout'] !== undefined) options.timeoutMs = Number(given['--timeout']); // checked in checkArgs
  const { sandbox } = await sandboxOf(args);
  if (sandbox === null) {
    const why = given['--worker'] !== undefined ? 'the worker is a pure function' : 'the config has no sandbox section';
    throw new Refusal(`this sandbox allows no file access (${why}), so there is nothing to run a command in`);
  }
  const result = await sandbox.exec(args.command, options);
  const lines = [];
  if (given['--verbose']) {
    const { landlockAbi, layers, missing } = result.enforcement;
    lines.push(`[mount-sandbox] Landlock ABI ${landlockAbi}; applied: ${layers.join(', ')}; missing: ${missing.join(', ') || 'none'}`);
  }
  let code = result.exitCode;
  if (result.timedOut) code = 124;
  else if (result.signal) code = 128 + (os.constants.signals[result.signal] || 0);
  return { code, lines, stdout: result.stdout, stderr: withNewline(result, args.command) };
}

// What sandbox.exec() says in stderr for a command that did not start ("Command not found: x")
// or was killed ("Command timed out after ...") ends without a newline: it is for a model. On a
// terminal it ends its line. The command's own output is left as it is.
function withNewline(result, argv) {
  const { stderr } = result;
  if (stderr.endsWith('\n')) return stderr;
  const notStarted = [`Command not found: ${argv[0]}`, `Permission denied: ${argv[0]}`].includes(stderr) &&
    (result.exitCode === 127 || result.exitCode === 126);
  return result.timedOut || notStarted ? `${stderr}\n` : stderr;
}

// Whether this kernel needs the profile, as the first line of what `apparmor` says on stderr.
function restrictionLine() {
  const restricted = apparmor.kernelRestrictsUserNamespaces();
  if (restricted) return `this kernel restricts user namespaces (${apparmor.SYSCTL} = 1): exec needs this profile. Install and load it, as root:`;
  const setting = restricted === null ? `no ${apparmor.SYSCTL}` : `${apparmor.SYSCTL} = 0`;
  return `this kernel does not restrict user namespaces (${setting}): exec needs no profile here. Where it does, install and load it, as root:`;
}

function appArmorProfile() {
  const profile = apparmor.profileFor(fs.realpathSync(launcherPath()));
  const stderr = `mount-sandbox: ${restrictionLine()}\n${apparmor.LOAD_COMMANDS.map((line) => `  ${line}\n`).join('')}`;
  return { code: 0, lines: [], stdout: profile, stderr };
}

// The command asked for, once known: a usage error prints that command's usage.
let asked = null;

async function main(argv) {
  const args = parseArgs(argv);
  const command = args.positional[0];
  if (COMMANDS[command]) asked = command;
  // "exec ls -la": its -la is the command's, not an unknown option.
  if (command === 'exec' && args.command === null && args.positional.length > 1) checkArgs(command, args);
  if (args.problem) throw new UsageError(args.problem);
  if (args.flags.version) return { code: 0, lines: [version] };
  if (command === 'help' && COMMANDS[args.positional[1]]) return { code: 0, lines: [commandHelp(args.positional[1])] };
  if (args.flags.help || command === 'help') {
    return { code: 0, lines: [COMMANDS[command] ? commandHelp(command) : USAGE] };
  }
  if (!command) return { code: 2, lines: [USAGE] };
  if (!COMMANDS[command]) throw new UsageError(`unknown command ${command}`);
  checkArgs(command, args);
  if (command === 'check') return { code: 0, lines: await check(args) };
  if (command === 'explain') return { code: 0, lines: await explain(args) };
  if (command === 'exec') return exec(args);
  return appArmorProfile();
}

// After a usage error: the usage of the command that was asked for, if there is one.
function usageFor() {
  return asked ? `Usage: ${COMMANDS[asked].synopsis}\n(mount-sandbox ${asked} --help for more)` : USAGE;
}

// A reader that stops reading (mount-sandbox check | head -1) is not an error to report: the
// rest of the output goes nowhere, and the exit status is the command's. (Nor could a failed write
// to stdout or stderr be reported anywhere.)
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

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
      process.stderr.write(`mount-sandbox: ${shown(error.message)}\n\n${usageFor()}\n`);
      process.exitCode = 2;
      return;
    }
    process.exitCode = 1;
    if (error instanceof ms.UnsupportedPlatformError) {
      // Its message starts "mount-sandbox cannot run here": said once, with the ways out.
      const steps = error.solutions.map((step) => `\n- ${shown(step)}`).join('');
      process.stderr.write(`mount-sandbox: cannot run here: ${shown(error.reason)}.${steps ? ` What to do:${steps}` : ''}\n`);
    } else if (error instanceof Refusal || ms.isSandboxError(error)) {
      process.stderr.write(`mount-sandbox: ${shown(error.message)}\n`);
    } else if (error && typeof error.syscall === 'string') {
      // An unreadable file or directory: the message names it; a stack trace would not help.
      process.stderr.write(`mount-sandbox: ${shown(error.message)}\n`);
    } else {
      // A bug: one line, unless asked for the stack trace.
      const debug = Boolean(process.env.MOUNT_SANDBOX_DEBUG);
      const text = debug ? String(error?.stack || error) : shown(error?.message ?? error);
      process.stderr.write(`mount-sandbox: internal error: ${text}${debug ? '' : ' (MOUNT_SANDBOX_DEBUG=1 prints its stack trace)'}\n`);
    }
  },
);
