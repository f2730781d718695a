// Types of `mount-sandbox/errors` (lib/sandbox-errors.js): the error classes, with no Node
// types and no addon, for browser code. The main entry re-exports all of it.

export type SandboxErrorCode =
  | 'NOT_FOUND'
  | 'INVALID_PATH'
  | 'READ_ONLY'
  | 'PERMISSION_ESCALATION'
  | 'SYMLINK_ESCAPE'
  | 'SYMLINK_LOOP'
  | 'UNTRUSTED_SOURCE'
  | 'PSEUDO_FILESYSTEM'
  | 'PROC_UNAVAILABLE'
  | 'NOT_REGULAR_FILE'
  | 'IS_DIRECTORY'
  | 'NOT_DIRECTORY'
  | 'TOO_LARGE'
  | 'MOUNT_POINT'
  | 'ACCESS_DENIED'
  | 'METADATA_NOT_KEPT'
  | 'ALREADY_EXISTS'
  | 'INVALID_CONFIG'
  | 'UNSUPPORTED'
  | 'IO_ERROR'
  | 'OUTSIDE_SANDBOX'
  | 'WRITE_BLOCKED'
  | 'DELETE_BLOCKED'
  | 'SUFFIX_NOT_ALLOWED'
  | 'NO_MATCH'
  | 'AMBIGUOUS_MATCH'
  | 'HOST_TRUSTED'
  | 'ATTACHMENT_POLICY'
  | 'NO_PARENT_SANDBOX'
  | 'ZONE_NOT_FOUND'
  | 'DEPTH_EXCEEDED'
  | 'INVALID_PATTERN'
  | 'ENFORCEMENT_UNAVAILABLE'
  | 'EXEC_FAILED'
  | 'UNSUPPORTED_PLATFORM';

export type EnforcementLayer =
  | 'no-new-privs'
  | 'user-namespace'
  | 'mount-namespace'
  | 'pid-namespace'
  | 'ipc-namespace'
  | 'network-namespace'
  | 'network-every-port'
  | 'uts-namespace'
  | 'cgroup-namespace'
  | 'copy-on-write'
  | 'no-nested-user-namespaces'
  | 'inotify-limit'
  | 'fanotify-limit'
  | 'own-session-keyring'
  | 'private-root'
  | 'private-proc'
  | 'process-limit'
  | 'memory-limit'
  | 'memory-cgroup'
  | 'shm-limit'
  | 'tmp-limit'
  | 'copy-on-write-limit'
  | 'cpu-limit'
  | 'no-capabilities'
  | 'namespaces'
  | 'landlock-fs'
  | 'landlock-net'
  | 'landlock-signal-scope'
  | 'landlock-abstract-unix-scope'
  | 'seccomp';

export declare class SandboxError extends Error {
  readonly code: string;
  readonly path?: string;
  /** Which element of a list argument (attachments, zones) was refused, when one was. */
  index?: number;
  /** The system call the host refused ("openat", "renameat2"), when one did; as on Node's fs errors. */
  syscall?: string;
  constructor(code: string, message: string, path?: string);
  toLLMMessage(): string;
}
export declare class NotFoundError extends SandboxError {
  /**
   * Set when the path looks like a host path (a root or mount source's, or /home, /etc, ...):
   * that paths are virtual, what "/" and the mounts are, and the virtual path probably meant.
   */
  readonly hostPathHint?: string;
  constructor(path: string, hostPathHint?: string);
}
export declare class InvalidPathError extends SandboxError {
  /** For an escape attempt: the top-level paths the model may read. */
  readablePaths?: string[];
  constructor(message: string, path?: string);
}
export declare class ReadOnlyError extends SandboxError {
  readonly writablePaths?: string[];
  /** 'delete' on a refused delete (the texts then say delete); absent for a write. */
  readonly operation?: 'delete';
  constructor(path: string, writablePaths?: string[], operation?: 'write' | 'delete');
}
export declare class PermissionEscalationError extends SandboxError {
  /** The worker whose declaration asked for more than its parent has (sandboxForWorker). */
  worker?: string | null;
  constructor(message: string, path?: string);
}
export declare class SymlinkError extends SandboxError {
  constructor(code: 'SYMLINK_ESCAPE' | 'SYMLINK_LOOP' | 'UNTRUSTED_SOURCE', path: string);
}
export declare class NotRegularFileError extends SandboxError {
  constructor(path: string);
}
export declare class IsDirectoryError extends SandboxError {
  constructor(path: string);
}
export declare class NotDirectoryError extends SandboxError {
  constructor(path: string);
}
export declare class FileTooLargeError extends SandboxError {
  readonly size: number;
  readonly limit: number;
  /** The sandbox's read limit, not a file policy, refused it: a ranged read still works. */
  rangeReadable?: boolean;
  constructor(path: string, size: number, limit: number);
}
export declare class MountPointError extends SandboxError {
  constructor(path: string);
}
export declare class AccessDeniedError extends SandboxError {
  constructor(path: string);
}
/**
 * A file could not be replaced (write, edit, copy over it) or moved across filesystems without
 * losing an ACL or extended attribute it carries (code METADATA_NOT_KEPT); nothing was changed.
 */
export declare class MetadataError extends SandboxError {
  readonly code: 'METADATA_NOT_KEPT';
  constructor(path: string);
}
export declare class SandboxConfigError extends SandboxError {
  constructor(message: string);
}
export declare class ConfigFileError extends SandboxConfigError {
  readonly file: string;
  /** 1-based; 0 when the problem has no single place. */
  readonly line: number;
  readonly column: number;
  /** Such as "sandbox.mounts[1].target". */
  readonly keyPath: string;
  readonly expected: string;
  constructor(details: { file: string; line: number; column: number; keyPath: string; expected: string });
}
/**
 * A config or .worker file that cannot be read as one (nothing was parsed). `code` says why;
 * `file` is the file as named, never where a link led.
 */
export declare class UnreadableConfigError extends ConfigFileError {
  readonly code:
    | 'NOT_FOUND'
    | 'ACCESS_DENIED'
    | 'IS_DIRECTORY'
    | 'NOT_DIRECTORY'
    | 'SYMLINK_LOOP'
    | 'NOT_REGULAR_FILE'
    | 'PSEUDO_FILESYSTEM'
    | 'TOO_LARGE'
    | 'PROC_UNAVAILABLE'
    | 'INVALID_PATH'
    | 'IO_ERROR';
  /** PSEUDO_FILESYSTEM: which one ("proc", "sysfs", "devtmpfs", ...). */
  readonly filesystem?: string;
  /** TOO_LARGE: the file's size and the limit (1 MiB). */
  readonly size?: number;
  readonly limit?: number;
  constructor(code: UnreadableConfigError['code'], file: string,
    details?: { filesystem?: string; size?: number; limit?: number; errno?: number; syscall?: string });
}
/**
 * A mount (or the root) whose source is on a kernel pseudo-filesystem (procfs, sysfs, the device
 * filesystem, ...), refused unless it says `allowPseudoFilesystem: true` (code PSEUDO_FILESYSTEM).
 */
export declare class PseudoFilesystemError extends SandboxConfigError {
  readonly code: 'PSEUDO_FILESYSTEM';
  readonly path: string;
  /** The mount's virtual path ("/" for the root). */
  readonly target: string;
  /** "proc", "sysfs", "devtmpfs", "devpts", "cgroup2", ... */
  readonly filesystem: string;
  constructor(path: string, target: string, filesystem: string);
}
/** Config discovery refused what it found (code UNTRUSTED_CONFIG). */
export declare class UntrustedConfigError extends SandboxConfigError {
  readonly reason: 'SEVERAL_CANDIDATES' | 'WRITABLE_FROM_ABOVE' | 'UNREADABLE_ABOVE' | 'UNPROTECTED_WORKER';
  /** The config, directory or .worker file refused. */
  readonly file: string;
  /** SEVERAL_CANDIDATES: the config names found in one directory. */
  readonly names?: string[];
  /** The config above, relative to the refused one's directory. */
  readonly above?: string;
  constructor(reason: UntrustedConfigError['reason'], message: string,
    details?: { file?: string; names?: string[]; above?: string; cause?: unknown });
}
export declare class OutsideSandboxError extends SandboxError {
  readonly readablePaths: string[];
  constructor(path: string, readablePaths?: string[]);
}
export declare class OperationBlockedError extends SandboxError {
  readonly operation: 'write' | 'delete';
  constructor(operation: 'write' | 'delete', path: string);
}
export declare class SuffixNotAllowedError extends SandboxError {
  readonly allowedSuffixes: string[] | null;
  readonly deniedSuffixes: string[];
  constructor(path: string, allowedSuffixes: string[] | null, deniedSuffixes?: string[]);
}
export declare class EditError extends SandboxError {
  readonly occurrences: number;
  constructor(code: 'NO_MATCH' | 'AMBIGUOUS_MATCH', path: string, occurrences?: number);
}
/**
 * Code CONFLICT: a write or edit was not made because the file changed since the caller's version
 * (`ifVersion` from stat()), kept changing between an edit's read and its replacement, or had
 * its directory replaced by someone else each time the change got its turn.
 * toLLMMessage() tells the model to read the file again.
 */
export declare class ConflictError extends SandboxError {
  constructor(path: string);
}
/**
 * Code HOST_TRUSTED: a write, edit, delete, move, copy onto or directory made at a name the host
 * trusts to run things next: git's hooks and config, the sandbox's own config and worker files,
 * agent clients' and editors' project files (.mcp.json, .vscode/, .claude/, ...), shell and tool
 * start-up files (.bashrc, .envrc, ...), and what the operator added (trustedNames.add). Nothing
 * changed; reading stays allowed. toLLMMessage() says so and that the user can change it.
 */
export declare class HostTrustedError extends SandboxError {
  /** Why the host trusts it. */
  readonly trusted: 'git' | 'sandbox' | 'client' | 'shell' | 'named' | 'tool';
  constructor(path: string, trusted?: HostTrustedError['trusted']);
}
export declare class AttachmentPolicyError extends SandboxError {
  readonly rule: 'maxAttachments' | 'maxTotalBytes' | 'allowedSuffixes' | 'deniedSuffixes';
  constructor(rule: AttachmentPolicyError['rule'], message: string, path?: string);
}
export declare class WorkerSandboxError extends SandboxError {
  readonly worker?: string | null;
  /** DEPTH_EXCEEDED: the delegation level asked for, and the maximum. */
  size?: number;
  limit?: number;
  constructor(code: string, message: string, worker?: string | null);
}
/** exec() refused: a layer it needs is missing here (code ENFORCEMENT_UNAVAILABLE). */
export declare class ExecEnforcementError extends SandboxError {
  readonly missing: EnforcementLayer[];
  /**
   * The message in the words of the door exec was called through, where exec made the error:
   * 'library' (the message: its options, allowWeakerEnforcement), 'cli' (mount-sandbox's flags,
   * --allow-weaker) or 'mcp' (mount-sandbox-mcp's flags). Not enumerable.
   */
  readonly messageIn?: (door: 'library' | 'cli' | 'mcp') => string;
  constructor(message: string, missing: EnforcementLayer[]);
}
/** exec() failed before the command ran (code EXEC_FAILED). */
export declare class ExecError extends SandboxError {
  readonly stage: string;
  constructor(message: string, path: string | undefined, stage: string);
}
/**
 * Thrown by whatever needs the native addon where it cannot run: another OS, CPU or libc (musl),
 * no binary for this machine, a binary that fails to load (its error is `cause`), or a bundled copy.
 * The message lists what to do; isSupported() gives the same reason without throwing.
 */
export declare class UnsupportedPlatformError extends SandboxError {
  readonly code: 'UNSUPPORTED_PLATFORM';
  /** Why, in one sentence without host paths. */
  readonly reason: string;
  /** What the user can do, as listed in the message. */
  readonly solutions: string[];
  constructor(reason: string, options?: { solutions?: string[]; cause?: unknown });
}
/** True for SandboxError and every subclass; false for look-alikes such as `{ code: 'FAKE' }`. */
export declare function isSandboxError(error: unknown): error is SandboxError;
