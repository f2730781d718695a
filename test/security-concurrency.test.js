'use strict';

// Concurrent changes to one file (issue 19): an edit or a write that resolves must be in the
// file, or it must reject. Edits and writes of one file take turns within the process (keyed by
// the directory entry's identity, so every spelling of the file shares them, across sandboxes and
// worker threads); a change made by anyone else between an edit's read and its replace is
// detected and the edit redone or refused with ConflictError, never overwritten; and a caller
// holding stat()'s version can make a write or an edit refuse when the file changed since.
const fs = require('fs');
const path = require('path');
const { fork, spawnSync } = require('child_process');
const { Worker } = require('worker_threads');
const { createMountSandbox, ConflictError, SandboxError } = require('../lib');
const { RESOLVERS, makeTempLayout, removeDir, settleWithin, expectNoPathUnder, write } = require('./helpers');

const LIB = path.join(__dirname, '..', 'lib');
const EDITORS = 24;
const token = (n) => `token-${String(n).padStart(2, '0')}`;
const edited = (n) => `edited-${String(n).padStart(2, '0')}`;
const TOKENS_TEXT = `${Array.from({ length: EDITORS }, (_, n) => token(n)).join('\n')}\n`;

// Every edit that resolved is in the file and every one refused was a ConflictError; returns the
// outcomes.
async function expectEditsLanded(file, edits) {
  const outcomes = await Promise.allSettled(edits.map(({ run }) => run()));
  const text = fs.readFileSync(file, 'utf8');
  const missing = [];
  edits.forEach(({ n }, i) => {
    const outcome = outcomes[i];
    if (outcome.status === 'fulfilled') {
      if (!text.includes(edited(n)) || text.includes(token(n))) missing.push(n);
    } else {
      expect(outcome.reason).toBeInstanceOf(ConflictError);
    }
  });
  expect(missing).toEqual([]);
  return outcomes;
}

describe.each(RESOLVERS)('concurrent edits of one file (%s resolver)', (resolver) => {
  let layout;
  let file;
  beforeEach(() => {
    layout = makeTempLayout(['root']);
    file = path.join(layout.root, 'dir', 'notes.txt');
    write(file, TOKENS_TEXT);
  });
  afterEach(() => removeDir(layout.base));

  test(`${EDITORS} edits in flight, each replacing its own token: none is lost`, async () => {
    const sandbox = createMountSandbox({ root: layout.root, resolver });
    for (let round = 0; round < 5; round++) {
      fs.writeFileSync(file, TOKENS_TEXT);
      const edits = Array.from({ length: EDITORS }, (_, n) => ({
        n,
        run: () => sandbox.edit('/dir/notes.txt', token(n), edited(n)),
      }));
      const outcomes = await expectEditsLanded(file, edits);
      // Nobody else touched the file: taking turns, every edit applies.
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    }
  });

  test('the turns follow the file, not its name: aliases, mounts, restricted views and other sandboxes share them', async () => {
    fs.symlinkSync('dir', path.join(layout.root, 'alias'));
    const sandbox = createMountSandbox({
      root: layout.root,
      resolver,
      mounts: [{ source: path.join(layout.root, 'dir'), target: '/mnt' }],
    });
    const other = createMountSandbox({ root: layout.root, resolver });
    const restricted = sandbox.restrict({ restrict: '/dir' });
    const spellings = [
      (n) => sandbox.edit('/dir/notes.txt', token(n), edited(n)),
      (n) => sandbox.edit('/alias/notes.txt', token(n), edited(n)),
      (n) => sandbox.edit('/mnt/notes.txt', token(n), edited(n)),
      (n) => sandbox.edit('/dir/../dir/./notes.txt', token(n), edited(n)),
      (n) => other.edit('/dir/notes.txt', token(n), edited(n)),
      (n) => restricted.edit('/notes.txt', token(n), edited(n)),
    ];
    for (let round = 0; round < 5; round++) {
      fs.writeFileSync(file, TOKENS_TEXT);
      const edits = Array.from({ length: EDITORS }, (_, n) => ({ n, run: () => spellings[(n + round) % spellings.length](n) }));
      const outcomes = await expectEditsLanded(file, edits);
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    }
  });

  test('edits from worker threads and the main thread share the turns', async () => {
    const sandbox = createMountSandbox({ root: layout.root, resolver });
    const workerCode = `
      const { parentPort, workerData } = require('worker_threads');
      const { createMountSandbox } = require(workerData.lib);
      const sandbox = createMountSandbox({ root: workerData.root, resolver: workerData.resolver });
      Promise.allSettled(workerData.tokens.map(([from, to]) => sandbox.edit('/dir/notes.txt', from, to)))
        .then((outcomes) => parentPort.postMessage(outcomes.map((o) => o.status === 'fulfilled' ? 'ok' : o.reason.code)));
    `;
    const mine = (k) => Array.from({ length: EDITORS }, (_, n) => n).filter((n) => n % 3 === k);
    const inWorker = (k) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(workerCode, {
          eval: true,
          workerData: { lib: LIB, root: layout.root, resolver, tokens: mine(k).map((n) => [token(n), edited(n)]) },
        });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    const [a, b, main] = await Promise.all([
      inWorker(1),
      inWorker(2),
      Promise.allSettled(mine(0).map((n) => sandbox.edit('/dir/notes.txt', token(n), edited(n)))),
    ]);
    expect([...a, ...b]).toEqual(Array(a.length + b.length).fill('ok'));
    expect(main.filter((o) => o.status === 'rejected')).toEqual([]);
    const text = fs.readFileSync(file, 'utf8');
    for (let n = 0; n < EDITORS; n++) expect(text).toContain(edited(n));
  });

  test('a worker thread terminated with edits waiting for their turn does not keep the file', async () => {
    const big = path.join(layout.root, 'dir', 'big.txt');
    fs.writeFileSync(big, `${'x'.repeat(2 << 20)}\nBIG\n${TOKENS_TEXT}`);
    const sandbox = createMountSandbox({ root: layout.root, resolver });
    const worker = new Worker(`
      const { parentPort, workerData } = require('worker_threads');
      const { createMountSandbox } = require(workerData.lib);
      const sandbox = createMountSandbox({ root: workerData.root, resolver: workerData.resolver });
      for (let i = 0; i < 40; i++) sandbox.edit('/dir/big.txt', 'BIG', 'BIG').catch(() => {});
      parentPort.postMessage('started');
    `, { eval: true, workerData: { lib: LIB, root: layout.root, resolver } });
    await new Promise((resolve) => worker.once('message', resolve));
    const edits = Array.from({ length: 8 }, (_, n) => ({
      n,
      run: () => sandbox.edit('/dir/big.txt', token(n), edited(n)),
    }));
    const settled = expectEditsLanded(big, edits);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await worker.terminate();
    const outcomes = await settleWithin(settled, 20000, 'edits after the worker ended');
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    await settleWithin(sandbox.edit('/dir/big.txt', token(20), edited(20)), 5000, 'a later edit');
  });

  // A change waits for its turn holding the directory it opened. Someone else (a build tool, git,
  // a command) replaces that directory meanwhile and moves the file into the new one: the change
  // must land where the path now leads, or be refused, never resolve into the directory moved
  // away. The changes ahead read the file and find no match, so they write nothing anywhere.
  test.each([
    ['an edit', (sandbox) => sandbox.edit('/dir/big.txt', 'TOKEN', 'EDITED'), (text) => text.includes('EDITED') && !text.includes('TOKEN')],
    ['a write', (sandbox) => sandbox.write('/dir/big.txt', 'WRITTEN'), (text) => text === 'WRITTEN'],
  ])('%s waiting for its turn while its directory is replaced lands where the path leads', async (_, change, landed) => {
    const dir = path.join(layout.root, 'dir');
    const moved = path.join(layout.root, 'moved');
    const big = path.join(dir, 'big.txt');
    fs.writeFileSync(big, `${'x'.repeat(8 << 20)}\nTOKEN\n`);
    const sandbox = createMountSandbox({ root: layout.root, resolver });
    const ahead = Array.from({ length: 10 }, () => sandbox.edit('/dir/big.txt', 'ABSENT', 'x').catch((e) => e.code));
    const outcome = change(sandbox).then(() => 'resolved', (e) => e);
    await new Promise((resolve) => setTimeout(resolve, 10));
    fs.renameSync(dir, moved);
    fs.mkdirSync(dir);
    fs.renameSync(path.join(moved, 'big.txt'), big);
    // One that reads in the instant between the two renames finds no file: it writes nothing either.
    for (const code of await Promise.all(ahead)) expect(['NO_MATCH', 'NOT_FOUND']).toContain(code);
    const result = await outcome;
    if (result !== 'resolved') expect(result).toBeInstanceOf(ConflictError);
    expect(fs.readdirSync(moved)).toEqual(['notes.txt']); // nothing written into the directory moved away
    if (result === 'resolved') expect(landed(fs.readFileSync(big, 'utf8'))).toBe(true);
    // Nobody changes the file now: the change is not refused.
    expect(result).toBe('resolved');
  });
});

// The outside writer: another process that changes the file the moment the sandbox opens it for
// an edit (test/fixtures/outsider.js). Returns { stop } resolving to the number of changes made.
async function startOutsider(file, how, mode, max) {
  const countFile = `${file}.count`;
  fs.writeFileSync(countFile, '0');
  const child = fork(path.join(__dirname, 'fixtures/outsider.js'), [String(process.pid), file, how, mode, String(max), countFile]);
  const exited = new Promise((resolve) => child.once('exit', resolve)); // `once` ends by itself
  await new Promise((resolve) => child.once('message', resolve));
  return {
    async stop() {
      child.kill('SIGKILL');
      await exited;
      const changes = Number(fs.readFileSync(countFile, 'utf8'));
      fs.rmSync(countFile);
      return changes;
    },
  };
}

const outsiderLines = (n) => Array.from({ length: n }, (_, i) => `outsider-${i + 1}\n`).join('');

describe.each(RESOLVERS)('a change by another process between an edit\'s read and its replace (%s resolver)', (resolver) => {
  let layout;
  let file;
  let original;
  let sandbox;
  beforeEach(() => {
    layout = makeTempLayout(['root']);
    file = path.join(layout.root, 'big.txt');
    // Large enough that reading, replacing and writing it takes milliseconds: the outsider's change
    // lands while the edit is between its read and its rename.
    original = `${"x".repeat(8 << 20)}\nTOKEN-A\n`;
    write(file, original);
    sandbox = createMountSandbox({ root: layout.root, resolver });
  });
  afterEach(() => removeDir(layout.base));

  test('replaced once: the edit is redone on the new contents, and both changes are kept', async () => {
    const outsider = await startOutsider(file, 'rename', 'once', 1);
    const outcome = await sandbox.edit('/big.txt', 'TOKEN-A', 'EDITED-A').then(() => 'resolved', (e) => e);
    const changes = await outsider.stop();
    const text = fs.readFileSync(file, 'utf8');
    expect(changes).toBe(1); // the race took place
    expect(text.endsWith('outsider-1\n')).toBe(true); // never overwritten
    expect(outcome).toBe('resolved');
    expect(text).toBe(`${original.replace('TOKEN-A', 'EDITED-A')}outsider-1\n`);
  });

  test('changed in place once, size and inode kept, after the edit read it: redone, both changes kept', async () => {
    const outsider = await startOutsider(file, 'overwrite', 'once', 1);
    const outcome = await sandbox.edit('/big.txt', 'TOKEN-A', 'EDITED-A').then(() => 'resolved', (e) => e);
    const changes = await outsider.stop();
    const text = fs.readFileSync(file, 'utf8');
    expect(changes).toBe(1);
    expect(text.startsWith('outsider-1\n')).toBe(true); // never overwritten
    expect(outcome).toBe('resolved');
    expect(text).toBe(`outsider-1\n${original.slice('outsider-1\n'.length).replace('TOKEN-A', 'EDITED-A')}`);
  });

  test('changed at every attempt: ConflictError, and the file keeps every outside change', async () => {
    const outsider = await startOutsider(file, 'rename', 'every', 10);
    const outcome = await sandbox.edit('/big.txt', 'TOKEN-A', 'EDITED-A').then(() => 'resolved', (e) => e);
    const changes = await outsider.stop();
    const text = fs.readFileSync(file, 'utf8');
    expect(changes).toBeGreaterThanOrEqual(1);
    expect(text).toBe(original + outsiderLines(changes));
    expect(outcome).toBeInstanceOf(ConflictError);
    expect(outcome).toBeInstanceOf(SandboxError);
    expect(outcome.code).toBe('CONFLICT');
    expect(outcome.path).toBe('/big.txt');
    expect(outcome.toLLMMessage()).toMatch(/read .*again/i);
    expectNoPathUnder(outcome, layout.base);
    // A bounded number of attempts, each seeing a new outside change.
    expect(changes).toBeGreaterThanOrEqual(2);
    expect(changes).toBeLessThanOrEqual(5);
  });
});

describe.each(RESOLVERS)('version tokens: stat() and ifVersion (%s resolver)', (resolver) => {
  let layout;
  let file;
  let sandbox;
  beforeEach(() => {
    layout = makeTempLayout(['root']);
    file = path.join(layout.root, 'a.txt');
    write(file, 'one two three\n');
    sandbox = createMountSandbox({ root: layout.root, resolver });
  });
  afterEach(() => removeDir(layout.base));

  test('stat() gives an opaque version that changes with the file and only then', async () => {
    const v1 = (await sandbox.stat('/a.txt')).version;
    expect(typeof v1).toBe('string');
    expect(v1).toMatch(/^[0-9a-f]{16}$/);
    expect((await sandbox.stat('/a.txt')).version).toBe(v1);
    expect((await sandbox.stat('/./a.txt')).version).toBe(v1);
    await sandbox.read('/a.txt');
    expect((await sandbox.stat('/a.txt')).version).toBe(v1);
    await sandbox.write('/a.txt', 'one two three\n'); // same contents, new file
    const v2 = (await sandbox.stat('/a.txt')).version;
    expect(v2).not.toBe(v1);
    // An in-place change of the same size by someone else.
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, 'ONE', 0);
    fs.closeSync(fd);
    const v3 = (await sandbox.stat('/a.txt')).version;
    expect(v3).not.toBe(v2);
    await sandbox.edit('/a.txt', 'two', 'TWO');
    expect((await sandbox.stat('/a.txt')).version).not.toBe(v3);
  });

  test('write with the current version replaces the file; with a stale one it is refused and nothing changes', async () => {
    const { version } = await sandbox.stat('/a.txt');
    await sandbox.write('/a.txt', 'mine\n', { ifVersion: version });
    expect(fs.readFileSync(file, 'utf8')).toBe('mine\n');
    // The write itself made a new version: the old token is stale now.
    const err = await sandbox.write('/a.txt', 'again\n', { ifVersion: version }).catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toContain('/a.txt');
    expectNoPathUnder(err, layout.base);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine\n');
    const fresh = (await sandbox.stat('/a.txt')).version;
    await sandbox.writeBinary('/a.txt', new Uint8Array([104, 105]), { ifVersion: fresh });
    expect(fs.readFileSync(file, 'utf8')).toBe('hi');
    await expect(sandbox.writeBinary('/a.txt', new Uint8Array([1]), { ifVersion: fresh })).rejects.toBeInstanceOf(ConflictError);
  });

  // The change time is what betrays a change in place that keeps the inode and the size and puts
  // the modification time back (touch -d, utimes, tar, rsync -t): the version includes it.
  test('a change in place with the size kept and the modification time put back still changes the version', async () => {
    const { version } = await sandbox.stat('/a.txt');
    const before = fs.statSync(file, { bigint: true });
    await new Promise((resolve) => setTimeout(resolve, 20)); // past the clock tick on any filesystem
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, 'ONE', 0);
    fs.closeSync(fd);
    fs.utimesSync(file, Number(before.atimeMs) / 1000, Number(before.mtimeMs) / 1000);
    spawnSync('touch', ['-m', '-d', `@${before.mtimeNs / 1000000000n}.${String(before.mtimeNs % 1000000000n).padStart(9, '0')}`, file]);
    const after = fs.statSync(file, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    expect((await sandbox.stat('/a.txt')).version).not.toBe(version);
    await expect(sandbox.write('/a.txt', 'mine\n', { ifVersion: version })).rejects.toBeInstanceOf(ConflictError);
    await expect(sandbox.edit('/a.txt', 'ONE', 'x', { ifVersion: version })).rejects.toBeInstanceOf(ConflictError);
    expect(fs.readFileSync(file, 'utf8')).toBe('ONE two three\n');
  });

  test('a change by someone else since stat() makes write and edit with that version refuse', async () => {
    const { version } = await sandbox.stat('/a.txt');
    fs.writeFileSync(file, 'one two three\nfour\n'); // in place, as an editor without rename would
    await expect(sandbox.write('/a.txt', 'lost?\n', { ifVersion: version })).rejects.toBeInstanceOf(ConflictError);
    await expect(sandbox.edit('/a.txt', 'two', 'TWO', { ifVersion: version })).rejects.toBeInstanceOf(ConflictError);
    expect(fs.readFileSync(file, 'utf8')).toBe('one two three\nfour\n');
    // Replaced by rename, and deleted.
    const v2 = (await sandbox.stat('/a.txt')).version;
    fs.writeFileSync(`${file}.new`, 'one two three\nfour\n');
    fs.renameSync(`${file}.new`, file);
    await expect(sandbox.edit('/a.txt', 'two', 'TWO', { ifVersion: v2 })).rejects.toBeInstanceOf(ConflictError);
    const v3 = (await sandbox.stat('/a.txt')).version;
    fs.rmSync(file);
    await expect(sandbox.write('/a.txt', 'back\n', { ifVersion: v3 })).rejects.toBeInstanceOf(ConflictError);
    await expect(sandbox.edit('/a.txt', 'two', 'TWO', { ifVersion: v3 })).rejects.toBeInstanceOf(ConflictError);
    expect(fs.existsSync(file)).toBe(false);
  });

  test('two agents writing with the same version: exactly one wins, the other gets ConflictError', async () => {
    for (let round = 0; round < 10; round++) {
      const { version } = await sandbox.stat('/a.txt');
      const writers = Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? sandbox.write(`/a.txt`, `writer ${i}\n`, { ifVersion: version })
          : sandbox.edit('/a.txt', fs.readFileSync(file, 'utf8'), `editor ${i}\n`, { ifVersion: version })));
      const outcomes = await Promise.allSettled(writers);
      const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConflictError);
      expect(fs.readFileSync(file, 'utf8')).toBe(`${won[0] % 2 ? 'writer' : 'editor'} ${won[0]}\n`);
    }
  });

  test('edit with the current version applies; a conflict is reported before a failed match', async () => {
    const { version } = await sandbox.stat('/a.txt');
    await sandbox.edit('/a.txt', 'two', 'TWO', { ifVersion: version });
    expect(fs.readFileSync(file, 'utf8')).toBe('one TWO three\n');
    await expect(sandbox.edit('/a.txt', 'absent', 'x', { ifVersion: version })).rejects.toBeInstanceOf(ConflictError);
    const { version: now } = await sandbox.stat('/a.txt');
    await expect(sandbox.edit('/a.txt', 'absent', 'x', { ifVersion: now })).rejects.toMatchObject({ code: 'NO_MATCH' });
  });

  test('ifVersion is checked: a string from stat(), in an options object', async () => {
    const { version } = await sandbox.stat('/a.txt');
    const bad = [{ ifVersion: 42 }, { ifVersion: '' }, { ifVersion: 'not-a-version' }, { ifVersion: null }, { ifversion: version }, 'x'];
    for (const options of bad) {
      await expect(sandbox.write('/a.txt', 'x', options)).rejects.toBeInstanceOf(TypeError);
      await expect(sandbox.writeBinary('/a.txt', new Uint8Array(1), options)).rejects.toBeInstanceOf(TypeError);
      await expect(sandbox.edit('/a.txt', 'one', 'x', options)).rejects.toBeInstanceOf(TypeError);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('one two three\n');
    await sandbox.write('/a.txt', 'x', undefined);
    await sandbox.write('/a.txt', 'y', {});
    expect(fs.readFileSync(file, 'utf8')).toBe('y');
  });
});

describe('waiting for a turn holds no threadpool thread', () => {
  let layout;
  beforeEach(() => {
    layout = makeTempLayout(['root']);
    write(path.join(layout.root, 'big.txt'), `${'x'.repeat(1 << 20)}\nBIG\n`);
  });
  afterEach(() => removeDir(layout.base));

  test('a write to another file does not wait for the edits queued on one file', async () => {
    const sandbox = createMountSandbox({ root: layout.root });
    let settled = 0;
    const edits = Array.from({ length: 64 }, () => sandbox.edit('/big.txt', 'BIG', 'BIG').finally(() => { settled++; }));
    await sandbox.write('/other.txt', 'independent');
    const settledWhenWritten = settled;
    await Promise.all(edits);
    // Queued behind all 64 edits on the 4 threads, the write would see most of them settle first.
    expect(settledWhenWritten).toBeLessThan(16);
  });
});
