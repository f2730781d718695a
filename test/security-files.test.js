'use strict';

// Only regular files and directories are ever opened, and a write killed midway leaves nothing.
// Opening a FIFO or a device is itself an action (it releases a writer blocked in open(), a
// device driver runs its open hook), so refusing after the open is too late.
const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const { createMountSandbox, NotRegularFileError } = require('../lib');
const { RESOLVERS, makeTempDir, removeDir, write } = require('./helpers');

const isRoot = process.getuid && process.getuid() === 0;
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

function wchanOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/wchan`, 'utf8');
  } catch {
    return '';
  }
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
  let base;
  let root;
  let fifo;
  let sandbox;

  beforeEach(() => {
    base = makeTempDir();
    root = path.join(base, 'root');
    write(path.join(root, 'file.txt'), 'x');
    fifo = path.join(root, 'pipe.txt');
    execFileSync('mkfifo', [fifo]);
    sandbox = createMountSandbox({ root, resolver });
  });

  afterEach(() => removeDir(base));

  const operations = {
    read: (sb) => sb.read('/pipe.txt'),
    readBinary: (sb) => sb.readBinary('/pipe.txt'),
    'read with a range': (sb) => sb.read('/pipe.txt', { offset: 0, length: 4 }),
    'readBinary with a range': (sb) => sb.readBinary('/pipe.txt', { offset: 1 }),
    copy: (sb) => sb.copy('/pipe.txt', '/copy.txt'),
    edit: (sb) => sb.edit('/pipe.txt', 'a', 'b'),
    readAttachments: (sb) => sb.readAttachments(['/file.txt', '/pipe.txt']),
    'read through a relative symlink': (sb) => {
      fs.symlinkSync('pipe.txt', path.join(root, 'link.txt'));
      return sb.read('/link.txt');
    },
  };

  test.each(Object.keys(operations))('%s', async (name) => {
    const writer = await blockedWriter(fifo);
    const outcome = await operations[name](sandbox).then((v) => ({ value: v }), (e) => e);
    expect(outcome).toBeInstanceOf(NotRegularFileError);
    expect(await writerWasStillBlocked(fifo, writer)).toBe(true);
    expect(fs.existsSync(path.join(root, 'copy.txt'))).toBe(false);
  });
});

(isRoot ? describe : describe.skip)('devices are refused (as root)', () => {
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

describe('a write killed midway leaves nothing behind', () => {
  const CHILD = `
    const { createMountSandbox } = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
    const sandbox = createMountSandbox({ root: process.argv[1] });
    sandbox.writeBinary('/big.bin', new Uint8Array(Number(process.argv[2])).fill(7));
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
});
