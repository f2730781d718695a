'use strict';

// The facade's side of the error classes: building them from the addon's codes and the
// guidance they carry. The classes themselves are in sandbox-errors.js.
const classes = require('../sandbox-errors');
const { path: nodePath } = require('../common/builtins');
const { isWithin } = require('../common/paths');
const { excerpt } = require('../common/display');

const INVALID_PATH_TEXT = {
  relative: (p) => `Path must be absolute (start with /): ${p}`,
  escape: () => 'Path escape attempt detected',
  nul: () => 'Path must not contain NUL bytes',
  surrogate: () => 'Path must be well-formed Unicode (it contains a lone surrogate)',
  malformed: () => 'Path has an over-long name or is not valid UTF-8',
  tooLong: () => 'Path is longer than 4095 characters',
};

function invalidPath(reason, path) {
  return new classes.InvalidPathError(INVALID_PATH_TEXT[reason](path), path);
}

// Why the core refused a virtual path: it reports INVALID_PATH for several reasons.
function invalidPathReason(path) {
  if (typeof path !== 'string' || !path.startsWith('/')) return 'relative';
  if (path.includes('\0')) return 'nul';
  return 'malformed';
}

// Where writes can succeed: not read-only and not blocked by approval.
function writablePathsOf({ root, readonly, approval, mounts }) {
  const open = (rules) => !rules.readonly && !(rules.approval && rules.approval.write === 'blocked');
  const out = root === null || !open({ readonly, approval }) ? [] : ['/'];
  for (const m of mounts) if (open(m)) out.push(m.target);
  return out.sort();
}

// Top-level locations a model can read: "/" when there is a root, else the mount targets.
function readablePathsOf({ root, mounts }) {
  return root === null ? mounts.map((m) => m.target).sort() : ['/'];
}

// The mount (or root) whose rules apply to a virtual path, found lexically.
function rulesFor(config, path) {
  const normal = nodePath.posix.normalize(path);
  let best = null;
  for (const m of config.mounts) {
    if (isWithin(normal, m.target) && (!best || m.target.length > best.target.length)) {
      best = m;
    }
  }
  return best || config;
}

// The core refuses a delete on a read-only path with READ_ONLY, as a write: the same error,
// saying delete. Any other refusal is returned as it is.
function asDeleteRefusal(error) {
  if (!(error instanceof classes.ReadOnlyError) || error.operation !== undefined) return error;
  const refusal = new classes.ReadOnlyError(error.path, error.writablePaths, 'delete');
  if (error.syscall !== undefined) refusal.syscall = error.syscall;
  return refusal;
}

// Builds the facade error for a core error code. Called by the addon, with the virtual path the
// caller named; the host path never reaches this function.
function errorFromCode(code, path, given, context) {
  // Own keys only: the addon sets a detail only when it applies, and an absent one must not be
  // read from Object.prototype.
  const details = Object.assign(Object.create(null), given);
  const error = errorFor(code, path, details, context);
  if (details.index !== undefined) error.index = details.index;
  // As on Node's fs errors: the system call the host refused, never its arguments.
  if (details.syscall !== undefined) error.syscall = details.syscall;
  // A refused search pattern: why and where (bytes into it), for lib/search/search.js to word.
  if (details.patternProblem !== undefined) Object.assign(error, { patternProblem: details.patternProblem, offset: details.offset });
  return error;
}

// Top-level host directories a model reaches for when it mistakes the sandbox for the host.
const HOST_TOPS = ['home', 'etc', 'usr', 'root', 'tmp', 'var', 'opt', 'mnt', 'srv', 'proc', 'Users'];

// For a path that was not found: when it looks like a host path, what to say instead (naming
// virtual paths only): the one it probably means, under the root or a mount whose source it
// names, or else what "/" and the mounts are.
function hostPathHint(path, config) {
  if (typeof path !== 'string') return undefined;
  const sources = [...config.mounts.map((m) => ({ source: m.source, target: m.target })),
    ...(config.root === null ? [] : [{ source: config.root, target: '/' }])];
  for (const { source, target } of sources) {
    if (source !== '/' && isWithin(path, source)) {
      const rest = path.slice(source.length);
      const meant = target === '/' ? rest || '/' : `${target}${rest}`;
      return `Paths here are virtual, and this one looks like a host path: it probably means ${meant}.`;
    }
  }
  const top = path.split('/')[1];
  if (!HOST_TOPS.includes(top) || config.mounts.some((m) => m.target.split('/')[1] === top)) return undefined;
  const mounts = config.mounts.map((m) => m.target).sort();
  const where = config.root === null ? 'the sandbox has no root' : '"/" is the sandbox\'s root (the project)';
  return `Paths here are virtual and this one looks like a host path: ${where}` +
    `${mounts.length ? `, and the mounts are ${mounts.join(', ')}` : ''}; host paths mean nothing in the sandbox.`;
}

function errorFor(code, path, details, context) {
  switch (code) {
    case 'NOT_FOUND':
      return new classes.NotFoundError(path, context ? hostPathHint(path, context.config()) : undefined);
    case 'INVALID_PATH':
      return invalidPath(invalidPathReason(path), path);
    case 'PATH_ESCAPE': {
      const error = invalidPath('escape', path);
      if (context) error.readablePaths = readablePathsOf(context.config());
      return error;
    }
    case 'OUTSIDE_SANDBOX':
      return new classes.OutsideSandboxError(path, context ? readablePathsOf(context.config()) : []);
    case 'WRITE_BLOCKED':
      return new classes.OperationBlockedError('write', path);
    case 'DELETE_BLOCKED':
      return new classes.OperationBlockedError('delete', path);
    case 'SUFFIX_NOT_ALLOWED': {
      const rules = context ? rulesFor(context.config(), path).policy : null;
      return new classes.SuffixNotAllowedError(path, rules ? rules.allowedSuffixes : null,
        rules ? rules.deniedSuffixes : []);
    }
    case 'NO_MATCH':
    case 'AMBIGUOUS_MATCH':
      return new classes.EditError(code, path, details.size);
    case 'CONFLICT':
      return new classes.ConflictError(path);
    case 'HOST_TRUSTED':
      return new classes.HostTrustedError(path, details.trusted);
    case 'ZONE_NOT_FOUND':
      return new classes.WorkerSandboxError(code, 'A requested zone is not available in the parent sandbox');
    case 'DEPTH_EXCEEDED': {
      const e = new classes.WorkerSandboxError(code,
        `Delegation level ${details.size} is deeper than the maximum of ${details.limit}`);
      e.size = details.size;
      e.limit = details.limit;
      return e;
    }
    case 'TOO_MANY_ATTACHMENTS':
      return new classes.AttachmentPolicyError('maxAttachments',
        `up to ${details.limit} attachment(s) allowed but ${details.size} provided.`);
    case 'ATTACHMENTS_TOO_LARGE':
      return new classes.AttachmentPolicyError('maxTotalBytes',
        `total size ${details.size} bytes exceeds limit of ${details.limit} bytes.`);
    case 'INVALID_PATTERN':
      return new classes.SandboxError(code, `Invalid glob pattern: ${excerpt(path)}`, path);
    case 'READ_ONLY':
      return new classes.ReadOnlyError(path, context ? writablePathsOf(context.config()) : undefined);
    case 'PERMISSION_ESCALATION':
      return new classes.PermissionEscalationError('Cannot upgrade read-only sandbox to read-write', path);
    case 'SYMLINK_ESCAPE':
    case 'SYMLINK_LOOP':
    case 'UNTRUSTED_SOURCE':
      return new classes.SymlinkError(code, path);
    case 'PSEUDO_FILESYSTEM': {
      // Named after the mount whose source it is: the root's is "/".
      const mount = context ? rulesFor(context.config(), path) : null;
      return new classes.PseudoFilesystemError(path, mount && mount.target !== undefined ? mount.target : '/',
        details.filesystem);
    }
    case 'NOT_REGULAR_FILE':
      return new classes.NotRegularFileError(path);
    case 'IS_DIRECTORY':
      return new classes.IsDirectoryError(path);
    case 'NOT_DIRECTORY':
      return new classes.NotDirectoryError(path);
    case 'TOO_LARGE': {
      const error = new classes.FileTooLargeError(path, details.size, details.limit);
      // Over the sandbox's read limit a range still works; over a mount's maxFileBytes it does not.
      const policy = context ? rulesFor(context.config(), path).policy : null;
      if (policy && policy.maxFileBytes !== details.limit) error.rangeReadable = true;
      return error;
    }
    case 'MOUNT_POINT':
      return new classes.MountPointError(path);
    case 'ACCESS_DENIED':
      return new classes.AccessDeniedError(path);
    case 'METADATA_NOT_KEPT':
      return new classes.MetadataError(path);
    case 'INVALID_CONFIG':
      return new classes.SandboxConfigError('Invalid sandbox config');
    case 'PROC_UNAVAILABLE':
      return new classes.SandboxError(code,
        `Cannot read ${path}: /proc is not mounted, and files are only reopened through /proc/self/fd`, path);
    case 'UNSUPPORTED':
      return new classes.SandboxError(code, 'openat2 is not available on this kernel; use resolver "walk" or "auto"', path);
    case 'ALREADY_EXISTS':
      return new classes.SandboxError(code, `Already exists: ${path}`, path);
    default:
      return new classes.SandboxError('IO_ERROR',
        `I/O error on ${path}${details.errno ? ` (errno ${details.errno})` : ''}`, path);
  }
}

module.exports = {
  ...classes,
  errorFromCode,
  asDeleteRefusal,
  invalidPath,
  writablePathsOf,
  readablePathsOf,
  rulesFor,
};
