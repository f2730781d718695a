// The raw native binding (binding/addon.cc), as lib/common/native.js's addon() returns it. Only the
// facade calls it: paths and options arrive validated and normalized (lib/config/config.js), and errors
// are built by the callback given to the NativeSandbox constructor.
import type {
  ApprovalConfig,
  ApprovalDecision,
  ProgramConfig,
  SandboxDescription,
  WorkerDeclaration,
} from './index.js';
import type { SandboxError } from './sandbox-errors.js';

export type Operation = 'write' | 'delete';

/** Builds the facade's error for a core error code; `this` is the sandbox that refused. */
export type ErrorFactory = (
  this: NativeSandbox,
  code: string,
  path: string,
  details: { size?: number; limit?: number; errno?: number; index?: number; syscall?: string; filesystem?: string },
) => Error;

export interface NativeStat {
  size: number;
  birthtimeMs: number;
  mtimeMs: number;
  isDirectory: boolean;
  /** The type statx found on the resolved descriptor (binding/sandbox_wrap.cc, file_type_name). */
  type: 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'character-device' | 'block-device' | 'unknown';
  version: string;
}

/** A host directory exec() must reach, pinned by device and inode where it exists. */
export interface ExecPath {
  path: string;
  access: string;
  id?: string;
  /** The virtual path a mount appears at (absent for hidden mounts). */
  target?: string;
}

export declare class NativeSandbox {
  /** `config` is normalizeConfig()'s output. */
  constructor(config: object, makeError: ErrorFactory);
  read(path: string): Promise<string>;
  readBinary(path: string): Promise<Uint8Array>;
  readRange(path: string, offset: number, length: number, binary: boolean): Promise<string & Uint8Array>;
  /** `ifVersion`: a version token from stat(), or undefined for none. */
  write(path: string, content: string | Uint8Array, ifVersion: string | undefined): Promise<void>;
  delete(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  /** Entry names joined with NUL; "" for none. */
  list(path: string): Promise<string>;
  /** Names joined by NUL, and one type letter per name (f, d, l, o, u). */
  listEntries(path: string): Promise<{ names: string; types: string }>;
  stat(path: string): Promise<NativeStat>;
  edit(path: string, oldText: string, newText: string, ifVersion: string | undefined): Promise<void>;
  move(from: string, to: string, overwrite: boolean): Promise<void>;
  copy(from: string, to: string, overwrite: boolean): Promise<void>;
  mkdir(path: string): Promise<void>;
  /** `paths` joined with NUL. */
  glob(pattern: string, limit: number, maxEntries: number): Promise<{ paths: string; truncated: boolean }>;
  /** `textual[i]`: paths[i] is decoded as text, so it is held to limits.maxTextBytes. */
  readAttachments(paths: string[], rules: object, textual: boolean[]): Promise<Uint8Array[]>;
  /** mkdir -p of the root and every mount source. */
  createSources(): Promise<void>;
  resolve(path: string): string;
  /** The refusal as an error (not thrown), or undefined when the path is valid. */
  checkPath(path: string): SandboxError | undefined;
  checkWritable(path: string, operation: Operation): SandboxError | undefined;
  approvalFor(path: string, operation: Operation): ApprovalDecision;
  restrict(subtree: string, readonly: boolean | undefined, approval: Required<ApprovalConfig> | undefined): NativeSandbox;
  selectZones(zones: { name: string; readonly: boolean }[]): NativeSandbox;
  config(): SandboxDescription;
  execPaths(): ExecPath[];
  grep(path: string, options: object, cancel: Int32Array): Promise<import('./index').GrepResult>;
  /** The names the host trusts next, as this sandbox keeps them (src/fs/trusted_names.h). */
  trustedNames(): TrustedNamesDescription;
  /**
   * Per source (absolute host paths), at any depth: the trusted entries under it, the
   * repositories by git's layout and the work trees holding a `.git` (host paths), bounded.
   */
  findTrusted(sources: string[]): Promise<{ found: string[]; repositories: RepositorySeen[]; workTrees: string[]; truncated: boolean }[]>;
  /** Whether a release covers the entry at this host path (its protection is lifted for every way in). */
  releasedHostPath(host: string): boolean;
  findSharedLinks(sources: { host: string; skip: string[] }[]): Promise<{ found: string[]; truncated: boolean }>;
}

export interface TrustedNamesDescription {
  names: { name: string; kind: 'git' | 'sandbox' | 'client' | 'shell' | 'named' | 'tool' }[];
  released: string[];
  hostPaths: string[];
  /** Directories core.hooksPath names in the repositories at and above the sources. */
  hookDirs: string[];
}

/** A repository found by findTrusted: its git directory, identity ("dev:ino") and valid HEAD text ("" if none). */
export interface RepositorySeen {
  gitDir: string;
  id: string;
  head: string;
}

/** Where a config file is wrong; exactly one of `error` and the result is set. */
export interface ConfigErrorDetails {
  line: number;
  column: number;
  keyPath: string;
  expected: string;
}

/** An opened config file's descriptor, owned by the addon. */
export type ConfigFileHandle = { readonly __configFileHandle: unique symbol };

/** Why a config file could not be opened or read: a core error code and its details. */
export interface FileErrorDetails {
  code: string;
  errno?: number;
  syscall?: string;
  size?: number;
  limit?: number;
  filesystem?: string;
}

/** The git scan's state between a run's start and its end (opaque). */
export type GitAfterRunHandle = { readonly __gitAfterRun: unique symbol };

export interface NativeBinding {
  NativeSandbox: typeof NativeSandbox;
  openat2Supported(): boolean;
  parseProgramConfig(
    text: string,
    file: string,
    format: 'yaml' | 'json',
  ): { config?: ProgramConfig; error?: ConfigErrorDetails };
  parseWorkerFile(text: string): { worker?: Omit<WorkerDeclaration, 'file'>; error?: ConfigErrorDetails };
  /**
   * Opens a config or .worker file (absolute path) with O_PATH, reading nothing: where it really
   * lies, and a handle for readConfigFile. Failures settle as `{ error }`.
   */
  openConfigFile(file: string): Promise<{ handle: ConfigFileHandle; realPath: string } | { error: FileErrorDetails }>;
  /** What the next run trusts of a program config (host paths): existing ones and missing names. */
  nextRunFiles(configFile: string, workerDirs: string[], writableAreas: string[]): Promise<{ existing: string[]; absent: string[] } | { error: FileErrorDetails }>;
  /** Checks the opened file (a regular file on a filesystem that holds data, at most 1 MiB) and reads it. */
  readConfigFile(handle: ConfigFileHandle): Promise<{ text: string } | { error: FileErrorDetails }>;
  /** Closes the handle's descriptor now (a no-op once read). */
  closeConfigFile(handle: ConfigFileHandle): void;
  /**
   * The git scan of src/git on the threadpool (writable mount sources, real paths): what to bind
   * read-only and to pin, and a handle for gitAfterRun. A refusal settles as `{ error }`.
   */
  /** A matcher of virtual paths for `pattern` (src/fs/glob.h), or null when it is not a pattern. */
  compileGlob(pattern: string): ((virtualPath: string) => boolean) | null;
  gitScan(writable: string[]): Promise<
    | { protect: string[]; pin: string[]; handle: GitAfterRunHandle; error?: undefined }
    | { error: { kind: 'symlink' | 'too-large' | 'too-many' | 'malformed' | 'io'; what: string; errno?: number } }
  >;
  /** Removes what the command planted at names git follows; host paths. */
  gitAfterRun(handle: GitAfterRunHandle): Promise<{ removed: string[]; unchecked: string[]; failed: string[]; repositories: string[] }>;
  /** After a run: runners taken out of new repositories, voided HEADs put back (host paths). */
  settleRepositories(before: RepositorySeen[], after: RepositorySeen[], roots: string[]): Promise<{ takenOut: string[]; restored: string[]; failed: string[] }>;
  /** null, or where and why an entry of trustedNames.add/release is refused. */
  trustedEntryProblem(entry: string): { offset: number; reason: string } | null;
  /** Whether a release names something the list (built-in names when `builtin`, and `added`) protects. */
  releaseCoversProtected(entry: string, builtin: boolean, added: string[]): boolean;
  /** An AF_UNIX SOCK_SEQPACKET pair, both ends close-on-exec: [parentFd, childFd]. */
  socketPair(): [number, number];
  /**
   * Receives the exec launcher's listening sockets on parentFd (closed after) until "end" or the
   * launcher's close, within 10 s; the descriptors (close-on-exec) are the caller's to close.
   * Rejects with an Error on a malformed message or the timeout, closing what it received.
   */
  receiveListeners(parentFd: number): Promise<Array<{ label: string; fd: number }>>;
  originalDestination(fd: number): { address: string; port: number } | null;
  /** The core's suffix_rule on each string: all folded, or the index of the first that is no rule. */
  foldSuffixes(written: string[]): { suffixes: string[]; invalid?: undefined } | { suffixes?: undefined; invalid: number };
  /** The index of the first suffix `name` ends with under the core's folding, or -1. */
  matchingSuffix(name: string, suffixes: string[]): number;
  /** The size the launcher gives a command's /tmp: tmpBytes, no more than memoryBytes. */
  tmpSize(tmpBytes: number, memoryBytes: number): number;
  /** The core's limits and defaults that lib/ also holds (checked by test/rules-once.test.js). */
  readonly limits: Readonly<{
    maxPathBytes: number;
    defaultGlobLimit: number;
    maxGlobLimit: number;
    maxGlobEntries: number;
    maxConfigBytes: number;
    defaultMaxReadBytes: number;
    maxReadBytes: number;
    /** V8's longest string (in UTF-8 bytes): every text the addon hands out is held to it. */
    maxTextBytes: number;
    defaultMaxDepth: number;
    defaultDelegationDepth: number;
    maxDelegationDepth: number;
    maxFileBytes: number;
    grepBytesPerThread: number;
    grepLineBound: number;
    maxGrepThreads: number;
    /** grep's `type` names, each with its globs separated by "," (src/search/file_types.h). */
    fileTypes: Readonly<Record<string, string>>;
    defaultCommandPath: string;
  }>;
}
