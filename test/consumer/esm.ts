// A dependent's ES module ("type": "module"), compiled by tsc with strict and NodeNext, so it gets
// the package's "import" condition and ESM declarations. Run by scripts/test-consumer.sh with the
// toolchain and the yaml-cpp libraries hidden: all it uses must come from the tarball.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createMountSandbox,
  InvalidPathError,
  isSupported,
  MountSandbox,
  SandboxError,
  SymlinkError,
  UnsupportedPlatformError,
} from 'mount-sandbox';

// The dlopen error behind "not supported" is what a failing run needs to show.
function explainUnsupported(reason: string | undefined): never {
  try {
    createMountSandbox({ root: tmpdir() });
  } catch (e) {
    if (e instanceof UnsupportedPlatformError) throw new Error(`${e.message}\ncause: ${String(e.cause)}`);
  }
  throw new Error(`isSupported() says no: ${reason}`);
}

// The addon file this process mapped: it must be the package's prebuilt one, not a local build.
function loadedAddon(): string {
  const line = readFileSync('/proc/self/maps', 'utf8').split('\n').find((l) => l.endsWith('/mount_sandbox.node'));
  assert.ok(line, 'mount_sandbox.node is not mapped');
  return line.slice(line.indexOf('/'));
}

const support = isSupported();
if (!support.supported) explainUnsupported(support.reason);

// The sandbox's root and, beside it, a file it must not reach.
const base = mkdtempSync(join(tmpdir(), 'msb-consumer-esm-'));
const root = join(base, 'root');
mkdirSync(root);
writeFileSync(join(base, 'secret.txt'), 'outside');
try {
  const sandbox = createMountSandbox({ root });
  assert.ok(sandbox instanceof MountSandbox);

  await sandbox.write('/notes/hello.txt', 'hello from ESM');
  assert.equal(await sandbox.read('/notes/hello.txt'), 'hello from ESM');
  assert.equal(readFileSync(join(root, 'notes', 'hello.txt'), 'utf8'), 'hello from ESM');

  await assert.rejects(sandbox.read('/../etc/passwd'), (e: unknown) => {
    assert.ok(e instanceof InvalidPathError && e instanceof SandboxError, `not an InvalidPathError: ${String(e)}`);
    assert.equal(e.code, 'INVALID_PATH');
    assert.ok(!e.message.includes(root), 'the message reveals the host path');
    return true;
  });
  symlinkSync('/etc/passwd', join(root, 'passwd'));
  await assert.rejects(sandbox.read('/passwd'), SymlinkError);

  assert.ok(support.exec.supported, `exec is not supported: ${support.exec.reason}`);
  const cat = await sandbox.exec(['cat', 'notes/hello.txt']);
  assert.deepEqual([cat.exitCode, cat.stdout], [0, 'hello from ESM'], cat.stderr);
  const outside = await sandbox.exec(['cat', join(base, 'secret.txt')], { cwd: '/notes' });
  assert.notEqual(outside.exitCode, 0, 'exec read a file outside the sandbox');

  const addon = loadedAddon();
  assert.match(addon, /\/node_modules\/mount-sandbox\/prebuilds\/linux-x64\/mount_sandbox\.node$/);
  console.log(`ok esm: write/read, escape refused, exec confined (layers: ${cat.enforcement.layers.length}); addon ${addon}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
