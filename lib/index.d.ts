// Public types of mount-sandbox. Names and shapes match golem-forge's sandbox-types.ts so its
// packages can re-export them.
//
// Every object passed in (configs, restrictions, zone requests, policies, options) is read as
// plain data: its own enumerable properties, each read once. Inherited properties are ignored,
// and a getter or setter is refused without being called: SandboxConfigError in a config given to
// createMountSandbox(Async), TypeError (a rejected promise from async methods) elsewhere, naming
// the key.

export interface FileStat {
  /** The virtual path exactly as the caller passed it. */
  path: string;
  size: number;
  createdAt: Date;
  modifiedAt: Date;
  isDirectory: boolean;
}

export interface ReadRange {
  /** Byte offset to start at. Default 0. */
  offset?: number;
  /** Most bytes to return. Default: to the end (within the read limit). */
  length?: number;
}

export interface FileOperations {
  /** Read a file as UTF-8 (invalid sequences become U+FFFD); with a range, that part of it. */
  read(path: string, range?: ReadRange): Promise<string>;
  readBinary(path: string, range?: ReadRange): Promise<Uint8Array>;
  /** Atomically replace the file (temp file + rename), creating parent directories. */
  write(path: string, content: string): Promise<void>;
  /** Any ArrayBuffer view is accepted; one over a SharedArrayBuffer is copied before the call. */
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

export type ApprovalDecision = 'preApproved' | 'ask' | 'blocked';

export interface ApprovalConfig {
  write?: ApprovalDecision;
  delete?: ApprovalDecision;
}

/** Approval and file policy keys a mount (or, at the top level, the root) may carry. */
export interface MountPolicyConfig {
  /** Consent needed for changes here. Default ask; `blocked` is enforced by the operations. */
  approval?: ApprovalConfig;
  /**
   * Only files ending in one of these (starting with "."). Case folds for ASCII letters only, as
   * in program config files and attachment policies: ".MD" matches "notes.md", ".ÉT" matches
   * "key.Ét" but not "key.ét".
   */
  allowedSuffixes?: string[];
  deniedSuffixes?: string[];
  /** Largest file a read accepts and a write may produce here. */
  maxFileBytes?: number;
}

export interface Mount extends MountPolicyConfig {
  source: string;
  target: string;
  readonly?: boolean;
}

export type ResolverKind = 'auto' | 'openat2' | 'walk';

export interface MountSandboxConfig extends MountPolicyConfig {
  /**
   * Host directory mounted at "/"; relative paths resolve against process.cwd(). null (with
   * at least one mount): no root, "/" only lists the mounts.
   */
  root: string | null;
  readonly?: boolean;
  mounts?: Mount[];
  /** Largest file read() and readBinary() accept. Default 128 MiB. */
  maxReadBytes?: number;
  /** Path resolution strategy; "auto" uses openat2 where the kernel has it. */
  resolver?: ResolverKind;
  /** How many derived views (restrict, workers) may be chained. Default 5. */
  maxDepth?: number;
}

export interface SubWorkerRestriction {
  restrict?: string;
  readonly?: boolean;
  /** Tightens approvals (never loosens them). */
  approval?: ApprovalConfig;
}

export interface ZoneRequest {
  name: string;
  mode?: 'ro' | 'rw';
}

export interface FilePolicyInfo {
  allowedSuffixes: string[] | null;
  deniedSuffixes: string[];
  maxFileBytes: number | null;
}

export interface MountRules {
  readonly: boolean;
  approval: Required<ApprovalConfig>;
  policy: FilePolicyInfo;
}

export interface DescribedMount extends MountRules {
  source: string;
  target: string;
}

export interface SandboxDescription extends MountRules {
  /** null when the sandbox has no root ("/" lists the mounts). */
  root: string | null;
  mounts: DescribedMount[];
  depth: number;
  maxDepth: number;
}

export interface GlobResult {
  paths: string[];
  /** More paths matched than `limit`, or the walk stopped at a bound (entries, depth, work). */
  truncated: boolean;
}

export interface AttachmentPolicy {
  max_attachments?: number;
  max_total_bytes?: number;
  allowed_suffixes?: string[];
  denied_suffixes?: string[];
}

export interface Attachment {
  /** The file name (last path component). */
  name: string;
  /** The virtual path it was read from. */
  path: string;
  mimeType: string;
  data: Uint8Array;
  /** The contents as UTF-8, for textual media types. */
  text?: string;
}

export interface ResolvedMount {
  source: string;
  target: string;
  readonly: boolean;
}

export interface ResolvedMountConfig {
  root: string | null;
  readonly: boolean;
  /** Longest target first. */
  mounts: ResolvedMount[];
}

export interface MountSandbox extends FileOperations {
  canWrite(path: string): boolean;
  /** The error a write or delete would get from the sandbox's rules, or null. */
  checkChange(path: string, operation: 'write' | 'delete'): SandboxError | null;
  /** Approval a change needs here, for needsApproval hooks. */
  approvalFor(path: string, operation: 'write' | 'delete'): ApprovalDecision;
  /** Replace the one exact occurrence of oldText (EditError when none or several). */
  edit(path: string, oldText: string, newText: string): Promise<void>;
  move(from: string, to: string, options?: { overwrite?: boolean }): Promise<void>;
  /** The source only needs to be readable. */
  copy(from: string, to: string, options?: { overwrite?: boolean }): Promise<void>;
  /** mkdir -p. */
  mkdir(path: string): Promise<void>;
  /**
   * Sorted virtual paths matching the pattern, at most `limit` (default 1000), after reading at
   * most `maxEntries` directory entries (default and maximum 1,000,000). `truncated` says more
   * matched or a bound stopped the walk.
   */
  glob(pattern: string, options?: { limit?: number; maxEntries?: number }): Promise<GlobResult>;
  /** All or nothing: every policy rule is checked before any byte is read. */
  readAttachments(paths: string[], policy?: AttachmentPolicy): Promise<Attachment[]>;
  /** Runs a program confined by the kernel (Landlock, seccomp, namespaces) to this sandbox. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  restrict(config: SubWorkerRestriction): MountSandbox;
  selectZones(zones: ZoneRequest[]): MountSandbox;
  getConfig(): ResolvedMountConfig;
  describe(): SandboxDescription;
  zones(): string[];
  readonly depth: number;
  /** Writable top-level virtual paths, for guiding a model after a read-only refusal. */
  writablePaths(): string[];
  /** Readable top-level virtual paths, for guiding a model after an outside-the-sandbox refusal. */
  readablePaths(): string[];
}

export interface ProgramSandboxConfig extends MountRules {
  layout: 'mounts' | 'sandboxed' | 'direct';
  root: string | null;
  mounts: (DescribedMount & { zone?: string })[];
}

export interface ProgramConfig {
  /** Absolute path of the config file. */
  file: string;
  dir: string;
  /** null: no sandbox section, so no file access. */
  sandbox: ProgramSandboxConfig | null;
  delegation: { maxDepth: number };
}

export interface WorkerDeclaration {
  name: string | null;
  file: string;
  sandbox: {
    kind: 'inherit' | 'none' | 'restrict' | 'zones';
    restrict?: string;
    readonly?: boolean;
    approval?: ApprovalConfig;
    zones?: { name: string; mode: 'ro' | 'rw'; line: number; column: number }[];
  };
}

export declare const CONFIG_FILE_NAMES: string[];
export declare const DEFAULT_ATTACHMENT_POLICY: Readonly<Required<AttachmentPolicy>>;
export declare function parseProgramConfig(text: string, options: { file: string; format?: 'yaml' | 'json' }): ProgramConfig;
export declare function loadProgramConfig(file: string): Promise<ProgramConfig>;
/** Walks up from startDir (default cwd) to the first config file; null when none. */
export declare function findProgramConfig(startDir?: string): Promise<ProgramConfig | null>;
/** The createMountSandbox() config a program config describes; null for no sandbox. */
export declare function sandboxConfigFrom(config: ProgramConfig): MountSandboxConfig | null;
export declare function createSandboxFromConfig(config: ProgramConfig): Promise<MountSandbox | null>;
export declare function parseWorkerFile(text: string, file?: string): WorkerDeclaration;
export declare function loadWorkerFile(file: string): Promise<WorkerDeclaration>;
/** call_worker's rule: the child's sandbox, null for none; never wider than the parent. */
export declare function sandboxForWorker(parent: MountSandbox | null, worker: WorkerDeclaration): MountSandbox | null;

export declare const MountSandbox: {
  prototype: MountSandbox;
};

export declare function createMountSandbox(config: MountSandboxConfig): MountSandbox;
export declare function createMountSandboxAsync(config: MountSandboxConfig): Promise<MountSandbox>;
/** A read-write sandbox over a fresh temp directory, removed when the process or worker thread that made it ends (under Jest and Vitest too). */
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
  | 'UNTRUSTED_SOURCE'
  | 'PROC_UNAVAILABLE'
  | 'NOT_REGULAR_FILE'
  | 'IS_DIRECTORY'
  | 'NOT_DIRECTORY'
  | 'TOO_LARGE'
  | 'MOUNT_POINT'
  | 'ACCESS_DENIED'
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
  | 'ATTACHMENT_POLICY'
  | 'NO_PARENT_SANDBOX'
  | 'ZONE_NOT_FOUND'
  | 'DEPTH_EXCEEDED'
  | 'INVALID_PATTERN';

export type EnforcementLayer =
  | 'no-new-privs'
  | 'user-namespace'
  | 'mount-namespace'
  | 'pid-namespace'
  | 'no-nested-user-namespaces'
  | 'private-proc'
  | 'no-capabilities'
  | 'namespaces'
  | 'landlock-fs'
  | 'landlock-net'
  | 'landlock-signal-scope'
  | 'landlock-abstract-unix-scope'
  | 'seccomp';

export interface ExecOptions {
  /** Virtual working directory (default "/"). */
  cwd?: string;
  /** Merged over PATH, HOME, TMPDIR and LANG; nothing of process.env is passed. */
  env?: Record<string, string>;
  stdin?: string | Uint8Array;
  /** Default 30000, at most 300000; then every process of the command is killed. */
  timeoutMs?: number;
  /** Per stream, default 51200. */
  maxOutputBytes?: number;
  /** Default false: no TCP (Landlock), no UDP, raw or unix sockets (seccomp). */
  network?: boolean;
  /** Default 'prefer'. */
  namespaces?: 'prefer' | 'require' | 'off';
  /** Run even when a required layer is missing (result.enforcement.missing says which). */
  allowWeakerEnforcement?: boolean;
  /** Extra host directories the command may read and execute. */
  hostReadPaths?: string[];
}

export interface ExecEnforcement {
  landlockAbi: number;
  layers: EnforcementLayer[];
  missing: EnforcementLayer[];
}

/** golem-forge's ShellResult plus how the command ended and what confined it. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  /** -1 when killed by a signal or the timeout; 127 not found; 126 not executable. */
  exitCode: number;
  truncated: boolean;
  signal: string | null;
  timedOut: boolean;
  enforcement: ExecEnforcement;
}

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
export declare class ConfigFileError extends SandboxConfigError {
  readonly file: string;
  /** 1-based; 0 when the problem has no single place. */
  readonly line: number;
  readonly column: number;
  /** Such as "sandbox.mounts[1].target". */
  readonly keyPath: string;
  readonly expected: string;
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
}
export declare class AttachmentPolicyError extends SandboxError {
  readonly rule: 'maxAttachments' | 'maxTotalBytes' | 'allowedSuffixes' | 'deniedSuffixes';
}
export declare class WorkerSandboxError extends SandboxError {
  readonly worker?: string | null;
}
/** exec() refused: a layer it needs is missing here (code ENFORCEMENT_UNAVAILABLE). */
export declare class ExecEnforcementError extends SandboxError {
  readonly missing: EnforcementLayer[];
}
/** exec() failed before the command ran (code EXEC_FAILED). */
export declare class ExecError extends SandboxError {
  readonly stage: string;
}
export declare function isSandboxError(error: unknown): error is SandboxError;
