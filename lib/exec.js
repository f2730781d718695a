'use strict';

// sandbox.exec(): runs a program confined by the kernel to what the sandbox allows. The policy
// is built here from the sandbox's mount table and applied by msb-launch (src/launcher/launcher_main.cc)
// to itself before it execs the program: Landlock, seccomp and, where the kernel allows, user,
// mount and PID namespaces. Node's own threads are never restricted.
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launcherPath } = require('./launcher');
const { ExecEnforcementError, ExecError, UnsupportedPlatformError } = require('./errors');
const { protectedFiles } = require('./protected');
const { appArmorNamespaceFailure, refusedIdMaps } = require('./apparmor');
const { gitProtection, removePlanted } = require('./git-protect');
const { plainData } = require('./plain');

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_OUTPUT_BYTES = 50 * 1024;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

// What every command sees of the host, read-only, at the same paths: programs and libraries, and
// of /etc only what a shell, git, node, python and a compiler were measured to read (strace), so
// not /etc/ssl/private, shadow or the host's other configuration.
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const ETC_ENTRIES = [
  'alternatives', 'bash.bashrc', 'debian_version', 'gitconfig', 'group', 'hosts', 'inputrc',
  'ld.so.cache', 'localtime', 'magic', 'mime.types', 'nsswitch.conf', 'os-release', 'passwd',
  'profile', 'protocols', 'services', 'ssl/certs', 'ssl/openssl.cnf', 'terminfo', 'timezone',
];
// Name resolution, needed only with the network on.
const ETC_NETWORK_ENTRIES = ['gai.conf', 'host.conf', 'resolv.conf'];
const DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom'];
const DEFAULT_WORKSPACE = '/workspace';
// Where the view keeps its own things: a workspace or a host path placed there would clash.
const RESERVED_PLACES = ['/dev', '/proc', '/tmp', '/etc', ...SYSTEM_PATHS];
// A PID namespace's pid_max cannot be set below 301 (the kernel reserves the first 300).
const MIN_PROCESSES = 300;
const DEFAULT_PROCESSES = 512;
const MAX_PROCESSES = 4_194_304;

const OPTIONS = [
  'cwd', 'env', 'stdin', 'timeoutMs', 'maxOutputBytes', 'network', 'namespaces',
  'allowWeakerEnforcement', 'hostReadPaths', 'workspace', 'limits', 'protectGit',
];
const LIMITS = ['processes', 'memoryBytes', 'cpuSeconds'];
const NAMESPACE_MODES = ['require', 'prefer', 'off'];

function boundedInteger(value, name, fallback, max) {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new RangeError(`expected an integer from 1 to ${max} for ${name}, got ${String(value)}`);
  }
  return value;
}

function booleanOption(value, name) {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new TypeError(`expected a boolean for ${name}, got ${typeof value}`);
  }
  return value === true;
}

function checkArgv(argv) {
  if (!Array.isArray(argv) || argv.length === 0) {
    throw new TypeError('expected a non-empty array of strings for argv, like ["ls", "-la"]');
  }
  argv.forEach((arg, i) => {
    if (typeof arg !== 'string') throw new TypeError(`expected a string for argv[${i}], got ${typeof arg}`);
    if (arg.includes('\0')) throw new TypeError(`argv[${i}] contains a NUL byte`);
    if (!arg.isWellFormed()) throw new TypeError(`argv[${i}] contains a lone surrogate (not valid UTF-16)`);
  });
  if (argv[0] === '') throw new TypeError('argv[0] is empty: name the program to run');
}

// The caller's variables, checked; merged over the minimal environment in launchPolicy.
function checkEnv(env) {
  if (env === undefined) return {};
  if (env === null || typeof env !== 'object' || Array.isArray(env)) {
    throw new TypeError('expected an object of strings for env, like { NODE_ENV: "test" }');
  }
  const out = Object.create(null); // a variable named "__proto__" is a variable like any other
  for (const [name, value] of Object.entries(env)) {
    if (name === '' || name.includes('=') || name.includes('\0') || !name.isWellFormed()) {
      throw new TypeError(`invalid environment variable name "${name}"`);
    }
    if (typeof value !== 'string' || value.includes('\0') || !value.isWellFormed()) {
      throw new TypeError(`expected a string without NUL or lone surrogates for env.${name}`);
    }
    out[name] = value;
  }
  return out;
}

function checkHostPaths(paths) {
  if (paths === undefined) return [];
  if (!Array.isArray(paths)) throw new TypeError('expected an array of absolute host paths for hostReadPaths');
  paths.forEach((p, i) => {
    if (typeof p !== 'string' || !path.isAbsolute(p) || p.includes('\0') || !p.isWellFormed()) {
      throw new TypeError(`expected an absolute host path for hostReadPaths[${i}]`);
    }
  });
  return paths.map((p) => path.resolve(p));
}

const within = (inner, outer) => outer === '/' || inner === outer || inner.startsWith(`${outer}/`);

function checkWorkspace(workspace) {
  if (workspace === undefined) return DEFAULT_WORKSPACE;
  if (typeof workspace !== 'string' || !path.posix.isAbsolute(workspace) || workspace.includes('\0') ||
      !workspace.isWellFormed() || path.posix.normalize(workspace) !== workspace || workspace.endsWith('/')) {
    throw new TypeError('expected a normalized absolute path for workspace, like "/workspace"');
  }
  const clash = RESERVED_PLACES.find((p) => within(workspace, p) || within(p, workspace));
  if (clash !== undefined) {
    throw new TypeError(`workspace ${workspace} overlaps ${clash}, which the command's root keeps for itself; use a path like /workspace`);
  }
  return workspace;
}

// Host paths placed read-only at their own path: never inside the workspace or over /proc or /dev.
function checkHostPlaces(hostReadPaths, workspace) {
  hostReadPaths.forEach((p, i) => {
    const clash = [workspace, '/proc', '/dev'].find((place) => within(p, place) || within(place, p));
    if (clash !== undefined) {
      throw new TypeError(`hostReadPaths[${i}] overlaps ${clash} in the command's root; pass a directory outside it`);
    }
  });
}

function checkLimits(limits) {
  if (limits === undefined) return { processes: DEFAULT_PROCESSES };
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) {
    throw new TypeError('expected an object for limits, like { processes: 256, memoryBytes: 2 ** 31, cpuSeconds: 60 }');
  }
  for (const key of Object.keys(limits)) {
    if (!LIMITS.includes(key)) throw new TypeError(`unknown limit "${key}" (allowed: ${LIMITS.join(', ')})`);
  }
  const out = { processes: DEFAULT_PROCESSES };
  if (limits.processes !== undefined) {
    if (!Number.isSafeInteger(limits.processes) || limits.processes < MIN_PROCESSES || limits.processes > MAX_PROCESSES) {
      throw new RangeError(`expected an integer from ${MIN_PROCESSES} (the kernel's floor) to ${MAX_PROCESSES} for limits.processes, got ${String(limits.processes)}`);
    }
    out.processes = limits.processes;
  }
  if (limits.memoryBytes !== undefined) out.memoryBytes = boundedInteger(limits.memoryBytes, 'limits.memoryBytes', 0, Number.MAX_SAFE_INTEGER);
  if (limits.cpuSeconds !== undefined) out.cpuSeconds = boundedInteger(limits.cpuSeconds, 'limits.cpuSeconds', 0, 2 ** 30);
  return out;
}

function checkStdin(stdin) {
  if (stdin === undefined || typeof stdin === 'string' || stdin instanceof Uint8Array) return;
  throw new TypeError('expected a string or Uint8Array for stdin');
}

const typeError = (message) => new TypeError(message);

// Everything validated before anything is created or run, on a plain copy of the options (no
// default from a prototype, no getter run; see lib/plain.js).
function parseOptions(given) {
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw new TypeError('expected an options object');
  const options = plainData(given, typeError);
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw new TypeError(`unknown option "${key}" (allowed: ${OPTIONS.join(', ')})`);
  }
  const namespaces = options.namespaces ?? 'require';
  if (!NAMESPACE_MODES.includes(namespaces)) {
    throw new TypeError(`expected one of ${NAMESPACE_MODES.join(', ')} for namespaces`);
  }
  if (options.cwd !== undefined && typeof options.cwd !== 'string') {
    throw new TypeError(`expected a virtual path string for cwd, got ${typeof options.cwd}`);
  }
  checkStdin(options.stdin);
  const workspace = checkWorkspace(options.workspace);
  const hostReadPaths = checkHostPaths(options.hostReadPaths);
  checkHostPlaces(hostReadPaths, workspace);
  return {
    cwd: options.cwd ?? '/',
    timeoutMs: boundedInteger(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
    maxOutputBytes: boundedInteger(options.maxOutputBytes, 'maxOutputBytes', DEFAULT_MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES),
    network: booleanOption(options.network, 'network'),
    allowWeaker: booleanOption(options.allowWeakerEnforcement, 'allowWeakerEnforcement'),
    namespaces,
    hostReadPaths,
    workspace,
    limits: checkLimits(options.limits),
    protectGit: options.protectGit === undefined || booleanOption(options.protectGit, 'protectGit'),
    env: checkEnv(options.env),
    stdin: options.stdin,
  };
}

// Where a virtual path appears in the command's root.
const viewPath = (workspace, virtual) => (virtual === '/' ? workspace : `${workspace}${virtual}`);

// The working directory: a directory of the sandbox, checked through it (symlink rules and all),
// with the host directory and its identity, which the launcher checks again before entering it.
async function workingDirectory(sandbox, cwd, workspace) {
  const info = await sandbox.stat(cwd);
  if (!info.isDirectory) throw new ExecError(`cwd must be a directory: ${cwd}`, cwd, 'cwd');
  const host = sandbox.resolve(cwd);
  if (host === undefined || host === null) {
    throw new ExecError(
      `cwd ${cwd} is not inside a mount; use one of: ${sandbox.readablePaths().join(', ')}`, cwd, 'cwd',
    );
  }
  // A concurrent command may have swapped it since the check above.
  const id = await fs.promises.stat(host, { bigint: true }).catch(() => {
    throw new ExecError(`the working directory ${cwd} changed while the command was starting; refusing to run`, cwd, 'cwd-changed');
  });
  return { virtual: path.posix.resolve('/', cwd), view: viewPath(workspace, path.posix.resolve('/', cwd)), host, id: `${id.dev}:${id.ino}` };
}

// A mount whose target directory is missing where it would appear is created there, as Docker
// does, but only where the enclosing source is writable: said here, with the virtual paths.
function checkMountTargets(sandboxPaths) {
  const placed = sandboxPaths.filter((e) => e.target !== undefined);
  for (const mount of placed) {
    if (mount.target === '/') continue;
    const outer = placed
      .filter((e) => e !== mount && e.target !== mount.target && within(mount.target, e.target))
      .sort((a, b) => b.target.length - a.target.length)[0];
    if (!outer || outer.access !== 'read') continue;
    const rel = outer.target === '/' ? mount.target : mount.target.slice(outer.target.length);
    if (!fs.existsSync(path.join(outer.path, rel))) {
      throw new ExecError(
        `mount target ${mount.target} does not exist in ${outer.target}, which is read-only, so the command cannot see the mount there: create the directory ${mount.target} or choose a target that exists`,
        mount.target, 'mount-target',
      );
    }
  }
}

const readable = (p) => ({ path: p, access: 'read', target: p });

// What every command may read to start at all, at the same paths as on the host.
function systemPaths(network) {
  const etc = [...ETC_ENTRIES, ...(network ? ETC_NETWORK_ENTRIES : [])].map((name) => `/etc/${name}`);
  return [...SYSTEM_PATHS, ...etc].map(readable);
}

function launchPolicy(sandboxPaths, protectedPaths, opts, argv, cwd, tmp) {
  const env = { PATH: DEFAULT_PATH, HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8', ...opts.env };
  return {
    argv,
    env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    cwd: cwd.view,
    hostCwd: cwd.host,
    cwdId: cwd.id,
    paths: [
      ...systemPaths(opts.network),
      // Read by commands where the launcher cannot build their root (namespaces off).
      { path: '/proc', access: 'read' },
      ...opts.hostReadPaths.map(readable),
      ...DEVICES.map((p) => ({ path: p, access: 'device', target: p })),
      { path: tmp, access: 'write', target: '/tmp' },
      ...sandboxPaths.map((e) => (e.target === undefined ? e : { ...e, target: viewPath(opts.workspace, e.target) })),
      ...protectedPaths.map((p) => ({ path: p, access: 'protect' })),
    ],
    network: opts.network,
    namespaces: opts.namespaces,
    allowWeaker: opts.allowWeaker,
    limits: opts.limits,
  };
}

// Keeps the first `limit` bytes of a stream (cut at a character boundary) and drains the rest.
class Capture {
  constructor(limit) {
    this.limit = limit;
    this.chunks = [];
    this.size = 0;
    this.truncated = false;
  }

  add(chunk) {
    const room = this.limit - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text() {
    let buf = Buffer.concat(this.chunks);
    if (this.truncated) buf = buf.subarray(0, utf8Boundary(buf));
    return buf.toString('utf8');
  }
}

// Length of the longest prefix that does not end inside a UTF-8 sequence.
function utf8Boundary(buf) {
  let start = buf.length;
  while (start > 0 && start > buf.length - 4 && (buf[start - 1] & 0xc0) === 0x80) start--;
  if (start === 0) return buf.length;
  const lead = buf[start - 1];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return buf.length - (start - 1) >= need ? buf.length : start - 1;
}

const STAGE_MESSAGES = {
  'landlock-unavailable': [
    'Landlock is not available on this kernel, so the command cannot be confined', ['landlock-fs'],
  ],
  'namespaces-unavailable': [
    'unprivileged user namespaces are not available here. Without them read-only files can still ' +
      'be chmod-ed and touched, and processes can outlive the command (pass namespaces: "prefer" ' +
      'to run without them where the rest suffices)',
    ['namespaces'],
  ],
  'private-proc-unavailable': [
    'a private /proc cannot be mounted here (the host /proc has masked paths, as in containers), ' +
      'and the host\'s would show every host process and its command line',
    ['private-proc'],
  ],
  'namespaces-required': [
    'the namespace layer is indispensable here (the command runs as root, or a read-only or ' +
      'delete-blocked mount lies inside a writable one), and it is unavailable on this kernel or ' +
      'namespaces: "off" was given',
    ['namespaces'],
  ],
};

function launchError(reportedStage, errno, cwd) {
  // Where AppArmor keeps the launcher from its namespaces (Ubuntu), the message says what to run.
  const { stage, hint } = appArmorNamespaceFailure(reportedStage, errno);
  const known = Object.hasOwn(STAGE_MESSAGES, stage) ? STAGE_MESSAGES[stage] : undefined;
  if (known) {
    return new ExecEnforcementError(
      `Refusing to run: ${known[0]}.${hint} Pass { allowWeakerEnforcement: true } to run with what this machine offers.`,
      known[1],
    );
  }
  const reason = errno ? ` (${errnoName(errno)})` : '';
  if (stage === 'cwd') return new ExecError(`cannot enter the working directory ${cwd}${reason}`, cwd, stage);
  if (stage === 'cwd-changed') {
    return new ExecError(`the working directory ${cwd} was replaced while the command was starting; refusing to run`, cwd, stage);
  }
  if (stage === 'root') {
    return new ExecError(`cannot build the command's root${reason}: a mount's target could not be made or a source changed; refusing to run`, undefined, stage);
  }
  if (stage === 'path-changed') {
    return new ExecError('a mount source of this sandbox was replaced on disk since the sandbox was made; refusing to run', undefined, stage);
  }
  if (stage === 'path') {
    return new ExecError(`a mount source of this sandbox cannot be opened${reason}: it was moved or removed since the sandbox was made; refusing to run`, undefined, stage);
  }
  return new ExecError(`the exec launcher failed at "${stage}"${reason}`, undefined, stage);
}

function errnoName(errno) {
  const entry = Object.entries(os.constants.errno).find(([, n]) => n === errno);
  return entry ? entry[0] : `errno ${errno}`;
}

// Reads the launcher's status lines (see src/launcher/launcher_main.cc).
function parseStatus(text) {
  const status = { ok: null, error: null, execErrno: null, waitStatus: null };
  for (const line of text.split('\n')) {
    const [kind, ...rest] = line.split(' ');
    if (kind === 'ok' && rest.length === 3) {
      const list = (s) => (s === '-' ? [] : s.split(','));
      status.ok = { landlockAbi: Number(rest[0]), layers: list(rest[1]), missing: list(rest[2]) };
    } else if (kind === 'error') {
      // "error <stage> [<syscall>] <errno>": the call's name where one failed.
      status.error = { stage: rest[0], syscall: rest.length > 2 ? rest[1] : undefined, errno: Number(rest[rest.length - 1]) };
    } else if (kind === 'exec') {
      status.execErrno = Number(rest[0]);
    } else if (kind === 'status') {
      status.waitStatus = Number(rest[0]);
    }
  }
  return status;
}

function signalName(number) {
  const entry = Object.entries(os.constants.signals).find(([, n]) => n === number);
  return entry ? entry[0] : `SIG${number}`;
}

// How the command ended: from the PID namespace's report, else from the launcher itself.
function outcome(status, code, signal) {
  if (status.waitStatus !== null) {
    const term = status.waitStatus & 0x7f;
    if (term === 0) return { exitCode: (status.waitStatus >> 8) & 0xff, signal: null };
    return { exitCode: -1, signal: signalName(term) };
  }
  return signal ? { exitCode: -1, signal } : { exitCode: code ?? -1, signal: null };
}

const PERMISSION_PATTERN = /Permission denied|Operation not permitted|Read-only file system|\bE(?:ACCES|PERM|ROFS)\b/;
// Socket calls refused with the network off: "connect EACCES" (Node), "socket: Permission
// denied" (curl, Python), failed name lookups (no UDP for DNS).
const NETWORK_PATTERN =
  /Network is unreachable|\bENETUNREACH\b|\bEAI_AGAIN\b|name resolution|Could not resolve|Name or service not known|getaddrinfo|\b(?:connect|socket|bind|listen|send|sendto)(?:\(\))?:? (?:Permission denied|EACCES)\b/i;

// Where the command finds a virtual path: in its root (`view`), or on the host where the launcher
// could not build one (namespaces off); with the way there from its working directory.
function shownPath(sandbox, virtual, cwd, view) {
  const shown = view ? viewPath(view.workspace, virtual) : sandbox.resolve(virtual);
  if (typeof shown !== 'string') return virtual;
  const from = view ? view.cwd : cwd.host;
  const rel = path.relative(from, shown) || '.';
  const way = rel.startsWith('..') ? rel : `./${rel}`.replace(/^\.\/\.$/, '.');
  return view ? `${shown} (${way} from the working directory)` : `${virtual} (${way} from the working directory)`;
}

function writableNote(sandbox, cwd, view) {
  const places = sandbox.writablePaths().map((p) => shownPath(sandbox, p, cwd, view));
  const where = view ? `the sandbox is at ${view.workspace}, ` : '';
  const tmp = view ? '/tmp' : 'its temporary directory ($TMPDIR)';
  if (places.length === 0) {
    return `Note: this command runs in a read-only sandbox: ${where}it can read only the sandbox and system directories, and write only to ${tmp}.`;
  }
  return `Note: this command runs in a sandbox: ${where}it can read only the sandbox and system directories, and write only to ${places.join(', ')} and ${tmp}.`;
}

// In its own network namespace the command's 127.0.0.1 is its own: the host's services refuse.
const REFUSED_PATTERN = /\bECONNREFUSED\b|Connection refused/;

function guidingNotes(result, sandbox, cwd, view, network) {
  if (result.exitCode === 0) return result.stderr;
  const notes = [];
  const ownNetwork = result.enforcement.layers.includes('network-namespace');
  const aboutNetwork = (text) => NETWORK_PATTERN.test(text) || (ownNetwork && REFUSED_PATTERN.test(text));
  if (!network && aboutNetwork(result.stderr)) notes.push('Note: Network access is disabled for this worker.');
  // A refused connect says "Permission denied" too: that line is the network note's.
  const otherLines = result.stderr.split('\n').filter((line) => network || !aboutNetwork(line));
  if (otherLines.some((line) => PERMISSION_PATTERN.test(line))) notes.push(writableNote(sandbox, cwd, view));
  return notes.length === 0 ? result.stderr : `${result.stderr.replace(/\n$/, '')}\n\n${notes.join('\n')}\n`;
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

// Spawns the launcher (policy on fd 4, status back on fd 3: never in argv, which every process
// can read) and collects what the command produced.
function run(policy, opts) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(launcherPath(), [], {
        stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
        env: {}, // nothing from our environment reaches the launcher (LD_PRELOAD and the like)
        cwd: '/',
        detached: true, // its own process group, killed as a whole
      });
    } catch (err) {
      if (err instanceof UnsupportedPlatformError) {
        reject(err);
        return;
      }
      reject(new ExecError(`cannot start the exec launcher: ${err.code || err.message}`, undefined, 'spawn'));
      return;
    }
    const policyPipe = /** @type {import('stream').Writable} */ (child.stdio[4]);
    policyPipe.on('error', () => {}); // a launcher that died early reports on fd 3 or its status
    policyPipe.end(JSON.stringify(policy));
    const stdout = new Capture(opts.maxOutputBytes);
    const stderr = new Capture(opts.maxOutputBytes);
    let statusText = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
      // A process that left the group may still hold the pipes open.
      for (const stream of [child.stdout, child.stderr, child.stdio[3]]) stream.destroy();
    }, opts.timeoutMs);
    child.stdout.on('data', (d) => stdout.add(d));
    child.stderr.on('data', (d) => stderr.add(d));
    const statusPipe = /** @type {import('stream').Readable} */ (child.stdio[3]);
    statusPipe.setEncoding('utf8');
    statusPipe.on('data', (d) => {
      if (statusText.length < 4096) statusText += d;
    });
    child.stdin.on('error', () => {}); // the command need not read its input
    child.stdin.end(opts.stdin === undefined ? undefined : Buffer.from(opts.stdin));
    // When the command ends, so does whatever it left running in its group.
    child.on('exit', () => killGroup(child.pid));
    child.on('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      clearTimeout(timer);
      reject(new ExecError(`cannot start the exec launcher: ${err.code || err.message}`, undefined, 'spawn'));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ status: parseStatus(statusText), code, signal, stdout, stderr, timedOut });
    });
  });
}

// The limits in force: each only when its layer was applied.
function enforcedLimits(limits, layers) {
  return {
    processes: layers.includes('process-limit') ? limits.processes : null,
    memoryBytes: layers.includes('memory-limit') ? limits.memoryBytes : null,
    cpuSeconds: layers.includes('cpu-limit') ? limits.cpuSeconds : null,
  };
}

// Ubuntu's AppArmor restriction lets the launcher unshare, then refuses it the id maps: too late
// for that launcher to go without namespaces. Where the caller allows that ("prefer", or
// allowWeakerEnforcement), a second launcher runs with namespaces "off" (the command had not
// started); it still refuses where the layer is indispensable, as the first would have.
async function runAllowingFallback(policy, opts) {
  const ran = await run(policy, opts);
  const { error } = ran.status;
  const allowed = policy.namespaces === 'prefer' || policy.allowWeaker;
  if (!error || !allowed || !refusedIdMaps(error.stage, error.errno)) return ran;
  return run({ ...policy, namespaces: 'off' }, opts);
}

// `handle` is the sandbox's native object (for its pinned mount sources).
async function exec(sandbox, handle, givenArgv, options = {}) {
  const argv = Array.isArray(givenArgv) ? plainData(givenArgv, typeError, 'argv') : givenArgv;
  checkArgv(argv);
  const opts = parseOptions(options);
  const cwd = await workingDirectory(sandbox, opts.cwd, opts.workspace);
  const sandboxPaths = handle.execPaths();
  checkMountTargets(sandboxPaths);
  const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mount-sandbox-exec-'));
  let enforced = null;
  let git = { protect: [], pin: [], absent: [] };
  try {
    // What the host's git runs later stays as it is (lib/git-protect.js).
    if (opts.protectGit) {
      const writable = sandboxPaths.filter((p) => p.access === 'write' || p.access === 'writeKeep');
      git = gitProtection(writable.map((p) => p.path));
      sandboxPaths.push(
        ...git.protect.map((p) => ({ path: p, access: 'protect' })),
        ...git.pin.map((p) => ({ path: p, access: 'pin' })),
      );
    }
    const protectedPaths = protectedFiles(sandbox).filter((file) => fs.existsSync(file));
    const policy = launchPolicy(sandboxPaths, protectedPaths, opts, argv, cwd, tmp);
    const ran = await runAllowingFallback(policy, opts);
    const { status } = ran;
    enforced = status.ok;
    if (status.error) {
      const error = launchError(status.error.stage, status.error.errno, opts.cwd);
      if (status.error.syscall) error.syscall = status.error.syscall;
      throw error;
    }
    if (!status.ok) {
      if (ran.timedOut) throw new ExecError('the exec launcher did not start in time', undefined, 'start');
      throw new ExecError('the exec launcher ended without confining the command', undefined, 'start');
    }
    const view = status.ok.layers.includes('private-root') ? { workspace: opts.workspace, cwd: cwd.view } : null;
    const result = {
      stdout: ran.stdout.text(),
      stderr: ran.stderr.text(),
      ...outcome(status, ran.code, ran.signal),
      truncated: ran.stdout.truncated || ran.stderr.truncated,
      timedOut: ran.timedOut,
      view,
      enforcement: { ...status.ok, limits: enforcedLimits(opts.limits, status.ok.layers) },
    };
    if (status.execErrno !== null) {
      const notFound = status.execErrno === os.constants.errno.ENOENT;
      result.exitCode = notFound ? 127 : 126;
      result.stderr = notFound ? `Command not found: ${argv[0]}` : `Permission denied: ${argv[0]}`;
    }
    if (ran.timedOut) {
      result.exitCode = -1;
      result.signal = 'SIGKILL';
      result.stderr += `\nCommand timed out after ${opts.timeoutMs} ms; its processes were killed.`;
    }
    result.stderr = guidingNotes(result, sandbox, cwd, view, opts.network);
    return result;
  } finally {
    await removeTempDir(tmp, enforced);
    await removePlanted(git.absent, enforced);
  }
}

// Without the PID namespace a process of the command may still run and swap directories for
// symlinks while we delete: then the deletion itself runs confined to the temp directory.
async function removeTempDir(tmp, enforced) {
  if (enforced && enforced.layers.includes('pid-namespace')) {
    await fs.promises.rm(tmp, { recursive: true, force: true, maxRetries: 2 });
    return;
  }
  const policy = {
    argv: ['/bin/rm', '-rf', '--', tmp],
    env: [`PATH=${DEFAULT_PATH}`],
    cwd: '/',
    paths: [...systemPaths(false), readable(path.dirname(tmp)), { path: tmp, access: 'write' }],
    namespaces: 'off', // on the host's paths, as it names them
    allowWeaker: true,
  };
  await run(policy, { timeoutMs: MAX_TIMEOUT_MS, maxOutputBytes: 1024 }).catch(() => {});
  await fs.promises.rmdir(tmp).catch(() => {}); // its parent is not the command's to swap
}

module.exports = { exec, parseOptions, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES };
