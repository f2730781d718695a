'use strict';

// Shared by the exec-*.test.js suites. They attack with real programs under sandbox.exec(): each
// test plants a secret, a target or a listener outside what the sandbox allows, runs /bin/sh, cat,
// chmod, touch, ls or node to reach it, and checks on disk (or at the listener) that nothing
// happened, not only the exit code. Each name starts with the enforcement layer it relies on; a
// test whose layer this kernel lacks is skipped with the reason printed. The suites run as root
// and as an unprivileged user (CI reruns them with setpriv), so everything they touch lives in
// their own temp directories.
const { skipWith } = require('./helpers/skips');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox } = require('../lib');
const { launcherPath } = require('../lib/exec/launcher');
const { addon } = require('../lib/common/native');
const { makeTempLayout, removeDir, snapshotTree, write } = require('./helpers');

const SECRET = 'TOP-SECRET-CONTENT';
const PERL = '/usr/bin/perl';
const q = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const IS_ROOT = typeof process.getuid === 'function' && process.geteuid() === 0;

// System directories, as a hand-written launcher policy grants them (see launchPolicy in
// lib/exec/exec.js): nothing of the test's temp directories.
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
    limits: { processes: 512, tmpBytes: 2 ** 30 }, // exec's defaults
    ...extra,
  };
}

// Runs msb-launch directly, as lib/exec/exec.js does: no arguments, the policy on descriptor 4 (here
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
// layer can skip them): a trivial command with every layer it can apply, a copy-on-write layer
// over a writable directory among them, in /tmp's tmpfs and handed back over descriptor 5, as
// sandbox.exec() asks by default; without that layer where the launcher cannot make it here.
function probeLayers() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-exec-probe-'));
  const dirs = ['src', '0u', '0w', 'tmp'].map((name) => path.join(dir, name));
  dirs.forEach((d) => fs.mkdirSync(d));
  const layer = { path: dirs[0], access: 'write', target: '/workspace', upper: dirs[1], work: dirs[2] };
  const tmp = { path: dirs[3], access: 'write', target: '/tmp' };
  try {
    const withLayer = probeWith([...SYSTEM_READ, tmp, layer], { scratchLayers: true });
    return withLayer || probeWith(SYSTEM_READ);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function probeWith(paths, extra = {}) {
  const channel = extra.scratchLayers ? addon().socketPair() : [];
  let run;
  try {
    run = launchSync(launcherPolicy(['true'], { allowWeaker: true, paths, ...extra }), channel[1]);
  } finally {
    channel.forEach((fd) => fs.closeSync(fd)); // and with it whatever the launcher handed over
  }
  const line = run.status.split('\n').find((l) => l.startsWith('ok '));
  if (!line && paths === SYSTEM_READ) throw new Error(`the exec launcher probe failed: ${run.status} ${run.stderr}`);
  if (!line) return null;
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

// With today's direct writes (changes: 'direct'): for the protections that mode binds and checks
// (what the next run trusts, git's files, hard links out); test/exec-changes.test.js attacks the
// default, copy-on-write mode.
function runDirect(sb, argv, options = {}) {
  return run(sb, argv, { changes: 'direct', ...options });
}

// A skipped test that carries its reason (test/helpers/skips.js prints it after the run).
function skipped(reason) {
  return skipWith(reason);
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

// The layout every exec test starts from, made before each test and removed after it: a
// writable root, a "home" holding a secret and a directory for write attempts (both outside
// every mount), a read-only mount's source outside the root and a writable mount's source.
// `bind` receives { base, root, home, outside, ro, data, sandbox } before each test; after it,
// home, outside and ro must be as they were.
function useExecFixture(bind) {
  let base;
  let untouched;
  let watched;
  beforeEach(() => {
    const layout = makeTempLayout(['root', 'home', 'outside', 'ro', 'data'], 'msb-exec-');
    const { root, home, outside, ro, data } = layout;
    base = layout.base;
    write(path.join(root, 'inside.txt'), 'inside');
    write(path.join(home, '.ssh', 'id_rsa'), SECRET);
    write(path.join(home, 'secret.txt'), SECRET);
    write(path.join(outside, 'existing.txt'), 'original');
    write(path.join(ro, 'ro.txt'), 'read-only content');
    fs.mkdirSync(path.join(ro, 'sub'));
    write(path.join(data, 'data.txt'), 'data');
    watched = [home, outside, ro];
    untouched = watched.map((dir) => snapshotTree(dir));
    const sandbox = createMountSandbox({
      root,
      mounts: [
        { source: ro, target: '/ro', readonly: true },
        { source: data, target: '/data' },
      ],
    });
    bind({ base, root, home, outside, ro, data, sandbox });
  });

  afterEach(() => {
    try {
      expect(watched.map((dir) => snapshotTree(dir))).toEqual(untouched);
    } finally {
      removeDir(base);
    }
  });
}

module.exports = {
  SECRET, PERL, q, sleep, IS_ROOT, runDirect, SYSTEM_READ, launcherPolicy, launchSync, PROBE, VIEW, NETNS,
  seen, EXEC_DEFAULTS, run, skipped, needs, needsPerl, NODE, NODE_OPTIONS, nodeScript, connectScript,
  countingServer, listen, closeServer, connectionsWhile, sizeOf, useExecFixture,
};
