// Compiled with `tsc --strict` by test/surface.test.js: the public types as a strict CommonJS
// consumer (this is a .cts file) uses them.
import {
  createMountSandbox,
  createMountSandboxAsync,
  createTestSandbox,
  isSandboxError,
  NotFoundError,
  ReadOnlyError,
  SandboxError,
  type FileStat,
  type MountSandbox,
  type MountSandboxConfig,
  type ResolvedMountConfig,
} from 'mount-sandbox';

const config = {
  root: '/tmp/project',
  mounts: [{ source: '/tmp/cache', target: '/cache', readonly: true }],
} satisfies MountSandboxConfig;

async function use(): Promise<void> {
  const sandbox: MountSandbox = createMountSandbox(config);
  const other: MountSandbox = await createMountSandboxAsync({ root: '/tmp/p2' });
  const test: MountSandbox = await createTestSandbox();
  const text: string = await sandbox.read('/a.txt');
  const bytes: Uint8Array = await sandbox.readBinary('/a.bin');
  await sandbox.write('/b.txt', text);
  await sandbox.writeBinary('/b.bin', bytes);
  const names: string[] = await sandbox.list('/');
  const st: FileStat = await sandbox.stat('/a.txt');
  const iso: string = st.modifiedAt.toISOString();
  const host: string = sandbox.resolve('/a.txt');
  const ok: boolean = sandbox.isValidPath('/a.txt') && sandbox.canWrite('/a.txt');
  const child: MountSandbox = sandbox.restrict({ restrict: '/src', readonly: true });
  const resolved: ResolvedMountConfig = child.getConfig();
  void [other, test, names, iso, host, ok, resolved.mounts[0]?.target];
  try {
    await sandbox.delete('/x');
  } catch (e) {
    if (e instanceof NotFoundError) console.log(e.toLLMMessage());
    if (isSandboxError(e)) {
      const code: string = e.code;
      const path: string | undefined = e.path;
      void [code, path];
    }
  }
  const custom = new SandboxError('X', 'message', '/p');
  const ro = new ReadOnlyError('/p');
  void [custom, ro];
}

void use;
