// golem-forge's own Node sandbox, packages/cli/src/sandbox/mount-sandbox.ts (commit 8cdb671), as
// its exports are typed: stated here for the type check of ./index.ts; written for it, not copied.
import type { MountSandbox, MountSandboxConfig, ResolvedMountConfig } from '@golem-forge/core';

export type { MountSandbox } from '@golem-forge/core';

export interface MountSandboxImpl extends MountSandbox {}
export declare class MountSandboxImpl {
  constructor(config: ResolvedMountConfig);
}

export declare function createMountSandbox(config: MountSandboxConfig): MountSandbox;
export declare function createMountSandboxAsync(config: MountSandboxConfig): Promise<MountSandbox>;
export declare function createTestSandbox(): Promise<MountSandbox>;
