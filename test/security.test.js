'use strict';

// Attacks on real files. Every test plants something hostile in the tree and checks both that
// the operation is refused with a typed error and that nothing outside the sandbox changed.
const fs = require('fs');
const net = require('net');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  createMountSandbox,
  SandboxError,
  NotFoundError,
  InvalidPathError,
  ReadOnlyError,
  SymlinkError,
  NotRegularFileError,
  FileTooLargeError,
  MountPointError,
  IsDirectoryError,
  NotDirectoryError,
} = require('../lib');
const { RESOLVERS, makeTempDir, outsideUntouchedEach, removeDir, write } = require('./helpers');

const SECRET = 'TOP-SECRET-CONTENT';

describe.each(RESOLVERS)('attacks with the %s resolver', (resolver) => {
  let base;
  let root;
  let outside;
  let sandbox;

  outsideUntouchedEach((layout) => {
    ({ base, root, outside } = layout);
    write(path.join(root, 'inside.txt'), 'inside');
    write(path.join(outside, 'secret.txt'), SECRET);
    fs.mkdirSync(path.join(outside, 'dir'));
  });

  beforeEach(() => {
    sandbox = createMountSandbox({ root, resolver });
  });

  async function expectRefused(promise, ErrorClass) {
    const err = await promise.then(
      (value) => ({ value }),
      (e) => e,
    );
    expect(err).toBeInstanceOf(ErrorClass);
    expect(err.message).not.toContain(base);
    expect(err.toLLMMessage()).not.toContain(base);
    return err;
  }

  describe('symlinks', () => {
    test('an absolute symlink to a secret is refused for every operation', async () => {
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'abs'));
      fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'absdir'));
      const err = await expectRefused(sandbox.read('/abs'), SymlinkError);
      expect(err.code).toBe('SYMLINK_ESCAPE');
      expect(err.message).toBe('Symbolic link leads outside the sandbox: /abs');
      await expectRefused(sandbox.readBinary('/abs'), SymlinkError);
      await expectRefused(sandbox.stat('/abs'), SymlinkError);
      await expectRefused(sandbox.exists('/abs'), SymlinkError);
      await expectRefused(sandbox.list('/absdir'), SymlinkError);
      await expectRefused(sandbox.write('/absdir/new.txt', 'x'), SymlinkError);
    });

    test('a relative symlink that climbs out of the root is refused', async () => {
      fs.symlinkSync('../outside/secret.txt', path.join(root, 'rel'));
      fs.symlinkSync('../../outside', path.join(root, 'inside-dir-link'));
      await expectRefused(sandbox.read('/rel'), SymlinkError);
      await expectRefused(sandbox.read('/inside-dir-link/secret.txt'), SymlinkError);
    });

    test('relative symlinks that stay inside the mount are followed', async () => {
      fs.mkdirSync(path.join(root, 'a/b'), { recursive: true });
      fs.symlinkSync('../../inside.txt', path.join(root, 'a/b/up'));
      fs.symlinkSync('a', path.join(root, 'alias'));
      expect(await sandbox.read('/a/b/up')).toBe('inside');
      expect(await sandbox.list('/alias')).toEqual(['b']);
      await sandbox.write('/alias/b/new.txt', 'n');
      expect(fs.readFileSync(path.join(root, 'a/b/new.txt'), 'utf8')).toBe('n');
    });

    test('a symlink cannot hop from one mount into another', async () => {
      const other = path.join(base, 'other');
      write(path.join(other, 'o.txt'), 'other');
      const s = createMountSandbox({ root, resolver, mounts: [{ source: other, target: '/other' }] });
      fs.symlinkSync('../other/o.txt', path.join(root, 'hop'));
      await expectRefused(s.read('/hop'), SymlinkError);
    });

    test('a symlinked parent directory cannot be used to create files outside', async () => {
      fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'linkdir'));
      fs.symlinkSync('../outside/dir', path.join(root, 'rellinkdir'));
      await expectRefused(sandbox.write('/linkdir/new.txt', 'x'), SymlinkError);
      await expectRefused(sandbox.write('/linkdir/a/b/c.txt', 'x'), SymlinkError);
      await expectRefused(sandbox.write('/rellinkdir/a/b/c.txt', 'x'), SymlinkError);
      await expectRefused(sandbox.delete('/linkdir/secret.txt'), SymlinkError);
    });

    test('dangling symlinks are "not found", never created through', async () => {
      fs.symlinkSync('missing-target', path.join(root, 'dangling'));
      await expectRefused(sandbox.read('/dangling'), NotFoundError);
      expect(await sandbox.exists('/dangling')).toBe(false);
      await expectRefused(sandbox.write('/dangling/x.txt', 'x'), NotFoundError);
      expect(fs.existsSync(path.join(root, 'missing-target'))).toBe(false);
    });

    test('a dangling absolute symlink is not written through', async () => {
      fs.symlinkSync(path.join(outside, 'created-by-attack.txt'), path.join(root, 'trap'));
      await sandbox.write('/trap', 'x');
      expect(fs.lstatSync(path.join(root, 'trap')).isFile()).toBe(true);
      expect(fs.existsSync(path.join(outside, 'created-by-attack.txt'))).toBe(false);
    });

    test('a link whose text ends in "/" must lead to a directory', async () => {
      fs.mkdirSync(path.join(root, 'd'));
      fs.symlinkSync('inside.txt/', path.join(root, 'trail'));
      fs.symlinkSync('inside.txt/.', path.join(root, 'trail-dot'));
      fs.symlinkSync('d/', path.join(root, 'dir-trail'));
      await expectRefused(sandbox.read('/trail'), NotDirectoryError);
      await expectRefused(sandbox.read('/trail-dot'), NotDirectoryError);
      expect(await sandbox.list('/dir-trail')).toEqual([]);
    });

    test('symlink loops fail with SYMLINK_LOOP', async () => {
      fs.symlinkSync('b', path.join(root, 'a'));
      fs.symlinkSync('a', path.join(root, 'b'));
      fs.symlinkSync('self', path.join(root, 'self'));
      for (const p of ['/a', '/self', '/a/x']) {
        const err = await expectRefused(sandbox.read(p), SymlinkError);
        expect(err.code).toBe('SYMLINK_LOOP');
      }
    });

    test('a trailing slash does not turn a mutation into a follow', async () => {
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'ln'));
      await sandbox.write('/ln/', 'replaced');
      expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
      fs.rmSync(path.join(root, 'ln'));
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'ln'));
      await sandbox.delete('/ln/');
      expect(fs.existsSync(path.join(root, 'ln'))).toBe(false);
    });

    test('/proc magic links are refused even when /proc is mounted', async () => {
      const s = createMountSandbox({
        root, resolver, mounts: [{ source: '/proc/self', target: '/proc', readonly: true, allowPseudoFilesystem: true }],
      });
      await expectRefused(s.read('/proc/root/etc/hostname'), SymlinkError);
      await expectRefused(s.list('/proc/cwd'), SymlinkError);
      await expectRefused(s.read('/proc/exe'), SymlinkError);
      fs.symlinkSync('/proc/self/root/etc/hostname', path.join(root, 'magic'));
      await expectRefused(sandbox.read('/magic'), SymlinkError);
    });
  });

  describe('special files', () => {
    test('a FIFO is refused without hanging', async () => {
      execFileSync('mkfifo', [path.join(root, 'fifo')]);
      await expectRefused(sandbox.read('/fifo'), NotRegularFileError);
      await expectRefused(sandbox.readBinary('/fifo'), NotRegularFileError);
      await expectRefused(sandbox.write('/fifo', 'x'), NotRegularFileError);
      expect(fs.lstatSync(path.join(root, 'fifo')).isFIFO()).toBe(true);
      expect(await sandbox.exists('/fifo')).toBe(true);
    });

    test('devices are refused, directly and through a mount', async () => {
      const s = createMountSandbox({
        root, resolver, mounts: [{ source: '/dev', target: '/dev', readonly: true, allowPseudoFilesystem: true }],
      });
      await expectRefused(s.read('/dev/zero'), NotRegularFileError);
      await expectRefused(s.readBinary('/dev/urandom'), NotRegularFileError);
      await expectRefused(s.read('/dev/null'), NotRegularFileError);
      fs.symlinkSync('/dev/zero', path.join(root, 'zero'));
      await expectRefused(sandbox.read('/zero'), SymlinkError);
    });

    test('a unix socket is refused', async () => {
      const server = net.createServer();
      await new Promise((resolve) => server.listen(path.join(root, 'sock'), resolve));
      try {
        await expectRefused(sandbox.read('/sock'), NotRegularFileError);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    test('a huge sparse file is refused before anything is allocated', async () => {
      const fd = fs.openSync(path.join(root, 'huge'), 'w');
      fs.ftruncateSync(fd, 2 ** 40);
      fs.closeSync(fd);
      const err = await expectRefused(sandbox.readBinary('/huge'), FileTooLargeError);
      expect(err.code).toBe('TOO_LARGE');
      expect(err.size).toBe(2 ** 40);
      expect(err.limit).toBe(128 * 1024 * 1024);
      expect(err.toLLMMessage()).toContain('1099511627776 bytes');
    });

    test('the read limit is configurable per sandbox', async () => {
      write(path.join(root, 'eleven.txt'), '01234567890');
      const small = createMountSandbox({ root, resolver, maxReadBytes: 10 });
      const err = await expectRefused(small.read('/eleven.txt'), FileTooLargeError);
      expect([err.size, err.limit]).toEqual([11, 10]);
      expect(await small.read('/inside.txt')).toBe('inside');
    });
  });

  describe('hard links and atomic writes', () => {
    test('writing a hard-linked file never writes through to the other link', async () => {
      fs.linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hl'));
      await sandbox.write('/hl', 'overwritten');
      expect(fs.readFileSync(path.join(root, 'hl'), 'utf8')).toBe('overwritten');
      expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    });

    test('write keeps the file mode and leaves no temporary behind', async () => {
      fs.chmodSync(path.join(root, 'inside.txt'), 0o640);
      await sandbox.write('/inside.txt', 'new');
      expect(fs.statSync(path.join(root, 'inside.txt')).mode & 0o777).toBe(0o640);
      expect(fs.readdirSync(root)).toEqual(['inside.txt']);
    });

    test('a rewrite never mints set-id bits and keeps the owner', async () => {
      const file = path.join(root, 'inside.txt');
      fs.chmodSync(file, 0o4755);
      await sandbox.write('/inside.txt', 'new');
      expect(fs.statSync(file).mode & 0o7777).toBe(0o755);
      if (process.getuid() === 0) {
        fs.chownSync(file, 65534, 65534);
        await sandbox.write('/inside.txt', 'newer');
        expect([fs.statSync(file).uid, fs.statSync(file).gid]).toEqual([65534, 65534]);
      }
    });

    test('the temporary of a private file is never readable by others', async () => {
      const { fork } = require('child_process');
      fs.chmodSync(path.join(root, 'inside.txt'), 0o600);
      const spy = fork(path.join(__dirname, 'fixtures/temp-spy.js'), [root]);
      const exited = new Promise((resolve) => spy.once('exit', resolve));
      let report;
      try {
        await new Promise((resolve) => spy.once('message', resolve));
        let seen = false;
        const reported = new Promise((resolve) => {
          spy.on('message', (m) => {
            if (m === 'caught') seen = true;
            else resolve(m);
          });
        });
        // A replacement is named only between linking it in and renaming it over the file, so
        // keep writing until the spy has caught at least one (or give up, and fail below).
        for (let i = 0; i < 50000 && !seen; i++) await sandbox.write('/inside.txt', `secret ${i}`);
        spy.send('stop');
        report = await reported;
      } finally {
        spy.kill('SIGKILL');
        await exited;
      }
      const { caught, modes } = report;
      expect(caught).toBeGreaterThan(0);
      for (const mode of modes) expect(mode & 0o077).toBe(0);
      expect(fs.statSync(path.join(root, 'inside.txt')).mode & 0o777).toBe(0o600);
    });

    test('a reader never sees a torn file while it is rewritten', async () => {
      const a = 'A'.repeat(256 * 1024);
      const b = 'B'.repeat(256 * 1024);
      await sandbox.write('/t.txt', a);
      const writes = [];
      const reads = [];
      for (let i = 0; i < 40; i++) {
        writes.push(sandbox.write('/t.txt', i % 2 ? a : b));
        reads.push(sandbox.read('/t.txt'));
      }
      await Promise.all(writes);
      for (const text of await Promise.all(reads)) expect(text === a || text === b).toBe(true);
    });
  });

  describe('read-only however reached', () => {
    let ro;
    beforeEach(() => {
      write(path.join(root, 'protected/existing.txt'), 'keep');
      ro = createMountSandbox({
        root,
        resolver,
        mounts: [{ source: path.join(root, 'protected'), target: '/p', readonly: true }],
      });
    });

    afterEach(() => {
      expect(fs.readdirSync(path.join(root, 'protected'))).toEqual(['existing.txt']);
      expect(fs.readFileSync(path.join(root, 'protected/existing.txt'), 'utf8')).toBe('keep');
    });

    test('through its own target', async () => {
      await expectRefused(ro.write('/p/existing.txt', 'x'), ReadOnlyError);
      await expectRefused(ro.delete('/p/existing.txt'), ReadOnlyError);
    });

    test('through the writable root that contains its source', async () => {
      await expectRefused(ro.write('/protected/existing.txt', 'x'), ReadOnlyError);
      await expectRefused(ro.write('/protected/new.txt', 'x'), ReadOnlyError);
      await expectRefused(ro.write('/protected/a/b/c.txt', 'x'), ReadOnlyError);
      await expectRefused(ro.delete('/protected/existing.txt'), ReadOnlyError);
      expect(await ro.read('/protected/existing.txt')).toBe('keep');
    });

    test('through a relative symlink in the root', async () => {
      fs.symlinkSync('protected', path.join(root, 'ln'));
      await expectRefused(ro.write('/ln/existing.txt', 'x'), ReadOnlyError);
      await expectRefused(ro.delete('/ln/existing.txt'), ReadOnlyError);
    });

    test('through restrict chains, including restrict("/") and a subtree that hides the mount', async () => {
      await expectRefused(ro.restrict({ restrict: '/' }).write('/protected/x', 'x'), ReadOnlyError);
      const child = ro.restrict({ restrict: '/protected' });
      await expectRefused(child.write('/x', 'x'), ReadOnlyError);
      await expectRefused(child.delete('/existing.txt'), ReadOnlyError);
      const viaMount = ro.restrict({ restrict: '/p' });
      expect(viaMount.getConfig().readonly).toBe(true);
      await expectRefused(viaMount.write('/x', 'x'), ReadOnlyError);
    });

    test('through a sub-worker rooted strictly inside the read-only source', async () => {
      write(path.join(root, 'protected/deeper/nested.txt'), 'keep2');
      const child = ro.restrict({ restrict: '/protected/deeper' });
      expect(await child.read('/nested.txt')).toBe('keep2');
      await expectRefused(child.write('/x', 'x'), ReadOnlyError);
      await expectRefused(child.write('/nested.txt', 'changed'), ReadOnlyError);
      await expectRefused(child.delete('/nested.txt'), ReadOnlyError);
      expect(fs.readdirSync(path.join(root, 'protected/deeper'))).toEqual(['nested.txt']);
      expect(fs.readFileSync(path.join(root, 'protected/deeper/nested.txt'), 'utf8')).toBe('keep2');
      fs.rmSync(path.join(root, 'protected/deeper'), { recursive: true });
    });

    test('mount points themselves cannot be replaced or removed', async () => {
      const s = createMountSandbox({
        root,
        resolver,
        mounts: [{ source: path.join(base, 'rw'), target: '/deep/rw' }],
      });
      fs.mkdirSync(path.join(base, 'rw'));
      await expectRefused(s.write('/deep/rw', 'x'), MountPointError);
      await expectRefused(s.delete('/deep/rw'), MountPointError);
      await expectRefused(s.write('/deep', 'x'), MountPointError);
      await expectRefused(s.write('/', 'x'), IsDirectoryError);
      expect(fs.existsSync(path.join(root, 'deep'))).toBe(false);
    });
  });

  describe('path input', () => {
    test('NUL bytes and lone surrogates are refused and nothing is created', async () => {
      for (const p of ['/a\0b', '/x\uD800', '/\uDC00y']) {
        await expectRefused(sandbox.write(p, 'x'), InvalidPathError);
        await expectRefused(sandbox.read(p), InvalidPathError);
        expect(() => sandbox.resolve(p)).toThrow(InvalidPathError);
      }
      expect(fs.readdirSync(root)).toEqual(['inside.txt']);
    });

    test('an enormous path is refused with a bounded message, not a crash', async () => {
      const huge = `/${'x'.repeat(2 ** 22)}`;
      const err = await expectRefused(sandbox.list(huge), InvalidPathError);
      expect(err.message.length).toBeLessThan(200);
      expect(() => sandbox.resolve(huge)).toThrow(InvalidPathError);
    });

    test('well-formed astral characters are fine', async () => {
      await sandbox.write('/emoji-😀.txt', 'ok');
      expect(await sandbox.read('/emoji-😀.txt')).toBe('ok');
    });
  });

  describe('host paths never leak', () => {
    test('no refusal names a host path', async () => {
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'abs'));
      execFileSync('mkfifo', [path.join(root, 'fifo')]);
      fs.mkdirSync(path.join(root, 'd'));
      const attempts = [
        sandbox.read('/abs'),
        sandbox.read('/fifo'),
        sandbox.read('/d'),
        sandbox.read('/missing'),
        sandbox.read('/inside.txt/x'),
        sandbox.delete('/d'),
        sandbox.list('/inside.txt'),
        sandbox.read('/../x'),
      ];
      for (const outcome of await Promise.allSettled(attempts)) {
        expect(outcome.status).toBe('rejected');
        expect(outcome.reason).toBeInstanceOf(SandboxError);
        expect(`${outcome.reason.message} ${outcome.reason.toLLMMessage()} ${outcome.reason.stack}`).not.toContain(base);
      }
    });
  });
});

describe('descriptors', () => {
  test('no descriptor leaks, and every descriptor the addon keeps is close-on-exec', async () => {
    const dir = makeTempDir();
    try {
      write(path.join(dir, 'f.txt'), 'x');
      const sandbox = createMountSandbox({ root: dir, mounts: [{ source: dir, target: '/m', readonly: true }] });
      await sandbox.read('/f.txt');
      await sandbox.read('/m/f.txt');
      // Only descriptors on the sandbox's files: Jest may open its own meanwhile.
      const count = () =>
        fs.readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
          } catch {
            return false;
          }
        }).length;
      const before = count();
      for (let i = 0; i < 200; i++) {
        await Promise.allSettled([
          sandbox.read('/f.txt'),
          sandbox.write('/g.txt', 'y'),
          sandbox.list('/'),
          sandbox.stat('/f.txt'),
          sandbox.read('/missing'),
          sandbox.write('/m/x', 'x'),
        ]);
      }
      expect(count()).toBe(before);
      const pinned = fs
        .readdirSync('/proc/self/fd')
        .filter((fd) => {
          try {
            return fs.readlinkSync(`/proc/self/fd/${fd}`) === dir;
          } catch {
            return false;
          }
        });
      expect(pinned.length).toBeGreaterThanOrEqual(1);
      for (const fd of pinned) {
        const flags = /flags:\s+(\d+)/.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))[1];
        expect(parseInt(flags, 8) & 0o2000000).toBe(0o2000000);
      }
    } finally {
      removeDir(dir);
    }
  });
});
