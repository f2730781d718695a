'use strict';

// The golem-forge contract: every behaviour its MountSandbox users and tests rely on.
const fs = require('fs');
const os = require('os');
const path = require('path');
const {
  createMountSandbox,
  createMountSandboxAsync,
  createTestSandbox,
  SandboxError,
  NotFoundError,
  InvalidPathError,
  ReadOnlyError,
  PermissionEscalationError,
  SandboxConfigError,
  IsDirectoryError,
  isSandboxError,
} = require('../lib');
const { makeTempDir, removeDir, write } = require('./helpers');

let dir;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => removeDir(dir));

describe('createMountSandbox', () => {
  test('does not touch the disk: a missing root and mount source are fine until first use', () => {
    const root = path.join(dir, 'later');
    const sandbox = createMountSandbox({ root, mounts: [{ source: path.join(dir, 'cache'), target: '/cache' }] });
    expect(fs.existsSync(root)).toBe(false);
    expect(sandbox.getConfig().root).toBe(root);
  });

  test('a root missing at first use stays missing for that sandbox; a new one sees it', async () => {
    const root = path.join(dir, 'later');
    const sandbox = createMountSandbox({ root });
    await expect(sandbox.read('/a.txt')).rejects.toBeInstanceOf(NotFoundError);
    write(path.join(root, 'a.txt'), 'now');
    // Sources are settled together at the first operation (issue 9): nothing that appears
    // afterwards becomes a mount, so nothing the sandbox itself could plant is ever pinned.
    await expect(sandbox.read('/a.txt')).rejects.toBeInstanceOf(NotFoundError);
    await expect(createMountSandbox({ root }).read('/a.txt')).resolves.toBe('now');
  });

  test('a root created before the first operation is used', async () => {
    const root = path.join(dir, 'later');
    const sandbox = createMountSandbox({ root });
    write(path.join(root, 'a.txt'), 'now');
    await expect(sandbox.read('/a.txt')).resolves.toBe('now');
  });

  test('relative root and sources resolve against the process cwd', () => {
    const sandbox = createMountSandbox({ root: 'proj', mounts: [{ source: 'c', target: '/c' }] });
    expect(sandbox.getConfig().root).toBe(path.resolve('proj'));
    expect(sandbox.getConfig().mounts[0].source).toBe(path.resolve('c'));
  });

  test('getConfig returns absolute paths, trailing slash dropped, longest target first, copies', () => {
    const sandbox = createMountSandbox({
      root: dir,
      mounts: [
        { source: path.join(dir, 'c1'), target: '/cache/' },
        { source: path.join(dir, 'c2'), target: '/cache/npm', readonly: true },
      ],
    });
    const config = sandbox.getConfig();
    expect(config).toEqual({
      root: dir,
      readonly: false,
      mounts: [
        { source: path.join(dir, 'c2'), target: '/cache/npm', readonly: true },
        { source: path.join(dir, 'c1'), target: '/cache', readonly: false },
      ],
    });
    config.mounts[0].readonly = false;
    expect(sandbox.getConfig().mounts[0].readonly).toBe(true);
  });

  test.each([
    ['//data', /normalized/],
    ['/a/../b', /normalized/],
    ['/a/./b', /normalized/],
    ['data', /absolute/],
    ['/', /root/],
  ])('rejects mount target %s with a typed error', (target, message) => {
    const make = () => createMountSandbox({ root: dir, mounts: [{ source: dir, target }] });
    expect(make).toThrow(SandboxConfigError);
    expect(make).toThrow(message);
  });

  test('rejects duplicate targets, unknown keys and wrong types', () => {
    expect(() =>
      createMountSandbox({ root: dir, mounts: [{ source: dir, target: '/a' }, { source: dir, target: '/a/' }] }),
    ).toThrow(/mounted twice/);
    expect(() => createMountSandbox({ root: dir, readOnly: true })).toThrow(/unknown key readOnly/);
    expect(() => createMountSandbox({ root: dir, mounts: [{ source: dir, target: '/a', ro: true }] })).toThrow(
      /unknown key mounts\[0\]\.ro/,
    );
    expect(() => createMountSandbox({ root: '' })).toThrow(/root must be a non-empty string/);
    expect(() => createMountSandbox({ root: dir, readonly: 'yes' })).toThrow(/readonly must be a boolean/);
    expect(() => createMountSandbox(null)).toThrow(SandboxConfigError);
  });

  test('createMountSandboxAsync creates the root and mount sources', async () => {
    const root = path.join(dir, 'r', 'deep');
    const source = path.join(dir, 'm', 'src');
    const sandbox = await createMountSandboxAsync({ root, mounts: [{ source, target: '/m' }] });
    expect(fs.statSync(root).isDirectory()).toBe(true);
    expect(fs.statSync(source).isDirectory()).toBe(true);
    await sandbox.write('/m/x.txt', 'x');
    expect(fs.readFileSync(path.join(source, 'x.txt'), 'utf8')).toBe('x');
  });

  test('createTestSandbox gives a fresh writable directory under the OS temp dir', async () => {
    const a = await createTestSandbox();
    const b = await createTestSandbox();
    expect(a.getConfig().root).not.toBe(b.getConfig().root);
    expect(a.getConfig().root.startsWith(os.tmpdir())).toBe(true);
    await a.write('/workspace/test.txt', 'hi');
    expect(await a.read('/workspace/test.txt')).toBe('hi');
    expect(await b.exists('/workspace/test.txt')).toBe(false);
  });
});

describe('file operations', () => {
  let sandbox;
  beforeEach(() => {
    sandbox = createMountSandbox({ root: dir });
  });

  test('write creates parents, read returns UTF-8, readBinary a Uint8Array', async () => {
    await sandbox.write('/a/b/c.txt', 'héllo');
    expect(fs.readFileSync(path.join(dir, 'a/b/c.txt'), 'utf8')).toBe('héllo');
    expect(await sandbox.read('/a/b/c.txt')).toBe('héllo');
    const bytes = await sandbox.readBinary('/a/b/c.txt');
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytes).toString('utf8')).toBe('héllo');
  });

  test('writeBinary round-trips every byte value', async () => {
    const data = new Uint8Array(256).map((_, i) => i);
    await sandbox.writeBinary('/bin.dat', data);
    expect(new Uint8Array(fs.readFileSync(path.join(dir, 'bin.dat')))).toEqual(data);
    expect(await sandbox.readBinary('/bin.dat')).toEqual(data);
  });

  test('writeBinary accepts a Buffer and a subarray view', async () => {
    const buf = Buffer.from('0123456789');
    await sandbox.writeBinary('/v.dat', buf.subarray(2, 5));
    expect(fs.readFileSync(path.join(dir, 'v.dat'), 'utf8')).toBe('234');
  });

  test('write replaces existing content', async () => {
    write(path.join(dir, 'f.txt'), 'a much longer old content');
    await sandbox.write('/f.txt', 'new');
    expect(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8')).toBe('new');
  });

  test('delete removes a file; missing file is NOT_FOUND', async () => {
    write(path.join(dir, 'f.txt'), 'x');
    await sandbox.delete('/f.txt');
    expect(fs.existsSync(path.join(dir, 'f.txt'))).toBe(false);
    const err = await sandbox.delete('/f.txt').catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe('File or directory not found: /f.txt');
  });

  test('delete refuses a directory with a typed error', async () => {
    fs.mkdirSync(path.join(dir, 'd'));
    await expect(sandbox.delete('/d')).rejects.toBeInstanceOf(IsDirectoryError);
    expect(fs.existsSync(path.join(dir, 'd'))).toBe(true);
  });

  test('exists: true for files and directories and "/", false only for missing', async () => {
    write(path.join(dir, 'd/f.txt'));
    expect(await sandbox.exists('/d/f.txt')).toBe(true);
    expect(await sandbox.exists('/d')).toBe(true);
    expect(await sandbox.exists('/')).toBe(true);
    expect(await sandbox.exists('/nope')).toBe(false);
    expect(await sandbox.exists('/d/f.txt/below')).toBe(false);
    await expect(sandbox.exists('relative.txt')).rejects.toThrow('absolute');
    await expect(sandbox.exists('/../escape')).rejects.toThrow('escape');
  });

  test('list returns sorted names including directories and dotfiles', async () => {
    for (const name of ['c.txt', 'a.txt', 'b.txt', '.hidden']) write(path.join(dir, 'dir', name));
    fs.mkdirSync(path.join(dir, 'dir', 'sub'));
    expect(await sandbox.list('/dir')).toEqual(['.hidden', 'a.txt', 'b.txt', 'c.txt', 'sub']);
    await expect(sandbox.list('/missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('stat returns the virtual path as given, size, dates and isDirectory', async () => {
    write(path.join(dir, 'file.txt'), 'hello');
    const before = Date.now();
    const st = await sandbox.stat('/file.txt');
    expect(st.path).toBe('/file.txt');
    expect(st.size).toBe(5);
    expect(st.isDirectory).toBe(false);
    expect(st.modifiedAt).toBeInstanceOf(Date);
    expect(st.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(st.modifiedAt.getTime() - fs.statSync(path.join(dir, 'file.txt')).mtimeMs)).toBeLessThan(1);
    expect(st.modifiedAt.getTime()).toBeLessThanOrEqual(before + 1);
    expect((await sandbox.stat('/')).isDirectory).toBe(true);
    expect((await sandbox.stat('/x/../file.txt')).path).toBe('/x/../file.txt');
  });

  test('paths are normalized lexically: //a/./b/../c', async () => {
    write(path.join(dir, 'a/c'), 'C');
    expect(await sandbox.read('//a/./b/../c')).toBe('C');
  });

  test('relative paths and escapes are refused with InvalidPathError', async () => {
    for (const p of ['foo.txt', './foo.txt', '']) {
      const err = await sandbox.read(p).catch((e) => e);
      expect(err).toBeInstanceOf(InvalidPathError);
      expect(err.message).toContain('absolute');
    }
    for (const p of ['/../etc/passwd', '/../../etc/passwd', '/a/../../x']) {
      const err = await sandbox.read(p).catch((e) => e);
      expect(err).toBeInstanceOf(InvalidPathError);
      expect(err.message).toContain('escape');
      expect(err.code).toBe('INVALID_PATH');
    }
  });

  test('non-string arguments are TypeErrors, reported as rejections', async () => {
    await expect(sandbox.read(42)).rejects.toThrow(TypeError);
    await expect(sandbox.write('/x', 42)).rejects.toThrow(/expected a string for content/);
    await expect(sandbox.writeBinary('/x', 'str')).rejects.toThrow(TypeError);
    expect(() => sandbox.resolve(undefined)).toThrow(TypeError);
    expect(fs.existsSync(path.join(dir, 'x'))).toBe(false);
  });
});

describe('resolve, isValidPath, canWrite', () => {
  test('resolve maps lexically to host paths, mounts longest-first', () => {
    const cache = path.join(dir, 'cache');
    const sandbox = createMountSandbox({
      root: dir,
      mounts: [
        { source: cache, target: '/cache' },
        { source: path.join(dir, 'npm'), target: '/cache/npm' },
      ],
    });
    expect(sandbox.resolve('/')).toBe(dir);
    expect(sandbox.resolve('/foo.txt')).toBe(path.join(dir, 'foo.txt'));
    expect(sandbox.resolve('/cache')).toBe(cache);
    expect(sandbox.resolve('/cache/pkg.tar')).toBe(path.join(cache, 'pkg.tar'));
    expect(sandbox.resolve('/cache/npm/x')).toBe(path.join(dir, 'npm', 'x'));
    expect(sandbox.resolve('/cachex')).toBe(path.join(dir, 'cachex'));
    expect(() => sandbox.resolve('/../etc/passwd')).toThrow('escape');
    expect(() => sandbox.resolve('foo.txt')).toThrow('absolute');
  });

  test('the facade\'s lexical resolve agrees with the core on random paths', () => {
    const sandbox = createMountSandbox({
      root: dir,
      mounts: [
        { source: path.join(dir, 'c'), target: '/cache' },
        { source: path.join(dir, 'n'), target: '/cache/npm' },
        { source: '/', target: '/host', readonly: true },
      ],
    });
    const pieces = ['cache', 'npm', 'host', 'a', 'b.txt', '.', '..', '', 'x'.repeat(90), 'é'];
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      const parts = Array.from({ length: 1 + (next() % 5) }, () => pieces[next() % pieces.length]);
      const p = `/${parts.join('/')}`;
      // A trailing "/." is never in normal form, so this one is always answered by the core.
      let viaFacade;
      let viaCore;
      try {
        viaFacade = sandbox.resolve(p);
      } catch (e) {
        viaFacade = e.message;
      }
      try {
        viaCore = sandbox.resolve(`${p}/.`);
      } catch (e) {
        viaCore = e.message;
      }
      expect([p, viaFacade]).toEqual([p, viaCore]);
    }
  });

  test('isValidPath', () => {
    const sandbox = createMountSandbox({ root: dir });
    for (const p of ['/', '/file.txt', '/dir/file.txt', '/a/../b']) expect(sandbox.isValidPath(p)).toBe(true);
    for (const p of ['relative.txt', '/../escape', '', '/a\0b', '/\uD800x', 7]) {
      expect(sandbox.isValidPath(p)).toBe(false);
    }
  });

  test('canWrite follows root and mount flags', () => {
    const sandbox = createMountSandbox({
      root: dir,
      mounts: [{ source: path.join(dir, 'ro'), target: '/ro', readonly: true }],
    });
    expect(sandbox.canWrite('/x.txt')).toBe(true);
    expect(sandbox.canWrite('/ro/x.txt')).toBe(false);
    expect(sandbox.canWrite('/ro')).toBe(false);
    expect(sandbox.canWrite('relative')).toBe(false);
    expect(createMountSandbox({ root: dir, readonly: true }).canWrite('/x.txt')).toBe(false);
  });
});

describe('read-only', () => {
  test('write, writeBinary and delete on a read-only sandbox fail with ReadOnlyError', async () => {
    write(path.join(dir, 'f.txt'), 'keep');
    const sandbox = createMountSandbox({ root: dir, readonly: true });
    expect(await sandbox.read('/f.txt')).toBe('keep');
    for (const attempt of [
      () => sandbox.write('/f.txt', 'x'),
      () => sandbox.writeBinary('/f.txt', new Uint8Array([1])),
      () => sandbox.delete('/f.txt'),
      () => sandbox.write('/new.txt', 'x'),
    ]) {
      const err = await attempt().catch((e) => e);
      expect(err).toBeInstanceOf(ReadOnlyError);
      expect(err.code).toBe('READ_ONLY');
      expect(err.message).toContain('read-only');
    }
    expect(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8')).toBe('keep');
    expect(fs.existsSync(path.join(dir, 'new.txt'))).toBe(false);
  });

  test('a read-only mount refuses writes and tells the model where it can write', async () => {
    const sandbox = createMountSandbox({
      root: dir,
      mounts: [
        { source: path.join(dir, 'ro'), target: '/cache', readonly: true },
        { source: path.join(dir, 'out'), target: '/out' },
      ],
    });
    const err = await sandbox.write('/cache/x', 'x').catch((e) => e);
    expect(err).toBeInstanceOf(ReadOnlyError);
    expect(err.message).toBe('Cannot write to read-only path: /cache/x');
    expect(err.toLLMMessage()).toBe('Cannot write to /cache/x: this location is read-only. Writable locations: /, /out.');
    expect(err.writablePaths).toEqual(['/', '/out']);
  });

  test('a delete refused as read-only says delete; the write texts stay golem-forge\'s', async () => {
    write(path.join(dir, 'ro', 'f.txt'), 'keep');
    const sandbox = createMountSandbox({
      root: dir,
      mounts: [{ source: path.join(dir, 'ro'), target: '/cache', readonly: true }],
    });
    const checked = sandbox.checkChange('/cache/f.txt', 'delete');
    const deleted = await sandbox.delete('/cache/f.txt').catch((e) => e);
    for (const err of [checked, deleted]) {
      expect(err).toBeInstanceOf(ReadOnlyError);
      expect(err.code).toBe('READ_ONLY');
      expect(err.operation).toBe('delete');
      expect(err.message).toBe('Cannot delete read-only path: /cache/f.txt');
      expect(err.toLLMMessage()).toBe('Cannot delete /cache/f.txt: this location is read-only. Writable locations: /.');
    }
    expect(fs.readFileSync(path.join(dir, 'ro', 'f.txt'), 'utf8')).toBe('keep');
    const written = sandbox.checkChange('/cache/f.txt', 'write');
    expect(written.message).toBe('Cannot write to read-only path: /cache/f.txt');
    expect(written.toLLMMessage()).toBe('Cannot write to /cache/f.txt: this location is read-only. Writable locations: /.');
    expect(written.operation).toBeUndefined();
    const byHand = new ReadOnlyError('/r', ['/out'], 'delete');
    expect([byHand.message, byHand.toLLMMessage()])
      .toEqual(['Cannot delete read-only path: /r', 'Cannot delete /r: this location is read-only. Writable locations: /out.']);
  });
});

describe('restrict', () => {
  let sandbox;
  beforeEach(() => {
    write(path.join(dir, 'src/app.ts'), 'app');
    write(path.join(dir, 'secrets/key.txt'), 'secret');
    write(path.join(dir, 'vendor-src/lib.js'), 'lib');
    write(path.join(dir, 'cache-src/pkg.tar'), 'pkg');
    sandbox = createMountSandbox({
      root: dir,
      mounts: [
        { source: path.join(dir, 'vendor-src'), target: '/src/vendor' },
        { source: path.join(dir, 'cache-src'), target: '/cache', readonly: true },
      ],
    });
  });

  test('the child sees the subtree as "/" and nothing above it', async () => {
    const child = sandbox.restrict({ restrict: '/src' });
    expect(await child.read('/app.ts')).toBe('app');
    expect(child.getConfig().root).toBe(path.join(dir, 'src'));
    await expect(child.read('/../secrets/key.txt')).rejects.toThrow('escape');
    expect(() => child.resolve('/../secrets/key.txt')).toThrow();
    await expect(child.exists('/secrets/key.txt')).resolves.toBe(false);
  });

  test('mounts under the subtree move with it; others are dropped', async () => {
    const child = sandbox.restrict({ restrict: '/src' });
    expect(child.getConfig().mounts).toEqual([
      { source: path.join(dir, 'vendor-src'), target: '/vendor', readonly: false },
    ]);
    expect(await child.read('/vendor/lib.js')).toBe('lib');
  });

  test('restricting exactly onto a mount makes its source the root and inherits read-only', async () => {
    const child = sandbox.restrict({ restrict: '/cache' });
    expect(child.getConfig()).toEqual({ root: path.join(dir, 'cache-src'), readonly: true, mounts: [] });
    expect(await child.read('/pkg.tar')).toBe('pkg');
    await expect(child.write('/x', 'x')).rejects.toThrow('read-only');
  });

  test('readonly: true makes the child and all its mounts read-only; the parent is unchanged', async () => {
    const child = sandbox.restrict({ readonly: true });
    expect(child.getConfig().readonly).toBe(true);
    expect(child.getConfig().mounts.every((m) => m.readonly)).toBe(true);
    await expect(child.write('/src/vendor/x', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
    expect(sandbox.getConfig().readonly).toBe(false);
    expect(sandbox.getConfig().mounts.find((m) => m.target === '/src/vendor').readonly).toBe(false);
    await sandbox.write('/src/vendor/x', 'x');
    expect(fs.readFileSync(path.join(dir, 'vendor-src/x'), 'utf8')).toBe('x');
  });

  test('readonly: false on a read-only parent throws PermissionEscalationError', () => {
    const ro = sandbox.restrict({ readonly: true });
    const attempt = () => ro.restrict({ restrict: '/src', readonly: false });
    expect(attempt).toThrow(PermissionEscalationError);
    expect(attempt).toThrow('Cannot upgrade read-only');
    try {
      attempt();
    } catch (e) {
      expect(e.code).toBe('PERMISSION_ESCALATION');
    }
  });

  test('readonly: false onto a read-only mount is also an escalation', () => {
    expect(() => sandbox.restrict({ restrict: '/cache', readonly: false })).toThrow(PermissionEscalationError);
  });

  test('restrict({}) and restrict({ restrict: "/" }) keep everything, including read-only mounts', async () => {
    for (const child of [sandbox.restrict({}), sandbox.restrict({ restrict: '/' })]) {
      expect(child.getConfig()).toEqual(sandbox.getConfig());
      await expect(child.write('/cache/x', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
    }
  });

  test('bad restrictions are refused synchronously', () => {
    expect(() => sandbox.restrict({ restrict: 'src' })).toThrow('absolute');
    expect(() => sandbox.restrict({ restrict: '/../x' })).toThrow('escape');
    expect(() => sandbox.restrict({ readonly: 'yes' })).toThrow(TypeError);
    expect(() => sandbox.restrict({ path: '/src' })).toThrow(/unknown key/);
  });

  test('chains only narrow', async () => {
    const child = sandbox.restrict({ restrict: '/src' }).restrict({ restrict: '/vendor', readonly: true });
    expect(await child.read('/lib.js')).toBe('lib');
    await expect(child.write('/lib.js', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
    expect(child.getConfig().root).toBe(path.join(dir, 'vendor-src'));
  });
});

describe('discoverable tree', () => {
  test('list shows mount targets even when the root has no such directory', async () => {
    write(path.join(dir, 'root/readme.md'));
    fs.mkdirSync(path.join(dir, 'c'));
    fs.mkdirSync(path.join(dir, 'n'));
    const sandbox = createMountSandbox({
      root: path.join(dir, 'root'),
      mounts: [
        { source: path.join(dir, 'c'), target: '/cache' },
        { source: path.join(dir, 'n'), target: '/deep/nested/npm' },
      ],
    });
    expect(await sandbox.list('/')).toEqual(['cache', 'deep', 'readme.md']);
    expect(await sandbox.list('/deep')).toEqual(['nested']);
    expect(await sandbox.list('/deep/nested')).toEqual(['npm']);
    expect(await sandbox.exists('/deep/nested')).toBe(true);
    expect((await sandbox.stat('/deep')).isDirectory).toBe(true);
    await expect(sandbox.read('/deep')).rejects.toBeInstanceOf(IsDirectoryError);
  });

  test('a mount target is merged with a real directory of the same name, without duplicates', async () => {
    write(path.join(dir, 'root/cache/shadowed.txt'));
    fs.mkdirSync(path.join(dir, 'c'));
    const sandbox = createMountSandbox({
      root: path.join(dir, 'root'),
      mounts: [{ source: path.join(dir, 'c'), target: '/cache' }],
    });
    expect(await sandbox.list('/')).toEqual(['cache']);
    expect(await sandbox.list('/cache')).toEqual([]);
  });
});

describe('error classes (golem-forge table)', () => {
  test('constructors, codes, names, messages and toLLMMessage', () => {
    const base = new SandboxError('CUSTOM', 'msg');
    expect(base).toBeInstanceOf(Error);
    expect(base.name).toBe('SandboxError');
    expect(base.path).toBeUndefined();
    expect(base.toLLMMessage()).toBe('msg');
    expect(new SandboxError('C', 'm', '/p').path).toBe('/p');

    const nf = new NotFoundError('/a.txt');
    expect([nf.code, nf.name, nf.message]).toEqual(['NOT_FOUND', 'NotFoundError', 'File or directory not found: /a.txt']);
    expect(nf.toLLMMessage()).toBe('File not found: /a.txt. Please check the path and try again.');

    const ip = new InvalidPathError('bad', '/x');
    expect([ip.code, ip.name, ip.message]).toEqual(['INVALID_PATH', 'InvalidPathError', 'bad']);
    expect(ip.toLLMMessage()).toBe('Invalid path "/x": bad');
    expect(new InvalidPathError('bad').toLLMMessage()).toBe('Invalid path: bad');
    expect(new InvalidPathError('bad').path).toBeUndefined();

    const ro = new ReadOnlyError('/r');
    expect([ro.code, ro.name, ro.message]).toEqual(['READ_ONLY', 'ReadOnlyError', 'Cannot write to read-only path: /r']);
    expect(ro.toLLMMessage()).toBe('Cannot write to /r: this location is read-only.');

    const pe = new PermissionEscalationError('nope', '/p');
    expect([pe.code, pe.name, pe.message, pe.path]).toEqual(['PERMISSION_ESCALATION', 'PermissionEscalationError', 'nope', '/p']);
    expect(pe.toLLMMessage()).toBe('Permission denied: nope');
    expect(new PermissionEscalationError('nope').path).toBeUndefined();

    for (const e of [base, nf, ip, ro, pe]) {
      expect(e).toBeInstanceOf(Error);
      expect(e).toBeInstanceOf(SandboxError);
      expect(isSandboxError(e)).toBe(true);
    }
    expect(isSandboxError({ code: 'FAKE', message: 'x' })).toBe(false);
    expect(isSandboxError(new Error('plain'))).toBe(false);
    expect(isSandboxError(null)).toBe(false);
  });

  test('errors from the addon are instances of these classes in this (Jest) realm', async () => {
    const sandbox = createMountSandbox({ root: dir });
    const err = await sandbox.read('/missing').catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(NotFoundError);
    await expect(sandbox.read('/missing')).rejects.toThrow(Error);
    expect(() => sandbox.resolve('x')).toThrow(InvalidPathError);
  });
});
