'use strict';

// The error classes live in JS (not in the addon) so that `instanceof` works in every realm that
// loads this file, Jest's included. Constructors, codes and default texts follow golem-forge's
// sandbox-errors.ts so its core package can re-export these.

class SandboxError extends Error {
  constructor(code, message, path) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
    this.path = path;
  }

  toLLMMessage() {
    return this.message;
  }
}

class NotFoundError extends SandboxError {
  constructor(path) {
    super('NOT_FOUND', `File or directory not found: ${path}`, path);
    this.name = 'NotFoundError';
  }

  toLLMMessage() {
    return `File not found: ${this.path}. Please check the path and try again.`;
  }
}

class InvalidPathError extends SandboxError {
  constructor(message, path) {
    super('INVALID_PATH', message, path);
    this.name = 'InvalidPathError';
  }

  toLLMMessage() {
    return `Invalid path${this.path ? ` "${this.path}"` : ''}: ${this.message}`;
  }
}

class ReadOnlyError extends SandboxError {
  constructor(path, writablePaths) {
    super('READ_ONLY', `Cannot write to read-only path: ${path}`, path);
    this.name = 'ReadOnlyError';
    if (writablePaths !== undefined) this.writablePaths = writablePaths;
  }

  toLLMMessage() {
    const base = `Cannot write to ${this.path}: this location is read-only.`;
    if (!this.writablePaths) return base;
    return this.writablePaths.length === 0
      ? `${base} Nothing in this sandbox is writable.`
      : `${base} Writable locations: ${this.writablePaths.join(', ')}.`;
  }
}

class PermissionEscalationError extends SandboxError {
  constructor(message, path) {
    super('PERMISSION_ESCALATION', message, path);
    this.name = 'PermissionEscalationError';
  }

  toLLMMessage() {
    return `Permission denied: ${this.message}`;
  }
}

// Codes beyond golem-forge's five, for refusals those five do not describe.

class SymlinkError extends SandboxError {
  constructor(code, path) {
    const message =
      code === 'SYMLINK_LOOP'
        ? `Too many levels of symbolic links: ${path}`
        : `Symbolic link leads outside the sandbox: ${path}`;
    super(code, message, path);
    this.name = 'SymlinkError';
  }

  toLLMMessage() {
    return this.code === 'SYMLINK_LOOP'
      ? `Cannot access ${this.path}: its symbolic links form a loop.`
      : `Cannot access ${this.path}: it goes through a symbolic link that points outside the ` +
          'sandbox. Only relative links that stay inside the same mount are followed.';
  }
}

class NotRegularFileError extends SandboxError {
  constructor(path) {
    super('NOT_REGULAR_FILE', `Not a regular file or directory: ${path}`, path);
    this.name = 'NotRegularFileError';
  }

  toLLMMessage() {
    return `Cannot use ${this.path}: it is a device, FIFO or socket. Only regular files and directories can be used.`;
  }
}

class IsDirectoryError extends SandboxError {
  constructor(path) {
    super('IS_DIRECTORY', `Is a directory: ${path}`, path);
    this.name = 'IsDirectoryError';
  }

  toLLMMessage() {
    return `${this.path} is a directory. Use list to see its entries, or name a file inside it.`;
  }
}

class NotDirectoryError extends SandboxError {
  constructor(path) {
    super('NOT_DIRECTORY', `Not a directory: ${path}`, path);
    this.name = 'NotDirectoryError';
  }

  toLLMMessage() {
    return `${this.path} is not a directory (a part of the path is a file).`;
  }
}

class FileTooLargeError extends SandboxError {
  constructor(path, size, limit) {
    super('TOO_LARGE', `File too large: ${path} is ${size} bytes, the limit is ${limit} bytes`, path);
    this.name = 'FileTooLargeError';
    this.size = size;
    this.limit = limit;
  }

  toLLMMessage() {
    return `Cannot read ${this.path}: it is ${this.size} bytes and the limit is ${this.limit} bytes.`;
  }
}

class MountPointError extends SandboxError {
  constructor(path) {
    super('MOUNT_POINT', `Cannot replace or remove a mount point: ${path}`, path);
    this.name = 'MountPointError';
  }

  toLLMMessage() {
    return `${this.path} is a mount point (or holds one). Write files inside it instead.`;
  }
}

class AccessDeniedError extends SandboxError {
  constructor(path) {
    super('ACCESS_DENIED', `Permission denied by the host filesystem: ${path}`, path);
    this.name = 'AccessDeniedError';
  }
}

class SandboxConfigError extends SandboxError {
  constructor(message) {
    super('INVALID_CONFIG', message);
    this.name = 'SandboxConfigError';
  }
}

function isSandboxError(error) {
  return error instanceof SandboxError;
}

const INVALID_PATH_TEXT = {
  relative: (p) => `Path must be absolute (start with /): ${p}`,
  escape: () => 'Path escape attempt detected',
  nul: () => 'Path must not contain NUL bytes',
  surrogate: () => 'Path must be well-formed Unicode (it contains a lone surrogate)',
  malformed: () => 'Path has an over-long name or is not valid UTF-8',
  tooLong: () => 'Path is longer than 4095 characters',
};

function invalidPath(reason, path) {
  return new InvalidPathError(INVALID_PATH_TEXT[reason](path), path);
}

// Why the core refused a virtual path: it reports INVALID_PATH for several reasons.
function invalidPathReason(path) {
  if (typeof path !== 'string' || !path.startsWith('/')) return 'relative';
  if (path.includes('\0')) return 'nul';
  return 'malformed';
}

function writablePathsOf({ readonly, mounts }) {
  const out = readonly ? [] : ['/'];
  for (const m of mounts) if (!m.readonly) out.push(m.target);
  return out.sort();
}

// Builds the facade error for a core error code. Called by the addon, with the virtual path the
// caller named; the host path never reaches this function.
function errorFromCode(code, path, details, context) {
  switch (code) {
    case 'NOT_FOUND':
      return new NotFoundError(path);
    case 'INVALID_PATH':
      return invalidPath(invalidPathReason(path), path);
    case 'PATH_ESCAPE':
      return invalidPath('escape', path);
    case 'READ_ONLY':
      return new ReadOnlyError(path, context ? writablePathsOf(context.config()) : undefined);
    case 'PERMISSION_ESCALATION':
      return new PermissionEscalationError('Cannot upgrade read-only sandbox to read-write', path);
    case 'SYMLINK_ESCAPE':
    case 'SYMLINK_LOOP':
      return new SymlinkError(code, path);
    case 'NOT_REGULAR_FILE':
      return new NotRegularFileError(path);
    case 'IS_DIRECTORY':
      return new IsDirectoryError(path);
    case 'NOT_DIRECTORY':
      return new NotDirectoryError(path);
    case 'TOO_LARGE':
      return new FileTooLargeError(path, details.size, details.limit);
    case 'MOUNT_POINT':
      return new MountPointError(path);
    case 'ACCESS_DENIED':
      return new AccessDeniedError(path);
    case 'INVALID_CONFIG':
      return new SandboxConfigError('Invalid sandbox config');
    case 'UNSUPPORTED':
      return new SandboxError(code, 'openat2 is not available on this kernel; use resolver "walk" or "auto"', path);
    case 'ALREADY_EXISTS':
      return new SandboxError(code, `Already exists: ${path}`, path);
    default:
      return new SandboxError('IO_ERROR', `I/O error on ${path}${details && details.errno ? ` (errno ${details.errno})` : ''}`, path);
  }
}

module.exports = {
  SandboxError,
  NotFoundError,
  InvalidPathError,
  ReadOnlyError,
  PermissionEscalationError,
  SymlinkError,
  NotRegularFileError,
  IsDirectoryError,
  NotDirectoryError,
  FileTooLargeError,
  MountPointError,
  AccessDeniedError,
  SandboxConfigError,
  isSandboxError,
  errorFromCode,
  invalidPath,
  writablePathsOf,
};
