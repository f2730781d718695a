'use strict';

// sandbox.exec's `signal` option: aborting a running command kills every process of it (the
// launcher's whole process group, and with it the command's PID namespace), then the call rejects
// with an ExecError whose stage is "aborted". An MCP client's cancellation comes through here.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const path = require('path');
const { settleWithin } = require('./helpers');
const { ExecError } = require('../lib');
const { sleep, run, needs, seen, useExecFixture } = require('./exec-helpers');

let root, sandbox; // set before each test
useExecFixture((fixture) => ({ root, sandbox } = fixture));

// Host processes whose argv contains `marker` (a unique sleep duration): the command's own
// processes, seen from outside whatever PID namespace they run in.
function processesWith(marker) {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // ended while we looked
    }
    if (argv.includes(marker)) found.push(Number(pid));
  }
  return found;
}

async function waitFor(predicate, ms, what) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('exec with an AbortSignal', () => {
  needs([])('[process group] aborting kills the command, a backgrounded child and a grandchild in its own session; nothing runs on to write later', async () => {
    const duration = `${600 + Math.floor(Math.random() * 300)}.${process.pid}`; // names our processes
    const late = path.join(root, 'late.txt');
    const script = `(sleep 1; echo late > ${seen('/late.txt', late)}) & ` +
      `sleep ${duration} & setsid sleep ${duration} & sleep ${duration}`;
    const controller = new AbortController();
    const running = run(sandbox, ['sh', '-c', script], { signal: controller.signal, timeoutMs: 120_000 });
    const settled = running.then(() => null, (error) => error);
    await waitFor(() => processesWith(duration).length === 3, 20_000, 'its three sleeps');
    controller.abort();
    const error = await settleWithin(settled, 10_000, 'the aborted exec');
    expect(error).toBeInstanceOf(ExecError);
    expect(error.stage).toBe('aborted');
    expect(error.message).toMatch(/cancelled/);
    // The kernel may still be reaping them as the call returns (on a loaded machine): they would
    // otherwise sleep for ten minutes.
    await waitFor(() => processesWith(duration).length === 0, 3_000, 'the command\'s processes to be gone');
    await sleep(1500);
    expect(fs.existsSync(late)).toBe(false);
  });

  needs([])('an already aborted signal refuses before anything runs', async () => {
    const made = path.join(root, 'made');
    const controller = new AbortController();
    controller.abort();
    await expect(run(sandbox, ['sh', '-c', `touch ${seen('/made', made)}`], { signal: controller.signal }))
      .rejects.toMatchObject({ name: 'ExecError', stage: 'aborted' });
    await sleep(200);
    expect(fs.existsSync(made)).toBe(false);
  });

  needs([])('a signal that never aborts changes nothing, and its listener is removed', async () => {
    const controller = new AbortController();
    const result = await run(sandbox, ['sh', '-c', 'echo fine'], { signal: controller.signal });
    expect(result).toMatchObject({ stdout: 'fine\n', exitCode: 0 });
    controller.abort(); // after the run: nothing to kill, nothing thrown
  });

  test('a signal that is not an AbortSignal is a TypeError, and nothing runs', async () => {
    const made = path.join(root, 'made');
    for (const signal of [{ aborted: false }, 'abort', 1, null]) {
      await expect(sandbox.exec(['sh', '-c', `touch ${made}`], { signal })).rejects.toThrow(TypeError);
    }
    expect(fs.existsSync(made)).toBe(false);
  });
});
