// Public types of mount-sandbox. Names and shapes match golem-forge's sandbox-types.ts so its
// packages can re-export them.

export interface FileStat {
  /** The virtual path exactly as the caller passed it. */
  path: string;
  size: number;
  createdAt: Date;
  modifiedAt: Date;
  isDirectory: boolean;
}

export interface FileOperations {
  /** Read a file as UTF-8 (invalid sequences become U+FFFD). */
  read(path: string): Promise<string>;
  readBinary(path: string): Promise<Uint8Array>;
  /** Atomically replace the file (temp file + rename), creating parent directories. */
  write(path: string, content: string): Promise<void>;
  writeBinary(path: string, content: Uint8Array): Promise<void>;
  /** Delete a file or symlink (never a directory, never a symlink's target). */
  delete(path: string): Promise<void>;
  /** False only when nothing is there; invalid or escaping paths reject. */
  exists(path: string): Promise<boolean>;
  /** Entry names, sorted; mount points appear in the directories that hold them. */
  list(path: string): Promise<string[]>;
  stat(path: string): Promise<FileStat>;
  /** The host path a virtual path maps to, computed lexically (for display and git tools). */
  resolve(path: string): string;
  isValidPath(path: string): boolean;
}

export interface Mount {
  source: string;
  target: string;
  readonly?: boolean;
}

export type ResolverKind = 'auto' | 'openat2' | 'walk';

export interface MountSandboxConfig {
  /** Host directory mounted at "/"; relative paths resolve against process.cwd(). */
  root: string;
  readonly?: boolean;
  mounts?: Mount[];
  /** Largest file read() and readBinary() accept. Default 128 MiB. */
  maxReadBytes?: number;
  /** Path resolution strategy; "auto" uses openat2 where the kernel has it. */
  resolver?: ResolverKind;
}

export interface SubWorkerRestriction {
  restrict?: string;
  readonly?: boolean;
}

export interface ResolvedMount {
  source: string;
  target: string;
  readonly: boolean;
}

export interface ResolvedMountConfig {
  root: string;
  readonly: boolean;
  /** Longest target first. */
  mounts: ResolvedMount[];
}

export interface MountSandbox extends FileOperations {
  canWrite(path: string): boolean;
  restrict(config: SubWorkerRestriction): MountSandbox;
  getConfig(): ResolvedMountConfig;
  /** Writable top-level virtual paths, for guiding a model after a read-only refusal. */
  writablePaths(): string[];
}

export declare const MountSandbox: {
  prototype: MountSandbox;
};

export declare function createMountSandbox(config: MountSandboxConfig): MountSandbox;
export declare function createMountSandboxAsync(config: MountSandboxConfig): Promise<MountSandbox>;
/** A read-write sandbox over a fresh temp directory, removed when the process exits. */
export declare function createTestSandbox(): Promise<MountSandbox>;
export declare function openat2Supported(): boolean;
export declare const DEFAULT_MAX_READ_BYTES: number;

export type SandboxErrorCode =
  | 'NOT_FOUND'
  | 'INVALID_PATH'
  | 'READ_ONLY'
  | 'PERMISSION_ESCALATION'
  | 'SYMLINK_ESCAPE'
  | 'SYMLINK_LOOP'
  | 'NOT_REGULAR_FILE'
  | 'IS_DIRECTORY'
  | 'NOT_DIRECTORY'
  | 'TOO_LARGE'
  | 'MOUNT_POINT'
  | 'ACCESS_DENIED'
  | 'ALREADY_EXISTS'
  | 'INVALID_CONFIG'
  | 'UNSUPPORTED'
  | 'IO_ERROR';

export declare class SandboxError extends Error {
  readonly code: string;
  readonly path?: string;
  constructor(code: string, message: string, path?: string);
  toLLMMessage(): string;
}
export declare class NotFoundError extends SandboxError {
  constructor(path: string);
}
export declare class InvalidPathError extends SandboxError {
  constructor(message: string, path?: string);
}
export declare class ReadOnlyError extends SandboxError {
  readonly writablePaths?: string[];
  constructor(path: string, writablePaths?: string[]);
}
export declare class PermissionEscalationError extends SandboxError {
  constructor(message: string, path?: string);
}
export declare class SymlinkError extends SandboxError {
  constructor(code: 'SYMLINK_ESCAPE' | 'SYMLINK_LOOP', path: string);
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
  constructor(path: string, size: number, limit: number);
}
export declare class MountPointError extends SandboxError {
  constructor(path: string);
}
export declare class AccessDeniedError extends SandboxError {
  constructor(path: string);
}
export declare class SandboxConfigError extends SandboxError {
  constructor(message: string);
}
export declare function isSandboxError(error: unknown): error is SandboxError;
