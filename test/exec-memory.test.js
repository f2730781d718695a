'use strict';

// sandbox.exec and memory: limits.memoryBytes against shared memory, which RLIMIT_DATA does not
// count (a shared anonymous mapping, a memfd mapped or only written, a System V segment, files in
// the tmpfs mounts). Each attack touches 256 MiB under a 64 MiB limit. With a memory cgroup (root,
// or a delegated cgroup v2 subtree) every one must be stopped; without one, what can be bounded
// without it must be (System V through the IPC namespace's shm sysctls, the tmpfs sizes), and
// `enforcement` must say which bound applied.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const path = require('path');
const { testNeeding } = require('./helpers');
const { IS_ROOT, sleep, run, needs, skipped, useExecFixture } = require('./exec-helpers');

let root, sandbox; // set before each test
useExecFixture((fixture) => ({ root, sandbox } = fixture));

const MiB = 1024 * 1024;
const LIMIT = 64 * MiB;
const PYTHON = '/usr/bin/python3';

// Where the launcher may make its cgroups: beside our own (a cgroup v2 leaf cannot have children
// with controllers while it holds processes) or below it (cgroup v1).
function ownCgroupDirs() {
  const lines = fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  const v1 = lines.map((l) => l.split(':')).find(([, controllers]) => controllers.split(',').includes('memory'));
  if (v1) {
    const dir = path.join('/sys/fs/cgroup/memory', v1.slice(2).join(':'));
    return { version: 1, dirs: [dir] };
  }
  const v2 = lines.find((l) => l.startsWith('0::'));
  if (!v2) return { version: 0, dirs: [] };
  const dir = path.join('/sys/fs/cgroup', v2.slice(3));
  return { version: 2, dirs: v2 === '0::/' ? [dir] : [dir, path.dirname(dir)] };
}

// Whether the launcher should get a memory cgroup here: as root wherever the memory controller
// is mounted; otherwise only in a delegated cgroup v2 subtree (the parent of our cgroup writable
// by us, with memory among its controllers).
function cgroupExpected() {
  const { version, dirs } = ownCgroupDirs();
  if (version === 1) return IS_ROOT && fs.existsSync(path.join(dirs[0], 'memory.limit_in_bytes'));
  if (version !== 2) return false;
  const parent = dirs[dirs.length - 1];
  try {
    const controllers = fs.readFileSync(path.join(parent, 'cgroup.controllers'), 'utf8').split(/\s+/);
    if (!controllers.includes('memory')) return false;
    if (IS_ROOT) return true;
    fs.accessSync(path.join(parent, 'cgroup.procs'), fs.constants.W_OK);
    return fs.statSync(parent).uid === process.getuid();
  } catch {
    return false;
  }
}

const CGROUP = cgroupExpected();

// The launchers' cgroups ("msb-<launcher pid>") beside or below ours, as full paths.
function launcherCgroups() {
  return ownCgroupDirs().dirs.flatMap((dir) => {
    try {
      return fs.readdirSync(dir).filter((name) => /^msb-\d+$/.test(name)).map((name) => path.join(dir, name));
    } catch {
      return [];
    }
  });
}

function readOr(file, fallback) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

// Launchers this Jest worker started that are running now.
function ourLaunchers() {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    const stat = readOr(`/proc/${p}/stat`, '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return stat.includes('(msb-launch)') && Number(fields[1]) === process.pid;
  }).map(Number);
}

// Cgroups of launchers that are gone: empty, and still there a second later (other suites run
// in parallel, and their launchers' cgroups come and go).
async function leftoverCgroups() {
  const empty = () => launcherCgroups().filter((dir) => readOr(path.join(dir, 'cgroup.procs'), 'x').trim() === '');
  const first = empty();
  if (first.length === 0) return [];
  await sleep(1000);
  const second = new Set(empty());
  return first.filter((dir) => second.has(dir));
}

const needsPython = fs.existsSync(PYTHON) ? needs('private-root') : testNeeding(`${PYTHON} is not installed`);

// Touches 256 MiB through `how`, 1 MiB at a time, and prints "touched" only if all of it was.
const PRELUDE = `
import ctypes, mmap, os, sys
MiB = 1 << 20
TOTAL = 256 * MiB
CHUNK = b'x' * MiB
def fill(buf):
    for off in range(0, TOTAL, MiB):
        buf[off:off + MiB] = CHUNK
def write_all(fd):
    left = TOTAL
    while left > 0:
        left -= os.write(fd, CHUNK[:min(MiB, left)])
`;

const ATTACKS = {
  'a shared anonymous mapping (MAP_SHARED|MAP_ANONYMOUS)': `
fill(mmap.mmap(-1, TOTAL, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS))`,
  'a memfd written through a mapping': `
fd = os.memfd_create('m')
os.ftruncate(fd, TOTAL)
fill(mmap.mmap(fd, TOTAL, flags=mmap.MAP_SHARED))`,
  'a memfd only written': `
write_all(os.memfd_create('m'))`,
  'a System V segment (shmget, shmat)': `
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.restype = ctypes.c_int
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
shmid = libc.shmget(0, TOTAL, 0o1000 | 0o600)
if shmid < 0:
    sys.exit('shmget: ' + os.strerror(ctypes.get_errno()))
addr = libc.shmat(shmid, None, 0)
libc.shmctl(shmid, 0, None)  # IPC_RMID: gone once detached
if addr is None or addr == ctypes.c_void_p(-1).value:
    sys.exit('shmat: ' + os.strerror(ctypes.get_errno()))
for off in range(0, TOTAL, MiB):
    ctypes.memset(addr + off, 120, MiB)`,
  'a file in /dev/shm': `
write_all(os.open('/dev/shm/fill', os.O_WRONLY | os.O_CREAT, 0o600))`,
  'a file in /tmp': `
write_all(os.open('/tmp/fill', os.O_WRONLY | os.O_CREAT, 0o600))`,
};

// Bounded without a cgroup: System V by the IPC namespace's shm sysctls, the files by tmpfs sizes.
const BOUNDED_WITHOUT_CGROUP = new Set(['a System V segment (shmget, shmat)', 'a file in /dev/shm', 'a file in /tmp']);

const script = (attack) => `${PRELUDE}${attack}\nprint('touched', flush=True)\n`;

describe('[memory] shared memory under limits.memoryBytes', () => {
  needsPython('[memory] control: each attack touches its 256 MiB when no memory limit is given', async () => {
    for (const [name, attack] of Object.entries(ATTACKS)) {
      // /dev/shm stays capped at 64 MiB with or without a memory limit.
      if (name === 'a file in /dev/shm') continue;
      const result = await run(sandbox, [PYTHON, '-c', script(attack)], { timeoutMs: 60_000 });
      expect([name, result.stdout, result.exitCode]).toEqual([name, 'touched\n', 0]);
      expect(result.enforcement.limits.memoryBound).toBeNull();
    }
  }, 120_000);

  needsPython('[memory] control: 32 MiB of private memory under a 64 MiB limit succeeds', async () => {
    const result = await run(sandbox, [PYTHON, '-c', 'b = bytearray(32 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint("ok")'],
      { limits: { memoryBytes: LIMIT } });
    expect([result.stdout, result.stderr, result.exitCode]).toEqual(['ok\n', '', 0]);
    expect(result.enforcement.limits.memoryBytes).toBe(LIMIT);
    expect(result.enforcement.limits.memoryBound).toBe(CGROUP ? 'cgroup' : 'private-memory');
  });

  for (const [name, attack] of Object.entries(ATTACKS)) {
    const bounded = CGROUP || BOUNDED_WITHOUT_CGROUP.has(name);
    const title = bounded ? 'is stopped under a 64 MiB limit' : 'is reported unbounded under a 64 MiB limit without a memory cgroup';
    needsPython(`[memory] ${name} of 256 MiB ${title}`, async () => {
      const result = await run(sandbox, [PYTHON, '-c', script(attack)], { limits: { memoryBytes: LIMIT }, timeoutMs: 60_000 });
      const { enforcement } = result;
      if (bounded) {
        expect(result.stdout).not.toContain('touched');
        // Killed (by the cgroup's OOM killer) or refused (ENOMEM, ENOSPC, EINVAL beyond shmmax).
        expect(result.exitCode !== 0 || result.signal !== null).toBe(true);
        if (result.signal === null) expect(result.stderr).toMatch(/No space left on device|Cannot allocate memory|Invalid argument|MemoryError/);
      } else {
        console.log(`not bounded without a memory cgroup: ${name} (${result.stdout.trim()})`);
      }
      expect(enforcement.limits.memoryBound).toBe(CGROUP ? 'cgroup' : 'private-memory');
      expect(enforcement.layers).toContain('memory-limit');
      if (CGROUP) {
        expect(enforcement.layers).toContain('memory-cgroup');
      } else {
        expect(enforcement.missing).toContain('memory-cgroup');
      }
    }, 90_000);
  }
});

describe('[memory] the System V limits of the command\'s IPC namespace', () => {
  needsPython('[memory] shmmax and shmall follow memoryBytes; the host\'s stay as they were', async () => {
    const host = ['shmmax', 'shmall', 'shmmni'].map((n) => fs.readFileSync(`/proc/sys/kernel/${n}`, 'utf8'));
    const read = 'import sys\nfor n in ("shmmax", "shmall", "shmmni"): print(open("/proc/sys/kernel/" + n).read().strip())';
    const result = await run(sandbox, [PYTHON, '-c', read], { limits: { memoryBytes: LIMIT } });
    const [shmmax, shmall, shmmni] = result.stdout.trim().split('\n').map(Number);
    expect(shmmax).toBe(LIMIT);
    expect(shmall).toBe(LIMIT / 4096);
    expect(shmmni).toBeGreaterThan(0);
    expect(shmmni).toBeLessThanOrEqual(4096);
    expect(result.enforcement.layers).toContain('shm-limit');
    expect(['shmmax', 'shmall', 'shmmni'].map((n) => fs.readFileSync(`/proc/sys/kernel/${n}`, 'utf8'))).toEqual(host);
  });

  needsPython('[memory] the command cannot raise its own shmmax or shmall', async () => {
    const raise = `
for n in ("shmmax", "shmall"):
    try:
        with open("/proc/sys/kernel/" + n, "w") as f: f.write("1099511627776")
        print(n, "raised")
    except OSError as e:
        print(n, "refused", e.errno)
for n in ("shmmax", "shmall"): print(open("/proc/sys/kernel/" + n).read().strip())`;
    const result = await run(sandbox, [PYTHON, '-c', raise], { limits: { memoryBytes: LIMIT } });
    expect(result.stdout).not.toContain('raised');
    expect(result.stdout.trim().split('\n').slice(-2).map(Number)).toEqual([LIMIT, LIMIT / 4096]);
  });
});

describe('[memory] who the command is under a memory limit', () => {
  // Without root, the IPC namespace is made in a user namespace of its own first: the command
  // must still be the caller, and its files the caller's.
  needs('private-root')('[memory] the command runs as the caller and its files are the caller\'s', async () => {
    const result = await run(sandbox, ['sh', '-c', 'id -u; id -g; echo x > made.txt'], { limits: { memoryBytes: LIMIT } });
    expect(result.stdout).toBe(`${process.getuid()}\n${process.getgid()}\n`);
    const made = fs.statSync(path.join(root, 'made.txt'));
    expect([made.uid, made.gid]).toEqual([process.getuid(), process.getgid()]);
  });
});

describe('[memory] the other layers under a memory limit', () => {
  // The memory steps come before the namespaces (the cgroup, and without root a user namespace
  // for the IPC namespace): the cgroup namespace must still show "/", and the user's inotify
  // share must still be half the host's, not half of a new namespace's unlimited value.
  needs('private-root')('[memory] a memory limit takes no layer away: the cgroup namespace shows "/" and the inotify share is half the host\'s', async () => {
    const script = 'cat /proc/self/cgroup; echo "inotify: $(cat /proc/sys/user/max_inotify_instances)"';
    const plain = await run(sandbox, ['sh', '-c', script]);
    const limited = await run(sandbox, ['sh', '-c', script], { limits: { memoryBytes: LIMIT } });
    for (const layer of plain.enforcement.layers) expect([layer, limited.enforcement.layers.includes(layer)]).toEqual([layer, true]);
    expect(limited.enforcement.missing.filter((l) => !plain.enforcement.missing.includes(l)))
      .toEqual(CGROUP ? [] : ['memory-cgroup']);
    const lines = limited.stdout.trim().split('\n');
    if (limited.enforcement.layers.includes('cgroup-namespace')) {
      for (const line of lines.slice(0, -1)) expect(line).toMatch(/^\d+:[^:]*:\/$/);
    }
    if (limited.enforcement.layers.includes('inotify-limit')) {
      const host = Number(fs.readFileSync('/proc/sys/user/max_inotify_instances', 'utf8'));
      expect(lines[lines.length - 1]).toBe(`inotify: ${Math.floor(host / 2)}`);
    }
  });
});

describe('[memory-cgroup] the cgroup of each exec', () => {
  const needsCgroup = CGROUP ? needs('private-root') : skipped('no memory cgroup can be made here (not root, no delegated cgroup v2 subtree)');
  const limits = { memoryBytes: LIMIT };

  needsCgroup('[memory-cgroup] one cgroup exists while a command runs, none after many runs, a timeout or a killed launcher', async () => {
    expect(await leftoverCgroups()).toEqual([]);
    // While it runs: its launcher's cgroup, holding the command.
    const running = run(sandbox, ['sleep', '1'], { limits });
    await sleep(500);
    const [launcher] = ourLaunchers();
    const dir = launcherCgroups().find((d) => path.basename(d) === `msb-${launcher}`);
    expect(dir).toBeDefined();
    expect(readOr(path.join(dir, 'cgroup.procs'), '').trim().split('\n').length).toBeGreaterThanOrEqual(2);
    expect(readOr(path.join(dir, fs.existsSync(path.join(dir, 'memory.max')) ? 'memory.max' : 'memory.limit_in_bytes'), '').trim()).toBe(String(LIMIT));
    await running;
    expect(fs.existsSync(dir)).toBe(false);
    for (let i = 0; i < 20; i += 1) await run(sandbox, ['true'], { limits });
    expect(await leftoverCgroups()).toEqual([]);
    // A timeout kills the launcher's process group: exec removes the cgroup before it resolves.
    const timedOut = run(sandbox, ['sh', '-c', 'sleep 30 & sleep 30'], { limits, timeoutMs: 1000 });
    await sleep(500);
    const timedDirs = ourLaunchers().map((pid) => launcherCgroups().find((d) => path.basename(d) === `msb-${pid}`));
    expect(timedDirs).toHaveLength(1);
    expect((await timedOut).timedOut).toBe(true);
    expect(fs.existsSync(timedDirs[0])).toBe(false);
    // The launcher killed from outside (not through exec's timeout).
    const killed = run(sandbox, ['sleep', '30'], { limits });
    await sleep(500);
    const launchers = ourLaunchers();
    expect(launchers).toHaveLength(1);
    const killedDir = launcherCgroups().find((d) => path.basename(d) === `msb-${launchers[0]}`);
    expect(killedDir).toBeDefined();
    process.kill(launchers[0], 'SIGKILL');
    await killed.catch(() => {});
    expect(fs.existsSync(killedDir)).toBe(false);
    expect(await leftoverCgroups()).toEqual([]);
  }, 60_000);

  needsCgroup('[memory-cgroup] no cgroup is made when no memory limit is given', async () => {
    const running = run(sandbox, ['sleep', '1']);
    await sleep(500);
    const [launcher] = ourLaunchers();
    expect(launcher).toBeDefined();
    expect(launcherCgroups().filter((d) => path.basename(d) === `msb-${launcher}`)).toEqual([]);
    const result = await running;
    expect(result.enforcement.layers).not.toContain('memory-cgroup');
  });
});
