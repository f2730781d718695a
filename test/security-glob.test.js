'use strict';

// Attacks on what a glob costs: patterns that expand or match in exponential or polynomial time,
// walks with no end, and enough concurrent globs to hold every threadpool thread. Every glob must
// settle (with a result or a typed refusal), stop at its entry budget, and leave the pool to
// other operations between its slices. Only the order in which things settle is asserted; the
// time bounds below are hang guards, never speed claims.
const fs = require('fs');
const path = require('path');
const { createMountSandbox, SandboxError } = require('../lib');
const { RESOLVERS, outsideUntouchedEach, settleWithin, write } = require('./helpers');

const SECRET = 'OUTSIDE-SECRET';
const HANG_GUARD_MS = 20000;

describe.each(RESOLVERS)('glob cost with the %s resolver', (resolver) => {
  let layout;
  let sandbox;

  outsideUntouchedEach((made) => {
    layout = made;
    write(path.join(made.outside, 'secret.ts'), SECRET);
    write(path.join(made.root, 'src', 'main.ts'), 'main');
    fs.symlinkSync(made.outside, path.join(made.root, 'src', 'out'));
  });

  beforeEach(() => {
    sandbox = createMountSandbox({ root: layout.root, resolver });
  });

  // A glob's outcome, { value } or { error }, or a failure if it does not settle at all.
  function settled(promise, what) {
    return settleWithin(promise.then((value) => ({ value }), (error) => ({ error })), HANG_GUARD_MS, what);
  }

  // Either an answer or the typed refusal for a pattern, never a host path.
  function expectResultOrRefusal(outcome) {
    if (outcome.error) {
      expect(outcome.error).toBeInstanceOf(SandboxError);
      expect(outcome.error.code).toBe('INVALID_PATTERN');
      expect(outcome.error.message).not.toContain(layout.base);
      expect(outcome.error.toLLMMessage()).not.toContain(layout.base);
    } else {
      expect(Array.isArray(outcome.value.paths)).toBe(true);
      expect(outcome.value.paths.filter((p) => p.includes('secret'))).toEqual([]);
    }
  }

  test('attack: braces whose alternatives all collapse into one settle', async () => {
    const name = `${'a'.repeat(30)}.ts`;
    write(path.join(layout.root, 'src', name), 'found');
    // 2^30 ways to spell the same name: expanding them one by one never ends.
    const thirty = await settled(sandbox.glob(`/src/${'{a,a}'.repeat(30)}.ts`), 'thirty duplicate groups');
    expect(thirty).toEqual({ value: { paths: [`/src/${name}`], truncated: false } });
    for (const pattern of [
      `/${'{a,a}'.repeat(780)}`,
      `/src/${'{a,{a,{a,a}}}'.repeat(300)}`,
      `/${'{x,x}/'.repeat(600)}*`,
    ]) {
      expectResultOrRefusal(await settled(sandbox.glob(pattern), `${pattern.slice(0, 20)}... (${pattern.length} bytes)`));
    }
  });

  test('attack: "/**" repeated 1,300 times settles with the answer of one "/**"', async () => {
    for (const dir of ['a', 'a/b', 'a/b/c', 'd', 'd/e']) write(path.join(layout.root, dir, 'x.ts'), dir);
    // Enough names that a cost per name growing with the square of the repetitions never ends.
    for (let d = 0; d < 20; d++) {
      for (let f = 0; f < 100; f++) write(path.join(layout.root, 'many', `d${d}`, `f${f}.ts`), '');
    }
    const once = await sandbox.glob('/**/x.ts');
    expect(once.paths).toEqual(['/a/b/c/x.ts', '/a/b/x.ts', '/a/x.ts', '/d/e/x.ts', '/d/x.ts']);
    const repeated = '/**'.repeat(1300) + '/x.ts';
    expect(repeated.length).toBeGreaterThan(3900);
    expect(await settled(sandbox.glob(repeated), '"/**" x 1300')).toEqual({ value: once });
    // Interleaved with names, the states cannot collapse: still one pass per name.
    const interleaved = `${'/**/a'.repeat(700)}/**/x.ts`;
    expectResultOrRefusal(await settled(sandbox.glob(interleaved), '"/**/a" x 700'));
  });

  test('the entry budget ends a walk early and says so', async () => {
    for (let d = 0; d < 10; d++) {
      for (let f = 0; f < 30; f++) write(path.join(layout.root, 'tree', `d${d}`, `f${f}.txt`), '');
    }
    const whole = await sandbox.glob('/tree/**/*.txt', { limit: 100000 });
    expect(whole.paths).toHaveLength(300);
    expect(whole.truncated).toBe(false);
    const capped = await sandbox.glob('/tree/**/*.txt', { limit: 100000, maxEntries: 100 });
    expect(capped.truncated).toBe(true);
    expect(capped.paths.length).toBeGreaterThan(0);
    expect(capped.paths.length).toBeLessThan(100);
    for (const p of capped.paths) expect(whole.paths).toContain(p);
    // Entries count whether or not they match, and files as well as directories.
    const none = await sandbox.glob('/tree/**/*.none', { maxEntries: 100 });
    expect(none).toEqual({ paths: [], truncated: true });
    const enough = await sandbox.glob('/tree/**/*.none', { maxEntries: 1000 });
    expect(enough).toEqual({ paths: [], truncated: false });
    for (const maxEntries of [0, -1, 1.5, 2e6, '10']) {
      await expect(sandbox.glob('/*', { maxEntries })).rejects.toThrow(maxEntries === '10' ? TypeError : RangeError);
    }
  });

  test('attack: eight worst-case globs leave the threadpool to a concurrent read', async () => {
    // Long names make each match costly; "/**" repeated costs today's matcher per state.
    const long = 'a'.repeat(200);
    for (let d = 0; d < 20; d++) {
      for (let f = 0; f < 100; f++) write(path.join(layout.root, 'big', `${long}${d}`, `${long}-${f}.txt`), '');
    }
    // Above the size read() serves without a threadpool task.
    write(path.join(layout.root, 'large.txt'), 'L'.repeat(256 * 1024));
    const costly = `/big${'/**'.repeat(120)}/*${'a'.repeat(100)}b*`;
    const order = [];
    const globs = Array.from({ length: 8 }, (_, i) =>
      settled(sandbox.glob(costly, { limit: 100000 }), `glob ${i}`).then((outcome) => {
        order.push(`glob ${i}`);
        return outcome;
      }));
    const read = settled(sandbox.read('/large.txt'), 'read').then((outcome) => {
      order.push('read');
      return outcome;
    });
    const [readOutcome, ...globOutcomes] = await Promise.all([read, ...globs]);
    expect(readOutcome.value).toHaveLength(256 * 1024);
    for (const outcome of globOutcomes) expect(outcome).toEqual({ value: { paths: [], truncated: false } });
    // Queued after all eight, the read still gets a thread before any of them is done.
    expect({ first: order[0], order }).toMatchObject({ first: 'read' });
  });
});
