// Public types of mount-sandbox. Names and shapes match golem-forge's sandbox-types.ts so its
// packages can re-export them.
//
// Every object passed in (configs, restrictions, zone requests, policies, options) is read as
// plain data: its own enumerable properties, each read once. Inherited properties are ignored,
// and a getter or setter is refused without being called: SandboxConfigError in a config given to
// createMountSandbox(Async), TypeError (a rejected promise from async methods) elsewhere, naming
// the key.

import type { EnforcementLayer, SandboxError } from './sandbox-errors.js';

export * from './sandbox-errors.js';

export interface FileStat {
  /** The virtual path exactly as the caller passed it. */
  path: string;
  size: number;
  createdAt: Date;
  modifiedAt: Date;
  isDirectory: boolean;
  /**
   * Opaque (16 hex digits): changes whenever the file is replaced or changed in place, and only
   * then. Compare it for equality, or hand it to write, writeBinary or edit as `ifVersion`.
   */
  version: string;
}

export interface DirectoryEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other' | 'unknown';
}

export interface WriteOptions {
  /**
   * A version from stat(): the write (or edit) is made only if the file still has it, else it
   * rejects with ConflictError and changes nothing. A file deleted since is a conflict too.
   */
  ifVersion?: string;
}

export interface ReadRange {
  /** Byte offset to start at. */
  offset?: number;
  /** Most bytes to return. Default: to the end (within the read limit). */
  length?: number;
}

export interface FileOperations {
  /** Read a file as UTF-8 (invalid sequences become U+FFFD); with a range, that part of it. */
  read(path: string, range?: ReadRange): Promise<string>;
  readBinary(path: string, range?: ReadRange): Promise<Uint8Array>;
  /** Atomically replace the file (temp file + rename), creating parent directories. */
  write(path: string, content: string, options?: WriteOptions): Promise<void>;
  /** Any ArrayBuffer view is accepted; one over a SharedArrayBuffer is copied before the call. */
  writeBinary(path: string, content: Uint8Array, options?: WriteOptions): Promise<void>;
  /** Delete a file or symlink (never a directory, never a symlink's target). */
  delete(path: string): Promise<void>;
  /** False only when nothing is there; invalid or escaping paths reject. */
  exists(path: string): Promise<boolean>;
  /** Entry names, sorted; mount points appear in the directories that hold them. */
  list(path: string, options?: { withTypes?: false }): Promise<string[]>;
  /**
   * Each entry with its type as the directory records it (no stat per entry): 'other' is a FIFO,
   * socket or device, 'unknown' where the filesystem does not say; a mount point is a directory.
   */
  list(path: string, options: { withTypes: true }): Promise<DirectoryEntry[]>;
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
  /** Largest file a read accepts and a write may produce here: 1 to 2^53, as in config files. */
  maxFileBytes?: number;
}

export interface Mount extends MountPolicyConfig {
  source: string;
  target: string;
  readonly?: boolean;
  /**
   * Pin the source even where it lies on a kernel pseudo-filesystem (procfs, sysfs, the device
   * filesystem, ...), which is otherwise refused with PseudoFilesystemError: /proc/self would show
   * a model this process's environment (API keys) and command line.
   * @default false
   */
  allowPseudoFilesystem?: boolean;
}

export type ResolverKind = 'auto' | 'openat2' | 'walk';

export interface MountSandboxConfig extends MountPolicyConfig {
  /**
   * Host directory mounted at "/"; relative paths resolve against process.cwd(). null (with
   * at least one mount): no root, "/" only lists the mounts.
   */
  root: string | null;
  /** @default false */
  readonly?: boolean;
  /**
   * As a mount's allowPseudoFilesystem, for the root.
   * @default false
   */
  allowPseudoFilesystem?: boolean;
  mounts?: Mount[];
  /**
   * Largest file read() and readBinary() accept (128 MiB).
   * @default 128 * 1024 * 1024
   */
  maxReadBytes?: number;
  /**
   * Path resolution strategy; "auto" uses openat2 where the kernel has it. The environment
   * variable MOUNT_SANDBOX_RESOLVER, when set, replaces the default.
   * @default 'auto'
   */
  resolver?: ResolverKind;
  /**
   * How many derived views (restrict, workers) may be chained: 1 to 100, as a config file's
   * delegation.maxDepth.
   * @default 5
   */
  maxDepth?: number;
  /**
   * The network this sandbox's commands get, and the most any call may ask for (see
   * ExecOptions.network). Unset: no network unless a call asks, and then whatever it asks for.
   */
  network?: NetworkSetting;
  /**
   * Files the host trusts to run things next, which no change through this sandbox may touch
   * (HostTrustedError) and commands get read-only. Built in: git's hooks and config (`.git/config`,
   * `.git/hooks`, ...; a file named `.git`), `.mcp.json`, `.vscode`, `.cursor`, `.claude`, `.idea`,
   * `.zed`, shell and tool start-up files (`.bashrc`, `.profile`, `.zshrc`, `.gitconfig`, `.envrc`,
   * ...), and the program config names at the root. `add` trusts more names, `release` lets the
   * agent change built-in ones (".vscode/settings.json"); both are relative names matched at any
   * depth, case-insensitively.
   */
  trustedNames?: TrustedNamesConfig;
}

export interface TrustedNamesConfig {
  add?: string[];
  release?: string[];
}

/** describe().trustedNames: the set in force (the names, what is released, the sandbox's own files). */
export interface TrustedNamesDescription {
  names: { name: string; kind: 'git' | 'sandbox' | 'client' | 'shell' | 'named' }[];
  released: string[];
  /** The sandbox's own files as host paths: its config, config names on the walk up, workers. */
  hostPaths: string[];
}

/**
 * Entries are `host[:port]`: an exact name (case-insensitive, a trailing dot ignored),
 * `*.example.com` for its subdomains (not the apex), an IP literal (`[2001:db8::1]:443` for IPv6).
 * `*` and wildcards over public suffixes (`*.com`, `*.co.uk`, `*.github.io`) are refused in allow.
 */
export interface NetworkAllowlist {
  /** What the command may reach; empty means no network. */
  allow: string[];
  /** Never reachable, even where allow (or a grant, or onRequest) covers it. */
  deny?: string[];
}

/** false: no network; true: the host's network; an allowlist: those destinations, by name. */
export type NetworkSetting = boolean | NetworkAllowlist;

export interface NetworkDescription {
  mode: 'off' | 'host' | 'filtered';
  allow: string[];
  deny: string[];
}

export interface SubWorkerRestriction {
  restrict?: string;
  readonly?: boolean;
  /** Tightens approvals (never loosens them). */
  approval?: ApprovalConfig;
  /** Narrows the network (PermissionEscalationError if wider); deny lists add up. */
  network?: NetworkSetting;
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
  /** Present (true) only where the mount allows a pseudo-filesystem source. */
  allowPseudoFilesystem?: true;
}

export interface SandboxDescription extends MountRules {
  /** null when the sandbox has no root ("/" lists the mounts). */
  root: string | null;
  /** Present (true) only where the root allows a pseudo-filesystem source. */
  allowPseudoFilesystem?: true;
  mounts: DescribedMount[];
  depth: number;
  maxDepth: number;
  /** The most its commands may reach; declared false where nothing set it (then any call may ask). */
  network: NetworkDescription & { declared: boolean };
  trustedNames: TrustedNamesDescription;
}

export interface GrepOptions {
  /**
   * A directory (or one file) to search, virtual.
   * @default '/'
   */
  path?: string;
  /** @default false */
  literal?: boolean;
  /** @default false */
  ignoreCase?: boolean;
  /** Globs of files to search: without a "/" matched against names at any depth. */
  include?: string | string[];
  /** Globs of files and directories to pass over. */
  exclude?: string | string[];
  /**
   * Lines before and after each match, 0 to 20.
   * @default 0
   */
  context?: number;
  /**
   * Matches returned at most, 1 to 100000.
   * @default 1000
   */
  maxResults?: number;
  /**
   * Each line is cut to this many bytes.
   * @default 400
   */
  maxLineBytes?: number;
  /**
   * Honour .gitignore and .ignore files as ripgrep does.
   * @default false
   */
  gitignore?: boolean;
  /**
   * Search entries whose names start with ".".
   * @default false
   */
  hidden?: boolean;
  /**
   * Bytes read at most in all.
   * @default 2 ** 30
   */
  maxBytes?: number;
  /**
   * CPU time the search may take, over all its threads, in milliseconds.
   * @default 30000
   */
  maxCpuMs?: number;
  signal?: ExecAbortSignal;
}

export interface GrepLine {
  line: number;
  text: string;
  /** Present (true) when the line was cut to maxLineBytes. */
  cut?: true;
}

export interface GrepMatch extends GrepLine {
  path: string;
  before: GrepLine[];
  after: GrepLine[];
}

export interface GrepResult {
  /** By path, then line. */
  matches: GrepMatch[];
  filesSearched: number;
  bytesSearched: number;
  skippedBinary: number;
  /** Files the sandbox refused to read (a suffix, a size, a link out of it). */
  skippedRefused: number;
  /** Why the search stopped before the end, or null. */
  truncated: null | 'results' | 'bytes' | 'cpu' | 'entries' | 'cancelled';
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

/** `Root` is `string` for a sandbox made with a root directory (see MountSandbox). */
export interface ResolvedMountConfig<Root extends string | null = string> {
  /** null for a sandbox without a root (selectZones): "/" only lists the mounts. */
  root: Root;
  readonly: boolean;
  /** Longest target first. */
  mounts: ResolvedMount[];
}

/**
 * A sandbox, made by createMountSandbox() and the other factories (not with `new`). `Root` is the
 * type of getConfig().root: `string` (the default) for a sandbox made with a root directory, which
 * is what golem-forge's MountSandbox interface describes; `null` for one made by selectZones(),
 * which has only mounts; `string | null` where either is possible (a config with `root: null`,
 * program config files, sandboxForWorker).
 */
export declare class MountSandbox<Root extends string | null = string> {
  private constructor();
  canWrite(path: string): boolean;
  /** The error a write or delete would get from the sandbox's rules, or null. */
  checkChange(path: string, operation: 'write' | 'delete'): SandboxError | null;
  /** Approval a change needs here, for needsApproval hooks. */
  approvalFor(path: string, operation: 'write' | 'delete'): ApprovalDecision;
  /**
   * Replace the one exact occurrence of oldText (EditError when none or several). Takes turns with
   * the other writes and edits of the file in this process; ConflictError when someone else keeps
   * changing it between the read and the replacement, or with `ifVersion` when it changed since.
   */
  edit(path: string, oldText: string, newText: string, options?: WriteOptions): Promise<void>;
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
  /**
   * Content search, as ripgrep searches by default: hidden entries, links and binary files passed
   * over; `gitignore: true` honours .gitignore (inside a git repository) and .ignore files. Every
   * file is read through the sandbox (its rules refuse what they refuse anywhere); the pattern is
   * RE2's syntax, matched in linear time. Bounded by results, bytes and CPU time (`truncated`
   * says which stopped it); `signal` cancels, rejecting with its reason.
   */
  grep(pattern: string, options?: GrepOptions): Promise<GrepResult>;
  glob(pattern: string, options?: { limit?: number; maxEntries?: number }): Promise<GlobResult>;
  /** All or nothing: every policy rule is checked before any byte is read. */
  readAttachments(paths: string[], policy?: AttachmentPolicy): Promise<Attachment[]>;
  /** Runs a program confined by the kernel (Landlock, seccomp, namespaces) to this sandbox. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Restricting onto a mount's target gives a sandbox rooted at that mount's source. */
  restrict(config: SubWorkerRestriction): MountSandbox<Root | string>;
  /** Only the named top-level mounts, and no root. */
  selectZones(zones: ZoneRequest[]): MountSandbox<null>;
  getConfig(): ResolvedMountConfig<Root>;
  describe(): SandboxDescription;
  zones(): string[];
  readonly depth: number;
  /** Writable top-level virtual paths, for guiding a model after a read-only refusal. */
  writablePaths(): string[];
  /** Readable top-level virtual paths, for guiding a model after an outside-the-sandbox refusal. */
  readablePaths(): string[];
}
// The file operations, declared once in FileOperations, merged into the class.
export interface MountSandbox<Root extends string | null = string> extends FileOperations {}

export interface ProgramSandboxConfig extends MountRules {
  layout: 'mounts' | 'sandboxed' | 'direct';
  root: string | null;
  /** Present (true) only where the file says `allowPseudoFilesystem: true` for the root. */
  allowPseudoFilesystem?: true;
  mounts: (DescribedMount & { zone?: string })[];
  /** `network:` as written (entries with their place in the file); absent when not set. */
  network?: boolean | ConfigNetworkLists;
  /** `trustedNames:` as written; absent when not set. */
  trustedNames?: Required<TrustedNamesConfig>;
}

export interface ConfigNetworkEntry {
  text: string;
  line: number;
  column: number;
}

export interface ConfigNetworkLists {
  allow: ConfigNetworkEntry[];
  deny: ConfigNetworkEntry[];
  line: number;
  column: number;
}

export interface ProgramConfig {
  /** Absolute path of the config file. */
  file: string;
  dir: string;
  /** null: no sandbox section, so no file access. */
  sandbox: ProgramSandboxConfig | null;
  delegation: { maxDepth: number };
  /** Absolute directories searched for .worker files (workerPaths; default workers, .workers). */
  workerPaths: string[];
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
    network?: boolean | ConfigNetworkLists;
  };
}

export declare const CONFIG_FILE_NAMES: string[];
export declare const DEFAULT_ATTACHMENT_POLICY: Readonly<Required<AttachmentPolicy>>;
export declare function parseProgramConfig(text: string, options: { file: string; format?: 'yaml' | 'json' }): ProgramConfig;
/**
 * Reads and parses a config file; rejects with UnreadableConfigError (code NOT_FOUND,
 * IS_DIRECTORY, NOT_REGULAR_FILE, PSEUDO_FILESYSTEM, TOO_LARGE, ...) what is not a regular file of
 * at most 1 MiB on a filesystem that holds data, without blocking on it.
 */
export declare function loadProgramConfig(file: string): Promise<ProgramConfig>;
/**
 * loadProgramConfig for a file named by hand, with discovery's trust rules: the configs above it
 * are judged first (UntrustedConfigError, as findProgramConfig refuses), then it is read.
 */
export declare function loadTrustedProgramConfig(file: string): Promise<ProgramConfig>;
/**
 * Walks up from startDir (default cwd) to the first config file; null when none. Rejects with
 * UntrustedConfigError a directory holding more than one config name, a config inside a writable
 * area of a config above it, and a config above that cannot be parsed; with
 * UnreadableConfigError a config name that is not a readable config file (a directory is skipped).
 */
export declare function findProgramConfig(startDir?: string): Promise<ProgramConfig | null>;
/** The createMountSandbox() config a program config describes; null for no sandbox. */
export declare function sandboxConfigFrom(config: ProgramConfig): MountSandboxConfig | null;
/** Its commands (exec) cannot change the config names on the walk up or the worker directories. */
export declare function createSandboxFromConfig(config: ProgramConfig): Promise<MountSandbox<string | null> | null>;
export declare function parseWorkerFile(text: string, file?: string): WorkerDeclaration;
/** Reads and parses a .worker file; rejects as loadProgramConfig does what cannot be read. */
export declare function loadWorkerFile(file: string): Promise<WorkerDeclaration>;
/**
 * loadWorkerFile for a .worker file named by hand for this program's sandbox: refused
 * (UntrustedConfigError, code UNTRUSTED_CONFIG, reason UNPROTECTED_WORKER) when it lies where the
 * sandbox lets commands write and is not one of the worker files the config protects.
 */
export declare function loadTrustedWorkerFile(config: ProgramConfig, file: string): Promise<WorkerDeclaration>;
/** call_worker's rule: the child's sandbox, null for none; never wider than the parent. */
export declare function sandboxForWorker(
  parent: MountSandbox<string | null> | null,
  worker: WorkerDeclaration,
): MountSandbox<string | null> | null;

/** Not a single disk access: a missing root or mount source is found at first use. */
export declare function createMountSandbox(config: MountSandboxConfig & { root: string }): MountSandbox;
export declare function createMountSandbox(config: MountSandboxConfig & { root: null }): MountSandbox<null>;
export declare function createMountSandbox(config: MountSandboxConfig): MountSandbox<string | null>;
/** Creates the root and mount sources (mkdir -p) first. */
export declare function createMountSandboxAsync(config: MountSandboxConfig & { root: string }): Promise<MountSandbox>;
export declare function createMountSandboxAsync(config: MountSandboxConfig & { root: null }): Promise<MountSandbox<null>>;
export declare function createMountSandboxAsync(config: MountSandboxConfig): Promise<MountSandbox<string | null>>;
/** A read-write sandbox over a fresh temp directory, removed when the process or worker thread that made it ends (under Jest and Vitest too). */
/**
 * `value` as text that stays on one line and reads back unambiguously: control, format and
 * separator characters and lone surrogates escaped (\\n, \\x1b, \\u202e), backslashes doubled.
 * For showing file names and config values in listings, to a person or a model.
 */
export declare function displayText(value: unknown): string;
/**
 * A glob pattern ("*", "?", "**", "[abc]", "{a,b}", as glob() takes them) compiled by the core:
 * the function tells whether a virtual path matches, in time bounded by the pattern's size times
 * the path's. Names starting with "." match only components that start with a literal ".".
 * Throws SandboxError INVALID_PATTERN for a malformed pattern.
 */
export declare function globMatcher(pattern: string): (virtualPath: string) => boolean;
export declare function createTestSandbox(): Promise<MountSandbox>;
export declare function openat2Supported(): boolean;

export interface Support {
  supported: boolean;
  /** Why not, when `supported` is false (no host paths). */
  reason?: string;
  /** The same for sandbox.exec(), whose launcher is a separate program. */
  exec: { supported: boolean; reason?: string };
}
/**
 * Whether the native addon works here, and why not; never throws. Loads the addon on its first
 * call (importing the package does not). When it says false, creating a sandbox throws
 * UnsupportedPlatformError.
 */
export declare function isSupported(): Support;
export declare const DEFAULT_MAX_READ_BYTES: number;



/**
 * An AbortSignal (`new AbortController().signal`), by its shape, so that this declaration needs
 * neither the DOM's types nor Node's.
 */
export interface ExecAbortSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface ExecOptions {
  /**
   * Virtual working directory (the command finds it at `workspace` + cwd).
   * @default '/'
   */
  cwd?: string;
  /**
   * Where the sandbox's virtual `/` appears in the command's root: virtual `/src/app.ts` is
   * `/workspace/src/app.ts` there. Not `/`, and not over /usr, /etc, /dev, /proc, /tmp, /bin,
   * /sbin or /lib*.
   * @default '/workspace'
   */
  workspace?: string;
  /** Merged over PATH, HOME (/tmp), TMPDIR (/tmp) and LANG; nothing of process.env is passed. */
  env?: Record<string, string>;
  stdin?: string | Uint8Array;
  /**
   * At most 300000; then every process of the command is killed.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Per stream (50 KiB).
   * @default 51200
   */
  maxOutputBytes?: number;
  /**
   * false: the command gets a network namespace with only its own loopback (sockets work, but
   * reach nothing of the host or beyond); where there is none, no TCP (Landlock) and no sockets
   * at all (seccomp). true: the host's network, still without its unix socket files or its
   * abstract unix sockets. An allowlist: the loopback-only namespace, with an HTTP proxy, a SOCKS5
   * proxy and a DNS stub in it served by this process, which lets through only connections to
   * the allowed destinations (clients that ignore proxy variables reach allowed names on ports
   * 80, 443 and any port an entry names). Must lie within the sandbox's network
   * (PermissionEscalationError otherwise). Left out: the sandbox's network (false where none
   * was declared).
   */
  network?: NetworkSetting;
  /** What an approval grants this one call: network entries beyond the sandbox's (never past deny). */
  grant?: { network?: string[] };
  /**
   * Asked, while the command runs, about a destination its allowlist does not cover (and does not
   * deny), once per host and port: true lets it through for the rest of this call.
   */
  onRequest?: (request: { host: string; port: number }) => boolean | Promise<boolean>;
  /**
   * Cancels the call: every process of the command is killed, then the call rejects with an
   * ExecError of stage 'aborted' (at once when the signal has already aborted, with nothing run).
   */
  signal?: ExecAbortSignal;
  /**
   * 'require': refuse to run without user, mount and PID namespaces (ExecEnforcementError);
   * 'prefer': use them when available; 'off': never.
   * @default 'require'
   */
  namespaces?: 'prefer' | 'require' | 'off';
  /**
   * Run even when a required layer is missing (result.enforcement.missing says which).
   * @default false
   */
  allowWeakerEnforcement?: boolean;
  /**
   * Extra host directories the command may read and execute, placed at their own paths (not
   * inside `workspace`, /proc or /dev).
   */
  hostReadPaths?: string[];
  /**
   * Keep what the host's git runs later out of the command's reach (default true): in each
   * repository at the top of a writable mount (and its submodules), `.git/config`, `.git/hooks`,
   * `.git/info` and the worktree and submodule configs are read-only, `.git` cannot be renamed,
   * and a `.git/commondir` or `.git/config.worktree` the command creates is removed when it ends.
   * `git add` and `git commit` still work. `false` leaves `.git` as writable as the mount.
   */
  protectGit?: boolean;
  /**
   * Bind read-only, for the run, every file in a writable mount that is a hard link to a file
   * outside the writable mounts (default true): a command cannot make such a link, but one made
   * before the run would let it change a read-only mount's file or a host file. The walk that
   * finds them reads every writable mount; a run is refused (ExecError of stage 'shared-links')
   * when a mount holds more than 500,000 entries or more than 4,096 such files. `false` skips the
   * walk and leaves those files as writable as their mount.
   * @default true
   */
  protectSharedLinks?: boolean;
  /** Resource limits; each in force is reported in result.enforcement.limits. */
  limits?: ExecLimits;
}

export interface ExecLimits {
  /**
   * Processes and threads of the command together (the PID namespace's pid_max, Linux 6.14+;
   * else RLIMIT_NPROC, which spares root). At least 300, the kernel's floor.
   * @default 512
   */
  processes?: number;
  /**
   * Memory in bytes: each process's data segment (RLIMIT_DATA), and where a memory cgroup can be
   * made (root, or a delegated cgroup v2 subtree) all the command's memory, shared memory
   * included, with no swap. Also caps System V shared memory and the tmpfs `/tmp` and `/dev/shm`
   * (`enforcement.limits.memoryBound` says which bound held).
   */
  memoryBytes?: number;
  /** CPU seconds of each process (RLIMIT_CPU); the timeout bounds the whole command. */
  cpuSeconds?: number;
}

/** The limits in force, null where none was asked for or the kernel could not apply it. */
export interface ExecLimitsEnforced {
  processes: number | null;
  memoryBytes: number | null;
  /**
   * What memoryBytes held: 'cgroup' all the command's memory (a memory cgroup), 'private-memory'
   * each process's private memory only (shared anonymous mappings and memfds unbounded);
   * null without a memory limit.
   */
  memoryBound: 'cgroup' | 'private-memory' | null;
  cpuSeconds: number | null;
}

/** Where the command saw the sandbox (its root was built for it). */
export interface ExecView {
  /** The virtual `/`, e.g. '/workspace'. */
  workspace: string;
  /** The working directory, e.g. '/workspace/src'. */
  cwd: string;
}

export interface ExecEnforcement {
  landlockAbi: number;
  layers: EnforcementLayer[];
  missing: EnforcementLayer[];
  limits: ExecLimitsEnforced;
  /** 'filtered': the allowlist held (its judge served the command); 'off': no network at all. */
  network: 'off' | 'host' | 'filtered';
}

/** What the command reached and what was refused, with an allowlist. */
export interface ExecNetworkReport {
  allowed: { host: string; port: number; connections: number; bytes: number }[];
  /** port null: a name looked up (DNS) that no entry allows; count: how many times. */
  denied: { host: string; port: number | null; reason: NetworkRefusalReason; count: number }[];
}

export type NetworkRefusalReason =
  | 'not-allowed' | 'denied' | 'own-address' | 'unresolvable' | 'unreachable'
  | 'loopback-address' | 'private-address' | 'link-local-address' | 'metadata-address'
  | 'carrier-grade-nat-address' | 'multicast-address' | 'unspecified-address' | 'reserved-address'
  | 'sni-mismatch' | 'bad-tls-hello' | 'bad-http-request' | 'silent-client' | 'unread-protocol'
  | 'bad-response' | 'unknown-address' | 'too-many-names' | 'udp' | 'unsupported-command';

/** golem-forge's ShellResult plus how the command ended and what confined it. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  /** -1 when killed by a signal or the timeout; 127 not found; 126 not executable. */
  exitCode: number;
  truncated: boolean;
  signal: string | null;
  timedOut: boolean;
  /** null where the namespace layer was unavailable and the command saw host paths. */
  view: ExecView | null;
  enforcement: ExecEnforcement;
  /** With an allowlist: destinations reached and refused; null otherwise. */
  network: ExecNetworkReport | null;
  /**
   * Virtual paths ("/.workers", "/golem-forge.config.yaml", "/sub/.git", "/.git/modules/evil") of
   * what the command created at names the next run or the host's git would trust, removed after
   * it ended (only after a run in a PID namespace); a note on stderr says so too. Empty when
   * nothing was.
   */
  removedAfterRun: string[];
  /**
   * What could not be removed, or for git not checked, after the run: "/tmp" for the command's
   * private temp directory, else virtual paths of removedAfterRun's kind (a note on stderr names
   * those). Empty when cleanup went through.
   */
  cleanupFailed: string[];
}

