'use strict';

// Time-of-check/time-of-use: another process flips files and directories into symlinks that
// point outside while the sandbox reads, writes, lists and deletes. Resolution happens on
// descriptors, so whatever the interleaving, nothing outside may be read or changed.
const fs = require('fs');
const path = require('path');
const { fork } = require('child_process');
const { createMountSandbox, isSandboxError } = require('../lib');
const { RESOLVERS, makeTempLayout, removeDir, snapshotTree, write } = require('./helpers');

const SECRET = 'TOP-SECRET-CONTENT';
const ROUNDS = Number(process.env.MSB_RACE_ROUNDS || 1500);

describe.each(RESOLVERS)('races with the %s resolver', (resolver) => {
  let base;
  let root;
  let outside;
  let flipper;

  beforeEach(async () => {
    ({ base, root, outside } = makeTempLayout(['root', 'outside']));
    write(path.join(root, 'file.txt'), 'harmless');
    fs.mkdirSync(path.join(root, 'dir'));
    fs.mkdirSync(path.join(root, 'rel'));
    write(path.join(outside, 'secret.txt'), SECRET);
    write(path.join(outside, 'dir/victim.txt'), SECRET);
    flipper = fork(path.join(__dirname, 'fixtures/flipper.js'), [root, outside]);
    await new Promise((resolve) => flipper.once('message', resolve));
  });

  afterEach(async () => {
    flipper.kill('SIGKILL');
    await new Promise((resolve) => flipper.once('exit', resolve));
    removeDir(base);
  });

  test('no read returns outside data and nothing outside changes', async () => {
    const before = snapshotTree(outside);
    const sandbox = createMountSandbox({ root, resolver });
    const stats = { ok: 0, refused: 0 };
    const leaks = [];
    const note = (p) =>
      p.then(
        (value) => {
          stats.ok += 1;
          const text = Array.isArray(value) ? value.join(',') : String(value);
          if (text.includes(SECRET) || text.includes('victim.txt')) leaks.push(text);
        },
        (err) => {
          if (!isSandboxError(err)) throw err;
          stats.refused += 1;
        },
      );
    for (let i = 0; i < ROUNDS; i++) {
      await Promise.all([
        note(sandbox.read('/file.txt')),
        note(sandbox.read('/dir/victim.txt')),
        note(sandbox.read('/rel/victim.txt')),
        note(sandbox.list('/dir')),
        note(sandbox.list('/rel')),
        note(sandbox.write(`/dir/w${i % 7}.txt`, 'x')),
        note(sandbox.write(`/rel/sub/w${i % 7}.txt`, 'x')),
        note(sandbox.write('/file.txt', 'harmless')),
        note(sandbox.delete(`/dir/w${(i + 3) % 7}.txt`)),
        note(sandbox.delete('/rel/victim.txt')),
        note(sandbox.stat('/dir/victim.txt')),
      ]);
    }
    expect(leaks).toEqual([]);
    expect(snapshotTree(outside)).toEqual(before);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    // Both outcomes must actually occur, or the race never happened.
    expect(stats.ok).toBeGreaterThan(ROUNDS);
    expect(stats.refused).toBeGreaterThan(0);
  });
});
