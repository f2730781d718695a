// A dependent's CommonJS module (.cts in a "type": "module" project), compiled by tsc with strict
// and NodeNext to require() calls, so it gets the package's "require" condition and CommonJS
// declarations. Same checks as esm.ts, from the other module system.
import assert = require('node:assert/strict');
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

function explainUnsupported(reason: string | undefined): never {
  try {
    createMountSandbox({ root: tmpdir() });
  } catch (e) {
    if (e instanceof UnsupportedPlatformError) throw new Error(`${e.message}\ncause: ${String(e.cause)}`);
  }
  throw new Error(`isSupported() says no: ${reason}`);
}

function loadedAddon(): string {
  const line = readFileSync('/proc/self/maps', 'utf8').split('\n').find((l) => l.endsWith('/mount_sandbox.node'));
  assert.ok(line, 'mount_sandbox.node is not mapped');
  return line.slice(line.indexOf('/'));
}

async function main(): Promise<void> {
  const support = isSupported();
  if (!support.supported) explainUnsupported(support.reason);

  const base = mkdtempSync(join(tmpdir(), 'msb-consumer-cjs-'));
  const root = join(base, 'root');
  mkdirSync(root);
  writeFileSync(join(base, 'secret.txt'), 'outside');
  try {
    const sandbox: MountSandbox = createMountSandbox({ root });
    assert.ok(sandbox instanceof MountSandbox);

    await sandbox.write('/notes/hello.txt', 'hello from CJS');
    assert.equal(await sandbox.read('/notes/hello.txt'), 'hello from CJS');
    assert.equal(readFileSync(join(root, 'notes', 'hello.txt'), 'utf8'), 'hello from CJS');

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
    assert.deepEqual([cat.exitCode, cat.stdout], [0, 'hello from CJS'], cat.stderr);
    const outside = await sandbox.exec(['cat', join(base, 'secret.txt')], { cwd: '/notes' });
    assert.notEqual(outside.exitCode, 0, 'exec read a file outside the sandbox');

    const addon = loadedAddon();
    assert.match(addon, /\/node_modules\/mount-sandbox\/prebuilds\/linux-x64\/mount_sandbox\.node$/);
    console.log(`ok cjs: write/read, escape refused, exec confined (layers: ${cat.enforcement.layers.length}); addon ${addon}`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
