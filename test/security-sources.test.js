'use strict';

// Attacks across time on what a sandbox pins: mount sources that do not exist yet or were
// replaced by a symlink between runs, and subtrees a child sandbox is narrowed to. What a model
// (or a confined command) plants now must never be trusted by a later call, a later child or
// the next run.
const { testIf } = require('./helpers/skips');
const fs = require('fs');
const path = require('path');
const {
  createMountSandbox,
  createMountSandboxAsync,
  createSandboxFromConfig,
  parseProgramConfig,
  parseWorkerFile,
  sandboxForWorker,
  NotFoundError,
  NotDirectoryError,
  SymlinkError,
  SandboxConfigError,
  ConfigFileError,
} = require('../lib');
const { RESOLVERS, outsideUntouchedEach, write } = require('./helpers');

const SECRET = 'OUTSIDE-PRIVATE-KEY';

// Issue 19, point 5: the filesystem /dev is on, when it is a mount of its own (devtmpfs, or the
// tmpfs a container puts there), and a tmpfs that is not it.
const devIsMount = fs.statSync('/dev').dev !== fs.statSync('/').dev;
const shmIsOwnTmpfs = fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').dev !== fs.statSync('/dev').dev;
// Only where sysfs is mounted: in a bare root (scripts/test-prebuilds.sh) /sys is a plain directory.
const SYSFS_MAGIC = 0x62656572;
const SYSFS_DIR = ['/sys/kernel', '/sys/class', '/sys'].find((d) => fs.existsSync(d) && fs.statfsSync(d).type === SYSFS_MAGIC);

describe.each(RESOLVERS)('planted sources and subtrees with the %s resolver', (resolver) => {
  let base;
  let root;
  let outside;

  outsideUntouchedEach((layout) => {
    ({ base, root, outside } = layout);
    write(path.join(root, 'inside.txt'), 'inside');
    write(path.join(root, 'secrets', 'key.txt'), 'parent-only');
    write(path.join(outside, 'id_rsa'), SECRET);
  });

  async function refusal(promise) {
    const outcome = await promise.then((value) => ({ value }), (e) => e);
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome.message).not.toContain(base);
    expect(outcome.toLLMMessage()).not.toContain(base);
    return outcome;
  }

  function refusalSync(fn) {
    let caught;
    try {
      fn();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(caught.message).not.toContain(base);
    return caught;
  }

  describe('mount sources that do not exist yet', () => {
    const config = () => ({
      root,
      resolver,
      mounts: [
        { source: path.join(root, 'store', 'data'), target: '/data', readonly: true },
        { source: path.join(root, 'store', 'cache'), target: '/cache' },
      ],
    });

    test('a symlink moved onto a missing source path is never pinned', async () => {
      fs.symlinkSync(outside, path.join(root, 'planted'));
      const sandbox = createMountSandbox(config());
      // The model's first call plants the link where the read-only source will be looked for:
      // the source's path inside the writable root.
      await sandbox.move('/planted', '/store/data');
      expect(fs.lstatSync(path.join(root, 'store', 'data')).isSymbolicLink()).toBe(true);
      expect(await refusal(sandbox.read('/data/id_rsa'))).toBeInstanceOf(NotFoundError);
      expect(await refusal(sandbox.list('/data'))).toBeInstanceOf(NotFoundError);
    });

    test('a symlink planted after the first call is never pinned for writes', async () => {
      const sandbox = createMountSandbox(config());
      expect(await sandbox.read('/inside.txt')).toBe('inside');
      fs.mkdirSync(path.join(root, 'store'));
      fs.symlinkSync(outside, path.join(root, 'store', 'cache'));
      expect(await refusal(sandbox.write('/cache/PWNED.txt', 'x'))).toBeInstanceOf(NotFoundError);
      expect(fs.existsSync(path.join(outside, 'PWNED.txt'))).toBe(false);
    });

    test('a real directory created after the first call does not become the mount', async () => {
      const sandbox = createMountSandbox(config());
      expect(await sandbox.exists('/data/x')).toBe(false);
      write(path.join(root, 'store', 'data', 'fake.txt'), 'planted as read-only data');
      expect(await refusal(sandbox.read('/data/fake.txt'))).toBeInstanceOf(NotFoundError);
    });

    test('createMountSandboxAsync creates missing sources and pins them', async () => {
      const sandbox = await createMountSandboxAsync(config());
      await sandbox.write('/cache/new.txt', 'n');
      expect(fs.readFileSync(path.join(root, 'store', 'cache', 'new.txt'), 'utf8')).toBe('n');
      expect(fs.statSync(path.join(root, 'store', 'data')).isDirectory()).toBe(true);
    });

    test('a source that is a file is refused, not followed', async () => {
      write(path.join(root, 'store', 'data'), 'a file');
      const sandbox = createMountSandbox(config());
      expect(await refusal(sandbox.read('/data/x'))).toBeInstanceOf(NotDirectoryError);
    });
  });

  describe('sources replaced by a symlink before the next run', () => {
    beforeEach(() => {
      write(path.join(root, 'cache', 'ok.txt'), 'cached');
      write(path.join(root, 'vendor', 'lib.txt'), 'vendored');
    });

    const config = () => ({
      root,
      resolver,
      mounts: [
        { source: path.join(root, 'cache'), target: '/cache' },
        { source: path.join(root, 'vendor'), target: '/vendor', readonly: true },
      ],
    });

    function plantBetweenRuns() {
      // What a confined command of the previous run could do inside the writable root.
      fs.rmSync(path.join(root, 'cache'), { recursive: true });
      fs.symlinkSync(outside, path.join(root, 'cache'));
      fs.rmSync(path.join(root, 'vendor'), { recursive: true });
      fs.symlinkSync('../outside', path.join(root, 'vendor'));
    }

    test('the next sandbox refuses the mounts instead of pinning the targets', async () => {
      plantBetweenRuns();
      const sandbox = createMountSandbox(config());
      expect(await refusal(sandbox.read('/cache/id_rsa'))).toBeInstanceOf(SymlinkError);
      expect(await refusal(sandbox.read('/vendor/id_rsa'))).toBeInstanceOf(SymlinkError);
      const err = await refusal(sandbox.write('/cache/PWNED.txt', 'x'));
      expect(err).toBeInstanceOf(SymlinkError);
      expect(err.code).toBe('UNTRUSTED_SOURCE');
      expect(err.toLLMMessage()).toContain('/cache/PWNED.txt');
      // The rest of the sandbox still works, a glob over everything included.
      expect(await sandbox.read('/inside.txt')).toBe('inside');
      expect((await sandbox.glob('/**/*.txt')).paths).toEqual(['/inside.txt', '/secrets/key.txt']);
      expect(await sandbox.list('/')).toEqual(['cache', 'inside.txt', 'secrets', 'vendor']);
      const globbed = await refusal(sandbox.glob('/cache/**'));
      expect(globbed).toBeInstanceOf(SymlinkError);
      expect(globbed.code).toBe('UNTRUSTED_SOURCE');
    });

    test('createMountSandboxAsync neither creates through nor pins the planted link', async () => {
      plantBetweenRuns();
      const nested = config();
      nested.mounts.push({ source: path.join(root, 'cache', 'sub'), target: '/sub' });
      const err = await refusal(createMountSandboxAsync(nested));
      expect(err).toBeInstanceOf(SymlinkError);
      expect(err.code).toBe('UNTRUSTED_SOURCE');
      expect(['/sub', '/cache', '/vendor']).toContain(err.path);
      expect(fs.existsSync(path.join(outside, 'sub'))).toBe(false);
    });

    test('a program config loaded in the next run refuses the planted source', async () => {
      plantBetweenRuns();
      const file = path.join(root, 'golem-forge.config.yaml');
      const text = [
        'sandbox:',
        '  root: .',
        '  mounts:',
        '    - source: ./cache',
        '      target: /cache',
        '',
      ].join('\n');
      const programConfig = parseProgramConfig(text, { file });
      const err = await refusal(createSandboxFromConfig(programConfig));
      expect(err).toBeInstanceOf(SymlinkError);
      expect(err.path).toBe('/cache');
    });

    test('a relative link that stays inside the writable root is refused too', async () => {
      fs.rmSync(path.join(root, 'cache'), { recursive: true });
      write(path.join(root, 'elsewhere', 'ok.txt'), 'moved');
      fs.symlinkSync('elsewhere', path.join(root, 'cache'));
      const sandbox = createMountSandbox(config());
      expect(await refusal(sandbox.read('/cache/ok.txt'))).toBeInstanceOf(SymlinkError);
    });

    test('symlinks in the configured path outside every writable source are trusted', async () => {
      // The operator's own spelling: a link beside the root, not inside it.
      fs.symlinkSync(path.join(root, 'vendor'), path.join(base, 'vendor-alias'));
      fs.symlinkSync(root, path.join(base, 'root-alias'));
      const sandbox = createMountSandbox({
        root: path.join(base, 'root-alias'),
        resolver,
        mounts: [{ source: path.join(base, 'vendor-alias'), target: '/v', readonly: true }],
      });
      expect(await sandbox.read('/v/lib.txt')).toBe('vendored');
      expect(await sandbox.read('/inside.txt')).toBe('inside');
    });

    test('a link inside the root reached through an alias of the root is still refused', async () => {
      plantBetweenRuns();
      fs.symlinkSync(root, path.join(base, 'root-alias'));
      const sandbox = createMountSandbox({
        root,
        resolver,
        mounts: [{ source: path.join(base, 'root-alias', 'cache'), target: '/c' }],
      });
      expect(await refusal(sandbox.read('/c/id_rsa'))).toBeInstanceOf(SymlinkError);
    });

    test('under a read-only root the configured path is trusted as written', async () => {
      fs.rmSync(path.join(root, 'vendor'), { recursive: true });
      fs.symlinkSync('../outside', path.join(root, 'vendor'));
      const sandbox = createMountSandbox({
        root,
        readonly: true,
        resolver,
        mounts: [{ source: path.join(root, 'vendor'), target: '/vendor', readonly: true }],
      });
      expect(await sandbox.read('/vendor/id_rsa')).toBe(SECRET);
    });
  });

  describe('children never see more than the subtree named', () => {
    test('restrict onto a symlink to the root is refused', async () => {
      fs.symlinkSync('.', path.join(root, 'src'));
      const parent = createMountSandbox({ root, resolver });
      const err = refusalSync(() => parent.restrict({ restrict: '/src' }));
      expect(err).toBeInstanceOf(SymlinkError);
      expect(await parent.read('/secrets/key.txt')).toBe('parent-only');
    });

    test('restrict through an intermediate symlink is refused', () => {
      write(path.join(root, 'real', 'sub', 'a.txt'), 'a');
      fs.symlinkSync('real', path.join(root, 'alias'));
      const parent = createMountSandbox({ root, resolver });
      expect(refusalSync(() => parent.restrict({ restrict: '/alias/sub' }))).toBeInstanceOf(SymlinkError);
    });

    test('restrict onto a missing directory is a typed error', () => {
      const parent = createMountSandbox({ root, resolver });
      expect(refusalSync(() => parent.restrict({ restrict: '/nope' }))).toBeInstanceOf(NotFoundError);
    });

    test('a child keeps its subtree when the parent renames it and plants a link', async () => {
      write(path.join(root, 'src', 'app.ts'), 'app');
      const parent = createMountSandbox({ root, resolver });
      const child = parent.restrict({ restrict: '/src' });
      fs.renameSync(path.join(root, 'src'), path.join(root, 'src-moved'));
      fs.symlinkSync('.', path.join(root, 'src'));
      expect(await child.list('/')).toEqual(['app.ts']);
      expect(await refusal(child.read('/secrets/key.txt'))).toBeInstanceOf(NotFoundError);
      await child.write('/new.ts', 'n');
      expect(fs.existsSync(path.join(root, 'src-moved', 'new.ts'))).toBe(true);
      expect(fs.existsSync(path.join(root, 'new.ts'))).toBe(false);
    });

    test('a child made before the subtree exists cannot be redirected later', async () => {
      const parent = createMountSandbox({ root, resolver });
      expect(refusalSync(() => parent.restrict({ restrict: '/later' }))).toBeInstanceOf(NotFoundError);
      fs.symlinkSync('.', path.join(root, 'later'));
      expect(refusalSync(() => parent.restrict({ restrict: '/later' }))).toBeInstanceOf(SymlinkError);
    });

    test('a worker declaration onto a symlink is refused', () => {
      fs.symlinkSync('.', path.join(root, 'src'));
      const parent = createMountSandbox({ root, resolver });
      const worker = parseWorkerFile(
        '---\nname: reviewer\nsandbox:\n  restrict: /src\n  readonly: true\n---\nReview.\n',
        path.join(base, 'reviewer.worker'),
      );
      expect(refusalSync(() => sandboxForWorker(parent, worker))).toBeInstanceOf(SymlinkError);
    });

    test('zones keep the sources their parent pinned', async () => {
      write(path.join(base, 'zone-a', 'a.txt'), 'zone a');
      const parent = createMountSandbox({
        root: null,
        resolver,
        mounts: [{ source: path.join(base, 'zone-a'), target: '/a' }],
      });
      const child = parent.selectZones([{ name: 'a', mode: 'ro' }]);
      fs.renameSync(path.join(base, 'zone-a'), path.join(base, 'zone-a-moved'));
      fs.symlinkSync(outside, path.join(base, 'zone-a'));
      expect(await child.read('/a/a.txt')).toBe('zone a');
      expect(await refusal(child.read('/a/id_rsa'))).toBeInstanceOf(NotFoundError);
    });
  });

  // Issue 19, point 5. The operator chose the source, but nobody means to hand a model the Node
  // process's environment (API keys) and command line: pseudo-filesystems are refused unless the
  // mount says allowPseudoFilesystem.
  describe('sources on pseudo-filesystems', () => {
    function expectPseudo(err, { target, filesystem = 'proc', path: p }) {
      expect(err.code).toBe('PSEUDO_FILESYSTEM');
      expect(err).toBeInstanceOf(SandboxConfigError);
      expect(err.constructor.name).toBe('PseudoFilesystemError');
      expect(err.filesystem).toBe(filesystem);
      expect(err.target).toBe(target);
      expect(err.path).toBe(p ?? target);
      expect(err.message).toContain(target);
      expect(err.message).toContain('allowPseudoFilesystem');
      for (const text of [err.message, err.toLLMMessage(), JSON.stringify(err)]) {
        expect(text).not.toContain('/proc/self');
        expect(text).not.toContain('PATH=');
      }
      expect(err.toLLMMessage()).toContain(p ?? target);
      return err;
    }

    test('a mount of /proc/self is refused by default, naming the mount and the reason', async () => {
      const sandbox = createMountSandbox({ root, resolver, mounts: [{ source: '/proc/self', target: '/host' }] });
      expectPseudo(await refusal(sandbox.read('/host/environ')), { target: '/host', path: '/host/environ' });
      expectPseudo(await refusal(sandbox.read('/host/cmdline', { offset: 0, length: 100 })), { target: '/host', path: '/host/cmdline' });
      expectPseudo(await refusal(sandbox.readAttachments(['/host/environ'])), { target: '/host', path: '/host/environ' });
      expectPseudo(await refusal(sandbox.list('/host')), { target: '/host', path: '/host' });
      // The rest of the sandbox works, and a glob over all of it skips the refused mount.
      expect(await sandbox.read('/inside.txt')).toBe('inside');
      expect(await sandbox.list('/')).toEqual(['host', 'inside.txt', 'secrets']);
      expect((await sandbox.glob('/**/environ')).paths).toEqual([]);
    });

    test('a root on procfs is refused, and so is a source reached through a link to /proc/self', async () => {
      const rooted = createMountSandbox({ root: '/proc/self', resolver });
      expectPseudo(await refusal(rooted.read('/environ')), { target: '/', path: '/environ' });
      fs.symlinkSync('/proc/self', path.join(base, 'innocent'));
      const linked = createMountSandbox({ root, resolver, mounts: [{ source: path.join(base, 'innocent'), target: '/data' }] });
      expectPseudo(await refusal(linked.read('/data/environ')), { target: '/data', path: '/data/environ' });
    });

    testIf(SYSFS_DIR, 'no sysfs directory here')('a source on sysfs is refused', async () => {
      const sandbox = createMountSandbox({ root, resolver, mounts: [{ source: SYSFS_DIR, target: '/sys' }] });
      expectPseudo(await refusal(sandbox.list('/sys')), { target: '/sys', filesystem: 'sysfs' });
    });

    testIf(devIsMount, '/dev is not a filesystem of its own here')('a source on the device filesystem (/dev) is refused', async () => {
      const sandbox = createMountSandbox({ root, resolver, mounts: [{ source: '/dev', target: '/devices' }] });
      expectPseudo(await refusal(sandbox.list('/devices')), { target: '/devices', filesystem: 'devtmpfs' });
    });

    testIf(shmIsOwnTmpfs, '/dev/shm is not a tmpfs of its own here')('a tmpfs that is not /dev (here /dev/shm) is a real filesystem', async () => {
      const dir = fs.mkdtempSync('/dev/shm/msb-test-');
      try {
        write(path.join(dir, 'a.txt'), 'in shm');
        const sandbox = createMountSandbox({ root, resolver, mounts: [{ source: dir, target: '/shm' }] });
        expect(await sandbox.read('/shm/a.txt')).toBe('in shm');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test('createMountSandboxAsync rejects naming the mount, and exec refuses before running anything', async () => {
      const config = { root, resolver, mounts: [{ source: '/proc/self', target: '/host' }] };
      expectPseudo(await refusal(createMountSandboxAsync(config)), { target: '/host' });
      const sandbox = createMountSandbox(config);
      const marker = path.join(root, 'ran.txt');
      expectPseudo(await refusal(sandbox.exec(['sh', '-c', `echo ran > ${JSON.stringify(marker)}`])), { target: '/host' });
      expect(fs.existsSync(marker)).toBe(false);
    });

    test('allowPseudoFilesystem: true opts a mount in (and at the top, the root); others stay refused', async () => {
      const sandbox = createMountSandbox({
        root,
        resolver,
        mounts: [
          { source: '/proc/self', target: '/host', readonly: true, allowPseudoFilesystem: true },
          { source: '/proc/self', target: '/other', readonly: true },
        ],
      });
      expect(await sandbox.read('/host/environ')).toContain('PATH=');
      expectPseudo(await refusal(sandbox.read('/other/environ')), { target: '/other', path: '/other/environ' });
      const rooted = createMountSandbox({ root: '/proc/self', readonly: true, allowPseudoFilesystem: true, resolver });
      expect(await rooted.read('/environ')).toContain('PATH=');
      expect(() => createMountSandbox({ root, mounts: [{ source: '/proc/self', target: '/h', allowPseudoFilesystem: 'yes' }] }))
        .toThrow(SandboxConfigError);
    });

    test('a program config is held to the same rule, and can say allowPseudoFilesystem', async () => {
      const file = path.join(base, 'golem-forge.config.yaml');
      const text = (extra) => [
        'sandbox:',
        '  root: root',
        '  mounts:',
        '    - source: /proc/self',
        '      target: /host',
        '      readonly: true',
        ...extra,
        '',
      ].join('\n');
      expectPseudo(await refusal(createSandboxFromConfig(parseProgramConfig(text([]), { file }))), { target: '/host' });
      const allowed = await createSandboxFromConfig(parseProgramConfig(text(['      allowPseudoFilesystem: true']), { file }));
      expect(await allowed.read('/host/environ')).toContain('PATH=');
      const bad = (() => {
        try {
          return parseProgramConfig(text(['      allowPseudoFilesystem: sure']), { file });
        } catch (e) {
          return e;
        }
      })();
      expect(bad).toBeInstanceOf(ConfigFileError);
      expect(bad.keyPath).toBe('sandbox.mounts[0].allowPseudoFilesystem');
      // The zone form, and the root of the mount form.
      const zones = 'sandbox:\n  mode: direct\n  zones:\n    host: { path: /proc/self, mode: ro, allowPseudoFilesystem: true }\n';
      const zoned = await createSandboxFromConfig(parseProgramConfig(zones, { file }));
      expect(await zoned.read('/host/environ')).toContain('PATH=');
      const rootText = 'sandbox:\n  root: /proc/self\n  readonly: true\n  allowPseudoFilesystem: true\n';
      const rooted = await createSandboxFromConfig(parseProgramConfig(rootText, { file }));
      expect(await rooted.read('/environ')).toContain('PATH=');
    });
  });
});
