// A sandbox's config (createMountSandbox's MountSandboxConfig, mounts, approvals, file policies,
// trusted names), what restrict() and selectZones() take, and what describe() and getConfig() say.
// Part of the main entry's declarations: lib/index.d.ts re-exports every name.

import type { NetworkDescription, NetworkSetting } from './network.js';

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

/**
 * createMountSandbox()'s config. `Root` is the type of `root`, as MountSandbox's is of
 * getConfig().root: `string` (the default) for a config with a root directory, which makes a
 * MountSandbox, so `const cfg: MountSandboxConfig = { root: 'project' }` gives one; `null` for a
 * config with only mounts (MountSandbox<null>); `string | null` where either is possible
 * (sandboxConfigFrom; MountSandbox<string | null>).
 */
export interface MountSandboxConfig<Root extends string | null = string> extends MountPolicyConfig {
  /**
   * Host directory mounted at "/"; relative paths resolve against process.cwd(). null (with
   * at least one mount): no root, "/" only lists the mounts.
   */
  root: Root;
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
   * What becomes of this sandbox's commands' changes when a call names none (ExecOptions.changes),
   * kept by every view derived from it. Unset: 'apply' where copy-on-write layers can be made,
   * else direct writes; set, a machine without the layers refuses to run ('direct' aside).
   */
  changes?: 'apply' | 'review' | 'direct';
  /**
   * The size in bytes of this sandbox's commands' /tmp when a call names none
   * (ExecLimits.tmpBytes), kept by every view derived from it; 0 puts it on the host's disk,
   * unbounded. Unset: ExecLimits.tmpBytes's default, 1 GiB.
   */
  tmpBytes?: number;
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

/**
 * Each entry is a path relative to the sandbox's root (".vscode/settings.json": that place, and
 * what lies below it), or "**\/" and a name for a name at any depth ("**\/deploy.sh"). No glob
 * characters. A release must name something the list protects.
 */
export interface TrustedNamesConfig {
  add?: string[];
  release?: string[];
}

/** describe().trustedNames: the set in force (the names, what is released, the sandbox's own files). */
export interface TrustedNamesDescription {
  names: { name: string; kind: 'git' | 'sandbox' | 'client' | 'shell' | 'named' | 'tool' }[];
  released: string[];
  /** The sandbox's own files as host paths: its config, config names on the walk up, workers. */
  hostPaths: string[];
  /** Directories core.hooksPath names in the repositories at and above the sources (host paths). */
  hookDirs: string[];
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
