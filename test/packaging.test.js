'use strict';

// The package as consumers load it: by name, from ESM and CommonJS, and typed for strict TS.
const path = require('path');
const { execFileSync } = require('child_process');

const ROOT = path.join(__dirname, '..');

// The declarations are checked in test/surface.test.js.

test('a source build takes the Node-API headers from node-api-headers, never from a Node download', () => {
  // cmake-js downloads Node's headers from nodejs.org unless the project declares itself a
  // Node-API addon; offline machines and CI then cannot build. Asked of cmake-js itself.
  const { BuildSystem } = require('cmake-js');
  const build = new BuildSystem({ directory: ROOT, logLevel: 'silent' });
  expect(build.options.isNodeApi).toBe(true);
});

test('ESM import and CommonJS require give the same classes', () => {
  const script = `
    import * as esm from 'mount-sandbox';
    import { createRequire } from 'node:module';
    const cjs = createRequire(import.meta.url)('mount-sandbox');
    const sandbox = await esm.createTestSandbox();
    const err = await sandbox.read('/missing').catch((e) => e);
    console.log(JSON.stringify([esm.NotFoundError === cjs.NotFoundError, err instanceof cjs.NotFoundError, err.code]));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(JSON.parse(out)).toEqual([true, true, 'NOT_FOUND']);
});
