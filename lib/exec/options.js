'use strict';

// sandbox.exec()'s arguments, checked before anything is created or run: argv and the options
// object with its defaults and bounds.
const { path } = require('../common/builtins');
const { plainData } = require('../common/plain');
const { SYSTEM_PATHS } = require('./view');
const { isWithin } = require('../common/paths');
const { parseNetwork, parseEntry } = require('../network/policy');

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_OUTPUT_BYTES = 50 * 1024;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const DEFAULT_WORKSPACE = '/workspace';
// Where the view keeps its own things: a workspace or a host path placed there would clash.
const RESERVED_PLACES = ['/dev', '/proc', '/tmp', '/etc', ...SYSTEM_PATHS];
// A PID namespace's pid_max cannot be set below 301 (the kernel reserves the first 300).
const MIN_PROCESSES = 300;
const DEFAULT_PROCESSES = 512;
const MAX_PROCESSES = 4_194_304;

const OPTIONS = [
  'cwd', 'env', 'stdin', 'timeoutMs', 'maxOutputBytes', 'network', 'namespaces',
  'allowWeakerEnforcement', 'hostReadPaths', 'workspace', 'limits', 'protectGit', 'grant', 'onRequest',
  'signal', 'protectSharedLinks', 'changes', 'holdAsk',
];
const LIMITS = ['processes', 'memoryBytes', 'cpuSeconds', 'tmpBytes'];
// The command's /tmp (its HOME too): a tmpfs of this size, so that a command cannot fill the
// host's disk through it. 1 GiB holds what agents put there (npm's and pip's caches of a project,
// a build's objects, a cloned repository) and is memory only as far as it is used. 0: the host's
// disk, unbounded.
const DEFAULT_TMP_BYTES = 2 ** 30;
const NAMESPACE_MODES = ['require', 'prefer', 'off'];
// What becomes of a command's changes (docs/exec.md): landed after it by the file API's rules,
// held for review, or written straight to the host as it runs.
const CHANGE_MODES = ['apply', 'review', 'direct'];

function checkChanges(changes) {
  if (changes === undefined || CHANGE_MODES.includes(changes)) return changes;
  throw new TypeError(`expected one of ${CHANGE_MODES.join(', ')} for changes`);
}

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

function checkWorkspace(workspace) {
  if (workspace === undefined) return DEFAULT_WORKSPACE;
  if (typeof workspace !== 'string' || !path.posix.isAbsolute(workspace) || workspace.includes('\0') ||
      !workspace.isWellFormed() || path.posix.normalize(workspace) !== workspace || workspace.endsWith('/')) {
    throw new TypeError('expected a normalized absolute path for workspace, like "/workspace"');
  }
  const clash = RESERVED_PLACES.find((p) => isWithin(workspace, p) || isWithin(p, workspace));
  if (clash !== undefined) {
    throw new TypeError(`workspace ${workspace} overlaps ${clash}, which the command's root keeps for itself; use a path like /workspace`);
  }
  return workspace;
}

// Host paths placed read-only at their own path: never inside the workspace or over /proc or /dev.
function checkHostPlaces(hostReadPaths, workspace) {
  hostReadPaths.forEach((p, i) => {
    const clash = [workspace, '/proc', '/dev'].find((place) => isWithin(p, place) || isWithin(place, p));
    if (clash !== undefined) {
      throw new TypeError(`hostReadPaths[${i}] overlaps ${clash} in the command's root; pass a directory outside it`);
    }
  });
}

function checkLimits(limits) {
  if (limits === undefined) return { processes: DEFAULT_PROCESSES, tmpBytes: DEFAULT_TMP_BYTES };
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) {
    throw new TypeError('expected an object for limits, like { processes: 256, memoryBytes: 2 ** 31, cpuSeconds: 60, tmpBytes: 2 ** 30 }');
  }
  for (const key of Object.keys(limits)) {
    if (!LIMITS.includes(key)) throw new TypeError(`unknown limit "${key}" (allowed: ${LIMITS.join(', ')})`);
  }
  const out = { processes: DEFAULT_PROCESSES, tmpBytes: DEFAULT_TMP_BYTES };
  if (limits.processes !== undefined) {
    if (!Number.isSafeInteger(limits.processes) || limits.processes < MIN_PROCESSES || limits.processes > MAX_PROCESSES) {
      throw new RangeError(`expected an integer from ${MIN_PROCESSES} (the kernel's floor) to ${MAX_PROCESSES} for limits.processes, got ${String(limits.processes)}`);
    }
    out.processes = limits.processes;
  }
  if (limits.memoryBytes !== undefined) out.memoryBytes = boundedInteger(limits.memoryBytes, 'limits.memoryBytes', 0, Number.MAX_SAFE_INTEGER);
  if (limits.cpuSeconds !== undefined) out.cpuSeconds = boundedInteger(limits.cpuSeconds, 'limits.cpuSeconds', 0, 2 ** 30);
  if (limits.tmpBytes === 0) out.tmpBytes = 0; // the host's disk, asked for by name
  else if (limits.tmpBytes !== undefined) out.tmpBytes = boundedInteger(limits.tmpBytes, 'limits.tmpBytes', 0, Number.MAX_SAFE_INTEGER);
  return out;
}

// Entries an approval grants to this one call, beyond the sandbox's network (never past its deny
// list): { network: ['github.com:443'] }.
function checkGrant(grant) {
  if (grant === undefined) return null;
  if (grant === null || typeof grant !== 'object' || Array.isArray(grant)) {
    throw new TypeError('expected an object like { network: ["github.com:443"] } for grant');
  }
  for (const key of Object.keys(grant)) {
    if (key !== 'network') throw new TypeError(`unknown key "${key}" in grant (allowed: network)`);
  }
  if (grant.network === undefined) return null;
  if (!Array.isArray(grant.network)) throw new TypeError('expected an array of host[:port] strings for grant.network');
  grant.network.forEach((text, i) => parseEntry(text, `grant.network[${i}]`));
  return [...grant.network];
}

function checkOnRequest(onRequest) {
  if (onRequest === undefined || typeof onRequest === 'function') return onRequest ?? null;
  throw new TypeError('expected a function ({ host, port }) => boolean | Promise<boolean> for onRequest');
}

function checkStdin(stdin) {
  if (stdin === undefined || typeof stdin === 'string' || stdin instanceof Uint8Array) return;
  throw new TypeError('expected a string or Uint8Array for stdin');
}

// The caller's AbortSignal itself (a plain copy of it would be an empty object): taken from the
// given options' own data property, which plainData has already checked is no getter.
function checkSignal(given) {
  const descriptor = Reflect.getOwnPropertyDescriptor(given, 'signal');
  if (descriptor === undefined || descriptor.value === undefined) return null;
  if (descriptor.value instanceof AbortSignal) return descriptor.value;
  throw new TypeError('expected an AbortSignal for signal, like new AbortController().signal');
}

const typeError = (message) => new TypeError(message);

// Everything validated before anything is created or run, on a plain copy of the options (no
// default from a prototype, no getter run; see lib/common/plain.js).
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
    // undefined: the sandbox's own network (lib/network/scope.js)
    network: options.network === undefined ? undefined : parseNetwork(options.network, 'network'),
    grant: checkGrant(options.grant),
    onRequest: checkOnRequest(options.onRequest),
    allowWeaker: booleanOption(options.allowWeakerEnforcement, 'allowWeakerEnforcement'),
    namespaces,
    hostReadPaths,
    workspace,
    limits: checkLimits(options.limits),
    tmpAsked: options.limits !== undefined && options.limits.tmpBytes !== undefined,
    protectGit: options.protectGit === undefined || booleanOption(options.protectGit, 'protectGit'),
    protectSharedLinks: options.protectSharedLinks === undefined ||
      booleanOption(options.protectSharedLinks, 'protectSharedLinks'),
    // 'apply' unless asked: then a machine without copy-on-write layers runs the command direct.
    changes: checkChanges(options.changes) ?? 'apply',
    changesAsked: options.changes !== undefined,
    holdAsk: options.holdAsk !== undefined && booleanOption(options.holdAsk, 'holdAsk'),
    env: checkEnv(options.env),
    stdin: options.stdin,
    signal: checkSignal(given),
  };
}

module.exports = { parseOptions, checkArgv, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES };
