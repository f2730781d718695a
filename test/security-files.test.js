'use strict';

// Only regular files and directories are ever opened, and a write killed midway leaves nothing.
// Opening a FIFO or a device is itself an action (it releases a writer blocked in open(), a
// device driver runs its open hook), so refusing after the open is too late.
const { describeIf } = require('./helpers/skips');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync, execFileSync } = require('child_process');
const { createMountSandbox, isSandboxError, NotRegularFileError, FileTooLargeError } = require('../lib');
const { RESOLVERS, makeTempDir, makeTempLayout, removeDir, snapshotTree, write } = require('./helpers');

const LIB = JSON.stringify(path.join(__dirname, '..', 'lib'));

const isRoot = process.getuid && process.getuid() === 0;
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

function wchanOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/wchan`, 'utf8');
  } catch {
    return '';
  }
}

// What the FIFO suites start from, made anew for each test: a temp root that `seed` fills, a FIFO
// at /pipe.txt in it and a sandbox over it. Returns the object that holds the current test's
// { base, root, fifo, sandbox }.
function fifoSandboxEach(resolver, seed) {
  const current = {};
  beforeEach(() => {
    const { base, root } = makeTempLayout(['root']);
    seed(root);
    const fifo = path.join(root, 'pipe.txt');
    execFileSync('mkfifo', [fifo]);
    Object.assign(current, { base, root, fifo, sandbox: createMountSandbox({ root, resolver }) });
  });
  afterEach(() => removeDir(current.base));
  return current;
}

// A writer blocked in open(2) on `fifo` until a reader appears.
async function blockedWriter(fifo) {
  const child = spawn('sh', ['-c', 'echo x > "$1"', 'sh', fifo], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  // Readiness, not timing: wait until the kernel shows it waiting for a reader.
  while (wchanOf(child.pid) !== 'wait_for_partner') await tick();
  return { child, exited };
}

// A reader's open wakes the blocked writer on the spot, and a woken writer's open completes: it
// never waits for a partner again. So a writer still waiting now was never released.
async function writerWasStillBlocked(fifo, writer) {
  const stillWaiting = wchanOf(writer.child.pid) === 'wait_for_partner';
  const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  await writer.exited;
  fs.closeSync(reader);
  return stillWaiting;
}

describe.each(RESOLVERS)('FIFOs are refused without being opened (%s resolver)', (resolver) => {
  const t = fifoSandboxEach(resolver, (root) => write(path.join(root, 'file.txt'), 'x'));

  const operations = {
    read: (sb) => sb.read('/pipe.txt'),
    readBinary: (sb) => sb.readBinary('/pipe.txt'),
    'read with a range': (sb) => sb.read('/pipe.txt', { offset: 0, length: 4 }),
    'readBinary with a range': (sb) => sb.readBinary('/pipe.txt', { offset: 1 }),
    copy: (sb) => sb.copy('/pipe.txt', '/copy.txt'),
    edit: (sb) => sb.edit('/pipe.txt', 'a', 'b'),
    readAttachments: (sb) => sb.readAttachments(['/file.txt', '/pipe.txt']),
    'read through a relative symlink': (sb) => {
      fs.symlinkSync('pipe.txt', path.join(t.root, 'link.txt'));
      return sb.read('/link.txt');
    },
  };

  test.each(Object.keys(operations))('%s', async (name) => {
    const writer = await blockedWriter(t.fifo);
    const outcome = await operations[name](t.sandbox).then((v) => ({ value: v }), (e) => e);
    expect(outcome).toBeInstanceOf(NotRegularFileError);
    expect(await writerWasStillBlocked(t.fifo, writer)).toBe(true);
    expect(fs.existsSync(path.join(t.root, 'copy.txt'))).toBe(false);
  });
});

describeIf(isRoot, 'making device nodes needs root')('devices are refused (as root)', () => {
  test.each(RESOLVERS)('a character device in the tree (%s resolver)', async (resolver) => {
    const base = makeTempDir();
    try {
      const root = path.join(base, 'root');
      fs.mkdirSync(root);
      execFileSync('mknod', [path.join(root, 'null.txt'), 'c', '1', '3']);
      const sandbox = createMountSandbox({ root, resolver });
      for (const op of [
        () => sandbox.read('/null.txt'),
        () => sandbox.readBinary('/null.txt', { offset: 0, length: 1 }),
        () => sandbox.copy('/null.txt', '/c.txt'),
        () => sandbox.edit('/null.txt', 'a', 'b'),
        () => sandbox.readAttachments(['/null.txt']),
      ]) {
        await expect(op()).rejects.toBeInstanceOf(NotRegularFileError);
      }
      expect(fs.readdirSync(root)).toEqual(['null.txt']);
    } finally {
      removeDir(base);
    }
  });
});

// Issue 19, point 4: a file under the byte limits whose text V8 cannot hold in one string. Every
// path that hands text to JS refuses it with the same typed error, decided from the size on the
// open descriptor before a byte is read (the file is sparse: reading it would cost 600 MiB).
describe.each(RESOLVERS)('text over V8\'s string limit (%s resolver)', (resolver) => {
  const { MAX_STRING_LENGTH } = require('buffer').constants;
  const SIZE = 600 * 1024 * 1024;
  let base;
  let sandbox;
  beforeEach(() => {
    base = makeTempDir();
    const root = path.join(base, 'root');
    fs.mkdirSync(root);
    for (const name of ['big.txt', 'big.json']) {
      const fd = fs.openSync(path.join(root, name), 'w');
      fs.ftruncateSync(fd, SIZE);
      fs.closeSync(fd);
    }
    write(path.join(root, 'small.md'), '# small\n');
    sandbox = createMountSandbox({ root, resolver, maxReadBytes: 700 * 1024 * 1024 });
  });
  afterEach(() => removeDir(base));

  test('read, a ranged read and readAttachments all refuse it with FileTooLargeError, reading nothing', async () => {
    expect(SIZE).toBeGreaterThan(MAX_STRING_LENGTH);
    const peakBefore = process.resourceUsage().maxRSS;
    const policy = { max_total_bytes: 2 * SIZE + 100 };
    const attempts = [
      ['/big.txt', () => sandbox.read('/big.txt')],
      ['/big.txt', () => sandbox.read('/big.txt', { offset: 0 })],
      ['/big.txt', () => sandbox.readAttachments(['/big.txt'], policy)],
      ['/big.json', () => sandbox.readAttachments(['/small.md', '/big.json'], policy)],
    ];
    for (const [p, attempt] of attempts) {
      const err = await attempt().then((value) => ({ value }), (e) => e);
      expect(err).toBeInstanceOf(FileTooLargeError);
      expect(isSandboxError(err)).toBe(true);
      expect(err.code).toBe('TOO_LARGE');
      expect(err.path).toBe(p);
      expect(err.size).toBe(SIZE);
      expect(err.limit).toBe(MAX_STRING_LENGTH);
      expect(err.message).not.toContain(base);
    }
    // Judged from the size: nothing near 600 MiB was ever allocated.
    expect((process.resourceUsage().maxRSS - peakBefore) / 1024).toBeLessThan(200);
    // Text under the limit in the same call is unaffected.
    const [small] = await sandbox.readAttachments(['/small.md']);
    expect(small.text).toBe('# small\n');
  });
});

describe('a write killed midway leaves nothing behind', () => {
  const CHILD = `
    const { createMountSandbox } = require(${LIB});
    const [root, size, file = '/big.bin'] = process.argv.slice(1);
    const sandbox = createMountSandbox({ root });
    sandbox.writeBinary(file, new Uint8Array(Number(size)).fill(7));
  `;

  // The descriptor a writer has open in `dir`, other than `except`, once it shows up.
  async function writerFileIn(pid, dir, except) {
    for (;;) {
      let entries = [];
      try {
        entries = fs.readdirSync(`/proc/${pid}/fd`);
      } catch {
        return null; // exited
      }
      for (const fd of entries) {
        let target = '';
        try {
          target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        if (target.startsWith(`${dir}/`) && !except.includes(target)) return target;
      }
      await tick();
    }
  }

  test.each([
    ['ext4 or whatever the temp dir is', () => makeTempDir()],
    ['tmpfs', () => fs.realpathSync(fs.mkdtempSync('/dev/shm/msb-test-'))],
  ])('SIGKILL during a 512 MiB write on %s', async (_, makeDir) => {
    const dir = makeDir();
    try {
      write(path.join(dir, 'keep.txt'), 'keep');
      const child = spawn(process.execPath, ['-e', CHILD, dir, String(512 * 1024 * 1024)], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      const temp = await writerFileIn(child.pid, dir, []);
      child.kill('SIGKILL');
      await exited;
      expect(temp).not.toBeNull();
      expect(fs.readdirSync(dir).sort()).toEqual(['keep.txt']);
    } finally {
      removeDir(dir);
    }
  });

  test.each([
    ['ext4 or whatever the temp dir is', () => makeTempDir()],
    ['tmpfs', () => fs.realpathSync(fs.mkdtempSync('/dev/shm/msb-test-'))],
  ])('SIGKILL while a 200 MB write replaces a file on %s: the old file stays, list and glob show nothing new', async (_, makeDir) => {
    const dir = makeDir();
    try {
      write(path.join(dir, 'sub', 'old.txt'), 'the old contents');
      write(path.join(dir, 'sub', 'other.txt'), 'untouched');
      // Sizes, not contents: a temporary left behind would hold up to 200 MB.
      const before = snapshotTree(dir, { contents: false });
      const child = spawn(process.execPath, ['-e', CHILD, dir, String(200 * 1024 * 1024), '/sub/old.txt'],
        { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      const temp = await writerFileIn(child.pid, path.join(dir, 'sub'), [path.join(dir, 'sub', 'old.txt')]);
      child.kill('SIGKILL');
      await exited;
      expect(temp).not.toBeNull();
      expect(snapshotTree(dir, { contents: false })).toEqual(before);
      expect(fs.readFileSync(path.join(dir, 'sub', 'old.txt'), 'utf8')).toBe('the old contents');
      const sandbox = createMountSandbox({ root: dir });
      expect(await sandbox.list('/sub')).toEqual(['old.txt', 'other.txt']);
      expect((await sandbox.glob('/**')).paths).toEqual(['/sub', '/sub/old.txt', '/sub/other.txt']);
    } finally {
      removeDir(dir);
    }
  });
});

// Directories are opened O_DIRECTORY, which the kernel checks before it opens anything, and
// lookups are O_PATH: these were already safe and are kept so. A guard, not a new attack.
describe.each(RESOLVERS)('directory operations never open a FIFO (%s resolver)', (resolver) => {
  const t = fifoSandboxEach(resolver, (root) => fs.mkdirSync(root));

  const operations = {
    list: (sb) => sb.list('/pipe.txt'),
    'list below it': (sb) => sb.list('/pipe.txt/x'),
    glob: (sb) => sb.glob('/pipe.txt/**'),
    mkdir: (sb) => sb.mkdir('/pipe.txt'),
    'mkdir below it': (sb) => sb.mkdir('/pipe.txt/sub'),
    'write below it': (sb) => sb.write('/pipe.txt/x.txt', 'x'),
    'write over it': (sb) => sb.write('/pipe.txt', 'x'),
    stat: (sb) => sb.stat('/pipe.txt'),
    exists: (sb) => sb.exists('/pipe.txt'),
    move: (sb) => sb.move('/pipe.txt', '/moved.txt'),
  };

  test.each(Object.keys(operations))('%s', async (name) => {
    const writer = await blockedWriter(t.fifo);
    await operations[name](t.sandbox).catch((e) => {
      if (!isSandboxError(e)) throw e;
    });
    expect(await writerWasStillBlocked(t.fifo, writer)).toBe(true);
  });
});

// A move between filesystems checks the entry with fstatat, creates the destination's parents,
// then opens the entry to copy it. A child swaps the FIFO in for the file as soon as the first
// of those parents appears: after the check, before the open. That open must not happen.
const otherDevice = fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').dev !== fs.statSync(os.tmpdir()).dev;
describeIf(otherDevice, '/dev/shm is not a filesystem apart from the temp directory').each(RESOLVERS)('a move across filesystems (%s resolver)', (resolver) => {
  const SWAPPER = `
    const fs = require('fs');
    const [src, watched] = process.argv.slice(1);
    const at = (name) => src + '/' + name;
    const put = (name) => {
      fs.linkSync(at(name), at('next'));
      fs.renameSync(at('next'), at('x.txt'));
    };
    let armed = null;
    fs.watch(watched, (event, name) => {
      if (armed !== null && name === armed) {
        armed = null;
        put('fifo');
      }
    });
    // Each round: the file in place, then the FIFO once the round's directory is created.
    process.on('message', (round) => {
      put('regular');
      armed = round;
      process.send('armed');
    });
    process.send('ready');
  `;

  test('never opens a FIFO swapped in after the entry was checked', async () => {
    const base = makeTempDir();
    const target = fs.realpathSync(fs.mkdtempSync('/dev/shm/msb-test-'));
    const src = path.join(base, 'root', 'src');
    fs.mkdirSync(src, { recursive: true });
    write(path.join(src, 'regular'), 'a file to move');
    execFileSync('mkfifo', [path.join(src, 'fifo')]);
    const sandbox = createMountSandbox({ root: path.join(base, 'root'), resolver, mounts: [{ source: target, target: '/shm' }] });
    const swapper = spawn(process.execPath, ['-e', SWAPPER, src, target], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const reply = () => new Promise((resolve) => swapper.once('message', resolve));
    // Deep new parents keep the move busy between its check and its open.
    const deep = 'd/'.repeat(32);
    const outcomes = { moved: 0, refused: 0 };
    try {
      await reply();
      const writer = await blockedWriter(path.join(src, 'fifo'));
      for (let round = 0; round < 50 && wchanOf(writer.child.pid) === 'wait_for_partner'; round++) {
        const armed = reply();
        swapper.send(String(round));
        await armed;
        await sandbox.move('/src/x.txt', `/shm/${round}/${deep}x.txt`, { overwrite: true }).then(
          () => { outcomes.moved += 1; },
          (e) => {
            expect(e).toBeInstanceOf(NotRegularFileError);
            outcomes.refused += 1;
          },
        );
      }
      expect(await writerWasStillBlocked(path.join(src, 'fifo'), writer)).toBe(true);
      // The entry was a file when checked, so each refusal is a swap that landed in the window.
      expect(outcomes.refused).toBeGreaterThan(0);
    } finally {
      swapper.kill('SIGKILL');
      removeDir(target);
      removeDir(base);
    }
  });
});

// Without /proc a descriptor cannot be reopened, and reopening by name could meet a FIFO swapped
// in since the check: reads fail closed. Writes fall back to a named temporary. Run in a private
// mount namespace (root with CAP_SYS_ADMIN), where /proc can be unmounted for the child alone.
const canUnmountProc = isRoot &&
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'umount -l /proc'], { stdio: 'ignore' })
    .status === 0;
describeIf(canUnmountProc, 'unmounting /proc in a private mount namespace needs root with CAP_SYS_ADMIN').each(RESOLVERS)('without /proc (%s resolver)', (resolver) => {
  const SCRIPT = `
    const { execFileSync } = require('child_process');
    const { createMountSandbox } = require(${LIB});
    const [root, resolver, unmountFirst] = process.argv.slice(1);
    const sandbox = createMountSandbox({ root, resolver });
    const outcome = (p) => p.then(() => 'ok', (e) => e.code + ': ' + e.message);
    (async () => {
      // With /proc still there: both routes used once before it goes.
      const warmup = [await outcome(sandbox.read('/a.txt')), await outcome(sandbox.write('/w.txt', 'first'))];
      if (unmountFirst === 'yes') execFileSync('umount', ['-l', '/proc']);
      console.log(JSON.stringify({
        warmup,
        read: await outcome(sandbox.read('/a.txt')),
        range: await outcome(sandbox.read('/a.txt', { offset: 0, length: 2 })),
        copy: await outcome(sandbox.copy('/a.txt', '/b.txt')),
        edit: await outcome(sandbox.edit('/a.txt', 'contents', 'edited')),
        create: await outcome(sandbox.write('/n.txt', 'new')),
        replace: await outcome(sandbox.write('/w.txt', 'replaced')),
      }));
    })();
  `;

  // Whether this process has listxattrat: a native x64 run on Linux 6.13 or later.
  const [major, minor] = os.release().split('.').map(Number);
  const XATTRAT = process.arch === 'x64' && (major > 6 || (major === 6 && minor >= 13));

  function runWithout(root, unmountFirst) {
    // /proc goes before node starts, or (unmountFirst) while it runs, after its first use.
    const shell = unmountFirst ? 'exec "$0" -e "$1" "$2" "$3" yes' : 'umount -l /proc && exec "$0" -e "$1" "$2" "$3" no';
    const run = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', shell,
      process.execPath, SCRIPT, root, resolver], { encoding: 'utf8' });
    // Not run.status: under the sanitizer build, ASan's own exit-time work fails without /proc.
    try {
      return JSON.parse(run.stdout);
    } catch {
      throw new Error(`no result from the child: ${run.stderr}`);
    }
  }

  test.each([
    ['when it is missing from the start', false],
    ['when it is unmounted after its first use', true],
  ])('%s: reads fail closed with PROC_UNAVAILABLE, writes still leave only their file', (_, unmountFirst) => {
    const base = makeTempDir();
    try {
      const root = path.join(base, 'root');
      write(path.join(root, 'a.txt'), 'contents');
      const out = runWithout(root, unmountFirst);
      expect(out.warmup).toEqual([unmountFirst ? 'ok' : out.read, 'ok']);
      for (const op of ['read', 'range', 'copy', 'edit']) {
        expect(out[op]).toMatch(/^PROC_UNAVAILABLE: /);
        expect(out[op]).not.toContain(base);
      }
      expect(out.create).toBe('ok');
      // A replacement reads the old file's ACL and attributes by name (listxattrat, Linux 6.13+),
      // or before that through /proc/self/fd, and without /proc there it is refused, the old
      // file kept. qemu-user (the arm64 prebuilt run) lacks listxattrat whatever the kernel.
      if (XATTRAT) expect(out.replace).toBe('ok');
      const replaced = out.replace === 'ok';
      if (!replaced) expect(out.replace).toMatch(/^PROC_UNAVAILABLE: /);
      expect(fs.readdirSync(root).sort()).toEqual(['a.txt', 'n.txt', 'w.txt']);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('contents');
      expect(fs.readFileSync(path.join(root, 'n.txt'), 'utf8')).toBe('new');
      expect(fs.readFileSync(path.join(root, 'w.txt'), 'utf8')).toBe(replaced ? 'replaced' : 'first');
    } finally {
      removeDir(base);
    }
  });
});
