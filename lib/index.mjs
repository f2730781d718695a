// ESM entry: the same module instance as the CommonJS one, so error classes are shared.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cjs = require('./index.js');

export const {
  createMountSandbox,
  createMountSandboxAsync,
  createTestSandbox,
  createSandboxFromConfig,
  findProgramConfig,
  loadProgramConfig,
  parseProgramConfig,
  sandboxConfigFrom,
  parseWorkerFile,
  loadWorkerFile,
  sandboxForWorker,
  CONFIG_FILE_NAMES,
  DEFAULT_ATTACHMENT_POLICY,
  MountSandbox,
  openat2Supported,
  DEFAULT_MAX_READ_BYTES,
  SandboxError,
  NotFoundError,
  InvalidPathError,
  ReadOnlyError,
  PermissionEscalationError,
  SymlinkError,
  NotRegularFileError,
  IsDirectoryError,
  NotDirectoryError,
  FileTooLargeError,
  MountPointError,
  AccessDeniedError,
  SandboxConfigError,
  ConfigFileError,
  OutsideSandboxError,
  OperationBlockedError,
  SuffixNotAllowedError,
  EditError,
  AttachmentPolicyError,
  WorkerSandboxError,
  ExecEnforcementError,
  ExecError,
  isSandboxError,
} = cjs;
export default cjs;
