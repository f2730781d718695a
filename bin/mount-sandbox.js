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
  sandboxFor, protectionOf, rulesFor, loadTrustedProgramConfig, launcherPath, apparmor, MAX_TIMEOUT_MS, parseNetwork,
} = require('../lib/cli/support.js');
const { version } = require('../package.json');

const CONFIG_OPTION = '  --config dir|file   the program config file, or the directory to search upward from for\n' +
  '                      golem-forge.config.{yaml,yml,json} (default: the current directory)';
const WORKER_OPTION = {
  explain: '  --worker file       answer for the narrower sandbox this .worker file gets from call_worker',
  exec: '  --worker file       run the command in the narrower sandbox this .worker file gets from\n' +
    '                      call_worker',
};
const JSON_OPTION = '  --json              print one JSON document on stdout instead (see below), errors included';
const COMMANDS = {
  check: {
    synopsis: 'mount-sandbox check [dir | --config dir|file] [--json]',
    takes: ['--config', '--json'],
    summary: 'Validate the program config and print its mount table.',
    help: `Validate the program config --config names (a dir argument, kept for older scripts, is
the same as --config dir: give one or the other) and print the effective mount table: each
mount's virtual target, host source, ro/rw, approvals and policies, marking sources that do not
exist yet. Says so when the config has no sandbox section (no file access). Values from the
config and the filesystem are printed with control and bidi characters escaped (\\n, \\x1b,
\\u202e) and a backslash doubled, so that a config you do not trust can be reviewed with it.

Options:
${CONFIG_OPTION}
${JSON_OPTION}

With --json: {"ok": true, "config", "delegation": {"maxDepth"}, "sandbox": null | {"layout",
"mounts": [{"target", "source", "readonly", "approval", "policy", "missing"}]}}, "/" first when
there is a root. An error is {"ok": false, "error": {"code", "message", ...}} with the same exit
status (code USAGE for a usage error); an invalid config's has file, line, column, keyPath and
expected.

Exit status: 0 valid; 1 invalid (file:line:column: keyPath: expected ...); 2 usage error.`,
  },
  explain: {
    synopsis: 'mount-sandbox explain <virtual-path> [--config dir|file] [--worker file] [--json]',
    takes: ['--config', '--worker', '--json'],
    summary: 'Say how a virtual path resolves and which rule allows or refuses each operation.',
    help: `Say where a virtual path such as /src/app.ts resolves on the host, which mount's rules
apply, and for read, write and delete whether the sandbox allows it (with the approval) or
refuses it, with the message a model would get. Paths are as the sandbox sees them: with
--worker, as that worker sees them (a worker restricted to /src sees its files at /). Values
from the config and the filesystem are escaped as check escapes them.

Options:
${CONFIG_OPTION}
${WORKER_OPTION.explain}
${JSON_OPTION}

With --json: {"ok": true, "config", "worker": null | {"name", "file", "sandbox"}, "path",
"fileAccess", "resolvesTo", "resolveError", "rulesFrom", "read", "write", "delete",
"protected"}; each verdict is {"result": "allowed" | "refused" | "not-found", ...}; without file
access, "reason" instead of the answers. An error is {"ok": false, "error": {"code", "message",
...}} with the same exit status (code USAGE for a usage error).

Exit status: 0 explained; 1 invalid config or worker file; 2 usage error.`,
  },
  exec: {
    synopsis: 'mount-sandbox exec [options] -- command [args...]',
    takes: ['--config', '--worker', '--cwd', '--timeout', '--network', '--allow', '--deny', '--allow-weaker', '--verbose', '--json'],
    summary: 'Run a command confined by the kernel to the sandbox, as sandbox.exec() does.',
    help: `Run a command confined by the kernel to the program's sandbox (or a worker's narrower
one), as sandbox.exec() does: it can read and write only what the sandbox allows, and has no
network unless --network, --allow or the config's network setting gives it some. Its output is
passed through as it is.

Options:
${CONFIG_OPTION}
${WORKER_OPTION.exec}
  --cwd /virtual/dir  the working directory, a virtual path (default: /)
  --network           let the command use the host's network
  --allow host[:port] let the command reach this host only by name, through the sandbox's judge
                      (repeat it; *.example.com for subdomains; within the config's network)
  --deny host[:port]  never let it reach this host, even where an --allow entry covers it
  --timeout ms        kill the command after this many milliseconds (default 30000, 1 to 300000)
  --allow-weaker      run even when an enforcement layer the kernel lacks is required
  --verbose           print the enforcement layers applied to stderr
${JSON_OPTION}

With --json the command's output is not passed through: {"ok": true, "exitStatus" (this
command's exit status), "exitCode", "signal", "timedOut", "truncated", "stdout", "stderr",
"view", "enforcement", "network"}, as sandbox.exec() returns them. An error is {"ok": false, "error":
{"code", "message", ...}} with the same exit status (code USAGE for a usage error).

Exit status: the command's; 124 on timeout; 128+n when killed by signal n; 1 when the sandbox
refuses to run it (no sandbox, a working directory that is not there, an enforcement layer
missing); 2 usage error.`,
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
class Refusal extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// Every value printed that came from a config, a worker file, the command line or the filesystem
// goes through shown() (the library's displayText): a mount source with a newline cannot forge a
// row of check's table. The --json document is escaped by jsonText().
const shown = ms.displayText;

// The options that take a value, and those that are switches; each command takes only those its
// COMMANDS entry lists.
const VALUE_OPTIONS = ['--config', '--worker', '--cwd', '--timeout'];
const SWITCHES = ['--network', '--allow-weaker', '--verbose', '--json'];
// Options given as often as needed, collected in order.
const LIST_OPTIONS = ['--allow', '--deny'];
const PATH_OPTIONS = ['--config', '--worker'];

// { positional, options, flags, command, problem }: options by name ('--config': 'dir'), flags
// --help and --version, `command` what follows `--`, `problem` the first usage error found
// (reported once the command is known, so that the usage printed is that command's).
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
    else if (LIST_OPTIONS.includes(arg)) {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--') || value === '') problem ??= `${arg} needs a host[:port]`;
      else options[arg] = [...(options[arg] || []), value];
      i++;
    } else if (VALUE_OPTIONS.includes(arg)) {
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
  const parts = [readonly ? 'ro' : 'rw', `write: ${shown(approval.write)}`, `delete: ${shown(approval.delete)}`];
  const list = (suffixes) => suffixes.map(shown).join(' ');
  if (policy.allowedSuffixes) parts.push(`allowed: ${list(policy.allowedSuffixes) || '(none)'}`);
  if (policy.deniedSuffixes.length) parts.push(`denied: ${list(policy.deniedSuffixes)}`);
  if (policy.maxFileBytes !== null) parts.push(`maxFileBytes: ${shown(policy.maxFileBytes)}`);
  return parts.join(', ');
}

// The rules of the root or of a mount, as describe() gives them.
function rulesOf({ readonly, approval, policy }) {
  return { readonly, approval: { ...approval }, policy: { ...policy } };
}

// check's table: the root (when there is one) and each mount, marking sources not there yet.
function mountRows(table) {
  const rows = [];
  if (table.root !== null) rows.push({ target: '/', source: table.root, ...rulesOf(table) });
  for (const m of table.mounts) rows.push({ target: m.target, source: m.source, ...rulesOf(m) });
  return rows.map((row) => ({ ...row, missing: !fs.existsSync(row.source) }));
}

function tableLines(rows) {
  const width = Math.max(...rows.map((r) => shown(r.target).length));
  return rows.map((r) => {
    const missing = r.missing ? '  (missing: created on first use)' : '';
    return `  ${shown(r.target).padEnd(width)}  ${shown(r.source)}  [${describeRules(r)}]${missing}`;
  });
}

const LAYOUTS = { mounts: 'mounts', sandboxed: 'zones, sandboxed mode', direct: 'zones, direct mode' };

// Each command answers with { code, report, lines }: `report` is the --json document, `lines`
// the text, each value in it through shown().
async function check(args) {
  const config = await loadConfig(args.positional[1] ?? args.options['--config']);
  const report = { ok: true, config: config.file, delegation: { maxDepth: config.delegation.maxDepth }, sandbox: null };
  const lines = [`config: ${shown(config.file)}`, `delegation: maxDepth ${shown(config.delegation.maxDepth)}`];
  if (config.sandbox === null) {
    lines.push('sandbox: none (no sandbox section: workers get no file access)');
    return { code: 0, report, lines };
  }
  // Built through the addon, so what is printed is what a sandbox would enforce.
  const sandbox = ms.createMountSandbox(ms.sandboxConfigFrom(config));
  const mounts = mountRows(sandbox.describe());
  const { names, released } = sandbox.describe().trustedNames;
  report.sandbox = { layout: config.sandbox.layout, mounts, trustedNames: { names, released } };
  const zonesOnly = config.sandbox.root === null ? ' ("/" lists the zones only)' : '';
  lines.push(`sandbox: ${LAYOUTS[config.sandbox.layout]}${zonesOnly}`, ...tableLines(mounts),
    ...trustedLines(names, released), 'ok');
  return { code: 0, report, lines };
}

// The names no change through the sandbox may touch (the core's set), by why the host trusts them.
function trustedLines(names, released) {
  const kinds = [...new Set(names.map((n) => n.kind))];
  const lines = ['trusted names (never changed by the file tools; read-only to commands; also the config and worker files):'];
  for (const kind of kinds) lines.push(`trusted (${kind}): ${names.filter((n) => n.kind === kind).map((n) => shown(n.name)).join(' ')}`);
  if (released.length > 0) lines.push(`released: ${released.map(shown).join(' ')}`);
  return lines;
}

// explain's verdicts: { result: 'allowed' | 'refused' | 'not-found', ... }.
function refused(error) {
  return { result: 'refused', code: error.code, message: error.toLLMMessage ? error.toLLMMessage() : error.message };
}

function verdictText(verdict) {
  if (verdict.result === 'refused') return `refused (${shown(verdict.code)}): ${shown(verdict.message)}`;
  if (verdict.result === 'not-found') return 'nothing there (not found)';
  if (verdict.type === 'file') return `allowed (file, ${verdict.size} bytes)`;
  if (verdict.type === 'directory') return `allowed (directory, ${verdict.entries} entries)`;
  return `allowed, approval: ${shown(verdict.approval)}`;
}

async function readVerdict(sandbox, p) {
  try {
    await sandbox.read(p, { offset: 0, length: 0 }); // every read rule, no data
    const info = await sandbox.stat(p);
    return { result: 'allowed', type: 'file', size: info.size };
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    if (error.code === 'NOT_FOUND') return { result: 'not-found' };
    if (error.code !== 'IS_DIRECTORY') return refused(error);
  }
  try {
    const names = await sandbox.list(p);
    return { result: 'allowed', type: 'directory', entries: names.length };
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    return refused(error);
  }
}

function changeVerdict(sandbox, p, operation) {
  const error = sandbox.checkChange(p, operation);
  if (error) return refused(error);
  return { result: 'allowed', approval: sandbox.approvalFor(p, operation) };
}

// Which rules apply: { kind: 'mount' | 'root', target, readonly, approval, policy } or { kind: 'none' }.
function rulesFrom(sandbox, p) {
  const table = sandbox.describe();
  const rules = rulesFor(table, p);
  if (rules !== table) return { kind: 'mount', target: rules.target, ...rulesOf(rules) };
  if (table.root !== null) return { kind: 'root', target: '/', ...rulesOf(table) };
  return { kind: 'none' };
}

function rulesFromText(rules) {
  if (rules.kind === 'mount') return `mount ${shown(rules.target)} [${describeRules(rules)}]`;
  if (rules.kind === 'root') return `root / [${describeRules(rules)}]`;
  return 'no mount (outside the sandbox, or a directory that only holds mounts)';
}

// What exec does to a protected file (explain's file verdicts are the file API's): { holder }, the
// trusted file or the directory of them that holds the path, or null.
// { trusted, holder }: why the host trusts it (the core's refusal of a change), and the
// protected host path that holds it where it is one of the sandbox's own files.
function protection(sandbox, p, host) {
  const refusal = sandbox.isValidPath(p) ? sandbox.checkChange(p, 'write') : null;
  const trusted = refusal !== null && refusal.code === 'HOST_TRUSTED' ? refusal.trusted : null;
  const holder = host === null ? null : protectionOf(sandbox, host);
  return trusted === null && holder === null ? null : { trusted: trusted ?? 'sandbox', holder };
}

function protectionText({ trusted, holder }, host) {
  const what = holder === null || holder === host ? 'this file' : shown(path.basename(holder));
  return `protected: the host trusts it (${trusted}): the file tools refuse every change, and it is read-only ` +
    `to commands run by exec (${what}: the next run trusts it)`;
}

async function explain(args) {
  const p = args.positional[1];
  const { config, sandbox, worker } = await sandboxOf(args);
  const report = {
    ok: true,
    config: config.file,
    worker: worker ? { name: worker.name ?? null, file: worker.file, sandbox: worker.sandbox.kind } : null,
    path: p,
  };
  const lines = [`config: ${shown(config.file)}`];
  if (worker) lines.push(`worker: ${shown(worker.name ?? path.basename(worker.file))} (sandbox: ${shown(worker.sandbox.kind)})`);
  if (sandbox === null) {
    const reason = worker ? 'the worker is a pure function' : 'the config has no sandbox section';
    lines.push(`${shown(p)}: no sandbox, so no file access (${reason})`);
    return { code: 0, report: { ...report, fileAccess: false, reason }, lines };
  }
  let host = null;
  let resolveError = null;
  try {
    host = sandbox.resolve(p);
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    resolveError = refused(error);
  }
  const answers = {
    fileAccess: true,
    resolvesTo: host,
    resolveError: resolveError && { code: resolveError.code, message: resolveError.message },
    rulesFrom: rulesFrom(sandbox, p),
    read: await readVerdict(sandbox, p),
    write: changeVerdict(sandbox, p, 'write'),
    delete: changeVerdict(sandbox, p, 'delete'),
    protected: protection(sandbox, p, host),
  };
  lines.push(
    `path: ${shown(p)}`,
    `resolves to: ${host === null ? verdictText(resolveError) : shown(host)}`,
    `rules from: ${rulesFromText(answers.rulesFrom)}`,
    `read:   ${verdictText(answers.read)}`,
    `write:  ${verdictText(answers.write)}`,
    `delete: ${verdictText(answers.delete)}`,
  );
  if (answers.protected !== null) lines.push(protectionText(answers.protected, host));
  return { code: 0, report: { ...report, ...answers }, lines };
}

// The config's sandbox, whose commands cannot change what the next run trusts; with --worker,
// the worker's narrower one, from a worker file no command could have written. explain and exec
// answer for this same sandbox.
async function sandboxOf(args, options) {
  const config = await loadConfig(args.options['--config']);
  const workerFile = args.options['--worker'];
  if (workerFile !== undefined) {
    if (!fs.existsSync(workerFile)) throw new UsageError(`${path.resolve(workerFile)} does not exist`);
    // Reading a FIFO would wait for a writer forever (a directory is refused as the read fails).
    const stat = fs.statSync(workerFile);
    if (!stat.isFile() && !stat.isDirectory()) {
      throw new Refusal('NOT_REGULAR_FILE', `${path.resolve(workerFile)} is not a regular file`);
    }
  }
  return { config, ...(await sandboxFor(config, workerFile, options)) };
}

// --network, or --allow/--deny: the network the command asks for (undefined: the sandbox's own).
// --deny alone narrows the config's allowlist.
function networkOption(given, sandbox) {
  const allow = given['--allow'];
  const deny = given['--deny'];
  if (given['--network'] === true && (allow || deny)) throw new UsageError('give either --network or --allow/--deny, not both');
  if (given['--network'] === true) return true;
  if (allow === undefined && deny === undefined) return undefined;
  const declared = sandbox.describe().network;
  if (allow === undefined && declared.mode !== 'filtered') {
    throw new UsageError('--deny narrows an allowlist: give --allow too, or a config whose sandbox has network: { allow: [...] }');
  }
  const value = { allow: allow ?? declared.allow, deny: deny ?? [] };
  try {
    parseNetwork(value, 'network');
  } catch (error) {
    throw new UsageError(String(error.message).replace(/^network\.allow\[(\d+)\]/, (_, i) => `--allow ${shown(value.allow[i])}`)
      .replace(/^network\.deny\[(\d+)\]/, (_, i) => `--deny ${shown(value.deny[i])}`));
  }
  return value;
}

function networkLines(network) {
  if (network === null) return [];
  const shown = (d) => `${d.host}${d.port === null ? '' : `:${d.port}`}`;
  const lines = network.allowed.map((a) => `[mount-sandbox] network: reached ${shown(a)} (${a.connections} connection${a.connections === 1 ? '' : 's'}, ${a.bytes} bytes)`);
  return [...lines, ...network.denied.map((d) => `[mount-sandbox] network: refused ${shown(d)} (${d.reason})`)];
}

async function exec(args) {
  const given = args.options;
  const options = { allowWeakerEnforcement: given['--allow-weaker'] === true };
  if (given['--cwd'] !== undefined) options.cwd = given['--cwd'];
  if (given['--timeout'] !== undefined) options.timeoutMs = Number(given['--timeout']); // checked in checkArgs
  const { sandbox } = await sandboxOf(args, { createSources: true });
  if (sandbox === null) {
    const why = given['--worker'] !== undefined ? 'the worker is a pure function' : 'the config has no sandbox section';
    throw new Refusal('NO_SANDBOX', `this sandbox allows no file access (${why}), so there is nothing to run a command in`);
  }
  const network = networkOption(given, sandbox);
  if (network !== undefined) options.network = network;
  const result = await sandbox.exec(args.command, options);
  const lines = [];
  if (given['--verbose'] && !given['--json']) { // the document has result.enforcement
    const { landlockAbi, layers, missing } = result.enforcement;
    lines.push(`[mount-sandbox] Landlock ABI ${landlockAbi}; applied: ${layers.join(', ')}; missing: ${missing.join(', ') || 'none'}`);
    lines.push(...networkLines(result.network));
  }
  let code = result.exitCode;
  if (result.timedOut) code = 124;
  else if (result.signal) code = 128 + (os.constants.signals[result.signal] || 0);
  const report = {
    ok: true,
    exitStatus: code,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    truncated: result.truncated,
    stdout: result.stdout,
    stderr: result.stderr,
    view: result.view,
    enforcement: result.enforcement,
    network: result.network,
  };
  return { code, report, lines, stdout: result.stdout, stderr: withNewline(result, args.command) };
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

// The command asked for, once known: a usage error prints that command's usage. With --json
// anywhere before `--`, whatever happens is one JSON document on stdout, even a usage error.
let asked = null;
let json = false;

async function main(argv) {
  const args = parseArgs(argv);
  const command = args.positional[0];
  if (COMMANDS[command]) asked = command;
  json = argv.slice(0, args.command === null ? argv.length : argv.indexOf('--')).includes('--json');
  // "exec ls -la": its -la is the command's, not an unknown option.
  if (command === 'exec' && args.command === null && args.positional.length > 1) checkArgs(command, args);
  if (args.problem) throw new UsageError(args.problem);
  if (args.flags.version) return { code: 0, lines: [version] };
  if (command === 'help' && COMMANDS[args.positional[1]]) return { code: 0, lines: [commandHelp(args.positional[1])] };
  if (args.flags.help || command === 'help') {
    return { code: 0, lines: [COMMANDS[command] ? commandHelp(command) : USAGE] };
  }
  if (!command) {
    if (json) throw new UsageError('no command given');
    return { code: 2, lines: [USAGE] };
  }
  if (!COMMANDS[command]) throw new UsageError(`unknown command ${command}`);
  checkArgs(command, args);
  if (command === 'check') return check(args);
  if (command === 'explain') return explain(args);
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

// The --json document, terminal-safe as well: JSON.stringify leaves DEL, C1 controls, bidi and
// other format characters and U+2028/2029 raw in strings; written as \u escapes they parse back
// the same (they occur only inside strings), and `cat`ting the document shows them as text.
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

function jsonText(doc) {
  const escape = (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  return `${JSON.stringify(doc, null, 2).replace(JSON_UNSAFE, escape)}\n`;
}

// An error as the --json document says it: its code and message, and what the error carries
// (a config error's file, line, column, keyPath and expected; a sandbox error's virtual path).
function errorReport(error) {
  if (error instanceof UsageError) return { code: 'USAGE', message: error.message };
  if (error instanceof Refusal) return { code: error.code, message: error.message };
  if (ms.isSandboxError(error)) {
    const { name, code, ...details } = error;
    return { code, name, message: error.message, ...details };
  }
  if (error && typeof error.syscall === 'string') {
    return { code: error.code, message: error.message, syscall: error.syscall, path: error.path };
  }
  return { code: 'INTERNAL', message: String(error?.message ?? error) };
}

function printText({ code, lines, stdout, stderr }) {
  if (stdout !== undefined) {
    // exec and apparmor: the command's own output (the profile), as it produced it.
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    if (lines.length) process.stderr.write(`${lines.join('\n')}\n`);
  } else {
    (code === 0 ? process.stdout : process.stderr).write(`${lines.join('\n')}\n`);
  }
}

function printError(error) {
  if (error instanceof UsageError) {
    process.stderr.write(`mount-sandbox: ${shown(error.message)}\n\n${usageFor()}\n`);
  } else if (error instanceof ms.UnsupportedPlatformError) {
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
    const text = process.env.MOUNT_SANDBOX_DEBUG ? String(error?.stack || error) : shown(error?.message ?? error);
    process.stderr.write(`mount-sandbox: internal error: ${text}${process.env.MOUNT_SANDBOX_DEBUG ? '' : ' (MOUNT_SANDBOX_DEBUG=1 prints its stack trace)'}\n`);
  }
}

main(process.argv.slice(2)).then(
  (answer) => {
    // Help and --version are text, --json or not.
    if (json && answer.report !== undefined) process.stdout.write(jsonText(answer.report));
    else printText(answer);
    process.exitCode = answer.code;
  },
  (error) => {
    process.exitCode = error instanceof UsageError ? 2 : 1;
    if (!json) {
      printError(error);
      return;
    }
    process.stdout.write(jsonText({ ok: false, error: errorReport(error) }));
    const internal = errorReport(error).code === 'INTERNAL';
    if (internal && process.env.MOUNT_SANDBOX_DEBUG) process.stderr.write(`${error?.stack || error}\n`);
  },
);
