'use strict';

// `npm test`: the Jest suites (conformance, security, races, packaging) against the release
// addon, then the C++ unit tests.
const { execFileSync } = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

try {
  run(process.execPath, [require.resolve('jest/bin/jest')]);
  run(process.execPath, [path.join(__dirname, 'native-tests.js')]);
} catch (err) {
  process.exitCode = err.status || 1;
}
