'use strict';

// Per-mount policies on real files: suffix rules, size limits, byte ranges, approvals, and the
// root-less (zones only) table. Every refusal is checked three ways: the typed error, that
// nothing on disk changed (the whole temp tree, contents included), and that no message names a
// host path.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  createMountSandbox,
  SandboxError,
  SandboxConfigError,
  SuffixNotAllowedError,
  FileTooLargeError,
  OperationBlockedError,
  OutsideSandboxError,
  ReadOnlyError,
  IsDirectoryError,
  NotRegularFileError,
  SymlinkError,
  MountPointError,
  InvalidPathError,
} = require('../lib');
const {
  RESOLVERS, makeTempDir, removeDir, snapshotTree, settleWithin, releaseFifo, write, expectNoPathUnder,
  expectRefusal,
} = require('./helpers');

const SECRET = 'TOP-SECRET-CONTENT';

describe.each(RESOLVERS)('policies with the %s resolver', (resolver) => {
  let base;
  let root;

  beforeEach(() => {
    base = makeTempDir('msb-policy-');
    root = path.join(base, 'root');
    fs.mkdirSync(root);
  });

  afterEach(() => {
    removeDir(base);
  });

  const expectNoHostPath = (err) => expectNoPathUnder(err, base);

  // Runs `fn`, expects it to fail with ErrorClass, and checks that nothing under the temp dir
  // changed and that the error names no host path.
  const refuses = (fn, ErrorClass) => expectRefusal(base, fn, ErrorClass);

  const hostFile = (...parts) => fs.readFileSync(path.join(base, ...parts), 'utf8');

  describe('suffix rules', () => {
    let docs;
    let sandbox;

    beforeEach(() => {
      docs = path.join(base, 'docs');
      write(path.join(root, 'notes.md'), 'root notes');
      write(path.join(root, 'plain.txt'), 'plain');
      write(path.join(root, '.env'), 'API_KEY=hunter2');
      write(path.join(root, 'config.env'), 'X=1');
      write(path.join(root, 'prod.key'), 'private key');
      write(path.join(root, 'PROD2.KEY'), 'private key 2');
      write(path.join(root, 'env.txt'), 'not an env file');
      write(path.join(docs, 'a.md'), '# a');
      write(path.join(docs, 'B.MD'), '# b');
      write(path.join(docs, 'bundle.Tar.GZ'), 'tgz');
      write(path.join(docs, 'single.gz'), 'gz');
      write(path.join(docs, 'c.txt'), 'c');
      write(path.join(docs, 'x.amd'), 'not markdown');
      write(path.join(docs, 'notes.md.sh'), 'echo pwned');
      write(path.join(docs, 'README'), 'no suffix');
      sandbox = createMountSandbox({
        root,
        resolver,
        deniedSuffixes: ['.env', '.KEY'],
        mounts: [{ source: docs, target: '/docs', allowedSuffixes: ['.md', '.TAR.GZ'] }],
      });
    });

    test('an allow list admits its suffixes whatever their case, ".tar.gz" included', async () => {
      expect(await sandbox.read('/docs/a.md')).toBe('# a');
      expect(await sandbox.read('/docs/B.MD')).toBe('# b');
      expect(await sandbox.read('/docs/bundle.Tar.GZ')).toBe('tgz');
      expect(Buffer.from(await sandbox.readBinary('/docs/a.md')).toString()).toBe('# a');
      await sandbox.write('/docs/new.Md', 'new');
      await sandbox.write('/docs/pack.tar.gz', 'packed');
      expect(hostFile('docs', 'new.Md')).toBe('new');
      expect(hostFile('docs', 'pack.tar.gz')).toBe('packed');
    });

    test('a name outside the allow list cannot be read, and the message lists what is allowed', async () => {
      for (const p of ['/docs/single.gz', '/docs/c.txt', '/docs/x.amd', '/docs/notes.md.sh', '/docs/README']) {
        for (const read of [() => sandbox.read(p), () => sandbox.readBinary(p)]) {
          const err = await refuses(read, SuffixNotAllowedError);
          expect(err.code).toBe('SUFFIX_NOT_ALLOWED');
          expect(err.path).toBe(p);
          expect(err.allowedSuffixes).toEqual(['.md', '.tar.gz']);
          expect(err.toLLMMessage()).toContain(p);
          expect(err.toLLMMessage()).toContain('Allowed suffixes: .md, .tar.gz');
        }
      }
    });

    test('a name outside the allow list cannot be written: nothing is created or changed', async () => {
      await refuses(() => sandbox.write('/docs/c.txt', 'overwritten'), SuffixNotAllowedError);
      await refuses(() => sandbox.write('/docs/evil.sh', 'rm -rf /'), SuffixNotAllowedError);
      await refuses(() => sandbox.write('/docs/sub/dir/evil.gz', 'x'), SuffixNotAllowedError);
      await refuses(() => sandbox.writeBinary('/docs/blob.bin', new Uint8Array([1, 2])), SuffixNotAllowedError);
      await refuses(() => sandbox.edit('/docs/c.txt', 'c', 'changed'), SuffixNotAllowedError);
      expect(fs.existsSync(path.join(docs, 'sub'))).toBe(false);
    });

    test('a deny list refuses its suffixes whatever their case, and says which are denied', async () => {
      for (const p of ['/.env', '/config.env', '/prod.key', '/PROD2.KEY', '/CONFIG.ENV']) {
        const err = await refuses(() => sandbox.read(p), SuffixNotAllowedError);
        expect(err.path).toBe(p);
        expect(err.allowedSuffixes).toBeNull();
        expect(err.deniedSuffixes).toEqual(['.env', '.key']);
        expect(err.toLLMMessage()).toContain('Denied suffixes: .env, .key');
      }
      await refuses(() => sandbox.write('/.env', 'API_KEY=stolen'), SuffixNotAllowedError);
      await refuses(() => sandbox.write('/new.Env', 'x'), SuffixNotAllowedError);
      await refuses(() => sandbox.write('/keys/id.KEY', 'x'), SuffixNotAllowedError);
      expect(await sandbox.read('/env.txt')).toBe('not an env file');
      expect(await sandbox.read('/notes.md')).toBe('root notes');
    });

    test('a denied file cannot be laundered through copy, move or a range read', async () => {
      let err = await refuses(() => sandbox.copy('/.env', '/env-copy.txt'), SuffixNotAllowedError);
      expect(err.path).toBe('/.env');
      err = await refuses(() => sandbox.move('/prod.key', '/prod.txt'), SuffixNotAllowedError);
      expect(err.path).toBe('/prod.key');
      err = await refuses(() => sandbox.copy('/plain.txt', '/plain.env'), SuffixNotAllowedError);
      expect(err.path).toBe('/plain.env');
      err = await refuses(() => sandbox.move('/plain.txt', '/docs/plain.txt'), SuffixNotAllowedError);
      expect(err.path).toBe('/docs/plain.txt');
      await refuses(() => sandbox.read('/.env', { offset: 0, length: 3 }), SuffixNotAllowedError);
      await refuses(() => sandbox.readBinary('/docs/c.txt', { offset: 0, length: 1 }), SuffixNotAllowedError);
    });

    test('suffix lists are validated when the sandbox is created', () => {
      for (const bad of [['md'], [''], ['.'], ['./x'], [7]]) {
        expect(() => createMountSandbox({ root, resolver, allowedSuffixes: bad })).toThrow(SandboxConfigError);
        expect(() =>
          createMountSandbox({ root, resolver, mounts: [{ source: docs, target: '/d', deniedSuffixes: bad }] }),
        ).toThrow(SandboxConfigError);
      }
    });

    test('the rules follow the mount, not the name: the same file is readable through the root', async () => {
      // docs/ is not inside root here; mount it twice, once without rules.
      const s = createMountSandbox({
        root,
        resolver,
        mounts: [
          { source: docs, target: '/strict', allowedSuffixes: ['.md'] },
          { source: docs, target: '/loose' },
        ],
      });
      await refuses(() => s.read('/strict/c.txt'), SuffixNotAllowedError);
      expect(await s.read('/loose/c.txt')).toBe('c');
      expect(s.describe().mounts.find((m) => m.target === '/strict').policy.allowedSuffixes).toEqual(['.md']);
    });
  });

  describe('maxFileBytes', () => {
    let small;
    let sandbox;

    beforeEach(() => {
      small = path.join(base, 'small');
      write(path.join(small, 'ten.txt'), '0123456789');
      write(path.join(small, 'eleven.txt'), '0123456789A');
      write(path.join(root, 'eleven.txt'), 'ABCDEFGHIJK');
      sandbox = createMountSandbox({
        root,
        resolver,
        mounts: [{ source: small, target: '/small', maxFileBytes: 10 }],
      });
    });

    test('a file at the limit is read; one byte more is refused with its size and the limit', async () => {
      expect(await sandbox.read('/small/ten.txt')).toBe('0123456789');
      for (const read of [() => sandbox.read('/small/eleven.txt'), () => sandbox.readBinary('/small/eleven.txt')]) {
        const err = await refuses(read, FileTooLargeError);
        expect(err.code).toBe('TOO_LARGE');
        expect(err.path).toBe('/small/eleven.txt');
        expect([err.size, err.limit]).toEqual([11, 10]);
        expect(err.toLLMMessage()).toContain('11 bytes');
        expect(err.toLLMMessage()).toContain('10 bytes');
      }
      // The limit is the mount's: the root has none.
      expect(await sandbox.read('/eleven.txt')).toBe('ABCDEFGHIJK');
    });

    test('the policy limit applies to the whole file even when only a range is asked for', async () => {
      const err = await refuses(() => sandbox.read('/small/eleven.txt', { offset: 0, length: 2 }), FileTooLargeError);
      expect([err.size, err.limit]).toEqual([11, 10]);
    });

    test('a write that would produce a bigger file is refused and nothing is written', async () => {
      let err = await refuses(() => sandbox.write('/small/new.txt', 'x'.repeat(11)), FileTooLargeError);
      expect([err.size, err.limit]).toEqual([11, 10]);
      expect(err.path).toBe('/small/new.txt');
      await refuses(() => sandbox.write('/small/ten.txt', 'x'.repeat(11)), FileTooLargeError);
      await refuses(() => sandbox.writeBinary('/small/new.bin', new Uint8Array(11)), FileTooLargeError);
      await refuses(() => sandbox.write('/small/deep/dir/new.txt', 'x'.repeat(100)), FileTooLargeError);
      // Bytes, not characters: six "é" are twelve bytes.
      err = await refuses(() => sandbox.write('/small/accents.txt', 'é'.repeat(6)), FileTooLargeError);
      expect(err.size).toBe(12);
      // Growing a file past the limit by editing it.
      err = await refuses(() => sandbox.edit('/small/ten.txt', '9', '9X'), FileTooLargeError);
      expect(err.size).toBe(11);
      // Bringing a big file in from elsewhere.
      err = await refuses(() => sandbox.copy('/eleven.txt', '/small/copied.txt'), FileTooLargeError);
      expect(err.path).toBe('/small/copied.txt');
      await refuses(() => sandbox.move('/eleven.txt', '/small/moved.txt'), FileTooLargeError);
      expect(fs.existsSync(path.join(small, 'deep'))).toBe(false);
    });

    test('a write at the limit is fine', async () => {
      await sandbox.write('/small/new.txt', 'y'.repeat(10));
      expect(hostFile('small', 'new.txt')).toBe('y'.repeat(10));
      await sandbox.write('/small/accents.txt', 'é'.repeat(5));
      expect(hostFile('small', 'accents.txt')).toBe('é'.repeat(5));
    });

    test('the smaller of maxReadBytes and maxFileBytes wins', async () => {
      const s = createMountSandbox({
        root,
        resolver,
        maxReadBytes: 5,
        mounts: [{ source: small, target: '/small', maxFileBytes: 10 }],
      });
      const err = await refuses(() => s.read('/small/ten.txt'), FileTooLargeError);
      expect([err.size, err.limit]).toEqual([10, 5]);
    });

    test('a bad limit is a config error', () => {
      for (const bad of [-1, 1.5, '10', Number.MAX_VALUE]) {
        expect(() =>
          createMountSandbox({ root, resolver, mounts: [{ source: small, target: '/s', maxFileBytes: bad }] }),
        ).toThrow(SandboxConfigError);
      }
    });
  });

  describe('byte ranges', () => {
    let sandbox;

    beforeEach(() => {
      write(path.join(root, 'digits.txt'), '0123456789');
      write(path.join(root, 'bin.dat'), Buffer.from([0, 1, 2, 255, 254, 253]));
      write(path.join(root, 'accent.txt'), 'é');
      write(path.join(root, 'hundred.txt'), 'x'.repeat(90) + 'abcdefghij');
      fs.mkdirSync(path.join(root, 'dir'));
      sandbox = createMountSandbox({ root, resolver });
    });

    test('a range in the middle, at the end, past the end, and of length 0', async () => {
      expect(await sandbox.read('/digits.txt', { offset: 2, length: 3 })).toBe('234');
      expect(await sandbox.read('/digits.txt', { offset: 0, length: 1 })).toBe('0');
      expect(await sandbox.read('/digits.txt', { offset: 8, length: 10 })).toBe('89');
      expect(await sandbox.read('/digits.txt', { offset: 10, length: 5 })).toBe('');
      expect(await sandbox.read('/digits.txt', { offset: 1000, length: 5 })).toBe('');
      expect(await sandbox.read('/digits.txt', { offset: 4, length: 0 })).toBe('');
      expect(await sandbox.read('/digits.txt', { offset: 7 })).toBe('789');
      expect(await sandbox.read('/digits.txt', { length: 4 })).toBe('0123');
      expect(await sandbox.read('/digits.txt', {})).toBe('0123456789');
    });

    test('binary ranges return exactly those bytes', async () => {
      const part = await sandbox.readBinary('/bin.dat', { offset: 2, length: 3 });
      expect(part).toBeInstanceOf(Uint8Array);
      expect([...part]).toEqual([2, 255, 254]);
      expect([...(await sandbox.readBinary('/bin.dat', { offset: 5, length: 100 }))]).toEqual([253]);
      expect((await sandbox.readBinary('/bin.dat', { offset: 6, length: 1 })).length).toBe(0);
      expect((await sandbox.readBinary('/bin.dat', { offset: 1, length: 0 })).length).toBe(0);
    });

    test('a range that splits a UTF-8 sequence reads as U+FFFD, not an error', async () => {
      expect(await sandbox.read('/accent.txt', { offset: 1, length: 1 })).toBe('\uFFFD');
      expect([...(await sandbox.readBinary('/accent.txt', { offset: 1, length: 1 }))]).toEqual([0xa9]);
    });

    test('a range reads part of a file too big to read whole', async () => {
      const s = createMountSandbox({ root, resolver, maxReadBytes: 10 });
      const err = await refuses(() => s.read('/hundred.txt'), FileTooLargeError);
      expect([err.size, err.limit]).toEqual([100, 10]);
      expect(err.toLLMMessage()).toContain('offset and length');
      expect(await s.read('/hundred.txt', { offset: 90, length: 10 })).toBe('abcdefghij');
      expect(await s.read('/hundred.txt', { offset: 95, length: 10 })).toBe('fghij');
    });

    test('bad ranges are refused before anything happens', async () => {
      for (const range of [{ offset: -1 }, { length: -1 }, { offset: 1.5 }, { offset: '1' }, { offset: 2 ** 53 }]) {
        await expect(sandbox.read('/digits.txt', range)).rejects.toThrow(RangeError);
      }
      await expect(sandbox.read('/digits.txt', { start: 1 })).rejects.toThrow(TypeError);
      await expect(sandbox.readBinary('/digits.txt', null)).rejects.toThrow(TypeError);
    });

    test('ranges get the same refusals as whole reads', async () => {
      fs.symlinkSync(path.join(base, 'outside.txt'), path.join(root, 'abs'));
      write(path.join(base, 'outside.txt'), SECRET);
      fs.symlinkSync('../outside.txt', path.join(root, 'rel'));
      execFileSync('mkfifo', [path.join(root, 'fifo')]);
      try {
        await refuses(() => sandbox.read('/dir', { offset: 0, length: 1 }), IsDirectoryError);
        await refuses(() => sandbox.read('/abs', { offset: 0, length: 3 }), SymlinkError);
        await refuses(() => sandbox.readBinary('/rel', { offset: 3, length: 3 }), SymlinkError);
        await refuses(
          () => settleWithin(sandbox.read('/fifo', { offset: 0, length: 1 }), 5000, 'range read of a FIFO'),
          NotRegularFileError,
        );
        await refuses(() => sandbox.read('/../outside.txt', { offset: 0, length: 3 }), InvalidPathError);
      } finally {
        releaseFifo(path.join(root, 'fifo'));
      }
    });
  });

  describe('approvals', () => {
    let sandbox;
    const dirs = ['wb', 'db', 'def', 'pre'];

    beforeEach(() => {
      for (const d of dirs) write(path.join(base, d, 'f.txt'), `${d} original`);
      write(path.join(root, 'r.txt'), 'root original');
      sandbox = createMountSandbox({
        root,
        resolver,
        approval: { write: 'preApproved' },
        mounts: [
          { source: path.join(base, 'wb'), target: '/wb', approval: { write: 'blocked' } },
          { source: path.join(base, 'db'), target: '/db', approval: { delete: 'blocked' } },
          { source: path.join(base, 'def'), target: '/def' },
          { source: path.join(base, 'pre'), target: '/pre', approval: { write: 'preApproved', delete: 'preApproved' } },
        ],
      });
    });

    test('approvalFor answers per mount, "ask" by default', () => {
      const table = (s, p) => [s.approvalFor(p, 'write'), s.approvalFor(p, 'delete')];
      expect(table(sandbox, '/r.txt')).toEqual(['preApproved', 'ask']);
      expect(table(sandbox, '/wb/f.txt')).toEqual(['blocked', 'ask']);
      expect(table(sandbox, '/wb/a/b/c.txt')).toEqual(['blocked', 'ask']);
      expect(table(sandbox, '/db/f.txt')).toEqual(['ask', 'blocked']);
      expect(table(sandbox, '/def/f.txt')).toEqual(['ask', 'ask']);
      expect(table(sandbox, '/pre/x/y')).toEqual(['preApproved', 'preApproved']);
      // A name that merely starts like a mount target belongs to the root.
      expect(table(sandbox, '/wbx/f.txt')).toEqual(['preApproved', 'ask']);
      const plain = createMountSandbox({ root, resolver });
      expect(table(plain, '/anything')).toEqual(['ask', 'ask']);
      expect(() => sandbox.approvalFor('/r.txt', 'read')).toThrow(TypeError);
      const described = sandbox.describe();
      expect(described.approval).toEqual({ write: 'preApproved', delete: 'ask' });
      expect(described.mounts.find((m) => m.target === '/wb').approval).toEqual({ write: 'blocked', delete: 'ask' });
    });

    test('a blocked write is refused by every kind of write, and the file is unchanged', async () => {
      write(path.join(root, 'src.txt'), 'from the root');
      const attempts = [
        () => sandbox.write('/wb/f.txt', 'changed'),
        () => sandbox.write('/wb/new.txt', 'new'),
        () => sandbox.write('/wb/a/b/new.txt', 'new'),
        () => sandbox.writeBinary('/wb/f.txt', new Uint8Array([1])),
        () => sandbox.edit('/wb/f.txt', 'original', 'edited'),
        () => sandbox.copy('/src.txt', '/wb/copied.txt'),
        () => sandbox.move('/src.txt', '/wb/moved.txt'),
        () => sandbox.mkdir('/wb/newdir'),
      ];
      for (const attempt of attempts) {
        const err = await refuses(attempt, OperationBlockedError);
        expect(err.code).toBe('WRITE_BLOCKED');
        expect(err.operation).toBe('write');
        expect(err.path.startsWith('/wb/')).toBe(true);
        expect(err.toLLMMessage()).toContain('blocked');
      }
      expect(hostFile('wb', 'f.txt')).toBe('wb original');
      expect(fs.readdirSync(path.join(base, 'wb'))).toEqual(['f.txt']);
      expect(sandbox.checkChange('/wb/f.txt', 'write')).toBeInstanceOf(OperationBlockedError);
      expect(sandbox.canWrite('/wb/f.txt')).toBe(false);
      // Deleting is only "ask" there, so it goes ahead.
      expect(sandbox.checkChange('/wb/f.txt', 'delete')).toBeNull();
      await sandbox.delete('/wb/f.txt');
      expect(fs.existsSync(path.join(base, 'wb', 'f.txt'))).toBe(false);
    });

    test('a blocked delete is refused, moving out counts as deleting, and writes still work', async () => {
      const err = await refuses(() => sandbox.delete('/db/f.txt'), OperationBlockedError);
      expect(err.code).toBe('DELETE_BLOCKED');
      expect(err.operation).toBe('delete');
      expect(err.path).toBe('/db/f.txt');
      expect(err.toLLMMessage()).toContain('delet');
      const moveErr = await refuses(() => sandbox.move('/db/f.txt', '/moved.txt'), OperationBlockedError);
      expect(moveErr.code).toBe('DELETE_BLOCKED');
      expect(moveErr.path).toBe('/db/f.txt');
      expect(sandbox.checkChange('/db/f.txt', 'delete')).toBeInstanceOf(OperationBlockedError);
      expect(sandbox.checkChange('/db/f.txt', 'write')).toBeNull();
      // Copying out only reads.
      await sandbox.copy('/db/f.txt', '/copied.txt');
      expect(hostFile('root', 'copied.txt')).toBe('db original');
      await sandbox.write('/db/f.txt', 'rewritten');
      await sandbox.write('/db/new.txt', 'new');
      expect(hostFile('db', 'f.txt')).toBe('rewritten');
      expect(hostFile('db', 'new.txt')).toBe('new');
    });

    test('restrict() tightens approvals and never loosens them', async () => {
      const loosened = sandbox.restrict({ approval: { write: 'preApproved', delete: 'preApproved' } });
      expect(loosened.approvalFor('/wb/f.txt', 'write')).toBe('blocked');
      expect(loosened.approvalFor('/db/f.txt', 'delete')).toBe('blocked');
      expect(loosened.approvalFor('/def/f.txt', 'write')).toBe('ask');
      expect(loosened.approvalFor('/r.txt', 'delete')).toBe('ask');
      await refuses(() => loosened.write('/wb/f.txt', 'x'), OperationBlockedError);
      await refuses(() => loosened.delete('/db/f.txt'), OperationBlockedError);

      const noDeletes = sandbox.restrict({ approval: { delete: 'blocked' } });
      expect(noDeletes.approvalFor('/pre/f.txt', 'delete')).toBe('blocked');
      expect(noDeletes.approvalFor('/pre/f.txt', 'write')).toBe('preApproved');
      expect(noDeletes.approvalFor('/r.txt', 'write')).toBe('preApproved');
      await refuses(() => noDeletes.delete('/pre/f.txt'), OperationBlockedError);
      await noDeletes.write('/pre/f.txt', 'child wrote');
      expect(hostFile('pre', 'f.txt')).toBe('child wrote');

      const grandchild = noDeletes.restrict({ approval: { delete: 'preApproved', write: 'ask' } });
      expect(grandchild.approvalFor('/pre/f.txt', 'delete')).toBe('blocked');
      expect(grandchild.approvalFor('/pre/f.txt', 'write')).toBe('ask');
      await refuses(() => grandchild.delete('/r.txt'), OperationBlockedError);

      // The parent is untouched by its children.
      expect(sandbox.approvalFor('/pre/f.txt', 'delete')).toBe('preApproved');
      await sandbox.delete('/pre/f.txt');
    });

    test('a subtree view keeps the blocked approval of the mount it came from', async () => {
      for (const child of [
        sandbox.restrict({ restrict: '/wb' }),
        sandbox.restrict({ restrict: '/wb', approval: { write: 'preApproved' } }),
      ]) {
        expect(child.approvalFor('/f.txt', 'write')).toBe('blocked');
        expect(child.describe().approval.write).toBe('blocked');
        await refuses(() => child.write('/f.txt', 'x'), OperationBlockedError);
        await refuses(() => child.write('/new.txt', 'x'), OperationBlockedError);
      }
      expect(() => sandbox.restrict({ approval: { write: 'sure' } })).toThrow(TypeError);
      expect(() => sandbox.restrict({ approval: { read: 'blocked' } })).toThrow(TypeError);
    });

    test('selectZones keeps each zone\'s approvals', async () => {
      const zones = sandbox.selectZones([{ name: 'wb' }, { name: 'db' }]);
      expect(await zones.list('/')).toEqual(['db', 'wb']);
      expect(zones.approvalFor('/wb/f.txt', 'write')).toBe('blocked');
      expect(zones.approvalFor('/db/f.txt', 'delete')).toBe('blocked');
      await refuses(() => zones.write('/wb/f.txt', 'x'), OperationBlockedError);
      await refuses(() => zones.delete('/db/f.txt'), OperationBlockedError);
      const tighter = zones.restrict({ approval: { write: 'blocked' } });
      expect(tighter.approvalFor('/db/f.txt', 'write')).toBe('blocked');
      await refuses(() => tighter.write('/db/f.txt', 'x'), OperationBlockedError);
    });

    test('a blocked mount cannot be written through the writable root that holds its source', async () => {
      write(path.join(root, 'protected', 'f.txt'), 'protected original');
      const s = createMountSandbox({
        root,
        resolver,
        approval: { write: 'preApproved', delete: 'preApproved' },
        mounts: [
          { source: path.join(root, 'protected'), target: '/p', approval: { write: 'blocked', delete: 'blocked' } },
        ],
      });
      await refuses(() => s.write('/p/f.txt', 'x'), OperationBlockedError);
      await refuses(() => s.write('/protected/f.txt', 'x'), OperationBlockedError);
      await refuses(() => s.delete('/protected/f.txt'), OperationBlockedError);
      const child = s.restrict({ restrict: '/protected' });
      await refuses(() => child.write('/f.txt', 'x'), OperationBlockedError);
      expect(hostFile('root', 'protected', 'f.txt')).toBe('protected original');
    });
  });

  describe('a sandbox without a root', () => {
    let sandbox;

    beforeEach(() => {
      write(path.join(base, 'data', 'd.txt'), 'data');
      write(path.join(base, 'ref', 'r.txt'), 'reference');
      write(path.join(base, 'nested', 'n.txt'), 'nested');
      write(path.join(base, 'elsewhere.txt'), SECRET);
      sandbox = createMountSandbox({
        root: null,
        resolver,
        mounts: [
          { source: path.join(base, 'data'), target: '/data' },
          { source: path.join(base, 'ref'), target: '/ref', readonly: true },
          { source: path.join(base, 'nested'), target: '/deep/nested' },
        ],
      });
    });

    test('"/" lists exactly the mount targets', async () => {
      expect(await sandbox.list('/')).toEqual(['data', 'deep', 'ref']);
      expect(await sandbox.list('/deep')).toEqual(['nested']);
      expect(await sandbox.list('/data')).toEqual(['d.txt']);
      expect(await sandbox.read('/deep/nested/n.txt')).toBe('nested');
      expect(sandbox.readablePaths()).toEqual(['/data', '/deep/nested', '/ref']);
      expect(sandbox.writablePaths()).toEqual(['/data', '/deep/nested']);
      expect(sandbox.getConfig().root).toBeNull();
      await refuses(() => sandbox.read('/'), IsDirectoryError);
    });

    test('anything outside the mounts is refused, and the message lists the readable paths', async () => {
      const attempts = [
        () => sandbox.read('/elsewhere.txt'),
        () => sandbox.readBinary('/root/x'),
        () => sandbox.read('/deep/other.txt'),
        () => sandbox.list('/nowhere'),
        () => sandbox.stat('/nowhere'),
        () => sandbox.write('/new.txt', 'x'),
        () => sandbox.write('/deep/new.txt', 'x'),
        () => sandbox.write('/a/b/c.txt', 'x'),
        () => sandbox.writeBinary('/elsewhere.txt', new Uint8Array([1])),
        () => sandbox.delete('/elsewhere.txt'),
        () => sandbox.mkdir('/newdir'),
        () => sandbox.copy('/data/d.txt', '/stray.txt'),
      ];
      for (const attempt of attempts) {
        const err = await refuses(attempt, OutsideSandboxError);
        expect(err.code).toBe('OUTSIDE_SANDBOX');
        expect(err.readablePaths).toEqual(['/data', '/deep/nested', '/ref']);
        expect(err.toLLMMessage()).toContain('Readable paths: /data, /deep/nested, /ref.');
      }
      expect(sandbox.approvalFor('/new.txt', 'write')).toBe('blocked');
      expect(sandbox.checkChange('/new.txt', 'write')).toBeInstanceOf(OutsideSandboxError);
    });

    test('".." cannot climb out of a mount into the host', async () => {
      for (const p of ['/data/../../elsewhere.txt', '/../elsewhere.txt', '/data/../elsewhere.txt']) {
        const err = await refuses(() => sandbox.read(p), SandboxError);
        expect(['INVALID_PATH', 'OUTSIDE_SANDBOX']).toContain(err.code);
      }
    });

    test('a read-only mount refuses writes and names the writable paths', async () => {
      for (const attempt of [
        () => sandbox.write('/ref/r.txt', 'x'),
        () => sandbox.write('/ref/new.txt', 'x'),
        () => sandbox.delete('/ref/r.txt'),
        () => sandbox.edit('/ref/r.txt', 'reference', 'x'),
        () => sandbox.mkdir('/ref/sub'),
      ]) {
        const err = await refuses(attempt, ReadOnlyError);
        expect(err.writablePaths).toEqual(['/data', '/deep/nested']);
        expect(err.toLLMMessage()).toContain('Writable locations: /data, /deep/nested.');
      }
    });

    test('mount points and the virtual directories above them cannot be replaced', async () => {
      await refuses(() => sandbox.write('/data', 'x'), MountPointError);
      await refuses(() => sandbox.delete('/data'), MountPointError);
      await refuses(() => sandbox.delete('/deep'), MountPointError);
    });

    test('an all-read-only sandbox says nothing is writable', async () => {
      const ro = createMountSandbox({
        root: null,
        resolver,
        mounts: [{ source: path.join(base, 'ref'), target: '/ref', readonly: true }],
      });
      const err = await refuses(() => ro.write('/ref/x.txt', 'x'), ReadOnlyError);
      expect(err.writablePaths).toEqual([]);
      expect(err.toLLMMessage()).toContain('Nothing in this sandbox is writable.');
    });
  });

  describe('host paths never leak', () => {
    test('no refusal from any policy names the temp directory', async () => {
      write(path.join(base, 'm', 'big.txt'), 'x'.repeat(50));
      write(path.join(base, 'm', 'a.exe'), 'x');
      write(path.join(root, 'f.txt'), 'f');
      const s = createMountSandbox({
        root,
        resolver,
        approval: { write: 'blocked', delete: 'blocked' },
        mounts: [
          { source: path.join(base, 'm'), target: '/m', maxFileBytes: 10, deniedSuffixes: ['.exe'], readonly: true },
        ],
      });
      const rootless = createMountSandbox({
        root: null,
        resolver,
        mounts: [{ source: path.join(base, 'm'), target: '/m' }],
      });
      const attempts = [
        s.read('/m/big.txt'),
        s.read('/m/a.exe'),
        s.write('/f.txt', 'x'),
        s.delete('/f.txt'),
        s.write('/m/new.txt', 'x'),
        s.read('/m/big.txt', { offset: 1, length: 1 }),
        s.restrict({ restrict: '/m' }).read('/big.txt'),
        rootless.read('/f.txt'),
        rootless.write('/f.txt', 'x'),
        rootless.read('/m/../../etc/passwd'),
        rootless.list('/nowhere'),
      ];
      const before = snapshotTree(base);
      const outcomes = await Promise.allSettled(attempts);
      expect(snapshotTree(base)).toEqual(before);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect(outcome.reason).toBeInstanceOf(SandboxError);
        expectNoHostPath(outcome.reason);
      }
      for (const err of [s.checkChange('/f.txt', 'write'), s.checkChange('/m/x', 'delete'), rootless.checkChange('/x', 'write')]) {
        expect(err).toBeInstanceOf(SandboxError);
        expectNoHostPath(err);
      }
    });
  });
});
