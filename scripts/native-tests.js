'use strict';

// Builds and runs the C++ core's unit tests (GoogleTest, through ctest).
const { execFileSync } = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const build = path.join(root, 'build-native');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

run('cmake', ['-S', '.', '-B', build, '-DMSB_BUILD_TESTS=ON', '-DMSB_WERROR=ON', '-DCMAKE_BUILD_TYPE=RelWithDebInfo']);
run('cmake', ['--build', build, '-j2']);
run('ctest', ['--test-dir', build, '--output-on-failure']);
