// packages/cli/src/sandbox/index.ts, keeping both: in place of its export from
// './mount-sandbox.js' (golem-forge's own implementation, which stays as the fallback).
import {
  isSupported,
  MountSandbox as NativeSandbox,
  createMountSandbox as nativeCreate,
  createMountSandboxAsync as nativeCreateAsync,
  createTestSandbox as nativeTest,
} from 'mount-sandbox';
import type { MountSandbox, MountSandboxConfig } from '@golem-forge/core';
import * as own from './mount-sandbox.js';

const native = isSupported().supported; // never throws; its `reason` says why not

export const MountSandboxImpl = native ? NativeSandbox : own.MountSandboxImpl;
export const createMountSandbox: (config: MountSandboxConfig) => MountSandbox =
  native ? nativeCreate : own.createMountSandbox;
export const createMountSandboxAsync: (config: MountSandboxConfig) => Promise<MountSandbox> =
  native ? nativeCreateAsync : own.createMountSandboxAsync;
export const createTestSandbox: () => Promise<MountSandbox> = native ? nativeTest : own.createTestSandbox;
