'use strict';

// Builds the addon with AddressSanitizer and UndefinedBehaviorSanitizer and runs the Jest suites
// against it. Node itself is not instrumented, so the ASan runtime is preloaded.
const { execFileSync } = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'build-asan');
const run = (cmd, args, env) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });

run(process.execPath, [require.resolve('cmake-js/bin/cmake-js'), 'compile', '--out', out, '--CDMSB_SANITIZE=ON', '--CDMSB_WERROR=ON']);
const libasan = execFileSync('g++', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim();
const suites = process.argv.slice(2);
run(process.execPath, [require.resolve('jest/bin/jest'), '--runInBand', ...suites], {
  MOUNT_SANDBOX_ADDON: path.join(out, 'Release', 'mount_sandbox.node'),
  MOUNT_SANDBOX_LAUNCHER: path.join(out, 'Release', 'msb-launch'),
  LD_PRELOAD: libasan,
  // Node's own allocations are not freed at exit; leaks in the addon show up as ASan errors
  // in use, and UBSan findings abort the run.
  ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1:halt_on_error=1',
  UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
});
