'use strict';

// The public error classes, also published alone as `mount-sandbox/errors`: plain JS with no
// Node built-ins and no addon, so browser code can import them. They live in JS (not in the
// addon) so that `instanceof` works in every realm that loads this file, Jest's included.
// Constructors, codes and default texts follow golem-forge's sandbox-errors.ts so its core
// package can re-export these.

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

// `hostPathHint` (set by the facade, never by default): the path looks like a host path, and
// this says that paths are virtual and, where it can tell, which virtual path was probably meant.
class NotFoundError extends SandboxError {
  constructor(path, hostPathHint) {
    super('NOT_FOUND', `File or directory not found: ${path}`, path);
    this.name = 'NotFoundError';
    if (hostPathHint !== undefined) this.hostPathHint = hostPathHint;
  }

  toLLMMessage() {
    const hint = this.hostPathHint === undefined ? '' : ` ${this.hostPathHint}`;
    return `File not found: ${this.path}. Please check the path and try again.${hint}`;
  }
}

class InvalidPathError extends SandboxError {
  constructor(message, path) {
    super('INVALID_PATH', message, path);
    this.name = 'InvalidPathError';
  }

  toLLMMessage() {
    const base = `Invalid path${this.path ? ` "${this.path}"` : ''}: ${this.message}`;
    return this.readablePaths ? `${base}. Readable paths: ${this.readablePaths.join(', ')}.` : base;
  }
}

// golem-forge's texts say "write" for every change; `operation` 'delete' (this library's addition,
// set on a refused delete) makes them say what was refused.
class ReadOnlyError extends SandboxError {
  constructor(path, writablePaths, operation) {
    super('READ_ONLY', operation === 'delete'
      ? `Cannot delete read-only path: ${path}`
      : `Cannot write to read-only path: ${path}`, path);
    this.name = 'ReadOnlyError';
    if (writablePaths !== undefined) this.writablePaths = writablePaths;
    if (operation === 'delete') this.operation = operation;
  }

  toLLMMessage() {
    const verb = this.operation === 'delete' ? 'delete' : 'write to';
    const base = `Cannot ${verb} ${this.path}: this location is read-only.`;
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

const SYMLINK_MESSAGES = {
  SYMLINK_LOOP: (path) => `Too many levels of symbolic links: ${path}`,
  SYMLINK_ESCAPE: (path) => `Symbolic link leads outside the sandbox: ${path}`,
  UNTRUSTED_SOURCE: (path) =>
    `Mount disabled: its source is reached through a symbolic link inside a writable part of the sandbox: ${path}`,
};

// SYMLINK_ESCAPE and SYMLINK_LOOP while resolving a path; UNTRUSTED_SOURCE when the directory a
// mount is configured on was replaced by a symlink where the sandbox itself could have put it.
class SymlinkError extends SandboxError {
  constructor(code, path) {
    const message = (SYMLINK_MESSAGES[code] || SYMLINK_MESSAGES.SYMLINK_ESCAPE)(path);
    super(code, message, path);
    this.name = 'SymlinkError';
  }

  toLLMMessage() {
    if (this.code === 'SYMLINK_LOOP') return `Cannot access ${this.path}: its symbolic links form a loop.`;
    if (this.code === 'UNTRUSTED_SOURCE') {
      return `Cannot access ${this.path}: the directory mounted there has been replaced by a symbolic ` +
        'link, so this mount is disabled. Other paths still work; ask the user to check the sandbox configuration.';
    }
    return `Cannot access ${this.path}: it goes through a symbolic link that points outside the ` +
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
    const base = `Cannot use ${this.path}: it is ${this.size} bytes and the limit is ${this.limit} bytes.`;
    return this.rangeReadable ? `${base} Read a part of it with an offset and length.` : base;
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

// A file could not be replaced (write, edit, copy over it) or moved across filesystems without
// losing an ACL or extended attribute it carries, so nothing was changed: a rewrite never leaves
// a file more open than it was. `syscall` names the call that failed.
class MetadataError extends SandboxError {
  constructor(path) {
    super('METADATA_NOT_KEPT',
      `Cannot write ${path} without losing an ACL or extended attribute; nothing was changed`, path);
    this.name = 'MetadataError';
  }

  toLLMMessage() {
    return `Cannot write ${this.path}: the file's access control list or extended attributes could not ` +
      'be given to the new contents, so the file was left unchanged. Ask the user to change it.';
  }
}

class SandboxConfigError extends SandboxError {
  constructor(message) {
    super('INVALID_CONFIG', message);
    this.name = 'SandboxConfigError';
  }
}

// A program config or .worker file that does not validate: where, and what was expected there.
// Meant for the person editing the file, so it names the file (a host path, never shown to a
// model by this library's own messages).
class ConfigFileError extends SandboxConfigError {
  constructor({ file, line, column, keyPath, expected }) {
    const where = line ? `${file}:${line}:${column}` : file;
    super(`${where}: ${keyPath ? `${keyPath}: ` : ''}expected ${expected}`);
    this.name = 'ConfigFileError';
    this.file = file;
    this.line = line;
    this.column = column;
    this.keyPath = keyPath;
    this.expected = expected;
  }
}

const UNREADABLE_REASONS = {
  NOT_FOUND: () => 'no such file (or a symbolic link to nothing)',
  ACCESS_DENIED: () => 'permission denied',
  IS_DIRECTORY: () => 'a directory, not a file',
  NOT_DIRECTORY: () => 'a part of the path is not a directory',
  SYMLINK_LOOP: () => 'too many levels of symbolic links',
  NOT_REGULAR_FILE: () => 'a FIFO, socket or device, not a regular file',
  PSEUDO_FILESYSTEM: ({ filesystem }) =>
    `a file of ${filesystem}, a kernel pseudo-filesystem, not a file on a filesystem that holds data`,
  TOO_LARGE: ({ size, limit }) => `${size} bytes, over the limit of ${limit} bytes (1 MiB)`,
  PROC_UNAVAILABLE: () => '/proc is not mounted, and config files are only read through /proc/self/fd',
  INVALID_PATH: () => 'not a valid file name',
};

// A program config or .worker file that could not be read as one: `code` says why (NOT_FOUND,
// ACCESS_DENIED, IS_DIRECTORY, NOT_REGULAR_FILE, PSEUDO_FILESYSTEM with `filesystem`, TOO_LARGE
// with `size` and `limit`, SYMLINK_LOOP, NOT_DIRECTORY, PROC_UNAVAILABLE, IO_ERROR). Nothing of it
// was parsed. Names the file as given, never where a link led.
class UnreadableConfigError extends ConfigFileError {
  constructor(code, file, details = {}) {
    super({ file, line: 0, column: 0, keyPath: '', expected: 'a regular file on a filesystem that holds data, of at most 1 MiB' });
    const reason = UNREADABLE_REASONS[code];
    this.message = `${file}: cannot be read as a config file: ${reason ? reason(details)
      : `I/O error${details.errno ? ` (errno ${details.errno})` : ''}`}`;
    this.name = 'UnreadableConfigError';
    this.code = reason ? code : 'IO_ERROR';
    if (details.filesystem !== undefined) this.filesystem = details.filesystem;
    if (code === 'TOO_LARGE') {
      this.size = details.size;
      this.limit = details.limit;
    }
    if (details.syscall !== undefined) this.syscall = details.syscall;
  }
}

// Config discovery would not trust what it found: a directory holding more than one config name,
// a config lying where a config above lets a sandbox write, or a config above that does not
// parse. `reason` says which; `file` is the config (or directory) refused; `names` the candidate
// names found; `above` the config above, relative to the refused one's directory.
class UntrustedConfigError extends SandboxConfigError {
  constructor(reason, message, { file, names, above, cause } = {}) {
    super(message);
    this.name = 'UntrustedConfigError';
    this.code = 'UNTRUSTED_CONFIG';
    this.reason = reason;
    this.file = file;
    if (names !== undefined) this.names = names;
    if (above !== undefined) this.above = above;
    if (cause !== undefined) {
      Object.defineProperty(this, 'cause', { value: cause, writable: true, configurable: true });
    }
  }
}

const PSEUDO_FILESYSTEM_REASONS = {
  proc: 'it shows the host\'s processes, among them this one\'s environment (API keys included) and command line',
  sysfs: 'it shows and sets the kernel\'s and the devices\' settings',
  devtmpfs: 'it holds the host\'s devices',
  devpts: 'it holds the host\'s terminals',
};

// A mount (or the root) whose source is on a kernel pseudo-filesystem (procfs, sysfs, the device
// filesystem, ...): refused unless the mount says `allowPseudoFilesystem: true`, since nobody
// means to hand a model the host process's environment. `path` is the path asked about, `target`
// the mount's virtual path, `filesystem` its name ("proc", "sysfs", "devtmpfs", ...).
class PseudoFilesystemError extends SandboxConfigError {
  constructor(path, target, filesystem) {
    const why = PSEUDO_FILESYSTEM_REASONS[filesystem] || 'its files are views of the kernel, not data';
    super(`Mount disabled: the source mounted at ${target} is on ${filesystem}, a kernel pseudo-filesystem ` +
      `(${why}); set allowPseudoFilesystem: true on that mount if you mean it: ${path}`);
    this.name = 'PseudoFilesystemError';
    this.code = 'PSEUDO_FILESYSTEM';
    this.path = path;
    this.target = target;
    this.filesystem = filesystem;
  }

  toLLMMessage() {
    return `Cannot access ${this.path}: the directory mounted at ${this.target} is a kernel pseudo-filesystem, ` +
      'which this sandbox does not expose. Other paths still work; ask the user to check the sandbox configuration.';
  }
}

function listOrNone(items) {
  return items.length === 0 ? 'none' : items.join(', ');
}

class OutsideSandboxError extends SandboxError {
  constructor(path, readablePaths = []) {
    super('OUTSIDE_SANDBOX', `Path is outside the sandbox: ${path}`, path);
    this.name = 'OutsideSandboxError';
    this.readablePaths = readablePaths;
  }

  toLLMMessage() {
    return `Cannot access ${this.path}: it is outside the sandbox. Readable paths: ${listOrNone(this.readablePaths)}.`;
  }
}

// The approval configured for this location is `blocked`: no prompt can allow it.
class OperationBlockedError extends SandboxError {
  constructor(operation, path) {
    super(operation === 'delete' ? 'DELETE_BLOCKED' : 'WRITE_BLOCKED',
      `${operation === 'delete' ? 'Deleting' : 'Writing'} is blocked here: ${path}`, path);
    this.name = 'OperationBlockedError';
    this.operation = operation;
  }

  toLLMMessage() {
    const verb = this.operation === 'delete' ? 'delete' : 'write';
    return `Cannot ${verb} ${this.path}: ${verb === 'delete' ? 'deleting' : 'writing'} files in this location is blocked by the sandbox configuration.`;
  }
}

class SuffixNotAllowedError extends SandboxError {
  constructor(path, allowedSuffixes, deniedSuffixes = []) {
    super('SUFFIX_NOT_ALLOWED', `File type not allowed here: ${path}`, path);
    this.name = 'SuffixNotAllowedError';
    this.allowedSuffixes = allowedSuffixes;
    this.deniedSuffixes = deniedSuffixes;
  }

  toLLMMessage() {
    const parts = [`Cannot use ${this.path}: its file suffix is not allowed here.`];
    if (this.allowedSuffixes) parts.push(`Allowed suffixes: ${listOrNone(this.allowedSuffixes)}.`);
    if (this.deniedSuffixes.length > 0) parts.push(`Denied suffixes: ${this.deniedSuffixes.join(', ')}.`);
    return parts.join(' ');
  }
}

class EditError extends SandboxError {
  constructor(code, path, occurrences) {
    super(code, code === 'NO_MATCH'
      ? `The text to replace was not found in ${path}`
      : `The text to replace occurs ${occurrences} times in ${path}`, path);
    this.name = 'EditError';
    this.occurrences = code === 'NO_MATCH' ? 0 : occurrences;
  }

  toLLMMessage() {
    return this.code === 'NO_MATCH'
      ? `Cannot edit ${this.path}: the text to replace does not occur in the file. Read the file and copy the exact text, including whitespace.`
      : `Cannot edit ${this.path}: the text to replace occurs ${this.occurrences} times. Include more surrounding text so that it occurs exactly once.`;
  }
}

// A write or edit that would have overwritten a change it did not see: the file changed since
// the caller's version (ifVersion), or kept changing between an edit's read and its replacement.
// Nothing was written.
class ConflictError extends SandboxError {
  constructor(path) {
    super('CONFLICT', `File changed since it was read: ${path}`, path);
    this.name = 'ConflictError';
  }

  toLLMMessage() {
    return `Cannot change ${this.path}: it was changed by someone else since you read it, and your change was not written. ` +
      'Read the file again, then make your change to its current contents.';
  }
}

// A change to a file the host trusts to run things next (git's hooks and config, the sandbox's
// own config and worker files, agent clients' and editors' project files, shell start-up
// files, tools' config): refused whichever way it is tried; reading stays allowed. `trusted`
// says which kind.
const TRUSTED_KINDS = {
  git: 'git runs what its hooks and config name the next time the user runs git here',
  sandbox: 'it is this sandbox\'s own configuration, which the next run reads',
  client: 'agent clients and editors start the servers, hooks and tasks it names',
  shell: 'a shell or login started here next reads and runs it',
  tool: 'a package manager or build tool run here next reads it and runs what it names',
  named: 'the sandbox\'s operator marked it as trusted',
};

class HostTrustedError extends SandboxError {
  constructor(path, trusted = 'named') {
    super('HOST_TRUSTED', `Cannot change a file the host trusts to run things: ${path}`, path);
    this.name = 'HostTrustedError';
    this.trusted = trusted;
  }

  toLLMMessage() {
    const why = TRUSTED_KINDS[this.trusted] ?? TRUSTED_KINDS.named;
    return `Cannot change ${this.path}: the host trusts this file to run things (${why}), so the sandbox never lets ` +
      'an agent write, move, copy onto or delete it. Reading it is fine. If it needs to change, tell the user what ' +
      'to change; they can edit it themselves or release the name in the sandbox configuration (trustedNames.release).';
  }
}

// An attachment list that breaks the worker's attachment policy; nothing was read.
class AttachmentPolicyError extends SandboxError {
  constructor(rule, message, path) {
    super('ATTACHMENT_POLICY', `Attachment policy violation: ${message}`, path);
    this.name = 'AttachmentPolicyError';
    this.rule = rule; // 'maxAttachments' | 'maxTotalBytes' | 'allowedSuffixes' | 'deniedSuffixes'
  }
}

// A worker's sandbox declaration its parent cannot satisfy, or a delegation chain too deep.
// sandbox.exec() could not confine the command as required, so it did not run it. `missing`
// names the layers this machine lacks.
class ExecEnforcementError extends SandboxError {
  constructor(message, missing) {
    super('ENFORCEMENT_UNAVAILABLE', message, undefined);
    this.name = 'ExecEnforcementError';
    this.missing = missing;
  }
}

// sandbox.exec() failed before the command started: its working directory, or the launcher.
class ExecError extends SandboxError {
  constructor(message, path, stage) {
    super('EXEC_FAILED', message, path);
    this.name = 'ExecError';
    this.stage = stage;
  }
}

class WorkerSandboxError extends SandboxError {
  constructor(code, message, worker) {
    super(code, message);
    this.name = 'WorkerSandboxError';
    this.worker = worker;
  }
}

function isSandboxError(error) {
  return error instanceof SandboxError;
}

// Thrown by whatever needs the native addon where it cannot work: another OS, CPU or libc (musl),
// no binary for this machine, or a binary that fails to load (the loader's error is `cause`).
class UnsupportedPlatformError extends SandboxError {
  constructor(reason, { solutions = [], cause } = {}) {
    const steps = solutions.map((s) => `\n- ${s}`).join('');
    super('UNSUPPORTED_PLATFORM', `mount-sandbox cannot run here: ${reason}.${steps ? ` What to do:${steps}` : ''}`);
    this.name = 'UnsupportedPlatformError';
    this.reason = reason;
    this.solutions = solutions;
    if (cause !== undefined) {
      Object.defineProperty(this, 'cause', { value: cause, writable: true, configurable: true });
    }
  }
}

// The published names: this list is the one place that names them (lib/index.js spreads this
// module, scripts/generate-esm.js reads its keys). Names, not `class.name`: a bundler may rename
// a class.
module.exports = {
  SandboxError, NotFoundError, InvalidPathError, ReadOnlyError, PermissionEscalationError,
  SymlinkError, NotRegularFileError, IsDirectoryError, NotDirectoryError, FileTooLargeError,
  MountPointError, AccessDeniedError, MetadataError, SandboxConfigError, ConfigFileError, UntrustedConfigError,
  UnreadableConfigError, PseudoFilesystemError, OutsideSandboxError, OperationBlockedError, SuffixNotAllowedError, EditError,
  ConflictError, HostTrustedError,
  AttachmentPolicyError, WorkerSandboxError, ExecEnforcementError, ExecError,
  UnsupportedPlatformError, isSandboxError,
};
