// The MountSandbox class, the factories that make one, and the helpers beside them.
// Part of the main entry's declarations: lib/index.d.ts re-exports every name.

import type { SandboxError } from '../sandbox-errors.js';
import type {
  ApprovalDecision,
  MountSandboxConfig,
  ResolvedMountConfig,
  SandboxDescription,
  SubWorkerRestriction,
  ZoneRequest,
} from './config.js';
import type { ExecOptions, ExecResult } from './exec.js';
import type { Attachment, AttachmentPolicy, FileOperations, WriteOptions } from './files.js';
import type { GlobResult, GrepOptions, GrepResult } from './search.js';

/**
 * A sandbox, made by createMountSandbox() and the other factories (not with `new`). `Root` is the
 * type of getConfig().root: `string` (the default) for a sandbox made with a root directory, which
 * is what golem-forge's MountSandbox interface describes; `null` for one made by selectZones() or
 * from a config with `root: null`, which has only mounts; `string | null` where either is possible
 * (a MountSandboxConfig<string | null>, program config files, sandboxForWorker). The factories
 * take the root's type from the config's (see MountSandboxConfig).
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
   * Content search, as ripgrep searches by default: hidden entries, links and binary files passed
   * over; `gitignore: true` honours .gitignore (inside a git repository) and .ignore files. Every
   * file is read through the sandbox (its rules refuse what they refuse anywhere); the pattern is
   * RE2's syntax, matched in linear time. Bounded by results, bytes and CPU time (`truncated`
   * says which stopped it); `signal` cancels, rejecting with its reason.
   */
  grep(pattern: string, options?: GrepOptions): Promise<GrepResult>;
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

/** Not a single disk access: a missing root or mount source is found at first use. */
export declare function createMountSandbox(config: MountSandboxConfig): MountSandbox;
export declare function createMountSandbox(config: MountSandboxConfig<null>): MountSandbox<null>;
export declare function createMountSandbox(config: MountSandboxConfig<string | null>): MountSandbox<string | null>;
/** Creates the root and mount sources (mkdir -p) first. */
export declare function createMountSandboxAsync(config: MountSandboxConfig): Promise<MountSandbox>;
export declare function createMountSandboxAsync(config: MountSandboxConfig<null>): Promise<MountSandbox<null>>;
export declare function createMountSandboxAsync(config: MountSandboxConfig<string | null>): Promise<MountSandbox<string | null>>;
/**
 * `value` as text that stays on one line and reads back unambiguously: control, format and
 * separator characters and lone surrogates escaped (\\n, \\x1b, \\u202e), backslashes doubled.
 * For showing file names and config values in listings, to a person or a model.
 */
export declare function displayText(value: unknown): string;
/**
 * At most the first `max` characters of `value` (default 200), then "…" when there were more:
 * what a message quotes of a value a caller sent, so that a 4 MiB pattern is not sent back whole.
 */
export declare function excerpt(value: unknown, max?: number): string;
/**
 * A glob pattern ("*", "?", "**", "[abc]", "{a,b}", as glob() takes them) compiled by the core:
 * the function tells whether a virtual path matches, in time bounded by the pattern's size times
 * the path's. Names starting with "." match only components that start with a literal ".".
 * Throws SandboxError INVALID_PATTERN for a malformed pattern.
 */
export declare function globMatcher(pattern: string): (virtualPath: string) => boolean;
/** A read-write sandbox over a fresh temp directory, removed when the process or worker thread that made it ends (under Jest and Vitest too). */
export declare function createTestSandbox(): Promise<MountSandbox>;
export declare function openat2Supported(): boolean;

export interface Support {
  supported: boolean;
  /** Why not, when `supported` is false (no host paths). */
  reason?: string;
  /**
   * Whether sandbox.exec() runs here with its default options (namespaces "require"): its launcher,
   * a separate program, is asked once per process; the reason is the one exec would reject with.
   */
  exec: { supported: boolean; reason?: string };
}
/**
 * Whether the native addon works here, and why not; never throws. Loads the addon on its first
 * call (importing the package does not). When it says false, creating a sandbox throws
 * UnsupportedPlatformError.
 */
export declare function isSupported(): Support;
export declare const DEFAULT_MAX_READ_BYTES: number;
