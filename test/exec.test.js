'use strict';

// Attacks run by real programs under sandbox.exec(): each test plants a secret, a target or a
// listener outside what the sandbox allows, runs /bin/sh, cat, chmod, touch, ls or node to reach
// it, and checks on disk (or at the listener) that nothing happened, not only the exit code.
// Each name starts with the enforcement layer it relies on; a test whose layer this kernel lacks
// is skipped with the reason printed. The suite runs as root and as an unprivileged user (CI
// reruns it with setpriv), so everything it touches lives in its own temp directories.
const fs = require('fs');
const net = require('net');
const os = require('os');
const dgram = require('dgram');
const path = require('path');
const { execFileSync, spawn, spawnSync } = require('child_process');
const {
  createMountSandbox,
  SandboxError,
  InvalidPathError,
  NotFoundError,
  SymlinkError,
  ExecEnforcementError,
  ExecError,
} = require('../lib');
const { launcherPath } = require('../lib/launcher');
const { makeTempDir, makeTempLayout, removeDir, snapshotTree, settleWithin, write } = require('./helpers');

const SECRET = 'TOP-SECRET-CONTENT';
const PERL = '/usr/bin/perl';
const q = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const IS_ROOT = typeof process.getuid === 'function' && process.geteuid() === 0;

// System directories, as a hand-written launcher policy grants them (see launchPolicy in
// lib/exec.js): nothing of the test's temp directories.
// Each placed at its own path when the launcher builds the command's root.
const SYSTEM_READ = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']
  .filter((p) => fs.existsSync(p))
  .map((p) => ({ path: p, access: 'read', target: p }));

function launcherPolicy(argv, extra = {}) {
  return {
    argv,
    env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'LANG=C.UTF-8'],
    cwd: '/',
    paths: SYSTEM_READ,
    network: false,
    namespaces: 'prefer',
    allowWeaker: false,
    limits: { processes: 512 }, // exec's default
    ...extra,
  };
}

// Runs msb-launch directly, as lib/exec.js does: no arguments, the policy on descriptor 4 (here
// a file), the status channel on 3; `fd`, if given, is passed on as descriptor 5. Returns the
// command's stdout and stderr and the launcher's status lines.
function launchSync(policy, fd) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-exec-policy-'));
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  const policyFd = fs.openSync(file, 'r');
  try {
    const r = spawnSync(launcherPath(), [], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', policyFd, ...(fd === undefined ? [] : [fd])],
      env: {},
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { stdout: r.output[1] || '', stderr: r.output[2] || '', status: r.output[3] || '' };
  } finally {
    fs.closeSync(policyFd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// What this kernel offers, asked of the launcher before the tests are collected (so a missing
// layer can skip them): a trivial command with every layer it can apply.
function probeLayers() {
  const run = launchSync(launcherPolicy(['true'], { allowWeaker: true }));
  const line = run.status.split('\n').find((l) => l.startsWith('ok '));
  if (!line) throw new Error(`the exec launcher probe failed: ${run.status} ${run.stderr}`);
  const [, abi, applied, missing] = line.split(' ');
  const list = (s) => (s === '-' ? [] : s.split(','));
  return { landlockAbi: Number(abi), layers: list(applied), missing: list(missing) };
}

const PROBE = probeLayers();
const LAYERS = PROBE.layers;

// Where the kernel refuses unprivileged user namespaces, commands run without that layer
// (namespaces: 'prefer'), which exec refuses for root: then no command runs at all.
const NAMESPACES = LAYERS.includes('user-namespace');
// With the namespace layer the command runs in a root built for it, the sandbox at /workspace
// (a host path of the sandbox does not exist there), with a network namespace of its own when the
// network is off.
const VIEW = LAYERS.includes('private-root');
const NETNS = LAYERS.includes('network-namespace');
const seen = (virtual, host) => (VIEW ? `/workspace${virtual === '/' ? '' : virtual}` : host);
const EXEC_DEFAULTS = NAMESPACES ? {} : { namespaces: 'prefer' };
const CAN_EXEC = NAMESPACES || !IS_ROOT;

function run(sb, argv, options = {}) {
  return sb.exec(argv, { ...EXEC_DEFAULTS, ...options });
}

function skipped(reason) {
  return (name, fn, timeout) => {
    console.log(`skipped "${name}": ${reason}`);
    test.skip(`${name} (skipped: ${reason})`, fn, timeout);
  };
}

// `test` when every named layer is applied here (any one of them with { any: true }) and
// commands can run at all, else a skipped test whose reason is printed.
function needs(layers, { any = false } = {}) {
  const list = Array.isArray(layers) ? layers : [layers];
  if (!CAN_EXEC) return skipped('running as root without user namespaces, exec refuses every command');
  const ok = list.length === 0 ||
    (any ? list.some((l) => LAYERS.includes(l)) : list.every((l) => LAYERS.includes(l)));
  if (ok) return test;
  return skipped(`kernel lacks ${list.filter((l) => !LAYERS.includes(l)).join(any ? ' and ' : ', ')}`);
}

function needsPerl(layers) {
  return fs.existsSync(PERL) ? needs(layers) : skipped(`${PERL} is not installed`);
}

// Node inside the sandbox: where it lives must be readable (an nvm install is not under /usr).
const NODE = process.execPath;
const NODE_HOME = path.dirname(path.dirname(fs.realpathSync(NODE)));
const NODE_OPTIONS = ['/usr', '/bin'].some((d) => fs.realpathSync(NODE).startsWith(`${d}/`))
  ? {}
  : { hostReadPaths: [NODE_HOME] };

function nodeScript(code) {
  return [NODE, '-e', code];
}

// A node snippet that connects (TCP or unix) and reports the outcome.
function connectScript(target) {
  return `
    const s = require('net').connect(${JSON.stringify(target)});
    s.on('connect', () => { console.log('connected'); s.destroy(); });
    s.on('error', (e) => { console.error('connect error: ' + e.code + ' ' + e.message); process.exit(1); });`;
}

function countingServer() {
  const server = net.createServer((socket) => {
    server.connections += 1;
    server.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => server.sockets.delete(socket));
    socket.end();
  });
  server.connections = 0;
  server.sockets = new Set();
  return server;
}

const listen = (server, ...args) =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(...args, () => resolve());
  });

// Closes a listener, and the connections it accepted (a test that failed may leave one open).
function closeServer(server) {
  for (const socket of server.sockets || []) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

// Tries 127.0.0.1:port() every 50 ms until `running` settles (port() <= 0: not yet known);
// returns how many connections were accepted.
async function connectionsWhile(running, port) {
  let done = false;
  running.then(() => { done = true; }, () => { done = true; });
  let accepted = 0;
  while (!done) {
    const p = port();
    if (p > 0) {
      accepted += await new Promise((resolve) => {
        const c = net.connect({ host: '127.0.0.1', port: p }, () => { c.destroy(); resolve(1); });
        c.on('error', () => resolve(0));
      });
    }
    await sleep(50);
  }
  return accepted;
}

// Size of a file, or -1 when absent.
function sizeOf(file) {
  try {
    return fs.statSync(file).size;
  } catch {
    return -1;
  }
}

let base;
let root; // the sandbox's writable root
let home; // a temp "home" outside every mount, holding a secret
let outside; // a directory outside every mount, for write attempts
let ro; // a read-only mount's source, outside the root
let data; // a writable mount's source
let untouched; // snapshots of home, outside and ro, compared after every test
let sandbox;

beforeEach(() => {
  ({ base, root, home, outside, ro, data } = makeTempLayout(['root', 'home', 'outside', 'ro', 'data'], 'msb-exec-'));
  write(path.join(root, 'inside.txt'), 'inside');
  write(path.join(home, '.ssh', 'id_rsa'), SECRET);
  write(path.join(home, 'secret.txt'), SECRET);
  write(path.join(outside, 'existing.txt'), 'original');
  write(path.join(ro, 'ro.txt'), 'read-only content');
  fs.mkdirSync(path.join(ro, 'sub'));
  write(path.join(data, 'data.txt'), 'data');
  untouched = [home, outside, ro].map((dir) => snapshotTree(dir));
  sandbox = createMountSandbox({
    root,
    mounts: [
      { source: ro, target: '/ro', readonly: true },
      { source: data, target: '/data' },
    ],
  });
});

afterEach(() => {
  try {
    expect([home, outside, ro].map((dir) => snapshotTree(dir))).toEqual(untouched);
  } finally {
    removeDir(base);
  }
});

describe('[all] enforcement report', () => {
  needs([])('[all] the result reports the layers applied, as the launcher probe found them', async () => {
    const result = await run(sandbox, ['true'], { allowWeakerEnforcement: true });
    expect(result.exitCode).toBe(0);
    expect(result.enforcement.layers).toEqual(PROBE.layers);
    expect(result.enforcement.missing).toEqual(PROBE.missing);
    expect(result.enforcement.landlockAbi).toBe(PROBE.landlockAbi);
  });

  needs(['landlock-fs', 'seccomp'])('[landlock-fs, seccomp] a plain exec reports at least no-new-privs, landlock-fs and seccomp', async () => {
    const result = await run(sandbox, ['true']);
    expect(result.enforcement.landlockAbi).toBeGreaterThanOrEqual(1);
    expect(result.enforcement.layers).toEqual(expect.arrayContaining(['no-new-privs', 'landlock-fs', 'seccomp']));
    expect(result.enforcement.layers).toEqual(PROBE.layers);
    expect(Array.isArray(result.enforcement.missing)).toBe(true);
    for (const layer of result.enforcement.layers) expect(result.enforcement.missing).not.toContain(layer);
  });

  needs('no-capabilities')('[no-capabilities] the command holds no capabilities; no_new_privs and seccomp are set', async () => {
    const result = await run(sandbox, ['sh', '-c', 'grep -E "^(Cap[A-Za-z]+|NoNewPrivs|Seccomp):" /proc/self/status']);
    const status = Object.fromEntries(result.stdout.trim().split('\n').map((line) => line.split(/:\s+/)));
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapAmb']) expect([set, status[set]]).toEqual([set, '0000000000000000']);
    // In the user namespace the launcher could drop the bounding set too.
    if (result.enforcement.layers.includes('user-namespace')) expect(status.CapBnd).toBe('0000000000000000');
    expect(status.NoNewPrivs).toBe('1');
    expect(status.Seccomp).toBe('2');
  });

  test('[namespaces] namespaces: "off" where the namespace layer is required is refused unless weaker enforcement is allowed', async () => {
    // A read-only mount inside the writable root needs the namespace layer, as does root.
    const nested = path.join(root, 'nested');
    write(path.join(nested, 'n.txt'), 'nested');
    const strict = createMountSandbox({ root, mounts: [{ source: nested, target: '/nested', readonly: true }] });
    const err = await run(strict, ['sh', '-c', `echo ran > ${q(path.join(data, 'ran'))}`], { namespaces: 'off' }).catch((e) => e);
    expect(err).toBeInstanceOf(ExecEnforcementError);
    expect(err.code).toBe('ENFORCEMENT_UNAVAILABLE');
    expect(err.missing).toEqual(['namespaces']);
    expect(fs.existsSync(path.join(data, 'ran'))).toBe(false);

    if (IS_ROOT) {
      // As root the plain sandbox needs them too.
      const plain = await run(sandbox, ['true'], { namespaces: 'off' }).catch((e) => e);
      expect(plain).toBeInstanceOf(ExecEnforcementError);
      expect(plain.missing).toEqual(['namespaces']);
    } else {
      const plain = await run(sandbox, ['true'], { namespaces: 'off' });
      expect(plain.exitCode).toBe(0);
      expect(plain.enforcement.missing).toContain('namespaces');
      expect(plain.enforcement.layers).not.toContain('mount-namespace');
    }
    const weaker = await run(sandbox, ['true'], { namespaces: 'off', allowWeakerEnforcement: true });
    expect(weaker.exitCode).toBe(0);
    expect(weaker.enforcement.missing).toContain('namespaces');
    expect(weaker.enforcement.layers).not.toContain('mount-namespace');
  });
});

describe('[landlock-fs] reading outside the sandbox', () => {
  needs('landlock-fs')('[landlock-fs] cat of a secret in a home directory outside the mounts fails', async () => {
    const result = await run(sandbox, ['cat', path.join(home, 'secret.txt'), path.join(home, '.ssh', 'id_rsa')]);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stderr).toMatch(VIEW ? /No such file or directory/ : /Permission denied/);
    expect(result.stderr).not.toContain(SECRET);
  });

  needs('landlock-fs')('[landlock-fs] cat through symlinks in the writable root that point at the secret fails', async () => {
    fs.symlinkSync(path.join(home, 'secret.txt'), path.join(root, 'abs-link'));
    fs.symlinkSync('../home/secret.txt', path.join(root, 'rel-link'));
    fs.symlinkSync(home, path.join(root, 'home-link'));
    const result = await run(sandbox, ['sh', '-c', 'cat abs-link; cat rel-link; cat home-link/secret.txt; cat home-link/.ssh/id_rsa']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stderr).not.toContain(SECRET);
  });

  needs('landlock-fs')('[landlock-fs] a symlink the command makes itself, cp, and a hard link do not reach the secret', async () => {
    const result = await run(sandbox, [
      'sh', '-c',
      `ln -s ${q(path.join(home, 'secret.txt'))} mine; cat mine; cp ${q(path.join(home, 'secret.txt'))} copy.txt;` +
        ` ln ${q(path.join(home, 'secret.txt'))} hard; cat hard; mv ${q(path.join(home, 'secret.txt'))} moved.txt; cat moved.txt`,
    ]);
    expect(result.stdout).not.toContain(SECRET);
    expect(fs.existsSync(path.join(root, 'copy.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'hard'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'moved.txt'))).toBe(false);
  });

  needs('landlock-fs')('[landlock-fs / private-proc] the Jest process\'s open descriptor to the secret is not reachable through /proc', async () => {
    const fd = fs.openSync(path.join(home, 'secret.txt'), 'r');
    try {
      const result = await run(sandbox, [
        'sh', '-c',
        `cat /proc/${process.pid}/fd/${fd}; cat /proc/self/root${home}/secret.txt; cat /proc/1/root${home}/secret.txt`,
      ]);
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).not.toContain(SECRET);
    } finally {
      fs.closeSync(fd);
    }
  });
});

describe('writing outside the sandbox', () => {
  needs('landlock-fs')('[landlock-fs] creating, overwriting and deleting outside the mounts fails', async () => {
    const result = await run(sandbox, [
      'sh', '-c',
      `echo pwned > ${q(path.join(outside, 'new.txt'))}; echo pwned > ${q(path.join(outside, 'existing.txt'))};` +
        ` touch ${q(path.join(outside, 'touched'))}; mkdir ${q(path.join(outside, 'dir'))};` +
        ` rm -f ${q(path.join(home, 'secret.txt'))}; mv ${q(path.join(root, 'inside.txt'))} ${q(outside)}/`,
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'existing.txt'), 'utf8')).toBe('original');
    expect(fs.existsSync(path.join(outside, 'touched'))).toBe(false);
    expect(fs.readFileSync(path.join(home, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(fs.readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('inside');
  });

  needs('landlock-fs')('[landlock-fs] writing to a read-only mount fails and its content is unchanged', async () => {
    const result = await run(sandbox, [
      'sh', '-c', 'echo pwned > ro.txt; echo pwned >> ro.txt; echo new > new.txt; rm -f ro.txt; mkdir d; mv ro.txt ../data/',
    ], { cwd: '/ro' });
    expect(result.exitCode).not.toBe(0);
    expect(fs.readFileSync(path.join(ro, 'ro.txt'), 'utf8')).toBe('read-only content');
    expect(fs.existsSync(path.join(ro, 'new.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ro, 'd'))).toBe(false);
    // mv falls back to copy and unlink: the copy out is allowed, the unlink is not.
    expect(fs.readFileSync(path.join(data, 'ro.txt'), 'utf8')).toBe('read-only content');
  });

  needs('landlock-fs')('[landlock-fs] writing through symlinks in the writable root that point outside fails', async () => {
    fs.symlinkSync(path.join(outside, 'created.txt'), path.join(root, 'dangling'));
    fs.symlinkSync(path.join(outside, 'existing.txt'), path.join(root, 'existing-link'));
    fs.symlinkSync(outside, path.join(root, 'outdir'));
    fs.symlinkSync(path.join(ro, 'ro.txt'), path.join(root, 'ro-link'));
    const result = await run(sandbox, [
      'sh', '-c',
      'echo pwned > dangling; echo pwned > existing-link; echo pwned > outdir/via-dir.txt; echo pwned > ro-link; touch outdir/t',
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(fs.existsSync(path.join(outside, 'created.txt'))).toBe(false);
    expect(fs.existsSync(path.join(outside, 'via-dir.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'existing.txt'), 'utf8')).toBe('original');
    expect(fs.readFileSync(path.join(ro, 'ro.txt'), 'utf8')).toBe('read-only content');
  });

  needs('landlock-fs')('[landlock-fs] a backgrounded grandchild writing outside is confined too', async () => {
    const result = await run(sandbox, [
      'sh', '-c',
      `sh -c '( echo pwned > ${path.join(outside, 'grandchild.txt')} ) & wait'; ` +
        `sh -c 'sh -c "cat ${path.join(home, 'secret.txt')}"'`,
    ]);
    expect(result.stderr).toMatch(VIEW ? /No such file or directory/ : /Permission denied/); // the attempt was made
    expect(result.stdout).not.toContain(SECRET);
    expect(fs.existsSync(path.join(outside, 'grandchild.txt'))).toBe(false);
  });

  describe('a read-only mount whose source lies inside the writable root', () => {
    let inner;
    let nested;

    beforeEach(() => {
      inner = path.join(root, 'inner');
      write(path.join(inner, 'inner.txt'), 'inner content');
      nested = createMountSandbox({ root, mounts: [{ source: inner, target: '/inner', readonly: true }] });
    });

    needs('mount-namespace')('[mount-namespace] writing into it fails (Landlock alone would allow it)', async () => {
      const before = snapshotTree(inner);
      const result = await run(nested, [
        'sh', '-c',
        'echo pwned > inner/inner.txt; echo new > inner/new.txt; rm -f inner/inner.txt; chmod 777 inner/inner.txt; echo ok > top.txt',
      ]);
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(result.enforcement.layers).toContain('mount-namespace');
      expect(snapshotTree(inner)).toEqual(before);
      // The rest of the root stays writable.
      expect(fs.readFileSync(path.join(root, 'top.txt'), 'utf8')).toBe('ok\n');
    });

    // The command may hold capabilities in its user namespace: the read-only bind the launcher
    // made there must not be one it can make writable again.
    needsPerl('mount-namespace')('[mount-namespace, seccomp / no-capabilities] the command cannot clear the read-only flag of its bind (mount_setattr) and then write', async () => {
      const before = snapshotTree(inner);
      const result = await run(nested, [
        'sh', '-c', `${unlockMounts(inner)}; echo pwned > inner/inner.txt; chmod 777 inner/inner.txt; echo new > inner/new.txt`,
      ]);
      expect(snapshotTree(inner)).toEqual(before);
      expect(result.stdout).toMatch(/mount_setattr /);
      expect(result.stdout).not.toMatch(/^mount_setattr .*=0$/m);
    });
  });
});

// A perl one-liner that clears MOUNT_ATTR_RDONLY (recursively) on every mount holding `target`,
// as a command holding CAP_SYS_ADMIN in its user namespace could: mount_setattr(AT_FDCWD,
// mountpoint, AT_RECURSIVE, { attr_clr: MOUNT_ATTR_RDONLY }, 32), syscall 442 on x86_64 and
// aarch64 alike. Prints "mount_setattr <mountpoint>=<result>" for each.
function unlockMounts(target) {
  const script = `
    my $t = shift;
    open(my $mi, "<", "/proc/self/mountinfo") or die "mountinfo: $!";
    while (<$mi>) {
      my $mp = (split / /)[4];
      $mp =~ s/\\\\([0-7]{3})/chr(oct($1))/ge;
      next unless $t eq $mp || $mp eq "/" || index($t, "$mp/") == 0;
      my $attr = pack("QQQQ", 0, 1, 0, 0);
      my $r = syscall(442, -100, $mp, 0x8000, $attr, 32);
      print "mount_setattr $mp=$r\\n";
    }`;
  return `${PERL} -e ${q(script)} ${q(target)}`;
}

describe('[mount-namespace] metadata of read-only mounts', () => {
  needs('mount-namespace')('[mount-namespace] chmod and touch -d on a read-only mount fail and leave mode and mtime unchanged', async () => {
    const file = path.join(ro, 'ro.txt');
    const dir = path.join(ro, 'sub');
    const before = [fs.statSync(file), fs.statSync(dir)].map((s) => [s.mode, s.mtimeMs]);
    // Control: the same commands work on the writable root.
    const result = await run(sandbox, [
      'sh', '-c',
      `chmod 600 inside.txt && touch -d '2001-02-03 04:05:06' inside.txt && echo control-ok; ` +
        `chmod 777 ${q(seen('/ro/ro.txt', file))}; chmod 700 ${q(seen('/ro/sub', dir))}; ` +
        `touch -d '2001-02-03 04:05:06' ${q(seen('/ro/ro.txt', file))}; touch -m -d '2001-02-03' ${q(seen('/ro/sub', dir))}`,
    ]);
    expect(result.stdout).toContain('control-ok');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/Read-only file system|Permission denied|Operation not permitted/);
    expect(fs.statSync(path.join(root, 'inside.txt')).mode & 0o777).toBe(0o600);
    const after = [fs.statSync(file), fs.statSync(dir)].map((s) => [s.mode, s.mtimeMs]);
    expect(after).toEqual(before);
  });

  needsPerl('mount-namespace')('[mount-namespace, seccomp / no-capabilities] the command cannot clear the read-only flag of the mounts above a read-only mount (mount_setattr), then chmod', async () => {
    const file = path.join(ro, 'ro.txt');
    const before = fs.statSync(file);
    const result = await run(sandbox, [
      'sh', '-c', `${unlockMounts(seen('/ro', ro))}; chmod 777 ${q(seen('/ro/ro.txt', file))}; touch -d '2001-02-03 04:05:06' ${q(seen('/ro/ro.txt', file))}`,
    ]);
    expect(result.stdout).toMatch(/mount_setattr /);
    expect(result.stdout).not.toMatch(/^mount_setattr .*=0$/m);
    const after = fs.statSync(file);
    expect([after.mode, after.mtimeMs]).toEqual([before.mode, before.mtimeMs]);
  });
});

describe('network off', () => {
  let server;

  beforeEach(async () => {
    server = countingServer();
    await listen(server, 0, '127.0.0.1');
  });

  afterEach(() => closeServer(server));

  needs(['seccomp', 'landlock-net'], { any: true })('[seccomp / landlock-net] a TCP connect to a listener on 127.0.0.1 fails and the listener sees nothing', async () => {
    const { port } = server.address();
    const result = await run(sandbox, nodeScript(connectScript({ host: '127.0.0.1', port })), NODE_OPTIONS);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain('connected');
    // In its own network namespace the command's 127.0.0.1 is its own: nothing listens there.
    expect(result.stderr).toMatch(NETNS ? /ECONNREFUSED/ : /EACCES/);
    await sleep(100);
    expect(server.connections).toBe(0);
  });

  needs([])('[control] the same TCP connect succeeds with { network: true }', async () => {
    const { port } = server.address();
    const result = await run(sandbox, nodeScript(connectScript({ host: '127.0.0.1', port })), { ...NODE_OPTIONS, network: true });
    expect(result.stdout).toContain('connected');
    expect(result.exitCode).toBe(0);
    for (let i = 0; i < 100 && server.connections === 0; i++) await sleep(20);
    expect(server.connections).toBe(1);
  });

  needs(['seccomp', 'landlock-net'], { any: true })('[seccomp / landlock-net] listening on a TCP port fails (nothing answers on it while the command runs)', async () => {
    const probe = net.createServer();
    await listen(probe, 0, '127.0.0.1');
    const { port } = probe.address();
    await closeServer(probe);
    const script = `
      const s = require('net').createServer((c) => c.end('from-sandbox'));
      s.on('error', (e) => { console.error('listen error: ' + e.code); setTimeout(() => process.exit(1), 1500); });
      s.listen(${port}, '127.0.0.1', () => { console.log('listening'); setTimeout(() => process.exit(0), 1500); });`;
    const running = run(sandbox, nodeScript(script), NODE_OPTIONS);
    const answered = await connectionsWhile(running, () => port);
    const result = await running;
    if (NETNS) {
      // It may listen on its own loopback (test suites do), which the host cannot reach.
      expect(result.stdout).toContain('listening');
    } else {
      expect(result.stdout).not.toContain('listening');
      expect(result.stderr).toMatch(/EACCES/);
    }
    expect(answered).toBe(0);
  });

  // Landlock checks connect() and bind(); a Fast Open sendto() and listen()'s automatic bind go
  // around both, so with the network off socket() itself must fail.
  needsPerl('seccomp')('[seccomp] a TCP Fast Open sendto to the listener does not reach it', async () => {
    const { port } = server.address();
    const perl = `use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\\n";
      my $r = send($s, "fast-open", 0x20000000, pack_sockaddr_in(${port}, inet_aton("127.0.0.1")));
      print defined $r ? "sent=$r\\n" : "send: $!\\n"; sleep 1;`;
    const result = await run(sandbox, [PERL, '-e', perl]);
    expect(result.stdout).not.toMatch(/sent=/);
    await sleep(100);
    expect(server.connections).toBe(0);
  });

  needsPerl('seccomp')('[seccomp] listen() without bind (automatic port) does not open a port', async () => {
    const portFile = path.join(root, 'port.txt');
    const perl = `use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\\n";
      listen($s, 5) or die "listen: $!\\n"; my ($port) = unpack_sockaddr_in(getsockname($s));
      open(my $f, ">", "port.txt") or die; print $f $port; close $f; print "listening\\n"; sleep 2;`;
    const running = run(sandbox, [PERL, '-e', perl]);
    const answered = await connectionsWhile(running, () => Number(fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8') : 0));
    const result = await running;
    if (NETNS) {
      expect(result.stdout).toContain('listening');
    } else {
      expect(result.stdout).not.toContain('listening');
      expect(fs.existsSync(portFile)).toBe(false);
    }
    expect(answered).toBe(0);
  });

  needs('seccomp')('[seccomp] a UDP send to a socket bound on 127.0.0.1 fails and nothing is received', async () => {
    const udp = dgram.createSocket('udp4');
    let received = 0;
    udp.on('message', () => { received += 1; });
    await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const script = (port) => `
      const s = require('dgram').createSocket('udp4');
      s.on('error', (e) => { console.error('udp error: ' + e.message); process.exit(1); });
      s.send('attack', ${port}, '127.0.0.1', (e) => { if (e) { console.error('send error: ' + e.code); process.exit(1); } console.log('sent'); s.close(); });`;
    try {
      const { port } = udp.address();
      const result = await run(sandbox, nodeScript(script(port)), NODE_OPTIONS);
      if (!NETNS) {
        expect(result.exitCode).not.toBe(0);
        expect(result.stdout).not.toContain('sent');
        expect(result.stderr).toMatch(/EACCES/);
        expect(result.stderr).toMatch(/Note: Network access is disabled for this worker\.\n$/);
        expect(result.stderr).not.toMatch(/can write only/);
      }
      await sleep(200);
      expect(received).toBe(0);
      // Control: with the network on, the datagram arrives.
      const allowed = await run(sandbox, nodeScript(script(port)), { ...NODE_OPTIONS, network: true });
      expect(allowed.stdout).toContain('sent');
      for (let i = 0; i < 100 && received === 0; i++) await sleep(20);
      expect(received).toBe(1);
    } finally {
      udp.close();
    }
  });

  (NETNS ? skipped('in its own network namespace the command may use unix sockets: see "what the command can reach of the host besides files"') : needs('seccomp'))('[seccomp] connecting to a unix socket in the writable root fails and the server sees nothing', async () => {
    const unix = countingServer();
    const socketPath = path.join(root, 'app.sock');
    await listen(unix, socketPath);
    try {
      const result = await run(sandbox, nodeScript(connectScript(socketPath)), NODE_OPTIONS);
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).not.toContain('connected');
      expect(result.stderr).toMatch(/EACCES/);
      await sleep(100);
      expect(unix.connections).toBe(0);
      // Control: with the network on, it connects.
      const allowed = await run(sandbox, nodeScript(connectScript(socketPath)), { ...NODE_OPTIONS, network: true });
      expect(allowed.stdout).toContain('connected');
      for (let i = 0; i < 100 && unix.connections === 0; i++) await sleep(20);
      expect(unix.connections).toBe(1);
    } finally {
      await closeServer(unix);
    }
  });
});

describe('processes the command leaves behind', () => {
  // A loop that appends to a marker in the writable root for at most ~10 s; the command waits
  // until the marker exists, so the grandchild was surely running when the command ended.
  function markerLoop(marker, { setsid }) {
    const loop = `i=0; while [ $i -lt 200 ]; do echo x >> ${marker}; i=$((i+1)); sleep 0.05; done`;
    return `${setsid ? 'setsid ' : ''}sh -c '${loop}' </dev/null >/dev/null 2>&1 & ` +
      `while [ ! -s ${marker} ]; do sleep 0.02; done; echo started`;
  }

  async function expectStopsGrowing(marker) {
    await sleep(300); // a write already under way may still land
    const first = sizeOf(marker);
    expect(first).toBeGreaterThan(0);
    await sleep(700);
    expect(sizeOf(marker)).toBe(first);
  }

  needs([])('[pid-namespace / process group] a backgrounded grandchild does not outlive the command', async () => {
    const marker = path.join(root, 'marker');
    const result = await run(sandbox, ['sh', '-c', markerLoop(seen('/marker', marker), { setsid: false })]);
    expect(result.stdout).toBe('started\n');
    await expectStopsGrowing(marker);
  });

  needs('pid-namespace')('[pid-namespace] a grandchild that started its own session (setsid) does not outlive the command', async () => {
    const marker = path.join(root, 'marker');
    const result = await run(sandbox, ['sh', '-c', markerLoop(seen('/marker', marker), { setsid: true })]);
    expect(result.stdout).toBe('started\n');
    await expectStopsGrowing(marker);
  });

  needs(['pid-namespace', 'landlock-signal-scope'], { any: true })('[pid-namespace / landlock-signal-scope] a process outside the sandbox cannot be signalled (kill, pidfd via /proc)', async () => {
    const victim = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pidfd = `open(my $fh, "<", "/proc/${victim.pid}") or die "open: $!"; my $r = syscall(424, fileno($fh), 9, 0, 0); print "pidfd_send_signal=$r\\n";`;
      const perl = fs.existsSync(PERL) ? `; ${PERL} -e ${q(pidfd)}` : '';
      const result = await run(sandbox, ['sh', '-c', `kill -9 ${victim.pid}; echo "kill=$?"${perl}`]);
      expect(result.stdout).toMatch(/^kill=[1-9]/m);
      expect(result.stdout).not.toMatch(/^pidfd_send_signal=0$/m);
      await sleep(200);
      expect(victim.exitCode).toBeNull();
      expect(victim.signalCode).toBeNull();
    } finally {
      victim.kill('SIGKILL');
    }
  });
});

describe('[close_range] inherited descriptors', () => {
  test('[close_range] a descriptor open on a secret, passed to msb-launch, is closed before the command runs', () => {
    const fd = fs.openSync(path.join(home, 'secret.txt'), 'r');
    try {
      const script = 'cat <&4; cat <&5; ls /proc/self/fd';
      // Control: without the launcher, the command reads the secret through those descriptors.
      const leaked = spawnSync('sh', ['-c', script], {
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', fd, fd],
        env: { PATH: '/usr/bin:/bin' },
        encoding: 'utf8',
      });
      expect(leaked.stdout).toContain(SECRET);
      // allowWeaker: this test is about descriptors, whatever layers the kernel offers.
      const result = launchSync(launcherPolicy(['sh', '-c', script], { allowWeaker: true }), fd);
      expect(result.status).toMatch(/^ok /m);
      expect(result.stdout).not.toContain(SECRET);
      expect(result.stdout).not.toContain('"argv"'); // nor the policy
      expect(result.stderr).toMatch(/Bad file descriptor/);
      // 3 is the directory ls opened (the status channel is close-on-exec).
      expect(result.stdout.trim().split('\n').sort()).toEqual(['0', '1', '2', '3']);
    } finally {
      fs.closeSync(fd);
    }
  });

  needs([])('[close_range] a command run by sandbox.exec has only stdin, stdout and stderr open', async () => {
    const result = await run(sandbox, ['ls', '-l', '/proc/self/fd']);
    expect(result.exitCode).toBe(0);
    const fds = result.stdout.split('\n').map((line) => line.match(/ (\d+) -> (.*)$/)).filter(Boolean);
    const others = fds.filter(([, n]) => !['0', '1', '2'].includes(n));
    // Only the descriptor ls opened to list the directory.
    expect(others.length).toBeLessThanOrEqual(1);
    for (const [, , target] of others) expect(target).toMatch(/^\/proc\/\d+\/fd$/);
  });
});

describe('timeouts and output limits', () => {
  needs([])('[pid-namespace / process group] a timeout kills the whole process tree and the call returns', async () => {
    const marker = path.join(root, 'late.txt');
    const result = await settleWithin(
      run(sandbox, ['sh', '-c', `(sleep 1; echo late > ${marker}) & sleep 60 & sleep 60`], { timeoutMs: 300 }),
      10_000,
      'exec with timeoutMs 300',
    );
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(result.exitCode).toBe(-1);
    expect(result.stderr).toMatch(/timed out/);
    await sleep(1500);
    expect(fs.existsSync(marker)).toBe(false); // the backgrounded subshell was killed with it
  });

  needs([])('[output cap] stdout and stderr are each capped at maxOutputBytes and marked truncated', async () => {
    const result = await run(sandbox, [
      'sh', '-c', 'head -c 200000 /dev/zero | tr "\\000" a; head -c 200000 /dev/zero | tr "\\000" b >&2',
    ], { maxOutputBytes: 1000 });
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(1000);
    expect(result.stdout).toMatch(/^a+$/);
    expect(result.stdout.length).toBeGreaterThan(0);
    expect(result.stderr.length).toBeLessThanOrEqual(1000);
    expect(result.stderr).toMatch(/^b+$/);

    const small = await run(sandbox, ['sh', '-c', 'echo fits; echo also >&2'], { maxOutputBytes: 1000 });
    expect(small).toMatchObject({ stdout: 'fits\n', stderr: 'also\n', truncated: false });
  });

  needs([])('[output cap] a command that never stops writing is capped, then ends at its timeout', async () => {
    const result = await settleWithin(run(sandbox, ['yes'], { maxOutputBytes: 1000, timeoutMs: 500 }), 10_000, 'yes');
    expect(result.stdout.length).toBeLessThanOrEqual(1000);
    expect(result.truncated).toBe(true);
    expect(result.timedOut).toBe(true);
  });
});

describe('options', () => {
  needs([])('[options] cwd is a virtual path: the command runs in the mount\'s source and writes there', async () => {
    const result = await run(sandbox, ['sh', '-c', 'pwd; ls; echo made > made.txt'], { cwd: '/data' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${seen('/data', data)}\ndata.txt\n`);
    expect(fs.readFileSync(path.join(data, 'made.txt'), 'utf8')).toBe('made\n');
    const top = await run(sandbox, ['pwd']);
    expect(top.stdout).toBe(`${seen('/', root)}\n`);
  });

  needs([])('[options] bad argv and options reject with TypeError or RangeError and create nothing', async () => {
    const privateTmp = makeTempDir('msb-exec-tmpdir-');
    const rootBefore = snapshotTree(root);
    const cases = [
      [[], {}, TypeError],
      ['ls', {}, TypeError],
      [['ls', 1], {}, TypeError],
      [[''], {}, TypeError],
      [['ls\0x'], {}, TypeError],
      [['sh', '-c', 'touch made'], null, TypeError],
      [['sh', '-c', 'touch made'], { bogus: true }, TypeError],
      [['sh', '-c', 'touch made'], { cwd: 5 }, TypeError],
      [['sh', '-c', 'touch made'], { env: { A: 1 } }, TypeError],
      [['sh', '-c', 'touch made'], { env: { 'A=B': 'x' } }, TypeError],
      [['sh', '-c', 'touch made'], { env: [] }, TypeError],
      [['sh', '-c', 'touch made'], { stdin: 5 }, TypeError],
      [['sh', '-c', 'touch made'], { network: 'yes' }, TypeError],
      [['sh', '-c', 'touch made'], { namespaces: 'maybe' }, TypeError],
      [['sh', '-c', 'touch made'], { allowWeakerEnforcement: 1 }, TypeError],
      [['sh', '-c', 'touch made'], { hostReadPaths: ['relative'] }, TypeError],
      [['sh', '-c', 'touch made'], { hostReadPaths: '/usr' }, TypeError],
      [['sh', '-c', 'touch made'], { timeoutMs: 0 }, RangeError],
      [['sh', '-c', 'touch made'], { timeoutMs: 300_001 }, RangeError],
      [['sh', '-c', 'touch made'], { timeoutMs: 1.5 }, RangeError],
      [['sh', '-c', 'touch made'], { maxOutputBytes: -1 }, RangeError],
      [['sh', '-c', 'touch made'], { maxOutputBytes: Infinity }, RangeError],
    ];
    try {
      // Where exec makes the command's temp directory. (Jest's process.env does not reach
      // os.tmpdir(), so it is stubbed.)
      jest.spyOn(os, 'tmpdir').mockReturnValue(privateTmp);
      for (const [argv, options, ErrorClass] of cases) {
        let promise;
        expect(() => { promise = sandbox.exec(argv, options); }).not.toThrow(); // async: rejects
        const err = await promise.then(() => null, (e) => e);
        expect([argv, options, err && err.constructor]).toEqual([argv, options, ErrorClass]);
      }
      expect(fs.readdirSync(privateTmp)).toEqual([]);
      expect(snapshotTree(root)).toEqual(rootBefore);
      // Control: a valid call does make its temp directory there (and removes it).
      const ok = await run(sandbox, ['sh', '-c', 'echo "$TMPDIR"; touch made']);
      // In its root the command finds its temp directory at /tmp.
      if (VIEW) expect(ok.stdout).toBe('/tmp\n');
      else expect(ok.stdout.startsWith(`${privateTmp}${path.sep}`)).toBe(true);
      expect(fs.existsSync(path.join(root, 'made'))).toBe(true);
      expect(fs.readdirSync(privateTmp)).toEqual([]);
    } finally {
      jest.restoreAllMocks();
      removeDir(privateTmp);
    }
  });

  needs([])('[options] a cwd outside the sandbox rejects with the sandbox\'s typed error and runs nothing', async () => {
    fs.symlinkSync(outside, path.join(root, 'escape'));
    const ran = path.join(data, 'ran');
    const argv = ['sh', '-c', `echo ran > ${q(seen('/data/ran', ran))}`];
    const cases = [
      ['/..', InvalidPathError],
      ['/../outside', InvalidPathError],
      ['relative', InvalidPathError],
      ['/escape', SymlinkError],
      ['/missing', NotFoundError],
      ['/inside.txt', ExecError],
    ];
    for (const [cwd, ErrorClass] of cases) {
      const err = await run(sandbox, argv, { cwd }).catch((e) => e);
      expect([cwd, err.constructor]).toEqual([cwd, ErrorClass]);
      expect(err).toBeInstanceOf(SandboxError);
      expect(err.message).not.toContain(base);
    }
    expect(fs.existsSync(ran)).toBe(false);
    // Control: the same command from a valid cwd runs.
    await run(sandbox, argv, { cwd: '/data' });
    expect(fs.readFileSync(ran, 'utf8')).toBe('ran\n');
  });

  needs([])('[options] the default environment carries nothing from process.env; env adds to it', async () => {
    const saved = process.env.SECRET_TOKEN;
    process.env.SECRET_TOKEN = 'tok-4f1c9a-should-not-leak';
    try {
      const result = await run(sandbox, ['env']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toContain('SECRET_TOKEN');
      expect(result.stdout).not.toContain('tok-4f1c9a');
      const names = result.stdout.trim().split('\n').map((line) => line.split('=')[0]).sort();
      for (const name of names) expect(['HOME', 'LANG', 'PATH', 'PWD', 'SHLVL', 'TMPDIR', '_']).toContain(name);
      const vars = Object.fromEntries(result.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expect(vars.HOME).toBe(vars.TMPDIR);
      expect(vars.HOME).not.toBe(process.env.HOME);

      const added = await run(sandbox, ['sh', '-c', 'echo "$GREETING/$PATH"'], { env: { GREETING: 'hello', PATH: '/bin:/usr/bin' } });
      expect(added.stdout).toBe('hello//bin:/usr/bin\n');
    } finally {
      if (saved === undefined) delete process.env.SECRET_TOKEN;
      else process.env.SECRET_TOKEN = saved;
    }
  });

  needs([])('[options] stdin is delivered, as a string and as bytes', async () => {
    const text = await run(sandbox, ['cat'], { stdin: 'hello from stdin\n' });
    expect(text.stdout).toBe('hello from stdin\n');
    const bytes = Uint8Array.from([0, 1, 2, 254, 255]);
    const result = await run(sandbox, ['sh', '-c', 'cat > bytes.bin'], { stdin: bytes, cwd: '/data' });
    expect(result.exitCode).toBe(0);
    expect([...fs.readFileSync(path.join(data, 'bytes.bin'))]).toEqual([0, 1, 2, 254, 255]);
    const none = await run(sandbox, ['cat']);
    expect(none).toMatchObject({ stdout: '', exitCode: 0 });
  });

  needs([])('[options] a command that does not exist gives exit code 127', async () => {
    const result = await run(sandbox, ['no-such-command-msb-test', '--flag']);
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain('Command not found: no-such-command-msb-test');
    expect(result.stdout).toBe('');
  });
});

describe('[guiding notes]', () => {
  needs('landlock-fs')('[landlock-fs] a permission failure gets the note naming the writable paths', async () => {
    const result = await run(sandbox, ['sh', '-c', `echo pwned > ${q(seen('/ro/ro.txt', path.join(ro, 'ro.txt')))}`]);
    expect(result.exitCode).not.toBe(0);
    const note = result.stderr.split('\n').filter((line) => line.startsWith('Note:'));
    expect(note).toHaveLength(1);
    expect(note[0]).toMatch(/^Note: this command runs in a sandbox/);
    for (const p of sandbox.writablePaths()) expect(note[0]).toContain(VIEW ? seen(p) : p);
    expect(note[0]).toContain(VIEW ? '/tmp' : '$TMPDIR');
    expect(result.stderr).not.toContain('Network access is disabled');
    expect(fs.readFileSync(path.join(ro, 'ro.txt'), 'utf8')).toBe('read-only content');
  });

  needs(['seccomp', 'landlock-net'], { any: true })('[seccomp / landlock-net] a refused connect gets the network note', async () => {
    const server = countingServer();
    await listen(server, 0, '127.0.0.1');
    try {
      const { port } = server.address();
      const result = await run(sandbox, nodeScript(connectScript({ host: '127.0.0.1', port })), NODE_OPTIONS);
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toContain('Note: Network access is disabled for this worker.');
      expect(result.stderr).not.toMatch(/Note: this command runs in a sandbox/);
      expect(server.connections).toBe(0);
    } finally {
      await closeServer(server);
    }
  });

  needs([])('[guiding notes] success, and a failure that is not about permissions, get no note', async () => {
    const ok = await run(sandbox, ['sh', '-c', 'echo fine >&2']);
    expect(ok).toMatchObject({ exitCode: 0, stderr: 'fine\n' });
    const failed = await run(sandbox, ['sh', '-c', 'echo boom >&2; exit 3']);
    expect(failed).toMatchObject({ exitCode: 3, stderr: 'boom\n' });
    // Permission words on a successful command's stderr do not add one either.
    const quiet = await run(sandbox, ['sh', '-c', `cat ${q(path.join(home, 'secret.txt'))} 2>&1 >/dev/null | cat >&2; true`]);
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).not.toContain('Note:');
  });
});

describe('[landlock-fs] restricted child sandboxes', () => {
  needs('landlock-fs')('[landlock-fs] exec in restrict({ restrict: "/src", readonly: true }) can neither write in /src nor read the parent\'s other files', async () => {
    const src = path.join(root, 'src');
    write(path.join(src, 'a.txt'), 'A');
    write(path.join(root, 'other.txt'), 'OTHER-SECRET');
    const srcBefore = snapshotTree(src);
    // Control: the parent can do both.
    const parent = await run(sandbox, ['sh', '-c', 'cat ../other.txt'], { cwd: '/src' });
    expect(parent.stdout).toBe('OTHER-SECRET');

    const child = sandbox.restrict({ restrict: '/src', readonly: true });
    const result = await run(child, [
      'sh', '-c',
      `pwd; cat a.txt; echo; cat ../other.txt; cat ${q(path.join(root, 'other.txt'))}; echo pwned > a.txt; echo new > new.txt;` +
        ` echo pwned > ../other.txt; echo pwned > ../new-in-parent.txt; rm -f a.txt; ls ${q(data)}`,
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toContain(`${seen('/', src)}\nA\n`); // it runs in /src (its own /) and can read it
    expect(result.stdout).not.toContain('OTHER-SECRET');
    expect(result.stdout).not.toContain('data.txt');
    expect(snapshotTree(src)).toEqual(srcBefore);
    expect(fs.readFileSync(path.join(root, 'other.txt'), 'utf8')).toBe('OTHER-SECRET');
    expect(fs.existsSync(path.join(root, 'new-in-parent.txt'))).toBe(false);
  });
});

describe('[mount-namespace] what the second review found', () => {
  needs('mount-namespace')('[mount-namespace] a directory mounted both read-only and writable stays read-only, whichever target names it', async () => {
    const shared = path.join(base, 'shared');
    write(path.join(shared, 'f.txt'), 'shared');
    // Mount targets exist in the read-only root (the view cannot create them there).
    for (const dir of ['a', 'b']) fs.mkdirSync(path.join(root, dir));
    const before = snapshotTree(shared);
    for (const order of [[true, false], [false, true]]) {
      const twice = createMountSandbox({
        root,
        readonly: true,
        mounts: [
          { source: shared, target: '/a', readonly: order[0] },
          { source: shared, target: '/b', readonly: order[1] },
        ],
      });
      const cwd = order[0] ? '/b' : '/a'; // the writable one
      const result = await run(twice, ['sh', '-c', 'echo pwned > f.txt; chmod 600 f.txt; echo new > g.txt'], { cwd });
      expect(result.exitCode).not.toBe(0);
      expect(snapshotTree(shared)).toEqual(before);
    }
  });

  needs('mount-namespace')('[mount-namespace] the program config and the worker file cannot be rewritten by the commands they confine', async () => {
    const { findProgramConfig, createSandboxFromConfig, loadWorkerFile, sandboxForWorker } = require('../lib');
    const project = path.join(base, 'project');
    write(path.join(project, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    write(path.join(project, 'work', 'w.txt'), 'w');
    write(path.join(project, 'w.worker'), '---\nname: w\nsandbox:\n  restrict: /work\n---\nWork.\n');
    const before = snapshotTree(project, { contents: true });
    const main = await createSandboxFromConfig(await findProgramConfig(project));
    // The main worker may write the project (worker files included: a child never gets more than
    // its parent), but not the config its own sandbox comes from.
    const widen = 'printf "sandbox:\\n  root: /\\n" > golem-forge.config.yaml || ' +
      'rm -f golem-forge.config.yaml || mv golem-forge.config.yaml moved.yaml';
    const result = await run(main, ['sh', '-c', widen]);
    expect(result.exitCode).not.toBe(0);
    const child = sandboxForWorker(main, await loadWorkerFile(path.join(project, 'w.worker')));
    const fromChild = await run(child, ['sh', '-c', 'echo > ../w.worker; failed=$?; echo ok > w.txt; exit $failed']);
    expect(fromChild.exitCode).not.toBe(0);
    expect(fs.readFileSync(path.join(project, 'work', 'w.txt'), 'utf8')).toBe('ok\n'); // it did run
    write(path.join(project, 'work', 'w.txt'), 'w');
    expect(snapshotTree(project, { contents: true })).toEqual(before);
  });

  needs('user-namespace')('[user-namespace] the command cannot create user namespaces of its own', async () => {
    const result = await run(sandbox, ['unshare', '--user', '--map-root-user', 'true']);
    expect(result.exitCode).not.toBe(0);
    expect(result.enforcement.layers).toContain('no-nested-user-namespaces');
  });

  (process.arch === 'x64' ? needsPerl('seccomp') : skipped('the keyctl number below is x86_64\'s'))(
    '[seccomp] the caller\'s session keyring is out of reach (keyctl is refused)', async () => {
      // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) is syscall 250 on x86_64.
      const result = await run(sandbox, [PERL, '-e', 'my $r = syscall(250, 0, -3, 0); print "$r $!"']);
      expect(result.stdout).toMatch(/^-1 Operation not permitted/);
    });

  needs('pid-namespace')('[pid-namespace] when the caller dies, the command dies with it', async () => {
    const marker = path.join(root, 'marker');
    const script = `
      const { createMountSandbox } = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
      createMountSandbox({ root: ${JSON.stringify(root)} })
        .exec(['sh', '-c', 'while :; do echo x >> marker; sleep 0.05; done'], ${JSON.stringify({ ...EXEC_DEFAULTS, timeoutMs: 300000 })});`;
    // Its temp directory outlives it (nobody is left to remove it): keep it inside `base`.
    const tmp = path.join(base, 'caller-tmp');
    fs.mkdirSync(tmp);
    const caller = spawn(NODE, ['-e', script], { stdio: 'ignore', env: { ...process.env, TMPDIR: tmp } });
    try {
      for (let i = 0; i < 200 && sizeOf(marker) <= 0; i++) await sleep(25);
      expect(sizeOf(marker)).toBeGreaterThan(0);
    } finally {
      caller.kill('SIGKILL');
    }
    await new Promise((resolve) => caller.on('exit', resolve));
    await sleep(300);
    const settled = sizeOf(marker);
    await sleep(500);
    expect(sizeOf(marker)).toBe(settled);
  });
});

describe('what the command can reach of the host besides files', () => {
  // An abstract unix socket has no file for Landlock's file rules to govern: X11 and some D-Bus
  // buses listen on one. Only the abstract-socket scope keeps a command out, network on or off.
  needs('landlock-abstract-unix-scope')('[landlock-abstract-unix-scope] a host abstract unix socket refuses the command, with the network on too', async () => {
    const server = countingServer();
    await listen(server, `\0mount-sandbox-test-${process.pid}-${Date.now()}`);
    try {
      for (const network of [false, true]) {
        const result = await run(sandbox, nodeScript(connectScript(server.address())), { ...NODE_OPTIONS, network });
        expect(result.stdout).not.toContain('connected');
        expect(result.exitCode).not.toBe(0);
        expect(result.enforcement.layers).toContain('landlock-abstract-unix-scope');
      }
      await sleep(100);
      expect(server.connections).toBe(0);
    } finally {
      await closeServer(server);
    }
  });

  // System V IPC objects belong to an IPC namespace, not to the filesystem: without one of its
  // own, the command reads and overwrites a same-user host segment by its id.
  needsPerl('mount-namespace')('[ipc-namespace] a host System V shared memory segment cannot be read or written', async () => {
    // IPC_PRIVATE is 0 and IPC_CREAT 01000: IPC::SysV is not in perl-base (the Debian 11 root).
    const create = 'my $id = shmget(0, 64, 01000 | 0600) // die "shmget: $!"; ' +
      'shmwrite($id, "host-secret", 0, 11) or die "shmwrite: $!"; print $id';
    const id = execFileSync(PERL, ['-e', create], { encoding: 'utf8' }).trim();
    try {
      const attack = 'my ($id) = @ARGV; my $buf; if (shmread($id, $buf, 0, 11)) { print "read:$buf\\n" } ' +
        'else { print "refused\\n" } print shmwrite($id, "overwritten", 0, 11) ? "wrote\\n" : "not written\\n"';
      const result = await run(sandbox, [PERL, '-e', attack, id]);
      expect(result.stdout).toBe('refused\nnot written\n');
      expect(result.enforcement.layers).toContain('ipc-namespace');
      const after = execFileSync(PERL, ['-e', 'my $b; shmread($ARGV[0], $b, 0, 11) or die; print $b', id], { encoding: 'utf8' });
      expect(after).toBe('host-secret');
    } finally {
      execFileSync('ipcrm', ['-m', id]);
    }
  });

  // Landlock does not govern connect() on unix socket files; the command's root holds none of the
  // host's (docker.sock, an ssh-agent, X11's /tmp/.X11-unix), with the network on or off.
  needs('private-root')('[private-root] a host unix stream socket outside the mounts is unreachable, network on and off', async () => {
    const server = countingServer();
    const socketPath = path.join(home, 'agent.sock');
    await listen(server, socketPath);
    try {
      for (const network of [false, true]) {
        const result = await run(sandbox, nodeScript(connectScript(socketPath)), { ...NODE_OPTIONS, network });
        expect([network, result.stdout]).toEqual([network, '']);
        expect(result.stderr).toMatch(/ENOENT/);
      }
      await sleep(100);
      expect(server.connections).toBe(0);
    } finally {
      await closeServer(server);
    }
  });

  // A datagram socket needs no connection: socketpair() or socket() then sendto() a path would
  // reach a host daemon's socket, and pass it descriptors.
  needsPerl('private-root')('[private-root] a host unix datagram socket outside the mounts receives nothing, network on and off', async () => {
    const socketPath = path.join(home, 'dgram.sock');
    const countFile = path.join(base, 'dgram-count');
    // The host's receiver: binds, counts what arrives for 3 s, writes the count.
    const receiver = spawn(PERL, ['-e', `use Socket; socket(my $s, PF_UNIX, SOCK_DGRAM, 0) or die; bind($s, pack_sockaddr_un($ARGV[0])) or die "bind: $!";
      print "ready\\n"; $| = 1; my $n = 0; my $rin = ''; vec($rin, fileno($s), 1) = 1; my $end = time + 3;
      while (time < $end) { if (select(my $r = $rin, undef, undef, 0.2)) { recv($s, my $b, 100, 0); $n++ } }
      open(my $f, ">", $ARGV[1]) or die; print $f $n; close $f;`, socketPath, countFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => receiver.stdout.once('data', resolve));
    const send = `use Socket; my $to = pack_sockaddr_un($ARGV[0]);
      socket(my $s, PF_UNIX, SOCK_DGRAM, 0) or print "socket: $!\\n";
      if ($s) { print defined(send($s, "x", 0, $to)) ? "sent\\n" : "send: $!\\n" }
      socketpair(my $a, my $b, AF_UNIX, SOCK_DGRAM, 0) or die "socketpair: $!";
      print defined(send($a, "x", 0, $to)) ? "pair sent\\n" : "pair send: $!\\n";`;
    for (const network of [false, true]) {
      const result = await run(sandbox, [PERL, '-e', send, socketPath], { network });
      expect([network, result.stdout]).toEqual([network, expect.not.stringMatching(/^(pair )?sent$/m)]);
    }
    await new Promise((resolve) => receiver.on('exit', resolve));
    fs.unlinkSync(socketPath);
    expect(fs.readFileSync(countFile, 'utf8')).toBe('0');
  });

  needsPerl('ipc-namespace')('[ipc-namespace] a host System V message queue receives nothing and keeps its message', async () => {
    const create = 'my $id = msgget(0, 01000 | 0600) // die "msgget: $!"; msgsnd($id, pack("l! a*", 1, "host-message"), 0) or die; print $id';
    const id = execFileSync(PERL, ['-e', create], { encoding: 'utf8' }).trim();
    try {
      const attack = 'my ($id) = @ARGV; print msgsnd($id, pack("l! a*", 1, "planted"), 0) ? "sent\\n" : "send refused\\n"; ' +
        'print msgrcv($id, my $m, 100, 0, 04000) ? "took:$m\\n" : "receive refused\\n"';
      const result = await run(sandbox, [PERL, '-e', attack, id]);
      expect(result.stdout).toBe('send refused\nreceive refused\n');
      const after = execFileSync('ipcs', ['-q', '-i', id], { encoding: 'utf8' });
      expect(after).toMatch(/qnum=1\b/);
    } finally {
      execFileSync('ipcrm', ['-q', id]);
    }
  });

  needs('private-root')('[private-root] of /etc only the allowlist exists: no /etc/ssl/private, shadow or sudoers', async () => {
    const result = await run(sandbox, ['sh', '-c', 'ls /etc/ssl 2>/dev/null; echo --; for f in /etc/ssl/private /etc/shadow /etc/sudoers /etc/machine-id; do [ -e $f ] && echo "exists: $f"; done; ls /etc']);
    expect(result.stdout).not.toContain('exists:');
    // Of /etc/ssl, what this host has of the two (a minimal root has neither).
    const ssl = ['certs', 'openssl.cnf'].filter((name) => fs.existsSync(`/etc/ssl/${name}`));
    expect(result.stdout.split('--\n')[0].split('\n').filter(Boolean)).toEqual(ssl);
    expect(result.stdout).not.toMatch(/^(private|shadow|sudoers|resolv\.conf)$/m); // resolv.conf: network on only
    const online = await run(sandbox, ['ls', '/etc'], { network: true });
    expect(online.stdout).toMatch(/^resolv\.conf$/m);
  });

  needs('private-root')('[private-root] nothing else of the host is there: no /home, /root, /run, /var, no other sources', async () => {
    const result = await run(sandbox, ['sh', '-c', `ls -a /; ls ${q(home)} ${q(base)} /run /var /root /home 2>&1; true`]);
    const top = result.stdout.split('\n').filter((l) => l && !l.startsWith('ls:'));
    const expected = ['.', '..', 'bin', 'dev', 'etc', 'lib', 'proc', 'sbin', 'tmp', 'usr', 'workspace'];
    for (const name of top) expect([name, expected.includes(name) || /^lib(32|64|x32)$/.test(name)]).toEqual([name, true]);
    expect(result.stdout).not.toContain('secret.txt');
    expect(result.stdout).not.toContain('existing.txt');
  });

  needs('network-namespace')('[network-namespace] with the network off /proc/net shows only loopback, not the host\'s sockets', async () => {
    const server = countingServer();
    const name = `msb-proc-net-${process.pid}-${Date.now()}`;
    await listen(server, path.join(home, name));
    try {
      const result = await run(sandbox, ['sh', '-c', 'cat /proc/net/unix; cat /proc/net/dev; cat /proc/net/tcp']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toContain(name);
      const interfaces = result.stdout.split('\n').filter((l) => /^\s*\w+:\s+\d/.test(l)).map((l) => l.trim().split(':')[0]);
      expect(interfaces).toEqual(['lo']);
      // Control: the host's view has it.
      expect(fs.readFileSync('/proc/net/unix', 'utf8')).toContain(name);
    } finally {
      await closeServer(server);
    }
  });

  // inotify and xattrs are reached by path: an outside path is simply not there.
  (process.arch === 'x64' ? needsPerl('private-root') : skipped('the syscall numbers below are x86_64\'s'))(
    '[private-root] inotify on an outside directory and the xattrs of an outside file are unavailable', async () => {
      const file = path.join(home, 'secret.txt');
      // setxattr(188) on the host, where the filesystem allows user xattrs.
      const set = execFileSync(PERL, ['-e', 'my ($f, $k, $v) = ($ARGV[0], "user.note", "xattr-secret"); print syscall(188, $f, $k, $v, 12, 0)', file], { encoding: 'utf8' });
      const attack = 'my ($dir, $f, $k) = (@ARGV, "user.note"); my $fd = syscall(294, 0); print "watch=", syscall(254, $fd, $dir, 0xfff), "\\n"; ' +
        'my $buf = "\\0" x 64; my $n = syscall(191, $f, $k, $buf, 64); print "getxattr=$n\\n"; print "value=$buf\\n" if $n > 0;';
      const result = await run(sandbox, [PERL, '-e', attack, home, file]);
      expect(result.stdout).toMatch(/^watch=-1$/m);
      expect(result.stdout).toMatch(/^getxattr=-1$/m);
      expect(result.stdout).not.toContain('xattr-secret');
      if (set === '0') {
        // Control: unconfined, both work.
        const control = execFileSync(PERL, ['-e', attack, home, file], { encoding: 'utf8' });
        expect(control).toContain('xattr-secret');
      }
    });
});

describe('what the command can plant for later', () => {
  // A set-id bit lives on disk: nosuid mounts only stop it working inside. As root (or as you,
  // for your own uid), a command could leave a program that a later host user runs with its
  // owner's privileges, so no call may set the bits at all.
  needs('seccomp')('[seccomp] no call leaves a set-user-id or set-group-id file behind', async () => {
    const script = `
      const fs = require('fs');
      const attempt = (name, f) => { try { f(); console.log(name + ': done'); } catch (e) { console.log(name + ': ' + e.code); } };
      fs.writeFileSync('chmod-suid', 'x');
      attempt('chmod', () => fs.chmodSync('chmod-suid', 0o4755));
      fs.writeFileSync('chmod-sgid', 'x');
      attempt('fchmod', () => { const fd = fs.openSync('chmod-sgid', 'r'); try { fs.fchmodSync(fd, 0o2755); } finally { fs.closeSync(fd); } });
      attempt('create', () => fs.closeSync(fs.openSync('created', 'wx', 0o6755)));
      fs.writeFileSync('plain', 'x');
      attempt('plain chmod', () => fs.chmodSync('plain', 0o700));`;
    const result = await run(sandbox, nodeScript(script), NODE_OPTIONS);
    const shell = await run(sandbox, ['sh', '-c', 'echo x > by-sh; chmod u+s,g+s by-sh']);
    expect(result.stdout).toBe('chmod: EPERM\nfchmod: EPERM\ncreate: EPERM\nplain chmod: done\n');
    expect(shell.exitCode).not.toBe(0);
    for (const name of ['chmod-suid', 'chmod-sgid', 'created', 'by-sh']) {
      const file = path.join(root, name);
      if (fs.existsSync(file)) expect(fs.statSync(file).mode & 0o6000).toBe(0);
    }
    expect(fs.statSync(path.join(root, 'plain')).mode & 0o777).toBe(0o700);
    expect(fs.existsSync(path.join(root, 'created'))).toBe(false);
  });

  needsPerl('seccomp')('[seccomp] perl sysopen with a set-id mode and perl chmod are refused too', async () => {
    const script = 'use Fcntl; my $ok = sysopen(my $f, "p-created", O_CREAT | O_WRONLY, 04755); print $ok ? "created\\n" : "refused: $!\\n"; ' +
      'open(my $g, ">", "p-plain") or die; close $g; print chmod(02755, "p-plain") ? "chmod\\n" : "chmod refused\\n"';
    const result = await run(sandbox, [PERL, '-e', script]);
    expect(result.stdout).toBe('refused: Operation not permitted\nchmod refused\n');
    expect(fs.statSync(path.join(root, 'p-plain')).mode & 0o6000).toBe(0);
  });
});

describe('what the command can plant for later: moving what the next run trusts', () => {
  // A read-only source inside the writable root: the command renames a directory above it and
  // recreates the source with its own content, which the next run would mount read-only as if it
  // were the original (and a later child sandbox would trust).
  needs('private-root')('[private-root] a directory between the writable root and a nested read-only source cannot be renamed and replaced', async () => {
    const lib = path.join(root, 'vendor', 'pkg', 'lib');
    write(path.join(lib, 'trusted.js'), 'original');
    const config = { root, mounts: [{ source: lib, target: '/lib', readonly: true }] };
    const before = snapshotTree(lib, { contents: true });
    const result = await run(createMountSandbox(config), ['sh', '-c',
      'mv vendor moved; mv vendor/pkg vendor/pkg2; mv vendor/pkg/lib vendor/pkg/lib2; ' +
        'mkdir -p vendor/pkg/lib && echo planted > vendor/pkg/lib/trusted.js; echo done']);
    expect(result.stdout).toBe('done\n');
    expect(result.stderr).toMatch(/busy/i);
    expect(fs.existsSync(path.join(root, 'moved'))).toBe(false);
    expect(snapshotTree(lib, { contents: true })).toEqual(before);
    // The next run reads what the first one had.
    const next = await run(createMountSandbox(config), ['cat', '/workspace/lib/trusted.js']);
    expect(next.stdout).toBe('original');
  });
});

describe('[private-root] the command\'s own root', () => {
  needs('private-root')('[private-root] a system path that is a symlink stays one where it lands in the root, else its file is bound (/etc/resolv.conf -> /run/...)', () => {
    const toUsr = path.join(base, 'to-usr');
    const resolv = path.join(base, 'resolv.conf');
    fs.symlinkSync('/usr/bin/env', toUsr);
    write(path.join(base, 'run', 'stub-resolv.conf'), 'nameserver 192.0.2.1\n');
    fs.symlinkSync(path.join(base, 'run', 'stub-resolv.conf'), resolv);
    const placed = (p) => ({ path: p, access: 'read', target: p });
    const script = `readlink ${q(toUsr)}; cat ${q(resolv)}; readlink ${q(resolv)} || echo not-a-link; ls ${q(path.join(base, 'run'))}`;
    const run = launchSync(launcherPolicy(['sh', '-c', script], { paths: [...SYSTEM_READ, placed(toUsr), placed(resolv)] }));
    expect(run.stdout).toBe('/usr/bin/env\nnameserver 192.0.2.1\nnot-a-link\n');
    expect(run.stderr).toMatch(/No such file or directory/); // the link's directory is not there
  });

  needs('private-root')('[private-root] the sandbox is at /workspace: absolute and relative paths work, pwd shows no host path', async () => {
    write(path.join(root, 'src', 'app.ts'), 'app');
    const result = await run(sandbox, ['sh', '-c', 'pwd; cat /workspace/src/app.ts; echo; cat app.ts; echo; cat /workspace/ro/ro.txt; echo; ls -la /workspace; echo made > /workspace/data/made.txt'], { cwd: '/src' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').slice(0, 4)).toEqual(['/workspace/src', 'app', 'app', 'read-only content']);
    expect(result.stdout).not.toContain(base);
    expect(result.view).toEqual({ workspace: '/workspace', cwd: '/workspace/src' });
    expect(fs.readFileSync(path.join(data, 'made.txt'), 'utf8')).toBe('made\n');
  });

  needs('private-root')('[private-root] workspace moves the sandbox elsewhere; a workspace over the root\'s own places is refused', async () => {
    const result = await run(sandbox, ['sh', '-c', 'pwd; cat /project/inside.txt'], { workspace: '/project' });
    expect(result.stdout).toBe('/project\ninside');
    expect(result.view).toEqual({ workspace: '/project', cwd: '/project' });
    for (const workspace of ['/', '/usr/src', '/tmp', '/proc/x', 'relative', '/a/../b', '/w/']) {
      const err = await run(sandbox, ['true'], { workspace }).catch((e) => e);
      expect([workspace, err.constructor]).toEqual([workspace, TypeError]);
    }
    const clash = await run(sandbox, ['true'], { hostReadPaths: ['/workspace/x'] }).catch((e) => e);
    expect(clash).toBeInstanceOf(TypeError);
  });

  needs('private-root')('[private-root] the guiding note names the paths the command sees, never host paths', async () => {
    const result = await run(sandbox, ['sh', '-c', 'echo x > /workspace/ro/ro.txt'], { cwd: '/data' });
    const note = result.stderr.split('\n').find((line) => line.startsWith('Note:'));
    expect(note).toBe('Note: this command runs in a sandbox: the sandbox is at /workspace, it can read only the sandbox and system directories, and write only to /workspace (.. from the working directory), /workspace/data (. from the working directory) and /tmp.');
    expect(result.stderr).not.toContain(base);
  });

  needs('private-root')('[private-root] a mount target missing from the writable root is created there; from a read-only root the mount is refused with the virtual path', async () => {
    const extra = path.join(base, 'extra');
    write(path.join(extra, 'e.txt'), 'extra');
    const made = createMountSandbox({ root, mounts: [{ source: extra, target: '/deep/er/extra', readonly: true }] });
    const result = await run(made, ['cat', '/workspace/deep/er/extra/e.txt']);
    expect(result.stdout).toBe('extra');
    expect(fs.statSync(path.join(root, 'deep', 'er', 'extra')).isDirectory()).toBe(true);
    const rootBefore = snapshotTree(root);
    const refused = createMountSandbox({ root, readonly: true, mounts: [{ source: extra, target: '/elsewhere', readonly: true }] });
    const err = await run(refused, ['true']).catch((e) => e);
    expect(err).toBeInstanceOf(ExecError);
    expect(err.message).toContain('/elsewhere');
    expect(err.message).not.toContain(base);
    expect(snapshotTree(root)).toEqual(rootBefore);
  });

  needs('private-root')('[private-root] a planted symlink where a mount target will be made is not followed', async () => {
    const extra = path.join(base, 'extra');
    write(path.join(extra, 'e.txt'), 'extra');
    fs.symlinkSync(outside, path.join(root, 'deep')); // what an earlier command could leave
    const made = createMountSandbox({ root, mounts: [{ source: extra, target: '/deep/extra', readonly: true }] });
    const err = await run(made, ['true']).catch((e) => e);
    expect(err).toBeInstanceOf(ExecError);
    expect(err.message).not.toContain(base);
    expect(fs.existsSync(path.join(outside, 'extra'))).toBe(false);
  });

  // Another command of the same sandbox swaps the working directory for a symlink to the outside
  // while this one starts: a launcher entering it by name would land there.
  needs('private-root')('[private-root] a working directory swapped for a symlink while the command starts is never entered', async () => {
    const dir = path.join(root, 'dir');
    const swapper = spawn('sh', ['-c', `cd ${q(root)}; mkdir -p real; i=0; while [ $i -lt 4000 ]; do ` +
      `rm -rf dir; mkdir dir; rm -rf dir; ln -s ${q(outside)} dir; i=$((i+1)); done`], { stdio: 'ignore' });
    const outcomes = new Set();
    try {
      for (let i = 0; i < 30; i++) {
        const result = await run(sandbox, ['sh', '-c', 'pwd -P; ls'], { cwd: '/dir' }).then((r) => r, (e) => e);
        if (result instanceof Error) {
          outcomes.add(result.constructor.name);
          expect(result).toBeInstanceOf(SandboxError);
          continue;
        }
        outcomes.add('ran');
        expect(result.stdout).not.toContain('existing.txt');
        expect(result.stdout).not.toContain(base);
      }
    } finally {
      swapper.kill('SIGKILL');
      await new Promise((resolve) => swapper.on('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});

describe('[process-limit] resource limits', () => {
  // Forks until the kernel refuses; every child sleeps, so they all count at once.
  const bomb = (max) => `my $n = 0; while ($n < ${max}) { my $p = fork; if (!defined $p) { print "stopped at $n: $!\\n"; exit 0 }
    if ($p == 0) { sleep 20; exit 0 } $n++ } print "not stopped at $n\\n"`;

  needsPerl('process-limit')('[process-limit] a fork bomb stops at the process limit, default and given', async () => {
    const result = await run(sandbox, [PERL, '-e', bomb(2000)], { timeoutMs: 60_000 });
    expect(result.stdout).toMatch(/^stopped at \d+: Resource temporarily unavailable\n$/);
    expect(Number(result.stdout.match(/\d+/)[0])).toBeLessThan(512);
    expect(result.enforcement.limits.processes).toBe(512);
    const given = await run(sandbox, [PERL, '-e', bomb(2000)], { limits: { processes: 300 }, timeoutMs: 60_000 });
    expect(Number(given.stdout.match(/\d+/)[0])).toBeLessThan(300);
    // The host is fine: it still starts processes.
    expect(execFileSync('sh', ['-c', 'echo alive'], { encoding: 'utf8' })).toBe('alive\n');
  });

  needsPerl('seccomp')('[limits] memoryBytes and cpuSeconds bound each process', async () => {
    const memory = await run(sandbox, [PERL, '-e', 'my $x = "a" x (512 * 1024 * 1024); print "allocated\\n"'], { limits: { memoryBytes: 64 * 1024 * 1024 } });
    expect(memory.stdout).not.toContain('allocated');
    expect(memory.enforcement.layers).toContain('memory-limit');
    expect(memory.enforcement.limits.memoryBytes).toBe(64 * 1024 * 1024);
    const cpu = await run(sandbox, [PERL, '-e', '1 while 1'], { limits: { cpuSeconds: 1 }, timeoutMs: 20_000 });
    expect(cpu.timedOut).toBe(false);
    expect(cpu.signal).toMatch(/^SIG(XCPU|KILL)$/);
    for (const limits of [{ processes: 10 }, { processes: 1.5 }, { memoryBytes: 0 }, { cpuSeconds: -1 }, { bogus: 1 }, 'x']) {
      const err = await run(sandbox, ['true'], { limits }).catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(['TypeError', 'RangeError']).toContain(err.constructor.name);
    }
  });
});
