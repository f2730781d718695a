'use strict';

// Skipped tests are printed one line each with their reason, `skipped: <suite> › <test>: <reason>`
// (test/helpers/skips.js), and nothing is logged when they are registered: a real Jest run of a
// file that skips a test and a suite prints exactly those lines. Every test file skips through
// the helpers, so every skip has its reason.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { skipOf, skipLines } = require('./helpers/skips');

const ROOT = path.join(__dirname, '..');

test('a skip\'s name and reason, from its own title or its suite\'s', () => {
  expect(skipOf(['a suite'], 'a test (skipped: git is missing)')).toEqual({ name: 'a suite › a test', reason: 'git is missing', given: true });
  expect(skipOf(['outer (skipped: not root)', 'inner'], 'a test')).toEqual({ name: 'outer › inner › a test', reason: 'not root', given: true });
  expect(skipOf([], 'bare')).toEqual({ name: 'bare', reason: 'no reason given', given: false });
});

test('the lines from a --json report and from a reporter\'s results are the same', () => {
  const test1 = { status: 'pending', ancestorTitles: ['s'], title: 't (skipped: why)' };
  const passed = { status: 'passed', ancestorTitles: [], title: 'ran' };
  const expected = ['skipped: test/x.test.js › s › t: why'];
  expect(skipLines([{ name: path.join(ROOT, 'test/x.test.js'), assertionResults: [test1, passed] }], ROOT)).toEqual(expected);
  expect(skipLines([{ testFilePath: path.join(ROOT, 'test/x.test.js'), testResults: [test1, passed] }], ROOT)).toEqual(expected);
  // Under -t, the tests the pattern leaves out are pending too, with no reason: not printed then.
  const filtered = { status: 'pending', ancestorTitles: [], title: 'left out by -t' };
  expect(skipLines([{ name: path.join(ROOT, 'test/x.test.js'), assertionResults: [test1, filtered] }], ROOT, { givenOnly: true })).toEqual(expected);
});

test('a Jest run prints each skip as one line with its reason, and no code frame', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-skips-'));
  try {
    const helpers = JSON.stringify(path.join(__dirname, 'helpers', 'skips.js'));
    fs.writeFileSync(path.join(dir, 'example.test.js'), [
      `const { testIf, describeIf } = require(${helpers});`,
      "test('runs', () => {});",
      "testIf(false, 'the tool is missing:\\n  its error')('needs a tool', () => {});",
      "describeIf(false, 'not root').each(['a', 'b'])('as root (%s)', () => { test('one', () => {}); });",
      '',
    ].join('\n'));
    const config = {
      rootDir: dir,
      testMatch: ['<rootDir>/example.test.js'],
      cacheDirectory: path.join(dir, 'cache'),
      watchman: false,
      reporters: ['default', path.join(__dirname, 'helpers', 'skip-reporter.js')],
    };
    const env = { ...process.env, NO_COLOR: '1', CI: 'true' };
    delete env.MSB_SKIPS_AT_END;
    const run = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--config', JSON.stringify(config), '--ci'], { cwd: dir, encoding: 'utf8', env, timeout: 60000 });
    expect(run.status).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('skipped:'))).toEqual([
      'skipped: example.test.js › needs a tool: the tool is missing: its error',
      'skipped: example.test.js › as root (a) › one: not root',
      'skipped: example.test.js › as root (b) › one: not root',
    ]);
    expect(run.stderr).not.toMatch(/console\.(log|warn)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('test files skip only through test/helpers/skips.js, so every skip gives its reason', () => {
  const files = fs.readdirSync(__dirname).filter((f) => f.endsWith('.js')).map((f) => path.join(__dirname, f));
  const direct = files.filter((file) => /\b(test|it|describe)\.skip\b|\bx(it|test|describe)\(/.test(fs.readFileSync(file, 'utf8')));
  expect(direct.map((file) => path.relative(ROOT, file))).toEqual([]);
});
