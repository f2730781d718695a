'use strict';

// `npm test`: the Jest suites (conformance, security, races, packaging) against the release
// addon, the contract suite again with the fallback resolver, then the C++ unit tests. Every step
// runs even when an earlier one fails, so one failure does not hide another; the exit status is
// the first failing step's, and the last lines name each step that failed.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { skipLines } = require('../test/helpers/skips');

const root = path.join(__dirname, '..');
const jest = require.resolve('jest/bin/jest');
const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'msb-npm-test-')), 'jest.json');

const steps = [
  { name: 'jest', args: [jest, '--json', `--outputFile=${report}`] },
  // The security and race suites run both resolvers themselves; the contract suite runs again
  // with the fallback resolver as every sandbox's default.
  { name: 'jest test/conformance.test.js (walk resolver)', args: [jest, 'test/conformance.test.js'], env: { MOUNT_SANDBOX_RESOLVER: 'walk' } },
  { name: 'native tests', args: [path.join(__dirname, 'native-tests.js')] },
];

const failed = [];
for (const step of steps) {
  const result = spawnSync(process.execPath, step.args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MSB_SKIPS_AT_END: '1', ...step.env },
  });
  if (result.status !== 0) failed.push({ name: step.name, status: result.status || 1 });
}

// What was skipped, and why, at the end where it cannot scroll by: one line a skipped test of the
// main run, `skipped: <suite> › <test>: <reason>` (test/helpers/skips.js; the Jest reporter that
// prints the same lines after each run stays quiet under MSB_SKIPS_AT_END).
function skippedSummary() {
  let results;
  try {
    results = JSON.parse(fs.readFileSync(report, 'utf8')).testResults;
  } catch {
    return [];
  } finally {
    fs.rmSync(path.dirname(report), { recursive: true, force: true });
  }
  return skipLines(results, root);
}

for (const line of skippedSummary()) console.error(line);
if (failed.length > 0) {
  for (const step of failed) console.error(`npm test: ${step.name} failed (exit ${step.status})`);
  process.exitCode = failed[0].status;
}
