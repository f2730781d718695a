// The sandbox interface golem-forge codes against, written here from its contract (root is a
// string, restrict returns the same interface), and checks that this package's types satisfy it.
import {
  createMountSandbox,
  createMountSandboxAsync,
  createTestSandbox,
  MountSandbox,
  type MountSandboxConfig,
} from 'mount-sandbox';

interface ContractStat {
  path: string;
  size: number;
  createdAt: Date;
  modifiedAt: Date;
  isDirectory: boolean;
}

interface ContractFileOperations {
  read(path: string): Promise<string>;
  readBinary(path: string): Promise<Uint8Array>;
  write(path: string, content: string): Promise<void>;
  writeBinary(path: string, content: Uint8Array): Promise<void>;
  delete(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  list(path: string): Promise<string[]>;
  stat(path: string): Promise<ContractStat>;
  resolve(path: string): string;
  isValidPath(path: string): boolean;
}

interface ContractConfig {
  root: string;
  readonly?: boolean;
  mounts?: { source: string; target: string; readonly?: boolean }[];
}

interface ContractResolvedConfig {
  root: string;
  readonly: boolean;
  mounts: { source: string; target: string; readonly: boolean }[];
}

interface ContractSandbox extends ContractFileOperations {
  canWrite(path: string): boolean;
  restrict(config: { restrict?: string; readonly?: boolean }): ContractSandbox;
  getConfig(): ContractResolvedConfig;
}

async function assignable(config: ContractConfig, unknownValue: unknown): Promise<void> {
  // golem-forge's config goes in as is.
  const ours: MountSandboxConfig = config;
  const fromConfig: ContractSandbox = createMountSandbox(config);
  const typed: MountSandbox = createMountSandbox(ours as MountSandboxConfig & { root: string });
  const asContract: ContractSandbox = typed;
  const restricted: ContractSandbox = typed.restrict({ restrict: '/src', readonly: true });
  const made: ContractSandbox = await createMountSandboxAsync({ root: '/tmp/x' });
  const test: ContractSandbox = await createTestSandbox();
  if (unknownValue instanceof MountSandbox) {
    const narrowed: MountSandbox<string | null> = unknownValue;
    void narrowed;
  }
  void [fromConfig, asContract, restricted, made, test];
}

// A sandbox that may have no root (selectZones, `root: null`) is not a ContractSandbox.
function rootless(sandbox: MountSandbox<string | null>, zones: MountSandbox): void {
  // @ts-expect-error getConfig().root may be null
  const wrong: ContractSandbox = sandbox;
  // @ts-expect-error selectZones() has no root
  const alsoWrong: ContractSandbox = zones.selectZones([{ name: 'data' }]);
  const nullRoot: null = createMountSandbox({ root: null, mounts: [] }).getConfig().root;
  void [wrong, alsoWrong, nullRoot];
}

void assignable;
void rootless;
