'use strict';

// `npm test`: the Jest suites (conformance, security, races, packaging) against the release
// addon, then the C++ unit tests.
const { execFileSync } = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

try {
  run(process.execPath, [require.resolve('jest/bin/jest')]);
  // The security and race suites run both resolvers themselves; the contract suite runs again
  // with the fallback resolver as every sandbox's default.
  execFileSync(process.execPath, [require.resolve('jest/bin/jest'), 'test/conformance.test.js'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MOUNT_SANDBOX_RESOLVER: 'walk' },
  });
  run(process.execPath, [path.join(__dirname, 'native-tests.js')]);
} catch (err) {
  process.exitCode = err.status || 1;
}
