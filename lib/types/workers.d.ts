// Program config files and .worker files: reading them, with discovery's trust rules, and the
// sandboxes they describe.
// Part of the main entry's declarations: lib/index.d.ts re-exports every name.

import type { ApprovalConfig, DescribedMount, MountRules, MountSandboxConfig, TrustedNamesConfig } from './config.js';
import type { MountSandbox } from './sandbox.js';

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
  /** `changes:` as the file gives it (SandboxConfig.changes). */
  changes?: 'apply' | 'review' | 'direct';
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
export declare function sandboxConfigFrom(config: ProgramConfig): MountSandboxConfig<string | null> | null;
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
