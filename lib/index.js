'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const native = require('./native');
const errors = require('./errors');
const { normalizeConfig, DEFAULT_MAX_READ_BYTES } = require('./config');

const { errorFromCode, invalidPath, writablePathsOf } = errors;

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
const FAST_RESOLVE = Symbol('fastResolve');

// Paths already in normal form: "/" or "/seg/seg" with no empty, "." or ".." segments, no NUL,
// and segments short enough (85 UTF-16 units <= 255 UTF-8 bytes) that the core's name limit
// cannot apply. Only these are resolved here; everything else goes to the core.
const NORMAL_FORM = /^(?:\/(?!\.\.?(?:\/|$))[^/\0]{1,85})+$/;

// resolve() is a pure function of the immutable mount table, so the facade answers it for
// normal-form paths from a snapshot of that table, sparing a native call (test/conformance
// checks it against the core on random paths).
function lexicalResolver({ root, mounts }) {
  const table = mounts.map(({ source, target }) => ({
    target,
    prefix: `${target}/`,
    base: source === '/' ? '' : source,
  }));
  const rootBase = root === '/' ? '' : root;
  return (p) => {
    if (p === '/') return root;
    if (p.length > 4096 || !NORMAL_FORM.test(p)) return undefined;
    for (const m of table) {
      if (p === m.target) return m.base || '/';
      if (p.startsWith(m.prefix)) return m.base + p.slice(m.target.length);
    }
    return rootBase + p;
  };
}

class MountSandbox {
  constructor(handle) {
    if (!handle || !(handle instanceof native.NativeSandbox)) {
      throw new TypeError('MountSandbox is created with createMountSandbox(config)');
    }
    this[NATIVE] = handle;
    this[FAST_RESOLVE] = lexicalResolver(handle.config());
  }

  read(p) {
    return pathProblem(p) ? Promise.reject(pathProblem(p)) : this[NATIVE].read(p);
  }

  readBinary(p) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    // A view in this realm over the addon's buffer: no copy, and `instanceof Uint8Array` holds.
    return this[NATIVE].readBinary(p).then(
      (buf) => new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength),
    );
  }

  write(p, content) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    if (typeof content !== 'string') {
      return Promise.reject(new TypeError(`expected a string for content, got ${typeof content}`));
    }
    return this[NATIVE].write(p, content);
  }

  writeBinary(p, content) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    if (!ArrayBuffer.isView(content)) {
      return Promise.reject(new TypeError('expected a Uint8Array (or another ArrayBuffer view) for content'));
    }
    const bytes =
      content instanceof DataView || !('BYTES_PER_ELEMENT' in content)
        ? new Uint8Array(content.buffer, content.byteOffset, content.byteLength)
        : content;
    return this[NATIVE].write(p, bytes);
  }

  delete(p) {
    return pathProblem(p) ? Promise.reject(pathProblem(p)) : this[NATIVE].delete(p);
  }

  exists(p) {
    return pathProblem(p) ? Promise.reject(pathProblem(p)) : this[NATIVE].exists(p);
  }

  list(p) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    return this[NATIVE].list(p).then((joined) => (joined === '' ? [] : joined.split('\0')));
  }

  stat(p) {
    if (pathProblem(p)) return Promise.reject(pathProblem(p));
    return this[NATIVE].stat(p).then((info) => ({
      path: p,
      size: info.size,
      createdAt: new Date(info.birthtimeMs),
      modifiedAt: new Date(info.mtimeMs),
      isDirectory: info.isDirectory,
    }));
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
    return pathProblem(p) === null && this[NATIVE].checkWritable(p) === undefined;
  }

  restrict(restriction = {}) {
    if (restriction === null || typeof restriction !== 'object') {
      throw new TypeError('expected an object like { restrict: "/src", readonly: true } for restriction');
    }
    for (const key of Object.keys(restriction)) {
      if (key !== 'restrict' && key !== 'readonly') {
        throw new TypeError(`unknown key "${key}" in restriction (allowed: restrict, readonly)`);
      }
    }
    const sub = restriction.restrict === undefined ? '/' : restriction.restrict;
    checkPathSync(sub);
    const { readonly } = restriction;
    if (readonly !== undefined && typeof readonly !== 'boolean') {
      throw new TypeError(`expected a boolean for readonly, got ${typeof readonly}`);
    }
    return new MountSandbox(this[NATIVE].restrict(sub, readonly));
  }

  getConfig() {
    const { root, readonly, mounts } = this[NATIVE].config();
    return { root, readonly, mounts };
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

function createMountSandbox(config) {
  return new MountSandbox(new native.NativeSandbox(normalizeConfig(config), nativeError));
}

async function createMountSandboxAsync(config) {
  const sandbox = createMountSandbox(config);
  await sandbox[NATIVE].createSources();
  return sandbox;
}

const testRoots = new Set();
let cleanupRegistered = false;

function removeTestRoots() {
  for (const dir of testRoots) fs.rmSync(dir, { recursive: true, force: true });
  testRoots.clear();
}

// Test runners stop their workers with SIGTERM, and Node skips 'exit' then. Clean up, and if no
// one else handles the signal, die of it as Node would have without this listener.
function onTerminationSignal(signal) {
  removeTestRoots();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

// A read-write sandbox over a fresh directory in the OS temp dir, removed when the process exits.
async function createTestSandbox() {
  const root = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mount-sandbox-test-'));
  testRoots.add(root);
  if (!cleanupRegistered) {
    process.once('exit', removeTestRoots);
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.once(signal, onTerminationSignal);
    cleanupRegistered = true;
  }
  return createMountSandbox({ root });
}

module.exports = {
  createMountSandbox,
  createMountSandboxAsync,
  createTestSandbox,
  MountSandbox,
  openat2Supported: () => native.openat2Supported(),
  DEFAULT_MAX_READ_BYTES,
  SandboxError: errors.SandboxError,
  NotFoundError: errors.NotFoundError,
  InvalidPathError: errors.InvalidPathError,
  ReadOnlyError: errors.ReadOnlyError,
  PermissionEscalationError: errors.PermissionEscalationError,
  SymlinkError: errors.SymlinkError,
  NotRegularFileError: errors.NotRegularFileError,
  IsDirectoryError: errors.IsDirectoryError,
  NotDirectoryError: errors.NotDirectoryError,
  FileTooLargeError: errors.FileTooLargeError,
  MountPointError: errors.MountPointError,
  AccessDeniedError: errors.AccessDeniedError,
  SandboxConfigError: errors.SandboxConfigError,
  isSandboxError: errors.isSandboxError,
};
