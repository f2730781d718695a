'use strict';

// What the command can learn of the host it runs on (its name, boot, cgroup, where the launcher
// is installed, the user's keys) and what kernel objects of the user it can take from the host.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { launcherPath } = require('../lib/exec/launcher');
const { testNeeding } = require('./helpers');
const { sleep, run, needs, useExecFixture } = require('./exec-helpers');

let root, sandbox; // set before each test
useExecFixture((fixture) => ({ root, sandbox } = fixture));

const REPOSITORY = path.resolve(__dirname, '..');
const PYTHON = '/usr/bin/python3';
const KEYCTL = ['/usr/bin/keyctl', '/bin/keyctl'].find((p) => fs.existsSync(p));
const withPython = testNeeding(fs.existsSync(PYTHON) ? null : `${PYTHON} is not installed`);
const withKeyctl = testNeeding(KEYCTL ? null : 'keyctl is not installed (Debian package keyutils)');

// Lines of a run's stdout, each "name: value".
function fields(stdout) {
  return Object.fromEntries(stdout.trim().split('\n').map((line) => {
    const colon = line.indexOf(': ');
    return [line.slice(0, colon), line.slice(colon + 2)];
  }));
}

describe('host identity', () => {
  // The tests below are skipped where their layer is missing; every kernel with Landlock (5.13+)
  // has all of these wherever it has user namespaces, so a missing one here is a launcher fault.
  needs(['user-namespace', 'landlock-fs'])('[user-namespace] with user namespaces, the UTS and cgroup namespaces, the inotify limit and an own session keyring are applied too', async () => {
    const result = await run(sandbox, ['true']);
    expect(result.enforcement.layers).toEqual(expect.arrayContaining(
      ['uts-namespace', 'cgroup-namespace', 'inotify-limit', 'own-session-keyring']));
  });

  needs('uts-namespace')('[uts-namespace] the command sees a hostname of its own, not the host\'s', async () => {
    const result = await run(sandbox, ['sh', '-c',
      'echo "uname: $(uname -n)"; echo "proc: $(cat /proc/sys/kernel/hostname)"; ' +
        'echo "domain: $(cat /proc/sys/kernel/domainname)"']);
    const seen = fields(result.stdout);
    expect(seen.uname).toBe('sandbox');
    expect(seen.proc).toBe('sandbox');
    expect(seen.domain).toBe('(none)');
    expect(seen.uname).not.toBe(os.hostname());
    const hostUname = spawnSync('uname', ['-n'], { encoding: 'utf8' }).stdout.trim();
    expect(seen.uname).not.toBe(hostUname);
    expect(result.enforcement.layers).toContain('uts-namespace');
  });

  needs('uts-namespace')('[uts-namespace] with the network off, /etc/hosts names the command\'s host, not the host\'s', async () => {
    const result = await run(sandbox, ['sh', '-c',
      'cat /etc/hosts; echo "sandbox: $(getent hosts sandbox)"; echo "localhost: $(getent hosts localhost)"']);
    const words = result.stdout.split(/\s+/);
    expect(words).not.toContain(os.hostname());
    expect(words).not.toContain(os.hostname().split('.')[0]);
    expect(result.stdout).toMatch(/^sandbox: 127\.0\.1\.1\s+sandbox$/m);
    expect(result.stdout).toMatch(/^localhost: (127\.0\.0\.1|::1)\s+localhost/m);
  });

  needs('private-proc')('[private-proc] the boot id is one of the run\'s own, not the host\'s', async () => {
    const host = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const read = ['cat', '/proc/sys/kernel/random/boot_id'];
    const first = (await run(sandbox, read)).stdout.trim();
    const second = (await run(sandbox, read)).stdout.trim();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first).not.toBe(host);
    expect(second).not.toBe(first);
  });

  needs('cgroup-namespace')('[cgroup-namespace] /proc/self/cgroup and /proc/1/cgroup show no host cgroup path', async () => {
    const result = await run(sandbox, ['sh', '-c', 'cat /proc/self/cgroup /proc/1/cgroup']);
    const lines = result.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    // "<id>:<controllers>:<path>": the namespace's root is "/", wherever the host put the launcher.
    for (const line of lines) expect(line).toMatch(/^\d+:[^:]*:\/$/);
    const host = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')
      .map((line) => line.split(':').slice(2).join(':'))
      .filter((p) => p && p !== '/');
    for (const hostPath of host) expect(result.stdout).not.toContain(hostPath);
    expect(result.enforcement.layers).toContain('cgroup-namespace');
  });

  // The PID namespace's init is the launcher: its command line, executable, mappings, environment,
  // directories and mount table would name where it is installed (the user's project or home).
  needs('private-proc')('[private-proc] /proc/1 and its task show neither the launcher\'s path nor the repository\'s', async () => {
    const entries = ['cmdline', 'maps', 'environ', 'mountinfo', 'mounts', 'stat', 'status', 'comm', 'sched'];
    const links = ['exe', 'cwd', 'root'];
    const script = ['/proc/1', '/proc/1/task/1'].map((dir) => [
      ...entries.map((e) => `echo "== ${dir}/${e}"; cat ${dir}/${e} 2>&1`),
      ...links.map((l) => `echo "== ${dir}/${l}"; readlink ${dir}/${l} 2>&1`),
    ].join('; ')).join('; ');
    const result = await run(sandbox, ['sh', '-c', script]);
    expect(result.stdout).toContain('== /proc/1/cmdline');
    const text = result.stdout.replace(/\0/g, ' ');
    for (const hostPath of [launcherPath(), path.dirname(launcherPath()), REPOSITORY, fs.realpathSync(REPOSITORY)]) {
      expect(text).not.toContain(hostPath);
    }
    // What the command can still read of its init: a neutral name.
    expect(text).toMatch(/== \/proc\/1\/cmdline\nmsb-launch == /);
  });
});

describe('the user\'s keys', () => {
  // Keys of the user whose descriptions name them (an ssh or a cloud login's token): one in the
  // session keyring the sandbox's process was started in, seen only by whoever possesses it, and
  // one in the user's keyring with the "user" type's default permissions (owner may view). Run from
  // a process in a session keyring of its own (keyctl session), as a login shell's is.
  const RUN_IN_SESSION = `
    const { spawnSync } = require('child_process');
    const { createMountSandbox } = require(process.argv[1]);
    const [keyctl, root, tag] = process.argv.slice(2);
    const added = [];
    const key = (args) => {
      const r = spawnSync(keyctl, args, { encoding: 'utf8' });
      if (r.status !== 0) throw new Error('keyctl ' + args.join(' ') + ': ' + r.stderr);
      return r.stdout.trim();
    };
    (async () => {
      try {
        const possessed = key(['add', 'user', tag + '-possessed', 'token', '@s']);
        added.push([possessed, '@s']);
        key(['setperm', possessed, '0x3f000000']);
        added.push([key(['add', 'user', tag + '-owned', 'token', '@u']), '@u']);
        const host = require('fs').readFileSync('/proc/keys', 'utf8');
        const sandbox = createMountSandbox({ root });
        const result = await sandbox.exec(['sh', '-c', 'cat /proc/keys /proc/key-users 2>&1; echo end']);
        console.log(JSON.stringify({ host, stdout: result.stdout, layers: result.enforcement.layers }));
      } finally {
        for (const [id, ring] of added) spawnSync(keyctl, ['unlink', id, ring]);
      }
    })().catch((e) => { console.error(e); process.exit(1); });`;

  (KEYCTL ? needs('private-proc') : withKeyctl)('[private-proc] /proc/keys and /proc/key-users show none of the user\'s keys, possessed or owned', () => {
    const tag = `msb-identity-${process.pid}-${Date.now()}`;
    const ran = spawnSync(KEYCTL, ['session', '-', process.execPath, '-e', RUN_IN_SESSION,
      path.join(REPOSITORY, 'lib'), KEYCTL, root, tag], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: ran.status, stderr: ran.stderr.replace(/^Joined session keyring: \d+\n/, '') })
      .toEqual({ status: 0, stderr: '' });
    const { host, stdout, layers } = JSON.parse(ran.stdout);
    // The control: the host lists both to the process that added them.
    expect(host).toContain(`${tag}-possessed`);
    expect(host).toContain(`${tag}-owned`);
    expect(stdout).toContain('end');
    expect(stdout).not.toContain(tag);
    expect(stdout).not.toMatch(/_uid|_ses|keyring|user/);
    expect(layers).toContain('own-session-keyring');
  });
});

// Opens inotify instances until the kernel refuses, prints how many it got, then holds them until
// the file named by argv[1] appears (or 20 s passed).
const INOTIFY_HOG = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
fds = []
while True:
    fd = libc.inotify_init1(0o2000000)
    if fd < 0:
        break
    fds.append(fd)
print("got %d errno %d" % (len(fds), ctypes.get_errno()), flush=True)
open(sys.argv[2], "w").close()
deadline = time.time() + 20
while not os.path.exists(sys.argv[1]) and time.time() < deadline:
    time.sleep(0.05)
`;

const INOTIFY_ONE = `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0o2000000)
print("ok" if fd >= 0 else "errno %d" % ctypes.get_errno())
`;

describe('kernel objects of the user', () => {
  const hostLimit = () => Number(fs.readFileSync('/proc/sys/user/max_inotify_instances', 'utf8'));

  needs('inotify-limit')('[inotify-limit] the command\'s user namespace allows half of each of the user\'s inotify and fanotify limits', async () => {
    const names = ['max_inotify_instances', 'max_inotify_watches', 'max_fanotify_groups', 'max_fanotify_marks']
      .filter((name) => fs.existsSync(`/proc/sys/user/${name}`));
    const result = await run(sandbox, ['sh', '-c', names.map((n) => `echo "${n}: $(cat /proc/sys/user/${n})"`).join('; ')]);
    const seen = fields(result.stdout);
    for (const name of names) {
      const host = Number(fs.readFileSync(`/proc/sys/user/${name}`, 'utf8'));
      expect([name, Number(seen[name])]).toEqual([name, Math.floor(host / 2)]);
    }
    if (names.includes('max_fanotify_groups')) expect(result.enforcement.layers).toContain('fanotify-limit');
  });

  (fs.existsSync(PYTHON) ? needs('inotify-limit') : withPython)('[inotify-limit] the command takes at most half the user\'s inotify instances; the host still gets one while it holds them', async () => {
    const release = path.join(root, 'release');
    const holding = path.join(root, 'holding');
    const running = run(sandbox, [PYTHON, '-c', INOTIFY_HOG, '/workspace/release', '/workspace/holding'],
      { timeoutMs: 60_000 });
    let host;
    try {
      for (let i = 0; i < 400 && !fs.existsSync(holding); i += 1) await sleep(50);
      expect(fs.existsSync(holding)).toBe(true);
      // A host process of the same user, started while the command holds its share.
      host = await new Promise((resolve) => {
        const child = spawn(PYTHON, ['-c', INOTIFY_ONE], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d) => { out += d; });
        child.on('close', () => resolve(out.trim()));
      });
    } finally {
      fs.writeFileSync(release, '');
    }
    const result = await running;
    const got = Number(/^got (\d+) errno (\d+)$/m.exec(result.stdout)[1]);
    expect(result.stdout).toMatch(/errno 24\n/); // EMFILE: the limit, not another failure
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThanOrEqual(Math.floor(hostLimit() / 2));
    expect(host).toBe('ok');
    expect(result.enforcement.layers).toContain('inotify-limit');
  }, 90_000);
});
