// `mount-sandbox/errors` as golem-forge's core uses it: importing it loads no addon, and its classes
// are the very ones the main entry throws. Compiled only when the tarball has the entry.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as errors from 'mount-sandbox/errors';

const addonMapped = (): boolean => readFileSync('/proc/self/maps', 'utf8').includes('/mount_sandbox.node');

assert.ok(!addonMapped(), 'importing mount-sandbox/errors loaded the addon');
const main = await import('mount-sandbox');
assert.ok(!addonMapped(), 'importing mount-sandbox loaded the addon before its first use');
assert.equal(main.InvalidPathError, errors.InvalidPathError);
assert.equal(main.SandboxError, errors.SandboxError);

const root = mkdtempSync(join(tmpdir(), 'msb-consumer-errors-esm-'));
try {
  const sandbox = main.createMountSandbox({ root });
  await sandbox.write('/a.txt', 'a');
  const refusal: unknown = await sandbox.read('/../a.txt').then(() => null, (e: unknown) => e);
  assert.ok(refusal instanceof errors.InvalidPathError, `not an InvalidPathError: ${String(refusal)}`);
  assert.ok(errors.isSandboxError(refusal));
  assert.ok(!errors.isSandboxError({ code: 'FAKE' }));
  assert.ok(addonMapped());
  console.log('ok errors-esm: mount-sandbox/errors loads no addon; same classes as the main entry');
} finally {
  rmSync(root, { recursive: true, force: true });
}
