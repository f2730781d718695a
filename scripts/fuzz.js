'use strict';

// Builds the config fuzzer (clang, libFuzzer, ASan and UBSan) and runs it for a bounded number of
// inputs, starting from a copy of fuzz/corpus so the checked-in seeds stay as they are.
// Usage: node scripts/fuzz.js [runs]   (default 200000). Exits nonzero when an input crashes,
// trips a sanitizer or breaks an invariant; the input is saved in build-fuzz/artifacts/.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..');
const build = path.join(root, 'build-fuzz');
const runs = process.argv[2] ?? '200000';
if (!/^[0-9]+$/.test(runs)) {
  console.error(`usage: node scripts/fuzz.js [runs]  (got ${JSON.stringify(runs)})`);
  process.exit(2);
}

const run = (cmd, args, env = {}) =>
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });

run('cmake', ['-S', '.', '-B', build, '-DMSB_BUILD_FUZZERS=ON', '-DCMAKE_BUILD_TYPE=RelWithDebInfo'],
  { CC: 'clang', CXX: 'clang++' });
run('cmake', ['--build', build, '--target', 'msb_config_fuzz', '-j2']);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-fuzz-'));
const corpus = path.join(work, 'corpus');
fs.cpSync(path.join(root, 'fuzz', 'corpus'), corpus, { recursive: true });
const artifacts = path.join(build, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });

let status = 0;
try {
  run(path.join(build, 'msb_config_fuzz'), [
    `-runs=${runs}`,
    '-max_len=4096',
    '-timeout=10',
    '-print_final_stats=1',
    `-artifact_prefix=${artifacts}${path.sep}`,
    corpus,
  ], {
    ASAN_OPTIONS: 'abort_on_error=1:detect_leaks=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  });
} catch (error) {
  status = error.status || 1;
  console.error(`fuzzing found a problem (exit ${status}); the input is in ${artifacts}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
process.exit(status);
