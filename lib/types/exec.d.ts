// Commands (sandbox.exec): their options, limits and results.
// Part of the main entry's declarations: lib/index.d.ts re-exports every name.

import type { EnforcementLayer } from '../sandbox-errors.js';
import type { NetworkRefusalReason, NetworkSetting } from './network.js';

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
   * the allowed destinations (clients that ignore proxy variables reach allowed names on every
   * allowed port, or where the layer 'network-every-port' is missing on 80, 443 and any port an
   * entry names). Must lie within the sandbox's network
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
  /**
   * What becomes of what the command changes in the writable mounts (docs/exec.md, "What lands"):
   * - 'apply': it runs on copy-on-write layers (the host stays as it was while it runs), and after
   *   it ends each change is judged by the file API's rules and lands, or is listed in
   *   result.changes.refused / conflicts with the reason;
   * - 'review': judged the same, nothing lands until result.changes.apply();
   * - 'direct': the command writes to the host as it runs, guarded as protectGit and
   *   protectSharedLinks say.
   * Left out, 'apply' where this machine can make the layers, else 'direct' (result.enforcement
   * says which); given, a run without the layers is refused (ExecEnforcementError).
   * @default 'apply'
   */
  changes?: 'apply' | 'review' | 'direct';
  /**
   * With 'apply': changes in places whose approval is 'ask' wait in result.changes.pending until
   * result.changes.apply(), instead of landing with the rest (the caller approved the command).
   * @default false
   */
  holdAsk?: boolean;
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
  /**
   * The size of the command's `/tmp` (also its `HOME`), a tmpfs: past it, writes there fail with
   * ENOSPC (a note says so). No more than memoryBytes where that is given. 0: the host's disk,
   * unbounded. Only with the namespace layer (`'tmp-limit'` in `enforcement.layers`). The
   * command's pending changes (its copy-on-write layers, `changes: 'apply' | 'review'`) share it
   * where they are in that tmpfs (`'copy-on-write-limit'`).
   * @default 1073741824
   */
  tmpBytes?: number;
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
  /** The size of the command's `/tmp`, where it is a tmpfs of its own (and of its pending changes too with `'copy-on-write-limit'`). */
  tmpBytes: number | null;
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
  /**
   * What became of the command's writes: judged after it ('apply', 'review'), or made directly
   * ('direct': asked for, or no copy-on-write layer here, with 'copy-on-write' in `missing`).
   */
  changes: 'apply' | 'review' | 'direct';
}

/** What the command reached and what was refused, with an allowlist. */
export interface ExecNetworkReport {
  /**
   * A row per destination reached, for the first 256. Past them, a destination is counted in one
   * row for the allow entry it matched (`host` as the entry writes it, `*.example.org` for a
   * wildcard; `port` null where the entry names none), or, approved by onRequest and matching no
   * entry, in one row for all such (`host` '*'); such rows say how many `destinations` they hold.
   * Every connection and byte is in some row.
   */
  allowed: { host: string; port: number | null; connections: number; bytes: number; destinations?: number }[];
  /**
   * A row per destination and reason, for the first 256 connections and the first 256 DNS
   * lookups (port null: a name looked up that no entry allows); count: how many times.
   */
  denied: { host: string; port: number | null; reason: NetworkRefusalReason; count: number }[];
  /** Only where some destination has no row of its own. */
  overflow?: ExecNetworkOverflow;
}

/** What the rows of an ExecNetworkReport do not show one by one. */
export interface ExecNetworkOverflow {
  /** Destinations reached that are counted only in an entry's row (one with `destinations`). */
  allowed: number;
  /** Refused destinations with no row (past the rows of their kind), and their refusals. */
  denied: number;
  refusals: number;
  /** Those refusals by reason. */
  reasons: Partial<Record<NetworkRefusalReason, { destinations: number; refusals: number }>>;
  /**
   * False when the judge met more distinct destinations past the rows than it remembers (4096 of
   * each side): the counts of destinations are then lower bounds. Connections, bytes and
   * refusals are always exact.
   */
  exact: boolean;
}

/** One change a command made, as the file API's rules judged it. */
export interface ExecChange {
  /** Virtual path. */
  path: string;
  /** 'delete' removes a file, link or directory; a directory's entries are listed before it. */
  kind: 'file' | 'symlink' | 'directory' | 'delete';
  /** A file's new size in bytes; 0 otherwise. */
  size: number;
  /** What the place asks of a change made there, as approvalFor() answers. */
  approval: 'preApproved' | 'ask' | 'blocked';
  /**
   * The version (stat()'s `version` token) of what the path held on the host when the change was
   * judged, null where it held nothing: what the change replaces.
   */
  replaces: string | null;
  /** Refused and conflicting changes: the file API's error code (READ_ONLY, HOST_TRUSTED, CONFLICT, ...). */
  code?: string;
  /** Refused and conflicting changes: the file API's message for it. */
  reason?: string;
}

/** What apply() landed of a held change set. */
export interface ExecChangesApplied {
  applied: ExecChange[];
  refused: ExecChange[];
  conflicts: ExecChange[];
  /** What the filter left out: still held. */
  pending: ExecChange[];
  truncated: boolean;
}

/** A command's change set (changes 'apply' or 'review'). */
export interface ExecChanges extends ExecChangesApplied {
  mode: 'apply' | 'review';
  /**
   * Lands what is held (or what `filter` keeps: virtual paths, a directory standing for what it
   * holds, or a predicate), judged again by the rules as they are now. The hold ends once
   * nothing waits. Rejects once the set was applied whole or discarded.
   */
  apply(filter?: string[] | ((change: ExecChange) => boolean)): Promise<ExecChangesApplied>;
  /** Drops what is held: the host stays as it is. */
  discard(): Promise<void>;
  /**
   * A unified diff of a held change to a text file ('file' or 'delete'): the host's file as the
   * sandbox reads it now against the command's version ('' for a directory or a link; one line
   * for a binary file or one over 1 MiB). Rejects for a path that is not held.
   */
  diff(path: string): Promise<string>;
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
  /** null where the namespace layer was unavailable and the command saw host paths. */
  view: ExecView | null;
  enforcement: ExecEnforcement;
  /** With an allowlist: destinations reached and refused; null otherwise. */
  network: ExecNetworkReport | null;
  /** What the command changed and what became of it; null when it wrote directly (changes 'direct'). */
  changes: ExecChanges | null;
  /**
   * Virtual paths ("/.workers", "/golem-forge.config.yaml", "/sub/.git", "/.git/modules/evil") of
   * what the command created at names the next run or the host's git would trust, removed after
   * it ended (only after a run in a PID namespace); a note on stderr says so too. Empty when
   * nothing was.
   */
  removedAfterRun: string[];
  /**
   * What was settled in the repositories of the writable mounts after the run (only in a PID
   * namespace): in a repository the command made, each config entry that could make git run a
   * program ("/lib/.git/config: core.fsmonitor") and each hook other than git's samples
   * ("/lib/.git/hooks/pre-commit"), taken out while the repository stays; and each HEAD the
   * command removed or voided in a repository that was there, put back ("/.git/HEAD"). A note on
   * stderr says so too. Empty when nothing was.
   */
  gitTakenOut: string[];
  /**
   * What could not be removed, or for git not checked, after the run: "/tmp" for the command's
   * private temp directory, else virtual paths of removedAfterRun's kind (a note on stderr names
   * those). Empty when cleanup went through.
   */
  cleanupFailed: string[];
}
