// mount-sandbox/errors from CommonJS: the same checks as errors-esm.ts through require().
import assert = require('node:assert/strict');
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import errors = require('mount-sandbox/errors');

const addonMapped = (): boolean => readFileSync('/proc/self/maps', 'utf8').includes('/mount_sandbox.node');

async function main(): Promise<void> {
  assert.ok(!addonMapped(), 'requiring mount-sandbox/errors loaded the addon');
  const api: typeof import('mount-sandbox') = require('mount-sandbox');
  assert.ok(!addonMapped(), 'requiring mount-sandbox loaded the addon before its first use');
  assert.equal(api.InvalidPathError, errors.InvalidPathError);
  assert.equal(api.SandboxError, errors.SandboxError);

  const root = mkdtempSync(join(tmpdir(), 'msb-consumer-errors-cjs-'));
  try {
    const sandbox = api.createMountSandbox({ root });
    await sandbox.write('/a.txt', 'a');
    const refusal: unknown = await sandbox.read('/../a.txt').then(() => null, (e: unknown) => e);
    assert.ok(refusal instanceof errors.InvalidPathError, `not an InvalidPathError: ${String(refusal)}`);
    assert.ok(errors.isSandboxError(refusal));
    assert.ok(!errors.isSandboxError({ code: 'FAKE' }));
    assert.ok(addonMapped());
    console.log('ok errors-cjs: mount-sandbox/errors loads no addon; same classes as the main entry');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
