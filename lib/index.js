'use strict';

const { util } = require('./common/builtins');
const { addon, isSupported } = require('./common/native');
const errors = require('./errors/from-codes');
const publicErrors = require('./sandbox-errors');
const { displayText, excerpt } = require('./common/display');
const { grep: searchGrep, GREP_BYTES_PER_THREAD, GREP_LINE_BOUND, MAX_GREP_THREADS } = require('./search/search');
const { globMatcher } = require('./fs/glob');
const { normalizeConfig, approvalRule, DEFAULT_MAX_READ_BYTES } = require('./config/config');

const { isSharedArrayBuffer } = util.types;
const { errorFromCode, asDeleteRefusal, invalidPath, writablePathsOf, readablePathsOf } = errors;
const { readAttachments, DEFAULT_ATTACHMENT_POLICY } = require('./fs/attachments');
const program = require('./config/program');
const { exec } = require('./exec/exec');
const { addProtectedFiles, carryProtection } = require('./next-run/protected');
const { splitCommandDefaults, setCommandDefaults, carryCommandDefaults } = require('./changes/setting');
const { declareNetwork, carryNetwork, networkOf } = require('./network/scope');
const { describeNetwork } = require('./network/policy');
const { plainData, optionsOf, record } = require('./common/plain');
const { makeTestRoot } = require('./fs/test-roots');

const DEFAULT_GLOB_LIMIT = 1000;
const MAX_GLOB_LIMIT = 100000;
const MAX_GLOB_ENTRIES = 1000000; // directory entries one glob may read (src/fs/glob_walk.h)

const typeError = (message) => new TypeError(message);

// A synchronous throw while starting an async operation becomes its rejection.
function rejecting(start) {
  try {
    return start();
  } catch (e) {
    return Promise.reject(e);
  }
}

// { offset, length } -> validated numbers; length defaults to "to the end" (bounded by the
// sandbox's read limit in the core).
function rangeArgs(given) {
  const range = optionsOf(given, ['offset', 'length']);
  if (range instanceof Error) return Promise.reject(range);
  const offset = range.offset ?? 0;
  const length = range.length ?? Number.MAX_SAFE_INTEGER;
  for (const [name, v] of [['offset', offset], ['length', length]]) {
    if (!Number.isSafeInteger(v) || v < 0) {
      return Promise.reject(new RangeError(`expected a non-negative integer for ${name}`));
    }
  }
  return Promise.resolve([offset, length]);
}

// stat()'s version token: 16 hex digits (src/fs/file_version.h).
const VERSION_TOKEN = /^[0-9a-f]{16}$/;

// { ifVersion } -> the token for the addon, undefined for none; a TypeError for anything else.
function versionOption(given) {
  const options = optionsOf(given, ['ifVersion']);
  if (options instanceof Error) return options;
  const { ifVersion } = options;
  if (ifVersion === undefined) return { ifVersion: undefined };
  if (typeof ifVersion !== 'string' || !VERSION_TOKEN.test(ifVersion)) {
    return new TypeError('expected the version string from stat() for ifVersion');
  }
  return { ifVersion };
}

function toUint8Array(buf) {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

// The bytes of an ArrayBuffer view, as a typed array the addon can copy from. A view over shared
// memory is copied here first: the addon cannot borrow a SharedArrayBuffer, and another thread
// may change it while it is read.
function bytesOf(view) {
  if (isSharedArrayBuffer(view.buffer)) return new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice();
  return view instanceof DataView || !('BYTES_PER_ELEMENT' in view) ? toUint8Array(view) : view;
}

// Approvals a restriction adds; unnamed operations keep the parent's (preApproved never loosens).
// `approval` is already a plain copy.
function tighteningApproval(approval) {
  return approval === undefined ? undefined : approvalRule(approval, 'approval', 'preApproved', typeError);
}

// Argument problems are reported the way the operation reports everything else: async methods
// reject, sync methods throw.
const MAX_PATH_LENGTH = 4096; // the kernel's PATH_MAX; also keeps error messages bounded

function pathProblem(p) {
  if (typeof p !== 'string') return new TypeError(`expected a string for path, got ${typeof p}`);
  if (p.length >= MAX_PATH_LENGTH) return invalidPath('tooLong', `${p.slice(0, 64)}...`);
  if (!p.isWellFormed()) return invalidPath('surrogate', p);
  return null;
}

function checkPathSync(p) {
  const problem = pathProblem(p);
  if (problem) throw problem;
}

const NATIVE = Symbol('native');
const ENTRY_TYPES = Object.freeze({ f: 'file', d: 'directory', l: 'symlink', o: 'other', u: 'unknown' });
const FAST_RESOLVE = Symbol('fastResolve');

// Paths already in normal form: "/" or "/seg/seg" with no empty, "." or ".." segments, no NUL,
// and segments short enough (85 UTF-16 units <= 255 UTF-8 bytes) that the core's name limit
// cannot apply. Only these are resolved here; everything else goes to the core.
const NORMAL_FORM = /^(?:\/(?!\.\.?(?:\/|$))[^/\0]{1,85})+$/;

// resolve() is a pure function of the immutable mount table, so the facade answers it for
// normal-form paths from a snapshot of that table, sparing a native call (test/conformance
// checks it against the core on random paths).
function lexicalResolver({ root, mounts }) {
  if (root === null) return () => undefined; // no root: the core decides what lies outside
  const table = mounts.map(({ source, target }) => ({
    target,
    prefix: `${target}/`,
    base: source === '/' ? '' : source,
  }));
  const rootBase = root === '/' ? '' : root;
  return (p) => {
    if (p === '/') return root;
    if (p.length > MAX_PATH_LENGTH || !NORMAL_FORM.test(p)) return undefined;
    for (const m of table) {
      if (p === m.target) return m.base || '/';
      if (p.startsWith(m.prefix)) return m.base + p.slice(m.target.length);
    }
    return rootBase + p;
  };
}

class MountSandbox {
  /** @param {import('./binding').NativeSandbox} handle */
  constructor(handle) {
    if (!handle || !(handle instanceof addon().NativeSandbox)) {
      throw new TypeError('MountSandbox is created with createMountSandbox(config)');
    }
    this[NATIVE] = handle;
    this[FAST_RESOLVE] = lexicalResolver(handle.config());
  }

  // With { offset, length }: that part of the file (fewer bytes at its end).
  read(p, range) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    if (range === undefined) return this[NATIVE].read(p);
    return rangeArgs(range).then(([offset, length]) => this[NATIVE].readRange(p, offset, length, false));
  }

  readBinary(p, range) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    const read = range === undefined
      ? this[NATIVE].readBinary(p)
      : rangeArgs(range).then(([offset, length]) => this[NATIVE].readRange(p, offset, length, true));
    // A view in this realm over the addon's buffer: no copy, and `instanceof Uint8Array` holds.
    return read.then(toUint8Array);
  }

  // With { ifVersion }: only if the file still has the version stat() gave, else ConflictError.
  write(p, content, options) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    if (typeof content !== 'string') {
      return Promise.reject(new TypeError(`expected a string for content, got ${typeof content}`));
    }
    const version = versionOption(options);
    if (version instanceof Error) return Promise.reject(version);
    return this[NATIVE].write(p, content, version.ifVersion);
  }

  writeBinary(p, content, options) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    if (!ArrayBuffer.isView(content)) {
      return Promise.reject(new TypeError('expected a Uint8Array (or another ArrayBuffer view) for content'));
    }
    const version = versionOption(options);
    if (version instanceof Error) return Promise.reject(version);
    return rejecting(() => this[NATIVE].write(p, bytesOf(content), version.ifVersion));
  }

  delete(p) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    return this[NATIVE].delete(p).catch((error) => {
      throw asDeleteRefusal(error);
    });
  }

  exists(p) {
    return pathProblem(p) ? Promise.reject(pathProblem(p)) : this[NATIVE].exists(p);
  }

  // Entry names, sorted; with { withTypes: true }, [{ name, type }] with the type the directory
  // records ('file', 'directory', 'symlink', 'other' for FIFOs, sockets and devices, 'unknown'
  // where the filesystem does not say), a mount point being a directory: no stat per entry.
  list(p, given) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    const options = optionsOf(given, ['withTypes']);
    if (options instanceof Error) return Promise.reject(options);
    if (options.withTypes !== undefined && typeof options.withTypes !== 'boolean') {
      return Promise.reject(new TypeError('expected a boolean for withTypes'));
    }
    if (options.withTypes !== true) return this[NATIVE].list(p).then((joined) => (joined === '' ? [] : joined.split('\0')));
    return this[NATIVE].listEntries(p).then(({ names, types }) => (
      names === '' ? [] : names.split('\0').map((name, i) => ({ name, type: ENTRY_TYPES[types[i]] }))));
  }

  stat(p) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    return this[NATIVE].stat(p).then((info) => ({
      path: p,
      size: info.size,
      createdAt: new Date(info.birthtimeMs),
      modifiedAt: new Date(info.mtimeMs),
      isDirectory: info.isDirectory,
      type: info.type,
      version: info.version,
    }));
  }

  // Replaces the single occurrence of oldText with newText (atomically, like write), taking turns
  // with the other writes and edits of the file; ConflictError when it keeps changing under the
  // edit, or with { ifVersion } when it is no longer at that version.
  edit(p, oldText, newText, options) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    if (typeof oldText !== 'string' || oldText.length === 0) {
      return Promise.reject(new TypeError('expected a non-empty string for oldText'));
    }
    if (typeof newText !== 'string') {
      return Promise.reject(new TypeError(`expected a string for newText, got ${typeof newText}`));
    }
    const version = versionOption(options);
    if (version instanceof Error) return Promise.reject(version);
    return this[NATIVE].edit(p, oldText, newText, version.ifVersion);
  }

  move(from, to, options) {
    return this.#transfer('move', from, to, options);
  }

  // The source only needs to be readable: copying out of a read-only mount is allowed.
  copy(from, to, options) {
    return this.#transfer('copy', from, to, options);
  }

  #transfer(op, from, to, given) {
    const options = optionsOf(given, ['overwrite']);
    const problem = pathProblem(from) || pathProblem(to) || (options instanceof Error ? options : null);
    if (problem) return Promise.reject(problem);
    if (options.overwrite !== undefined && typeof options.overwrite !== 'boolean') {
      return Promise.reject(new TypeError('expected a boolean for overwrite'));
    }
    return this[NATIVE][op](from, to, options.overwrite === true);
  }

  // mkdir -p; an existing directory is fine.
  mkdir(p) {
    return pathProblem(p) ? Promise.reject(pathProblem(p)) : this[NATIVE].mkdir(p);
  }

  // Virtual paths matching a pattern such as "/src/**/*.ts", sorted, at most `limit` (1000 by
  // default), after reading at most `maxEntries` directory entries; `truncated` says more
  // matched or the walk stopped at a bound.
  // Content search, as ripgrep searches (lib/search/search.js, src/search/grep.h).
  grep(pattern, options) {
    return searchGrep(this[NATIVE], checkPathSync, pattern, options);
  }

  glob(pattern, given) {
    if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length >= MAX_PATH_LENGTH) {
      return Promise.reject(new TypeError('expected a non-empty pattern string such as "/src/**/*.ts"'));
    }
    const options = optionsOf(given, ['limit', 'maxEntries']);
    if (options instanceof Error) return Promise.reject(options);
    const limit = options.limit ?? DEFAULT_GLOB_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_GLOB_LIMIT) {
      return Promise.reject(new RangeError(`expected an integer between 1 and ${MAX_GLOB_LIMIT} for limit`));
    }
    const maxEntries = options.maxEntries ?? MAX_GLOB_ENTRIES;
    if (typeof maxEntries !== 'number') return Promise.reject(new TypeError('expected a number for maxEntries'));
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_GLOB_ENTRIES) {
      return Promise.reject(new RangeError(`expected an integer between 1 and ${MAX_GLOB_ENTRIES} for maxEntries`));
    }
    return this[NATIVE].glob(pattern, limit, maxEntries).then(({ paths, truncated }) => ({
      paths: paths === '' ? [] : paths.split('\0'),
      truncated,
    }));
  }

  // Files for a child worker, read in one native call after every rule has passed.
  readAttachments(paths, policy) {
    return readAttachments(this[NATIVE], paths, policy);
  }

  // What golem-forge's needsApproval hooks ask: 'preApproved', 'ask' or 'blocked'.
  // Runs a program confined by the kernel to this sandbox (see lib/exec/exec.js and the README).
  exec(argv, options) {
    return exec(this, this[NATIVE], argv, options);
  }

  approvalFor(p, operation) {
    checkPathSync(p);
    if (operation !== 'write' && operation !== 'delete') {
      throw new TypeError('expected "write" or "delete" for operation');
    }
    return this[NATIVE].approvalFor(p, operation);
  }

  resolve(p) {
    checkPathSync(p);
    const fast = this[FAST_RESOLVE](p);
    return fast === undefined ? this[NATIVE].resolve(p) : fast;
  }

  isValidPath(p) {
    return pathProblem(p) === null && this[NATIVE].checkPath(p) === undefined;
  }

  canWrite(p) {
    return pathProblem(p) === null && this[NATIVE].checkWritable(p, 'write') === undefined;
  }

  // Why a write or delete at `p` would be refused by the sandbox's rules (read-only, mount
  // points, blocked approvals, suffixes), as the error it would throw; null when allowed. Lexical:
  // the operation itself re-checks on disk.
  checkChange(p, operation) {
    checkPathSync(p);
    if (operation !== 'write' && operation !== 'delete') {
      throw new TypeError('expected "write" or "delete" for operation');
    }
    const error = this[NATIVE].checkWritable(p, operation) ?? null;
    return operation === 'delete' ? asDeleteRefusal(error) : error;
  }

  // A narrower view: a subtree, read-only, tighter approvals. Never wider than this one.
  restrict(given = {}) {
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      throw new TypeError('expected an object like { restrict: "/src", readonly: true } for restriction');
    }
    const restriction = plainData(given, typeError);
    for (const key of Object.keys(restriction)) {
      if (!['restrict', 'readonly', 'approval', 'network'].includes(key)) {
        throw new TypeError(`unknown key "${key}" in restriction (allowed: restrict, readonly, approval, network)`);
      }
    }
    const sub = restriction.restrict === undefined ? '/' : restriction.restrict;
    checkPathSync(sub);
    const { readonly } = restriction;
    if (readonly !== undefined && typeof readonly !== 'boolean') {
      throw new TypeError(`expected a boolean for readonly, got ${typeof readonly}`);
    }
    const approval = tighteningApproval(restriction.approval);
    const view = carryCommandDefaults(this, carryNetwork(this, carryProtection(this, new MountSandbox(this[NATIVE].restrict(sub, readonly, approval)))));
    return restriction.network === undefined ? view : declareNetwork(view, this, restriction.network);
  }

  // Keeps only the named zones (top-level mounts), each optionally read-only.
  selectZones(given) {
    if (!Array.isArray(given)) throw new TypeError('expected an array like [{ name: "data", mode: "ro" }]');
    const zones = plainData(given, typeError, 'zones');
    const requests = zones.map((z, i) => {
      if (z === null || typeof z !== 'object' || typeof z.name !== 'string') {
        throw new TypeError(`expected { name, mode } for zones[${i}]`);
      }
      if (z.mode !== undefined && z.mode !== 'ro' && z.mode !== 'rw') {
        throw new TypeError(`expected "ro" or "rw" for zones[${i}].mode`);
      }
      return record({ name: z.name, readonly: z.mode === 'ro' });
    });
    const names = requests.map((r) => r.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) throw new TypeError(`zone "${twice}" is requested twice`);
    return carryCommandDefaults(this, carryNetwork(this, carryProtection(this, new MountSandbox(this[NATIVE].selectZones(requests)))));
  }

  getConfig() {
    const { root, readonly, mounts } = this[NATIVE].config();
    return {
      root,
      readonly,
      mounts: mounts.map(({ source, target, readonly: ro }) => ({ source, target, readonly: ro })),
    };
  }

  // The whole effective table: approvals, policies, delegation depth, and the network its
  // commands get ({ mode, allow, deny }; declared: false where no config or restriction set one).
  describe() {
    const { ceiling, declared } = networkOf(this);
    return {
      ...this[NATIVE].config(),
      network: { ...describeNetwork(ceiling), declared },
      trustedNames: this[NATIVE].trustedNames(),
    };
  }

  // Names of the top-level mounts ("zones" in seed 000's vocabulary).
  zones() {
    return this[NATIVE].config().mounts
      .filter((m) => m.target.lastIndexOf('/') === 0)
      .map((m) => m.target.slice(1));
  }

  get depth() {
    return this[NATIVE].config().depth;
  }

  readablePaths() {
    return readablePathsOf(this[NATIVE].config());
  }

  // Writable top-level locations, for guiding a model after a read-only refusal.
  writablePaths() {
    return writablePathsOf(this[NATIVE].config());
  }
}

// Called by the addon with `this` bound to the native sandbox that refused the operation.
function nativeError(code, p, details) {
  return errorFromCode(code, p, details, this);
}

// `network` is the facade's (lib/network/scope.js): the core's table has no network.
function createMountSandbox(config) {
  return createWithTrustedFiles(config, []);
}

// createMountSandbox, and the sandbox's own files as the program loader found them (host paths):
// the core refuses every change to them, and exec binds or watches them.
function createWithTrustedFiles(config, hostPaths) {
  const { NativeSandbox } = addon(); // first: UnsupportedPlatformError before any config error
  const { network, rest: withChanges } = splitNetwork(config);
  let split;
  try {
    split = splitCommandDefaults(withChanges);
  } catch (error) {
    throw new publicErrors.SandboxConfigError(error.message);
  }
  const sandbox = setCommandDefaults(new MountSandbox(new NativeSandbox(normalizeConfig(split.rest, hostPaths), nativeError)), split);
  if (network === undefined) return sandbox;
  try {
    return declareNetwork(sandbox, sandbox, network);
  } catch (error) {
    if (error instanceof TypeError) throw new publicErrors.SandboxConfigError(error.message);
    throw error;
  }
}

function splitNetwork(config) {
  if (config === null || typeof config !== 'object' || !Object.hasOwn(config, 'network')) return { network: undefined, rest: config };
  const { network, ...rest } = plainData(config, typeError, 'config');
  return { network, rest };
}

async function createMountSandboxAsync(config) {
  return createAsyncWithTrustedFiles(config, []);
}

async function createAsyncWithTrustedFiles(config, hostPaths) {
  const sandbox = createWithTrustedFiles(config, hostPaths);
  await sandbox[NATIVE].createSources();
  return sandbox;
}

// A read-write sandbox over a fresh directory in the OS temp dir, removed when the process (or
// worker thread) that made it ends, under any test runner (lib/fs/test-roots.js).
async function createTestSandbox() {
  addon(); // an unsupported platform throws before a temp directory is made
  return createMountSandbox({ root: await makeTestRoot() });
}

// The sandbox a program config describes (creating missing directories, as
// createMountSandboxAsync does), or null when it has no sandbox section: no file access. Its
// commands cannot change the files the next run trusts (the config names and .worker files).
async function createSandboxFromConfig(given) {
  const programConfig = plainData(given, typeError, 'programConfig');
  const config = program.sandboxConfigFrom(programConfig);
  if (config === null) return null;
  const { existing, absent } = await program.nextRunFiles(programConfig);
  return addProtectedFiles(await createAsyncWithTrustedFiles(config, [...existing, ...absent]), existing, absent);
}

// A .worker file named by hand for a program's sandbox (the CLI's --worker, mount-sandbox-mcp's):
// refused (UntrustedConfigError, UNPROTECTED_WORKER) when it lies where that sandbox lets commands
// write and is not one of the worker files the config protects, judged before it is read.
async function loadTrustedWorkerFile(given, file) {
  const programConfig = plainData(given, typeError, 'programConfig');
  program.sandboxConfigFrom(programConfig);
  const { existing } = await program.nextRunFiles(programConfig);
  return program.loadTrustedWorkerFile(programConfig, file, existing);
}

module.exports = {
  createMountSandbox,
  createSandboxFromConfig,
  findProgramConfig: program.findProgramConfig,
  loadProgramConfig: program.loadProgramConfig,
  loadTrustedProgramConfig: program.loadTrustedProgramConfig,
  parseProgramConfig: program.parseProgramConfig,
  sandboxConfigFrom: program.sandboxConfigFrom,
  parseWorkerFile: program.parseWorkerFile,
  loadWorkerFile: program.loadWorkerFile,
  loadTrustedWorkerFile,
  sandboxForWorker: program.sandboxForWorker,
  CONFIG_FILE_NAMES: program.CONFIG_FILE_NAMES,
  DEFAULT_ATTACHMENT_POLICY,
  createMountSandboxAsync,
  createTestSandbox,
  globMatcher,
  displayText,
  excerpt,
  MountSandbox,
  openat2Supported: () => addon().openat2Supported(),
  isSupported,
  DEFAULT_MAX_READ_BYTES,
  GREP_BYTES_PER_THREAD,
  GREP_LINE_BOUND,
  MAX_GREP_THREADS,
  ...publicErrors,
};

// For lib/cli/support.js only (not public API): a sandbox with the program loader's own files,
// its sources left alone (check, explain) or created first (exec, as createSandboxFromConfig).
Object.defineProperty(module.exports, 'createWithTrustedFiles', { value: createWithTrustedFiles, enumerable: false });
Object.defineProperty(module.exports, 'createAsyncWithTrustedFiles', { value: createAsyncWithTrustedFiles, enumerable: false });
