'use strict';

// mount-sandbox exec: run a command confined by the kernel to the sandbox, as sandbox.exec()
// does, for a person trying what a worker's command would be allowed; the exit status is the
// command's, so that scripts can use it in its place.
const os = require('os');
const { MAX_TIMEOUT_MS, parseNetwork } = require('./support.js');
const { UsageError, Refusal, CONFIG_OPTION, JSON_OPTION } = require('./args.js');
const { shown } = require('./output.js');
const { sandboxOf } = require('./load.js');

const synopsis = 'mount-sandbox exec [options] -- command [args...]';
const takes = ['--config', '--worker', '--cwd', '--timeout', '--tmp-bytes', '--network', '--allow', '--deny', '--changes', '--apply', '--namespaces', '--allow-weaker', '--verbose', '--json'];
const CHANGE_MODES = ['apply', 'review', 'direct'];
const NAMESPACE_MODES = ['require', 'prefer', 'off'];
const summary = 'Run a command confined by the kernel to the sandbox, as sandbox.exec() does.';
const help = `Run a command confined by the kernel to the program's sandbox (or a worker's narrower
one), as sandbox.exec() does: it can read and write only what the sandbox allows, and has no
network unless --network, --allow or the config's network setting gives it some. Its output is
passed through as it is.

Options:
${CONFIG_OPTION}
  --worker file       run the command in the narrower sandbox this .worker file gets from
                      call_worker
  --cwd /virtual/dir  the working directory, a virtual path (default: /)
  --network           let the command use the host's network
  --allow host[:port] let the command reach this host only by name, through the sandbox's judge
                      (repeat it; *.example.com for subdomains; within the config's network)
  --deny host[:port]  never let it reach this host, even where an --allow entry covers it
  --timeout ms        kill the command after this many milliseconds (default 30000, 1 to 300000)
  --tmp-bytes n       the size of the command's /tmp in bytes (default: the config's tmpBytes, else
                      1073741824, 1 GiB); 0 puts it on the host's disk, unbounded
  --changes mode      apply (default): what the command changed lands after it, each change
                      judged by the sandbox's rules; review: print the changes, land nothing
                      (with --apply, land them after printing); direct: write as it runs
  --apply             with --changes review: land the changes once they are printed
  --namespaces mode   require (default): refuse to run where the kernel gives no user namespaces;
                      prefer: run without them there, where the rest suffices; off: never use them
  --allow-weaker      run even when an enforcement layer the kernel lacks is required
                      (mount-sandbox doctor says which this machine lacks)
  --verbose           print the enforcement layers applied to stderr
${JSON_OPTION}

With --json the command's output is not passed through: {"ok": true, "exitStatus" (this
command's exit status), "exitCode", "signal", "timedOut", "truncated", "stdout", "stderr",
"view", "enforcement", "network", "changes"}, as sandbox.exec() returns them. An error is {"ok": false, "error":
{"code", "message", ...}} with the same exit status (code USAGE for a usage error).

Exit status: the command's; 124 on timeout; 128+n when killed by signal n; 1 when the sandbox
refuses to run it (no sandbox, a working directory that is not there, an enforcement layer
missing); 2 usage error.`;

// exec's values as sandbox.exec() takes them, checked here so that a bad one is a usage error.
function checkExecOptions(options) {
  const timeout = options['--timeout'];
  // Digits only: Number() would take "1e3", "0x10", " 100" and "" too.
  if (timeout !== undefined && !(/^[0-9]+$/.test(timeout) && Number(timeout) >= 1 && Number(timeout) <= MAX_TIMEOUT_MS)) {
    throw new UsageError(`--timeout needs a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(timeout)}`);
  }
  const tmpBytes = options['--tmp-bytes'];
  if (tmpBytes !== undefined && !(/^[0-9]+$/.test(tmpBytes) && Number.isSafeInteger(Number(tmpBytes)))) {
    throw new UsageError(`--tmp-bytes needs a whole number of bytes (1073741824 is 1 GiB; 0 the host's disk), got ${JSON.stringify(tmpBytes)}`);
  }
  const changes = options['--changes'];
  if (changes !== undefined && !CHANGE_MODES.includes(changes)) {
    throw new UsageError(`--changes needs one of ${CHANGE_MODES.join(', ')}, got ${JSON.stringify(changes)}`);
  }
  const namespaces = options['--namespaces'];
  if (namespaces !== undefined && !NAMESPACE_MODES.includes(namespaces)) {
    throw new UsageError(`--namespaces needs one of ${NAMESPACE_MODES.join(', ')}, got ${JSON.stringify(namespaces)}`);
  }
  if (options['--apply'] === true && changes !== 'review') throw new UsageError('--apply goes with --changes review');
  const cwd = options['--cwd'];
  if (cwd !== undefined && !cwd.startsWith('/')) {
    throw new UsageError(`--cwd needs a virtual path starting with /, got ${JSON.stringify(cwd)}`);
  }
}

// `extra`: the positional arguments after the command's name; the command is what follows `--`.
function checkArgs(extra, args) {
  if (extra.length > 0) throw new UsageError(`exec takes its command after --: ${synopsis}`);
  if (!args.command || args.command.length === 0) throw new UsageError('exec needs a command after --');
  if (args.command[0] === '') throw new UsageError('exec needs a program to run after --, not an empty name');
  checkExecOptions(args.options);
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
  const hostPort = (d) => `${d.host}${d.port === null ? '' : `:${d.port}`}`;
  const count = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const lines = network.allowed.map((a) => `[mount-sandbox] network: reached ${hostPort(a)} (` +
    `${a.destinations === undefined ? '' : `${count(a.destinations, 'destination')}, `}${count(a.connections, 'connection')}, ${a.bytes} bytes)`);
  lines.push(...network.denied.map((d) => `[mount-sandbox] network: refused ${hostPort(d)} (${d.reason}${d.count > 1 ? `, ${d.count} times` : ''})`));
  const over = network.overflow;
  if (over !== undefined && over.refusals > 0) {
    lines.push(`[mount-sandbox] network: refused ${count(over.refusals, 'time')} more, to ${over.exact ? '' : 'at least '}` +
      `${count(over.denied, 'destination')} not listed (${Object.entries(over.reasons).map(([r, c]) => `${r}: ${c.refusals}`).join(', ')})`);
  }
  return lines;
}

// sandbox.exec()'s options from the command line's.
function execOptions(given) {
  /** @type {{ allowWeakerEnforcement: boolean, cwd?: string, timeoutMs?: number, network?: any, changes?: string, namespaces?: string, limits?: { tmpBytes: number } }} */
  const options = { allowWeakerEnforcement: given['--allow-weaker'] === true };
  if (given['--cwd'] !== undefined) options.cwd = given['--cwd'];
  if (given['--timeout'] !== undefined) options.timeoutMs = Number(given['--timeout']); // checked in checkArgs
  if (given['--changes'] !== undefined) options.changes = given['--changes'];
  if (given['--namespaces'] !== undefined) options.namespaces = given['--namespaces']; // checked in checkArgs
  if (given['--tmp-bytes'] !== undefined) options.limits = { tmpBytes: Number(given['--tmp-bytes']) }; // checked in checkArgs
  return options;
}

// One line per change that did not simply land, and a count of those that did.
function changeLines(changes, heading) {
  if (changes === null) return [];
  const line = (what, c) => `[mount-sandbox] ${what} ${c.kind} ${c.path}${c.reason ? `: ${c.reason}` : ''}`;
  return [
    ...(changes.applied.length > 0 ? [`[mount-sandbox] ${heading}: ${changes.applied.length} change(s) landed`] : []),
    ...changes.pending.map((c) => line('held', c)),
    ...changes.refused.map((c) => line('refused', c)),
    ...changes.conflicts.map((c) => line('conflict', c)),
  ];
}

const plainChanges = (changes) => (changes === null ? null : {
  mode: changes.mode, applied: changes.applied, refused: changes.refused, conflicts: changes.conflicts, pending: changes.pending, truncated: changes.truncated,
});

// The exit status a shell would give: 124 on timeout as timeout(1) does, 128+n for signal n.
function exitStatus(result) {
  if (result.timedOut) return 124;
  if (result.signal) return 128 + (os.constants.signals[result.signal] || 0);
  return result.exitCode;
}

async function run(args) {
  const given = args.options;
  const options = execOptions(given);
  const { sandbox } = await sandboxOf(args, { createSources: true });
  if (sandbox === null) {
    const why = given['--worker'] !== undefined ? 'the worker is a pure function' : 'the config has no sandbox section';
    throw new Refusal('NO_SANDBOX', `this sandbox allows no file access (${why}), so there is nothing to run a command in`);
  }
  const network = networkOption(given, sandbox);
  if (network !== undefined) options.network = network;
  const result = await sandbox.exec(args.command, options);
  const lines = given['--json'] ? [] : changeLines(result.changes, 'changes');
  let landed = null;
  if (given['--apply'] === true && result.changes !== null) {
    landed = await result.changes.apply();
    if (!given['--json']) lines.push(...changeLines(landed, 'applied'));
  }
  if (given['--verbose'] && !given['--json']) { // the document has result.enforcement
    const { landlockAbi, layers, missing } = result.enforcement;
    lines.push(`[mount-sandbox] Landlock ABI ${landlockAbi}; applied: ${layers.join(', ')}; missing: ${missing.join(', ') || 'none'}`);
    lines.push(...networkLines(result.network));
  }
  const code = exitStatus(result);
  const { exitCode, signal, timedOut, truncated, stdout, stderr, view, enforcement } = result;
  const report = {
    ok: true, exitStatus: code, exitCode, signal, timedOut, truncated, stdout, stderr, view, enforcement, network: result.network,
    changes: plainChanges(result.changes), ...(landed === null ? {} : { applied: landed }),
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

module.exports = { synopsis, takes, summary, help, checkArgs, run };
