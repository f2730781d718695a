'use strict';

// createTestSandbox() under real test runners: Jest in-band and with workers, Vitest's forks,
// threads and vmThreads pools, each running the fixture suite in test/fixtures/runners with a
// private TMPDIR that must hold nothing afterwards.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { CLEANUP_NAME, CLEANUP_SCRIPT } = require('../lib/fs/test-roots');

const ROOT = path.join(__dirname, '..');
const FIXTURES = path.join(__dirname, 'fixtures', 'runners');
const JEST = require.resolve('jest/bin/jest');
const VITEST = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const SANDBOXES_PER_RUN = 16; // alpha 5, beta 5, gamma 6
const HANG_LIMIT_MS = 45000;

jest.setTimeout(60000);

let scratch;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-runners-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

// Cleanup processes still working on `dir`: they run after the runner has exited.
function cleanersOf(dir) {
  const pids = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    if (argv.includes(CLEANUP_NAME) && argv.includes(dir)) pids.push(pid);
  }
  return pids;
}

async function cleanersFinished(dir) {
  while (cleanersOf(dir).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

// Runs one runner over the fixtures with its own TMPDIR (and its own Jest cache, so Jest has no
// timings that would make it run in band), waits for the cleanup processes, and reports what
// the fixtures made and what is left.
async function runFixtures(name, args) {
  const run = fs.mkdtempSync(path.join(scratch, `${name}-`));
  const tmp = path.join(run, 'tmp');
  const log = path.join(run, 'sandboxes.jsonl');
  fs.mkdirSync(tmp);
  fs.writeFileSync(log, '');
  const child = spawn(process.execPath, args.map((a) => a.replace('{run}', run)), {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: tmp, MSB_RUNNER_LOG: log, CI: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const hangGuard = setTimeout(() => child.kill('SIGKILL'), HANG_LIMIT_MS);
  const [code, signal] = await new Promise((resolve) => child.on('close', (...status) => resolve(status)));
  clearTimeout(hangGuard);
  await cleanersFinished(tmp);
  const sandboxes = fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { code, signal, output, runnerPid: child.pid, tmp, sandboxes, left: fs.readdirSync(tmp) };
}

function expectNothingLeft(result) {
  if (result.code !== 0) throw new Error(`runner failed (${result.signal || result.code}):\n${result.output}`);
  expect(result.sandboxes).toHaveLength(SANDBOXES_PER_RUN);
  for (const { root } of result.sandboxes) expect(path.dirname(root)).toBe(result.tmp);
  expect(result.left).toEqual([]);
}

const pidsOf = (result) => new Set(result.sandboxes.map((s) => s.pid));
const threadsOf = (result) => new Set(result.sandboxes.map((s) => s.threadId));

const jestArgs = (...extra) => [
  JEST,
  '--config',
  JSON.stringify({
    rootDir: FIXTURES,
    testMatch: ['<rootDir>/*.spec.js'],
    testEnvironment: 'node',
    cacheDirectory: '{run}/jest-cache',
  }),
  ...extra,
];
const vitestArgs = (pool) => [VITEST, 'run', '--dir', FIXTURES, '--globals', '--no-cache', '--pool', pool];

describe('createTestSandbox leaves nothing behind', () => {
  test('Jest in band', async () => {
    const result = await runFixtures('jest-in-band', jestArgs('--runInBand'));
    expectNothingLeft(result);
    expect([...pidsOf(result)]).toEqual([result.runnerPid]);
  });

  test('Jest with two worker processes', async () => {
    const result = await runFixtures('jest-workers', jestArgs('--maxWorkers=2'));
    expectNothingLeft(result);
    expect(pidsOf(result).has(result.runnerPid)).toBe(false);
    expect(pidsOf(result).size).toBeGreaterThan(1);
  });

  test('Jest --detectOpenHandles reports none, and the run ends by itself', async () => {
    const result = await runFixtures('jest-open-handles', jestArgs('--detectOpenHandles'));
    expectNothingLeft(result);
    expect(result.output).not.toMatch(/open handle/i);
  });

  test('Vitest forks pool', async () => {
    const result = await runFixtures('vitest-forks', vitestArgs('forks'));
    expectNothingLeft(result);
    expect(pidsOf(result).has(result.runnerPid)).toBe(false);
  });

  test.each(['threads', 'vmThreads'])('Vitest %s pool', async (pool) => {
    const result = await runFixtures(`vitest-${pool}`, vitestArgs(pool));
    expectNothingLeft(result);
    expect([...pidsOf(result)]).toEqual([result.runnerPid]);
    expect(threadsOf(result).has(0)).toBe(false);
  });
});

test('a process killed outright still has its test sandboxes removed', async () => {
  const result = await runFixtures('sigkill', [
    '-e',
    `const { createTestSandbox } = require(${JSON.stringify(ROOT)});
     createTestSandbox().then(async (s) => {
       await s.write('/work/file.txt', 'x');
       require('fs').appendFileSync(process.env.MSB_RUNNER_LOG, JSON.stringify({ root: s.getConfig().root }) + '\\n');
       process.kill(process.pid, 'SIGKILL');
     });`,
  ]);
  expect(result.signal).toBe('SIGKILL');
  expect(result.sandboxes).toHaveLength(1);
  expect(result.left).toEqual([]);
});

test('the cleanup process removes only directories mkdtemp could have made, once its input ends', async () => {
  const dir = fs.mkdtempSync(path.join(scratch, 'cleaner-'));
  const names = ['mount-sandbox-test-Ab12Cd', 'mount-sandbox-test-Ef34Gh', 'keep', 'mount-sandbox-test-toolong1'];
  for (const name of names) fs.mkdirSync(path.join(dir, name, 'work'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'mount-sandbox-test-..', 'x'), { recursive: true });
  const child = spawn('/bin/sh', ['-c', CLEANUP_SCRIPT, CLEANUP_NAME, dir], { stdio: ['pipe', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  // A cut-short last line (no newline) is what a process killed mid-write would leave.
  child.stdin.end(
    ['mount-sandbox-test-Ab12Cd', 'keep', '../keep', 'mount-sandbox-test-..', 'mount-sandbox-test-toolong1', ''].join('\n') +
      'mount-sandbox-test-Ef34Gh',
  );
  expect(await exited).toBe(0);
  expect(fs.readdirSync(dir).sort()).toEqual(['keep', 'mount-sandbox-test-..', 'mount-sandbox-test-Ef34Gh', 'mount-sandbox-test-toolong1']);
});
