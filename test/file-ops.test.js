'use strict';

// edit, move, copy, mkdir and glob on real files, with the attacks each one invites: symlinked
// parents that lead outside, read-only mounts reached from either end, FIFOs that would block a
// careless open. After every refusal the whole temp tree (contents included) must be unchanged.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  createMountSandbox,
  SandboxError,
  NotFoundError,
  ReadOnlyError,
  SymlinkError,
  NotRegularFileError,
  IsDirectoryError,
  NotDirectoryError,
  MountPointError,
  EditError,
  OutsideSandboxError,
  OperationBlockedError,
} = require('../lib');
const {
  RESOLVERS, makeTempLayout, removeDir, settleWithin, releaseFifo, write, expectNoPathUnder, expectRefusal,
} = require('./helpers');

const SECRET = 'TOP-SECRET-CONTENT';

// Every regular file under `dir` whose contents include `needle`.
function filesContaining(dir, needle) {
  const found = [];
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && fs.readFileSync(full, 'utf8').includes(needle)) found.push(full);
    }
  };
  walk(dir);
  return found;
}

describe.each(RESOLVERS)('file operations with the %s resolver', (resolver) => {
  let base;
  let root;
  let other;
  let ro;
  let outside;
  let sandbox;

  beforeEach(() => {
    ({ base, root, other, ro, outside } = makeTempLayout(['root', 'other', 'ro', 'outside'], 'msb-ops-'));
    write(path.join(root, 'inside.txt'), 'inside');
    fs.mkdirSync(path.join(root, 'dir'));
    write(path.join(other, 'o.txt'), 'other');
    write(path.join(ro, 'r.txt'), 'read-only');
    write(path.join(outside, 'secret.txt'), SECRET);
    fs.mkdirSync(path.join(outside, 'dir'));
    sandbox = createMountSandbox({
      root,
      resolver,
      mounts: [
        { source: other, target: '/other' },
        { source: ro, target: '/ro', readonly: true },
      ],
    });
  });

  afterEach(() => {
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(fs.readdirSync(outside).sort()).toEqual(['dir', 'secret.txt']);
    expect(fs.readdirSync(path.join(outside, 'dir'))).toEqual([]);
    removeDir(base);
  });

  const expectNoHostPath = (err) => expectNoPathUnder(err, base);
  const refuses = (fn, ErrorClass) => expectRefusal(base, fn, ErrorClass);

  const host = (...parts) => path.join(base, ...parts);
  const hostText = (...parts) => fs.readFileSync(host(...parts), 'utf8');

  test('attack: move cannot carry a file past its mount\'s maxFileBytes', async () => {
    const r = path.join(base, 'mv-root');
    const m = path.join(base, 'mv-limited');
    write(path.join(m, 'big.md'), 'B'.repeat(100));
    fs.mkdirSync(r, { recursive: true });
    const s = createMountSandbox({ root: r, resolver, mounts: [{ source: m, target: '/m', maxFileBytes: 20 }] });
    await expect(s.read('/m/big.md')).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(s.move('/m/big.md', '/big.md')).rejects.toMatchObject({ code: 'TOO_LARGE', path: '/m/big.md' });
    expect(fs.existsSync(path.join(r, 'big.md'))).toBe(false);
    expect(fs.readFileSync(path.join(m, 'big.md'), 'utf8')).toBe('B'.repeat(100));
  });

  describe('edit', () => {
    beforeEach(() => {
      write(path.join(root, 'code.js'), 'const a = 1;\nconst b = 2;\nconsole.log(a + b);\n');
      write(path.join(root, 'repeat.txt'), 'x = 1\nx = 1\nx = 1\n');
    });

    test('replaces the one occurrence and leaves the rest byte for byte', async () => {
      await sandbox.edit('/code.js', 'const b = 2;', 'const b = 40;');
      expect(hostText('root', 'code.js')).toBe('const a = 1;\nconst b = 40;\nconsole.log(a + b);\n');
      // Replacement text is literal: no "$&" expansion.
      await sandbox.edit('/code.js', 'a + b', '$& + $1 + $$');
      expect(hostText('root', 'code.js')).toBe('const a = 1;\nconst b = 40;\nconsole.log($& + $1 + $$);\n');
      // Deleting text and multi-byte text.
      await sandbox.edit('/code.js', 'const a = 1;\n', '');
      await sandbox.edit('/code.js', 'console', 'cönsöle😀');
      expect(hostText('root', 'code.js')).toBe('const b = 40;\ncönsöle😀.log($& + $1 + $$);\n');
      await sandbox.edit('/other/o.txt', 'other', 'edited in a mount');
      expect(hostText('other', 'o.txt')).toBe('edited in a mount');
    });

    test('keeps the file mode and leaves no temporary behind', async () => {
      fs.chmodSync(path.join(root, 'code.js'), 0o640);
      await sandbox.edit('/code.js', 'const a', 'let a');
      expect(fs.statSync(path.join(root, 'code.js')).mode & 0o777).toBe(0o640);
      expect(fs.readdirSync(root).sort()).toEqual(['code.js', 'dir', 'inside.txt', 'repeat.txt']);
    });

    test('no match: EditError NO_MATCH, file unchanged', async () => {
      for (const oldText of ['const c', 'CONST A', 'const a = 1; ']) {
        const err = await refuses(() => sandbox.edit('/code.js', oldText, 'x'), EditError);
        expect(err.code).toBe('NO_MATCH');
        expect(err.occurrences).toBe(0);
        expect(err.path).toBe('/code.js');
        expect(err.toLLMMessage()).toContain('does not occur');
      }
    });

    test('several matches: EditError AMBIGUOUS_MATCH with the count, file unchanged', async () => {
      let err = await refuses(() => sandbox.edit('/repeat.txt', 'x = 1', 'x = 2'), EditError);
      expect(err.code).toBe('AMBIGUOUS_MATCH');
      expect(err.occurrences).toBe(3);
      expect(err.toLLMMessage()).toContain('3 times');
      err = await refuses(() => sandbox.edit('/code.js', 'const', 'let'), EditError);
      expect(err.occurrences).toBe(2);
      // Adding context makes it unique.
      await sandbox.edit('/repeat.txt', 'x = 1\nx = 1\nx = 1', 'x = 1\nx = 1\nx = 3');
      expect(hostText('root', 'repeat.txt')).toBe('x = 1\nx = 1\nx = 3\n');
    });

    test('argument problems are refused before anything happens', async () => {
      await expect(sandbox.edit('/code.js', '', 'x')).rejects.toThrow(TypeError);
      await expect(sandbox.edit('/code.js', 'const', 7)).rejects.toThrow(TypeError);
      expect(hostText('root', 'code.js')).toBe('const a = 1;\nconst b = 2;\nconsole.log(a + b);\n');
    });

    test('missing files, directories and FIFOs are refused without creating anything', async () => {
      let err = await refuses(() => sandbox.edit('/missing.txt', 'a', 'b'), NotFoundError);
      expect(err.path).toBe('/missing.txt');
      await refuses(() => sandbox.edit('/dir', 'a', 'b'), IsDirectoryError);
      execFileSync('mkfifo', [path.join(root, 'fifo')]);
      try {
        err = await refuses(() => settleWithin(sandbox.edit('/fifo', 'a', 'b'), 5000, 'edit of a FIFO'), NotRegularFileError);
      } finally {
        releaseFifo(path.join(root, 'fifo'));
      }
    });

    test('read-only locations are refused, however they are reached', async () => {
      let err = await refuses(() => sandbox.edit('/ro/r.txt', 'read', 'write'), ReadOnlyError);
      expect(err.path).toBe('/ro/r.txt');
      expect(err.writablePaths).toEqual(['/', '/other']);
      const child = sandbox.restrict({ readonly: true });
      err = await refuses(() => child.edit('/inside.txt', 'inside', 'x'), ReadOnlyError);
      expect(err.writablePaths).toEqual([]);
    });

    test('attack: a symlink to a file outside cannot be edited', async () => {
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'abs.txt'));
      fs.symlinkSync('../outside/secret.txt', path.join(root, 'rel.txt'));
      fs.symlinkSync(path.join(outside), path.join(root, 'linkdir'));
      for (const p of ['/abs.txt', '/rel.txt', '/linkdir/secret.txt']) {
        const err = await refuses(() => sandbox.edit(p, 'TOP-SECRET', 'PWNED'), SymlinkError);
        expect(err.code).toBe('SYMLINK_ESCAPE');
        expect(err.path).toBe(p);
      }
    });

    test('attack: editing a file hard-linked from outside never changes the outside file', async () => {
      fs.linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hl.txt'));
      await sandbox.edit('/hl.txt', 'TOP-SECRET', 'EDITED');
      expect(hostText('root', 'hl.txt')).toBe('EDITED-CONTENT');
      // afterEach checks the outside file still holds SECRET
    });
  });

  describe('move and copy', () => {
    test('move within the root and within a mount', async () => {
      await sandbox.move('/inside.txt', '/dir/moved.txt');
      expect(hostText('root', 'dir', 'moved.txt')).toBe('inside');
      expect(fs.existsSync(path.join(root, 'inside.txt'))).toBe(false);
      await sandbox.move('/other/o.txt', '/other/renamed.txt');
      expect(fs.readdirSync(other)).toEqual(['renamed.txt']);
    });

    test('move and copy across mounts', async () => {
      await sandbox.copy('/inside.txt', '/other/copied.txt');
      expect(hostText('other', 'copied.txt')).toBe('inside');
      expect(hostText('root', 'inside.txt')).toBe('inside');
      await sandbox.move('/other/o.txt', '/dir/from-other.txt');
      expect(hostText('root', 'dir', 'from-other.txt')).toBe('other');
      expect(fs.existsSync(path.join(other, 'o.txt'))).toBe(false);
      await sandbox.copy('/dir/from-other.txt', '/copy-in-root.txt');
      expect(hostText('root', 'copy-in-root.txt')).toBe('other');
    });

    test('copy keeps binary contents exactly', async () => {
      const bytes = Buffer.from([0, 255, 10, 13, 0xc3, 0x28, 1, 2, 3]);
      write(path.join(root, 'bin.dat'), bytes);
      await sandbox.copy('/bin.dat', '/other/bin.dat');
      expect(fs.readFileSync(path.join(other, 'bin.dat')).equals(bytes)).toBe(true);
    });

    test('copy FROM a read-only mount is allowed; move FROM it is refused and names the source', async () => {
      await sandbox.copy('/ro/r.txt', '/from-ro.txt');
      expect(hostText('root', 'from-ro.txt')).toBe('read-only');
      const err = await refuses(() => sandbox.move('/ro/r.txt', '/stolen.txt'), ReadOnlyError);
      expect(err.path).toBe('/ro/r.txt');
      expect(hostText('ro', 'r.txt')).toBe('read-only');
    });

    test('INTO a read-only mount is refused, names the target, and creates nothing', async () => {
      for (const op of ['copy', 'move']) {
        let err = await refuses(() => sandbox[op]('/inside.txt', '/ro/new.txt'), ReadOnlyError);
        expect(err.path).toBe('/ro/new.txt');
        expect(err.writablePaths).toEqual(['/', '/other']);
        err = await refuses(() => sandbox[op]('/inside.txt', '/ro/r.txt', { overwrite: true }), ReadOnlyError);
        expect(err.path).toBe('/ro/r.txt');
        await refuses(() => sandbox[op]('/inside.txt', '/ro/a/b/new.txt'), ReadOnlyError);
      }
      expect(fs.readdirSync(ro)).toEqual(['r.txt']);
      expect(hostText('root', 'inside.txt')).toBe('inside');
    });

    test('attack: into a read-only mount through the writable root that holds its source', async () => {
      write(path.join(root, 'protected', 'p.txt'), 'protected');
      const s = createMountSandbox({
        root,
        resolver,
        mounts: [{ source: path.join(root, 'protected'), target: '/p', readonly: true }],
      });
      let err = await refuses(() => s.copy('/inside.txt', '/protected/new.txt'), ReadOnlyError);
      expect(err.path).toBe('/protected/new.txt');
      err = await refuses(() => s.move('/protected/p.txt', '/taken.txt'), ReadOnlyError);
      expect(err.path).toBe('/protected/p.txt');
      await refuses(() => s.copy('/inside.txt', '/protected/p.txt', { overwrite: true }), ReadOnlyError);
    });

    test('overwrite: false (the default) refuses an existing target and leaves both files alone', async () => {
      for (const op of ['copy', 'move']) {
        for (const options of [undefined, { overwrite: false }]) {
          const err = await refuses(() => sandbox[op]('/inside.txt', '/other/o.txt', options), SandboxError);
          expect(err.code).toBe('ALREADY_EXISTS');
          expect(err.path).toBe('/other/o.txt');
        }
      }
      expect(hostText('other', 'o.txt')).toBe('other');
      expect(hostText('root', 'inside.txt')).toBe('inside');
    });

    test('overwrite: true replaces the target', async () => {
      write(path.join(root, 'a.txt'), 'A');
      await sandbox.copy('/inside.txt', '/other/o.txt', { overwrite: true });
      expect(hostText('other', 'o.txt')).toBe('inside');
      expect(hostText('root', 'inside.txt')).toBe('inside');
      await sandbox.move('/a.txt', '/inside.txt', { overwrite: true });
      expect(hostText('root', 'inside.txt')).toBe('A');
      expect(fs.existsSync(path.join(root, 'a.txt'))).toBe(false);
      await sandbox.move('/inside.txt', '/other/o.txt', { overwrite: true });
      expect(hostText('other', 'o.txt')).toBe('A');
      expect(fs.existsSync(path.join(root, 'inside.txt'))).toBe(false);
    });

    test('bad options are refused before anything happens', async () => {
      await expect(sandbox.copy('/inside.txt', '/x.txt', { overwrite: 'yes' })).rejects.toThrow(TypeError);
      await expect(sandbox.move('/inside.txt', '/x.txt', { force: true })).rejects.toThrow(TypeError);
      expect(fs.existsSync(path.join(root, 'x.txt'))).toBe(false);
    });

    test('a missing source is NotFound and names the source', async () => {
      for (const op of ['copy', 'move']) {
        const err = await refuses(() => sandbox[op]('/missing.txt', '/x.txt'), NotFoundError);
        expect(err.path).toBe('/missing.txt');
      }
    });

    test('files only: a directory is neither moved nor copied', async () => {
      write(path.join(root, 'dir', 'f.txt'), 'f');
      for (const op of ['copy', 'move']) {
        const err = await refuses(() => sandbox[op]('/dir', '/dir2'), IsDirectoryError);
        expect(err.path).toBe('/dir');
      }
    });

    test('mount points cannot be moved, nor replaced by a move or copy', async () => {
      let err = await refuses(() => sandbox.move('/other', '/elsewhere'), MountPointError);
      expect(err.path).toBe('/other');
      err = await refuses(() => sandbox.move('/inside.txt', '/other', { overwrite: true }), MountPointError);
      expect(err.path).toBe('/other');
      err = await refuses(() => sandbox.copy('/inside.txt', '/ro', { overwrite: true }), SandboxError);
      expect(err.path).toBe('/ro');
    });

    test('attack: a symlinked parent directory that leads outside is refused at either end', async () => {
      fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'absdir'));
      fs.symlinkSync('../outside/dir', path.join(root, 'reldir'));
      fs.symlinkSync(outside, path.join(root, 'absout'));
      fs.symlinkSync('../../outside', path.join(other, 'relout'));
      for (const op of ['copy', 'move']) {
        for (const to of ['/absdir/new.txt', '/reldir/new.txt', '/absdir/a/b/new.txt', '/other/relout/dir/new.txt']) {
          const err = await refuses(() => sandbox[op]('/inside.txt', to), SymlinkError);
          expect(err.path).toBe(to);
        }
        for (const from of ['/absout/secret.txt', '/other/relout/secret.txt']) {
          const err = await refuses(() => sandbox[op](from, '/stolen.txt'), SymlinkError);
          expect(err.path).toBe(from);
        }
        const err = await refuses(() => sandbox[op]('/absout/secret.txt', '/absdir/x.txt'), SymlinkError);
        expect(err.path).toBe('/absout/secret.txt');
      }
      expect(filesContaining(root, SECRET)).toEqual([]);
      expect(filesContaining(other, SECRET)).toEqual([]);
    });

    test('attack: copying a symlink to a file outside never copies the secret', async () => {
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'abs.txt'));
      fs.symlinkSync('../outside/secret.txt', path.join(root, 'rel.txt'));
      for (const from of ['/abs.txt', '/rel.txt']) {
        const err = await refuses(() => sandbox.copy(from, '/other/stolen.txt'), SymlinkError);
        expect(err.path).toBe(from);
      }
      // Moving the link across mounts would have to read through it.
      for (const from of ['/abs.txt', '/rel.txt']) {
        await sandbox.move(from, '/other/moved.txt').catch((e) => {
          expect(e).toBeInstanceOf(SandboxError);
          expectNoHostPath(e);
        });
        await expect(sandbox.read('/other/moved.txt')).rejects.toThrow(SandboxError);
        fs.rmSync(path.join(other, 'moved.txt'), { force: true });
      }
      expect(filesContaining(root, SECRET)).toEqual([]);
      expect(filesContaining(other, SECRET)).toEqual([]);
    });

    test('attack: a target that is a symlink leading outside is replaced, never written through', async () => {
      const traps = {
        'trap.txt': path.join(outside, 'secret.txt'),
        'dangling.txt': path.join(outside, 'created.txt'),
        'dangling-rel.txt': '../outside/created2.txt',
      };
      for (const op of ['copy', 'move']) {
        for (const [name, text] of Object.entries(traps)) {
          fs.rmSync(path.join(root, name), { force: true });
          fs.symlinkSync(text, path.join(root, name));
          write(path.join(root, 'payload.txt'), 'PAYLOAD');
          // The link is an existing entry: without overwrite it is kept.
          const err = await refuses(() => sandbox[op]('/payload.txt', `/${name}`), SandboxError);
          expect([err.code, err.path]).toEqual(['ALREADY_EXISTS', `/${name}`]);
          // With overwrite the link itself is replaced by the file.
          await sandbox[op]('/payload.txt', `/${name}`, { overwrite: true });
          expect(fs.lstatSync(path.join(root, name)).isFile()).toBe(true);
          expect(hostText('root', name)).toBe('PAYLOAD');
        }
      }
      expect(fs.existsSync(path.join(outside, 'created.txt'))).toBe(false);
      expect(fs.existsSync(path.join(outside, 'created2.txt'))).toBe(false);
      expect(filesContaining(outside, 'PAYLOAD')).toEqual([]);
    });

    test('FIFOs are neither copied nor moved, and nothing blocks on them', async () => {
      const fifo = path.join(root, 'pipe.txt');
      execFileSync('mkfifo', [fifo]);
      try {
        for (const op of ['copy', 'move']) {
          const err = await refuses(
            () => settleWithin(sandbox[op]('/pipe.txt', '/other/pipe.txt'), 5000, `${op} of a FIFO`),
            NotRegularFileError,
          );
          expect(err.path).toBe('/pipe.txt');
        }
      } finally {
        releaseFifo(fifo);
      }
    });

    test('a move or copy creates the missing parent directories of the target', async () => {
      await sandbox.copy('/inside.txt', '/other/new/deeper/c.txt');
      await sandbox.move('/inside.txt', '/newdir/sub/m.txt');
      expect(hostText('other', 'new', 'deeper', 'c.txt')).toBe('inside');
      expect(hostText('root', 'newdir', 'sub', 'm.txt')).toBe('inside');
    });

    test('attack: overwriting a file hard-linked from outside replaces only the link', async () => {
      fs.linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hl.txt'));
      await sandbox.copy('/inside.txt', '/hl.txt', { overwrite: true });
      expect(hostText('root', 'hl.txt')).toBe('inside');
      fs.linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hl2.txt'));
      await sandbox.move('/other/o.txt', '/hl2.txt', { overwrite: true });
      expect(hostText('root', 'hl2.txt')).toBe('other');
    });

    test('approvals apply to both ends: delete rights on the source of a move, write rights on the target', async () => {
      write(path.join(base, 'nodel', 'n.txt'), 'no deletes');
      write(path.join(base, 'nowrite', 'w.txt'), 'no writes');
      const s = createMountSandbox({
        root,
        resolver,
        mounts: [
          { source: path.join(base, 'nodel'), target: '/nodel', approval: { delete: 'blocked' } },
          { source: path.join(base, 'nowrite'), target: '/nowrite', approval: { write: 'blocked' } },
        ],
      });
      let err = await refuses(() => s.move('/nodel/n.txt', '/n.txt'), OperationBlockedError);
      expect([err.code, err.path]).toEqual(['DELETE_BLOCKED', '/nodel/n.txt']);
      err = await refuses(() => s.move('/inside.txt', '/nowrite/i.txt'), OperationBlockedError);
      expect([err.code, err.path]).toEqual(['WRITE_BLOCKED', '/nowrite/i.txt']);
      err = await refuses(() => s.copy('/inside.txt', '/nowrite/i.txt'), OperationBlockedError);
      expect(err.path).toBe('/nowrite/i.txt');
      await s.copy('/nodel/n.txt', '/n.txt');
      await s.move('/nowrite/w.txt', '/w.txt');
      expect(hostText('root', 'n.txt')).toBe('no deletes');
      expect(hostText('root', 'w.txt')).toBe('no writes');
      expect(fs.existsSync(path.join(base, 'nowrite', 'w.txt'))).toBe(false);
    });

    test('a move or copy out of the sandbox view is refused (root-less sandbox)', async () => {
      const s = createMountSandbox({
        root: null,
        resolver,
        mounts: [{ source: other, target: '/other' }],
      });
      let err = await refuses(() => s.copy('/other/o.txt', '/escaped.txt'), OutsideSandboxError);
      expect(err.path).toBe('/escaped.txt');
      err = await refuses(() => s.move('/inside.txt', '/other/in.txt'), OutsideSandboxError);
      expect(err.path).toBe('/inside.txt');
    });
  });

  describe('mkdir', () => {
    test('creates every missing parent (-p); an existing directory is fine', async () => {
      await sandbox.mkdir('/a/b/c');
      expect(fs.statSync(path.join(root, 'a/b/c')).isDirectory()).toBe(true);
      await sandbox.mkdir('/a/b/c');
      await sandbox.mkdir('/a');
      await sandbox.mkdir('/dir');
      await sandbox.mkdir('/other/x/y');
      expect(fs.statSync(path.join(other, 'x/y')).isDirectory()).toBe(true);
      expect((await sandbox.stat('/a/b')).isDirectory).toBe(true);
    });

    test('a mount point and the root already exist', async () => {
      await sandbox.mkdir('/other');
      await sandbox.mkdir('/ro');
      await sandbox.mkdir('/');
      expect(fs.readdirSync(other)).toEqual(['o.txt']);
    });

    test('under a read-only mount it is refused and nothing is created', async () => {
      for (const p of ['/ro/new', '/ro/a/b/c']) {
        const err = await refuses(() => sandbox.mkdir(p), ReadOnlyError);
        expect(err.path).toBe(p);
      }
      await refuses(() => sandbox.restrict({ readonly: true }).mkdir('/fresh'), ReadOnlyError);
    });

    test('on a file, or below one, it is refused', async () => {
      let err = await refuses(() => sandbox.mkdir('/inside.txt'), SandboxError);
      expect(['ALREADY_EXISTS', 'NOT_DIRECTORY']).toContain(err.code);
      expect(err.path).toBe('/inside.txt');
      err = await refuses(() => sandbox.mkdir('/inside.txt/sub'), NotDirectoryError);
      expect(err.path).toBe('/inside.txt/sub');
    });

    test('attack: through a symlink to a directory outside, nothing is created there', async () => {
      fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'absdir'));
      fs.symlinkSync('../outside/dir', path.join(root, 'reldir'));
      for (const p of ['/absdir/sub', '/reldir/sub', '/absdir/a/b/c', '/reldir/a/b']) {
        const err = await refuses(() => sandbox.mkdir(p), SymlinkError);
        expect(err.path).toBe(p);
      }
      // The link itself names a directory outside: never "fine".
      for (const p of ['/absdir', '/reldir']) {
        const err = await refuses(() => sandbox.mkdir(p), SymlinkError);
        expect(err.path).toBe(p);
      }
    });

    test('attack: a dangling symlink is never followed to create a directory outside', async () => {
      fs.symlinkSync(path.join(outside, 'newdir'), path.join(root, 'trap'));
      fs.symlinkSync('../outside/newdir2', path.join(root, 'reltrap'));
      for (const p of ['/trap', '/trap/x', '/reltrap', '/reltrap/x/y']) {
        const err = await refuses(() => sandbox.mkdir(p), SymlinkError);
        expect(err.path).toBe(p);
      }
      expect(fs.lstatSync(path.join(root, 'trap')).isSymbolicLink()).toBe(true);
    });

    test('outside the mounts of a root-less sandbox it is refused', async () => {
      const s = createMountSandbox({ root: null, resolver, mounts: [{ source: other, target: '/other' }] });
      await refuses(() => s.mkdir('/newtop'), OutsideSandboxError);
      await s.mkdir('/other/sub');
      expect(fs.statSync(path.join(other, 'sub')).isDirectory()).toBe(true);
    });
  });

  describe('glob', () => {
    let all;

    beforeEach(() => {
      for (const f of [
        'a.ts', 'b.js', 'c.tsx', 'README.md', '.hidden.ts', '.config/x.ts',
        'src/main.ts', 'src/util.ts', 'src/lib/deep.ts', 'src/lib/deep.js',
        'src/a1.txt', 'src/a2.txt', 'src/b1.txt', 'src/ab.txt', 'src/.env.ts',
      ]) {
        write(path.join(root, f), f);
      }
      // Under the mount target in the root: the mount hides it.
      write(path.join(root, 'other', 'shadowed.ts'), 'shadowed by the mount');
      write(path.join(other, 'm1.ts'), 'm1');
      write(path.join(other, 'sub', 'm2.ts'), 'm2');
      write(path.join(ro, 'r.ts'), 'r');
      write(path.join(outside, 'dir', 'secret.ts'), SECRET);
      all = [
        '/a.ts', '/other/m1.ts', '/other/sub/m2.ts', '/ro/r.ts',
        '/src/lib/deep.ts', '/src/main.ts', '/src/util.ts',
      ];
    });

    afterEach(() => {
      fs.rmSync(path.join(outside, 'dir', 'secret.ts'));
    });

    test('"**/*.ts" finds every match, sorted, across mounts, skipping dot names', async () => {
      for (const pattern of ['/**/*.ts', '**/*.ts']) {
        const { paths, truncated } = await sandbox.glob(pattern);
        expect(paths).toEqual(all);
        expect(truncated).toBe(false);
      }
      const { paths } = await sandbox.glob('/**/*');
      expect(paths).toEqual([...paths].sort());
      expect(paths.some((p) => p.split('/').some((part) => part.startsWith('.')))).toBe(false);
      expect(paths).toContain('/src/lib');
    });

    test('a mount hides what lies under its target in the root', async () => {
      const { paths } = await sandbox.glob('/other/**/*.ts');
      expect(paths).toEqual(['/other/m1.ts', '/other/sub/m2.ts']);
      expect(paths).not.toContain('/other/shadowed.ts');
    });

    test('braces, classes and "?"', async () => {
      const g = async (pattern) => (await sandbox.glob(pattern)).paths;
      expect(await g('/src/*.{ts,txt}')).toEqual(
        ['/src/a1.txt', '/src/a2.txt', '/src/ab.txt', '/src/b1.txt', '/src/main.ts', '/src/util.ts'],
      );
      expect(await g('/{src/lib,other}/*.ts')).toEqual(['/other/m1.ts', '/src/lib/deep.ts']);
      expect(await g('/src/lib/deep.{js,ts}')).toEqual(['/src/lib/deep.js', '/src/lib/deep.ts']);
      expect(await g('/src/[ab]1.txt')).toEqual(['/src/a1.txt', '/src/b1.txt']);
      expect(await g('/src/a[0-9].txt')).toEqual(['/src/a1.txt', '/src/a2.txt']);
      expect(await g('/src/a[!1].txt')).toEqual(['/src/a2.txt', '/src/ab.txt']);
      expect(await g('/src/a?.txt')).toEqual(['/src/a1.txt', '/src/a2.txt', '/src/ab.txt']);
      expect(await g('/?.ts')).toEqual(['/a.ts']);
      expect(await g('/*.ts?')).toEqual(['/c.tsx']);
      expect(await g('/src/*.md')).toEqual([]);
    });

    test('dot names only match a pattern that spells the dot', async () => {
      const g = async (pattern) => (await sandbox.glob(pattern)).paths;
      expect(await g('/*.ts')).toEqual(['/a.ts']);
      expect(await g('/.*.ts')).toEqual(['/.hidden.ts']);
      expect(await g('/**/x.ts')).toEqual([]);
      expect(await g('/.config/*.ts')).toEqual(['/.config/x.ts']);
      expect(await g('/.*/*.ts')).toEqual(['/.config/x.ts']);
      expect(await g('/src/.env*')).toEqual(['/src/.env.ts']);
      expect(await g('/src/?env.ts')).toEqual([]);
      expect(await g('/src/[.]env.ts')).toEqual([]);
    });

    test('limit caps the result and says it was truncated', async () => {
      const every = (await sandbox.glob('/src/*.txt')).paths;
      expect(every).toEqual(['/src/a1.txt', '/src/a2.txt', '/src/ab.txt', '/src/b1.txt']);
      const capped = await sandbox.glob('/src/*.txt', { limit: 2 });
      expect(capped.truncated).toBe(true);
      expect(capped.paths).toHaveLength(2);
      expect(capped.paths).toEqual([...capped.paths].sort());
      for (const p of capped.paths) expect(every).toContain(p);
      const exact = await sandbox.glob('/src/*.txt', { limit: 4 });
      expect(exact).toEqual({ paths: every, truncated: false });
      const one = await sandbox.glob('/**/*.ts', { limit: 1 });
      expect(one.paths).toHaveLength(1);
      expect(one.truncated).toBe(true);
    });

    test('bad patterns and options are refused', async () => {
      for (const pattern of ['/src/[a', '/src/{a,b', '/../*', '/src/\\', '/a\0b']) {
        const err = await sandbox.glob(pattern).then(() => null, (e) => e);
        expect(err).toBeInstanceOf(SandboxError);
        expect(['INVALID_PATTERN', 'INVALID_PATH']).toContain(err.code);
        expectNoHostPath(err);
      }
      await expect(sandbox.glob('')).rejects.toThrow(TypeError);
      await expect(sandbox.glob('/*', { limit: 0 })).rejects.toThrow(RangeError);
      await expect(sandbox.glob('/*', { limit: 1.5 })).rejects.toThrow(RangeError);
      await expect(sandbox.glob('/*', { max: 3 })).rejects.toThrow(TypeError);
    });

    test('attack: files behind a symlinked directory that leads outside are never listed', async () => {
      fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'absdir'));
      fs.symlinkSync('../../outside/dir', path.join(root, 'src', 'reldir'));
      fs.symlinkSync('../../outside/dir', path.join(other, 'mountdir'));
      for (const pattern of ['/**/*.ts', '/**/secret.ts', '/**/*secret*', '/*/*.ts', '/src/*/*.ts', '/other/*/*']) {
        const { paths } = await sandbox.glob(pattern);
        expect(paths.filter((p) => p.includes('secret'))).toEqual([]);
      }
      // Naming the link as the directory to search is a refusal, not an empty answer.
      for (const pattern of ['/absdir/*.ts', '/src/reldir/*', '/other/mountdir/**/*']) {
        const err = await refuses(() => sandbox.glob(pattern), SymlinkError);
        expect(err.code).toBe('SYMLINK_ESCAPE');
      }
    });

    test('symlinks are reported by name but never descended into', async () => {
      fs.symlinkSync('src', path.join(root, 'alias'));
      const { paths } = await sandbox.glob('/**/*.ts');
      expect(paths).toEqual(all);
      expect((await sandbox.glob('/alias*')).paths).toEqual(['/alias']);
    });

    test('FIFOs are listed by name but never opened', async () => {
      const fifo = path.join(root, 'src', 'pipe.ts');
      execFileSync('mkfifo', [fifo]);
      // Something waiting in the pipe: an open-and-read would consume it.
      const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
      try {
        fs.writeSync(fd, 'still here');
        const { paths } = await settleWithin(sandbox.glob('/src/**/*.ts'), 5000, 'glob over a FIFO');
        expect(paths).toEqual(['/src/lib/deep.ts', '/src/main.ts', '/src/pipe.ts', '/src/util.ts']);
        const buf = Buffer.alloc(64);
        const n = fs.readSync(fd, buf, 0, 64, null);
        expect(buf.subarray(0, n).toString()).toBe('still here');
      } finally {
        fs.closeSync(fd);
        releaseFifo(fifo);
      }
    });

    test('a mount whose target has no directory in the root is still found', async () => {
      const s = createMountSandbox({ root, resolver, mounts: [{ source: other, target: '/not/on/disk' }] });
      expect(fs.existsSync(path.join(root, 'not'))).toBe(false);
      expect((await s.glob('/**/m[0-9].ts')).paths).toEqual(['/not/on/disk/m1.ts', '/not/on/disk/sub/m2.ts']);
      expect((await s.glob('/not/*')).paths).toEqual(['/not/on']);
    });

    test('a restricted view globs in its own virtual paths', async () => {
      const child = sandbox.restrict({ restrict: '/src' });
      expect((await child.glob('/**/*.ts')).paths).toEqual(['/lib/deep.ts', '/main.ts', '/util.ts']);
      const rootless = createMountSandbox({
        root: null,
        resolver,
        mounts: [{ source: other, target: '/zone' }, { source: ro, target: '/ref', readonly: true }],
      });
      expect((await rootless.glob('/**/*.ts')).paths).toEqual(['/ref/r.ts', '/zone/m1.ts', '/zone/sub/m2.ts']);
    });
  });
});
