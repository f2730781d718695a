'use strict';

// A network world for tests, with no packet leaving the machine:
//
//   const world = await startWorld({ hosts: { 'registry.test': 'server', 'rebind.test': '10.0.0.7' } });
//   const result = await world.exec(argv, execOptions, sandboxOptions);
//   const log = await world.serverLog();   // [{ host, method, path, kind, ... }] since the last clearLog()
//   await world.stop();
//   const samples = await world.sample([{ argv, options, sandbox }, ...], { runs, slice, warmup });
//                                         // each exec timed inside the world, in turns (benchmarks)
//
// The test's process starts net-world-runner.js under `unshare --net --mount` (with --user
// --map-root-user when not root): a network namespace and mount namespace of its own. There the
// runner starts net-world-servers.js in a second network namespace joined by a veth pair
// (runner 198.51.100.1, servers 198.51.100.2 and 10.0.0.7), bind-mounts over /etc/hosts the
// world's names ('server' = 198.51.100.2, else the address given) and over /etc/resolv.conf a
// nameserver that does not answer, and runs each exec in a fresh sandbox whose root holds the
// test CA at /workspace/ca.pem (CURL_CA_BUNDLE, SSL_CERT_FILE, GIT_SSL_CAINFO,
// NODE_EXTRA_CA_CERTS, npm_config_cafile and REQUESTS_CA_BUNDLE name it). The judge of a filtered
// exec runs in the runner, so it resolves names through the world's /etc/hosts and dials through
// the veth; a command with `network: true` shares the runner's namespace and reaches the servers
// directly. options.approve: ['host:port'] makes an onRequest that approves exactly those
// (result.asked lists what it was asked).
//
// The servers: HTTP on 80 (and on 8080) and HTTPS on 443 (npm registry for registry.test serving the package
// `hello-msb`, git over dumb HTTP for git.test at /repo.git, any other Host answered with
// "hello from <host> <method> <path> over <http|https>"), a TCP echo and a UDP logger on 7000.
// The runner also logs, as kind 'loopback-trap', any connection to 127.0.0.1:80 or :443 of its
// own namespace, and as kind 'dns-trap' (host: the name asked) any query to the nameserver its
// resolv.conf names, which answers NXDOMAIN.
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');
const { spawn, spawnSync } = require('child_process');

const REPO = path.resolve(__dirname, '..', '..');
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'net');
const IS_ROOT = process.geteuid() === 0;
const UNSHARE = IS_ROOT ? ['--net', '--mount'] : ['--user', '--map-root-user', '--net', '--mount'];

function findProgram(name) {
  for (const dir of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

// Why the world cannot be made here (null when it can): a missing tool, or namespaces refused.
function worldMissing() {
  for (const tool of ['unshare', 'ip', 'mount']) {
    if (!findProgram(tool)) return `${tool} is not installed (the network world needs it)`;
  }
  const probe = spawnSync('unshare', [...UNSHARE, '--', 'sh', '-c',
    'ip link set lo up && ip link add msbp0 type veth peer name msbp1 && mount --bind /etc/hosts /etc/hosts'], {
    encoding: 'utf8', timeout: 10_000,
  });
  if (probe.status !== 0) {
    return `the network world's namespaces cannot be made here (unshare ${UNSHARE.join(' ')}: ${(probe.stderr || probe.error?.message || `status ${probe.status}`).trim().split('\n')[0]})`;
  }
  return null;
}

const WORLD_MISSING = worldMissing();

// Why a test that runs these programs inside the world cannot run (null when it can).
function worldNeeds(...programs) {
  if (WORLD_MISSING) return WORLD_MISSING;
  for (const program of programs) {
    if (!findProgram(program)) return `${program} is not installed`;
  }
  return null;
}

async function startWorld({ hosts = {}, timeoutMs = 60_000 } = {}) {
  if (WORLD_MISSING) throw new Error(WORLD_MISSING);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'msb-net-world-')));
  const config = { repo: REPO, dir, fixtures: FIXTURES, hosts };
  const child = spawn('unshare', [...UNSHARE, '--', process.execPath, path.join(__dirname, 'net-world-runner.js'), JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const pending = new Map();
  let nextId = 0;
  let exited = null;
  let readyWaiter;
  const ready = new Promise((resolve, reject) => {
    readyWaiter = { resolve, reject };
  });
  const fail = (why) => {
    const err = new Error(`network world: ${why}${stderr ? `\n${stderr}` : ''}`);
    readyWaiter.reject(err);
    for (const { reject } of pending.values()) reject(err);
    pending.clear();
  };
  child.on('error', (err) => fail(err.message));
  child.on('exit', (code, signal) => {
    exited = signal || code;
    fail(`the runner exited (${exited})`);
  });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.ready) readyWaiter.resolve();
    else if (msg.failed) fail(msg.failed);
    else if (pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(Object.assign(new Error(msg.error.message), { name: msg.error.name, code: msg.error.code }));
      else resolve(msg);
    }
  });
  const timer = setTimeout(() => fail(`not ready within ${timeoutMs} ms`), timeoutMs);
  try {
    await ready;
  } catch (err) {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    clearTimeout(timer);
  }

  const ask = (request) => new Promise((resolve, reject) => {
    if (exited !== null) {
      reject(new Error(`network world: the runner exited (${exited})`));
      return;
    }
    const id = ++nextId;
    pending.set(id, { resolve, reject });
    child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
  });

  return {
    dir,
    exec: async (argv, options = {}, sandbox = {}) => (await ask({ op: 'exec', argv, options, sandbox })).result,
    sample: async (variants, { runs, slice, warmup } = {}) => (await ask({ op: 'sample', variants, runs, slice, warmup })).samples,
    serverLog: async () => (await ask({ op: 'log' })).log,
    clearLog: async () => {
      await ask({ op: 'clear' });
    },
    stop: async () => {
      if (exited === null) {
        await ask({ op: 'stop' }).catch(() => {});
        await new Promise((resolve) => (exited !== null ? resolve() : child.once('exit', resolve)));
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// One world for a test file's tests, started before them and stopped after, its server log cleared
// before each: `const world = useWorld(hosts)`, then `world.current` in each test (null where
// the world cannot be made: worldNeeds() says why).
function useWorld(hosts) {
  const holder = { current: null };
  beforeAll(async () => {
    if (worldNeeds() === null) holder.current = await startWorld({ hosts });
  }, 90_000);
  afterAll(async () => {
    if (holder.current) await holder.current.stop();
  });
  beforeEach(async () => {
    if (holder.current) await holder.current.clearLog();
  });
  return holder;
}

module.exports = { startWorld, useWorld, worldNeeds, WORLD_MISSING, FIXTURES, findProgram };
