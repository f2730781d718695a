// What the wiring in ../src uses of '@golem-forge/core', stated here as golem-forge's commit
// 8cdb671 declares it (the tool and toolset types in packages/core/src/tools/base.ts, the registry
// in tools/registry.ts, BlockedError and the approval types in approval/types.ts, ApprovalController
// in approval/controller.ts, the sandbox types in sandbox-types.ts).
// Written for this check, not copied; the sandbox interface is the one test/types/golem-contract.cts
// holds the package to.

export interface FileStat {
  path: string;
  size: number;
  createdAt: Date;
  modifiedAt: Date;
  isDirectory: boolean;
}

export interface FileOperations {
  read(path: string): Promise<string>;
  readBinary(path: string): Promise<Uint8Array>;
  write(path: string, content: string): Promise<void>;
  writeBinary(path: string, content: Uint8Array): Promise<void>;
  delete(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  list(path: string): Promise<string[]>;
  stat(path: string): Promise<FileStat>;
  resolve(path: string): string;
  isValidPath(path: string): boolean;
}

export interface Mount {
  source: string;
  target: string;
  readonly?: boolean;
}

export interface MountSandboxConfig {
  root: string;
  readonly?: boolean;
  mounts?: Mount[];
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
  mounts: ResolvedMount[];
}

export interface MountSandbox extends FileOperations {
  canWrite(path: string): boolean;
  restrict(config: SubWorkerRestriction): MountSandbox;
  getConfig(): ResolvedMountConfig;
}

// A tool: the AI SDK's Tool with `any` input and output (so `execute` may take any input type),
// plus a name. Only the members a toolset sets are listed.
export interface NamedTool {
  name: string;
  description?: string;
  /** A zod schema in golem-forge. */
  inputSchema: unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  needsApproval?: boolean | ((input: any, options: any) => boolean | PromiseLike<boolean>);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  execute?: (input: any, options: any) => unknown;
  manualExecution?: { mode: 'llm' | 'manual' | 'both'; label?: string; category?: string };
}

/** What the CLI hands a toolset factory when a worker lists the toolset. */
export interface ToolsetContext {
  /** The worker's sandbox; undefined when it has none. */
  sandbox?: FileOperations;
  /** golem-forge's ApprovalController: the shell toolset asks it about a command's held changes. */
  approvalController: ApprovalController;
  workerFilePath?: string;
  programRoot?: string;
  /** The toolset's entry in the worker's frontmatter (`toolsets: { name: {...} }`), or {}. */
  config: Record<string, unknown>;
}

export type ToolsetFactory = (ctx: ToolsetContext) => Promise<NamedTool[]> | NamedTool[];

/**
 * The one registry the CLI's createTools() asks for a toolset it has no case for; when the name is
 * not registered yet it first imports `../tools/<name>/index.js` (relative to its runtime folder),
 * which registers itself.
 */
export declare const ToolsetRegistry: {
  /** Throws when the name is taken, unless allowReplace. */
  register(name: string, factory: ToolsetFactory, options?: { allowReplace?: boolean }): void;
  get(name: string): ToolsetFactory | undefined;
  has(name: string): boolean;
  list(): string[];
};

/** What an approval prompt shows (approval/types.ts). */
export interface ApprovalRequest {
  toolName: string;
  toolArgs: Record<string, unknown>;
  description: string;
}

/** The user's answer (approval/types.ts). */
export interface ApprovalDecision {
  approved: boolean;
  note?: string;
  remember: 'none' | 'session';
}

/** golem-forge's ApprovalController (approval/controller.ts): what the wiring calls of it. */
export interface ApprovalController {
  requestApproval(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/** Thrown by a tool's execute when its rules forbid the call outright (no approval asked). */
export declare class BlockedError extends Error {
  constructor(toolName: string, reason: string);
  readonly toolName: string;
  readonly reason: string;
}
