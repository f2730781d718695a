// The public types as a strict ESM consumer sees them (lib/index.d.mts, lib/sandbox-errors.d.mts).
import mountSandbox, {
  createMountSandbox,
  createMountSandboxAsync,
  createTestSandbox,
  isSupported,
  MountSandbox,
  NotFoundError,
  UnsupportedPlatformError,
  type ExecOptions,
  type MountSandboxConfig,
  type Support,
} from 'mount-sandbox';
import * as errors from 'mount-sandbox/errors';

// Both entries name the same class, so a value of one is a value of the other.
const sameClass: typeof errors.NotFoundError = NotFoundError;
const fromDefault: typeof NotFoundError = mountSandbox.NotFoundError;

async function use(value: unknown): Promise<void> {
  const support: Support = isSupported();
  if (!support.supported) {
    const reason: string | undefined = support.reason;
    void reason;
    return;
  }
  try {
    const sandbox: MountSandbox = createMountSandbox({ root: '/tmp/project' });
    const options: ExecOptions = { namespaces: 'require', timeoutMs: 1000 };
    const result = await sandbox.exec(['ls'], options);
    const code: number = result.exitCode;
    void code;
  } catch (e) {
    if (e instanceof UnsupportedPlatformError) {
      const why: string = e.reason;
      const steps: string[] = e.solutions;
      void [why, steps];
    }
    if (e instanceof errors.SandboxError) console.log(e.toLLMMessage());
  }
  if (value instanceof MountSandbox) {
    const root: string | null = value.getConfig().root;
    void root;
  }
  const test = await createTestSandbox();
  const root: string = test.getConfig().root;
  // Annotated, as test/types/annotated.cts checks from CommonJS.
  const config: MountSandboxConfig = { root: '/tmp/project' };
  const annotated: MountSandbox = await createMountSandboxAsync(config);
  void [root, sameClass, fromDefault, annotated];
}

void use;
