'use strict';

// The network world's runner (see net-world.js). net-world.js starts it under `unshare --net
// --mount` (plus --user --map-root-user when not root), so its network and mounts are its own:
// it brings its loopback up, starts net-world-servers.js in a second network namespace joined to
// its own by a veth pair (198.51.100.1 here, 198.51.100.2 there: TEST-NET-2), bind-mounts the
// world's hosts file over /etc/hosts and a resolv.conf naming a nameserver that is not there, and
// listens on 127.0.0.1:80 and :443 of its own namespace (a trap that logs whatever reaches the
// runner's loopback, which only a judge dialling a loopback name would) and on 127.0.0.53:53 (the
// nameserver resolv.conf names: it logs each query and answers NXDOMAIN). Then it runs
// sandbox.exec for the test over JSON lines: requests on stdin, answers on stdout.
//
//   request { id, op: 'exec', argv, options, sandbox }  -> { id, result } | { id, error }
//           options.approve: ['host:port', ...] becomes an onRequest callback approving those;
//           result.asked lists what it was asked, as 'host:port'.
//   request { id, op: 'sample', variants: [{ argv, options, sandbox }], runs, slice, warmup }
//           -> { id, samples: [{ times: [ms...], stdout: [...] }] }: each variant's exec timed in the
//           runner (from the call to its result), the variants in turns of `slice` runs so that
//           the machine's load falls on all alike (bench/network.js)
//   request { id, op: 'log' }    -> { id, log: [...] }   (after the servers flushed theirs)
//   request { id, op: 'clear' }  -> { id }
//   request { id, op: 'stop' }   -> { id }, then exits
const fs = require('fs');
const net = require('net');
const dgram = require('dgram');
const path = require('path');
const readline = require('readline');
const { performance } = require('perf_hooks');
const { spawn, execFileSync } = require('child_process');

const config = JSON.parse(process.argv[2]); // { repo, dir, fixtures, hosts: { name: address } }
const { createMountSandbox } = require(path.join(config.repo, 'lib'));

const SERVER_ADDRESS = '198.51.100.2';
const RUNNER_ADDRESS = '198.51.100.1';
const CA_INSIDE = '/workspace/ca.pem';

let serverLog = [];
const flushWaiters = new Map();

function send(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

function sh(file, args) {
  execFileSync(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function startServers() {
  const child = spawn('unshare', ['--net', '--', process.execPath, path.join(__dirname, 'net-world-servers.js'),
    JSON.stringify({ dir: path.join(config.dir, 'servers'), fixtures: config.fixtures })], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the servers exited with ${code} before they were ready`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      if (msg.log) serverLog.push(msg.log);
      else if (msg.flushed !== undefined) flushWaiters.get(msg.flushed)?.();
      else if (msg.error) reject(new Error(msg.error));
      else if (msg.waiting) {
        try {
          joinServers(msg.waiting);
          child.stdin.write('net msbw1\n');
        } catch (err) {
          reject(new Error(`veth setup failed: ${err.stderr || err.message}`));
        }
      } else if (msg.ready) resolve(child);
    });
  });
}

function joinServers(pid) {
  sh('ip', ['link', 'add', 'msbw0', 'type', 'veth', 'peer', 'name', 'msbw1', 'netns', String(pid)]);
  sh('ip', ['addr', 'add', `${RUNNER_ADDRESS}/24`, 'dev', 'msbw0']);
  sh('ip', ['link', 'set', 'msbw0', 'up']);
  sh('ip', ['route', 'add', '10.0.0.7/32', 'via', SERVER_ADDRESS]);
}

// The world's names, seen by the runner (and so by the judge and by commands with network: true).
function mountNames() {
  const lines = ['127.0.0.1 localhost', '::1 localhost ip6-localhost'];
  for (const [name, where] of Object.entries(config.hosts)) {
    lines.push(`${where === 'server' ? SERVER_ADDRESS : where} ${name}`);
  }
  const hosts = path.join(config.dir, 'hosts');
  const resolv = path.join(config.dir, 'resolv.conf');
  fs.writeFileSync(hosts, `${lines.join('\n')}\n`);
  fs.writeFileSync(resolv, 'nameserver 127.0.0.53\noptions attempts:1 timeout:1\n');
  sh('mount', ['--bind', hosts, '/etc/hosts']);
  sh('mount', ['--bind', resolv, '/etc/resolv.conf']);
}

function loopbackTrap(port) {
  const server = net.createServer((socket) => {
    serverLog.push({ host: null, method: null, path: null, kind: 'loopback-trap', port, time: Date.now() });
    socket.on('error', () => {});
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\nloopback trap');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
}

// The nameserver the world's resolv.conf names (127.0.0.53): it answers NXDOMAIN and logs each
// query's name as kind 'dns-trap', so a test can show that no query for a name left the command.
function dnsTrap() {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, from) => {
    const labels = [];
    for (let at = 12; at < msg.length && msg[at] !== 0 && labels.length < 64; at += msg[at] + 1) {
      labels.push(msg.subarray(at + 1, at + 1 + msg[at]).toString('latin1'));
    }
    serverLog.push({ host: labels.join('.').toLowerCase(), method: null, path: null, kind: 'dns-trap', port: 53, time: Date.now() });
    // NXDOMAIN at once, so that resolvers do not retry or wait.
    const end = msg.indexOf(0, 12) + 5;
    if (end > 16 && end <= msg.length) {
      const answer = Buffer.from(msg.subarray(0, end));
      answer.writeUInt16BE(0x8183, 2);
      answer.writeUInt16BE(1, 4);
      answer.fill(0, 6, 12);
      socket.send(answer, from.port, from.address);
    }
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, '127.0.0.53', resolve);
  });
}

// A fresh sandbox root for each command, holding the test CA at /workspace/ca.pem.
let counter = 0;
function newSandbox(spec = {}) {
  const root = path.join(config.dir, 'roots', String(++counter));
  fs.mkdirSync(root, { recursive: true });
  fs.copyFileSync(path.join(config.fixtures, 'ca.pem'), path.join(root, 'ca.pem'));
  return createMountSandbox({ root, ...spec });
}

const CA_ENV = {
  CURL_CA_BUNDLE: CA_INSIDE,
  SSL_CERT_FILE: CA_INSIDE,
  GIT_SSL_CAINFO: CA_INSIDE,
  NODE_EXTRA_CA_CERTS: CA_INSIDE,
  npm_config_cafile: CA_INSIDE,
  REQUESTS_CA_BUNDLE: CA_INSIDE,
};

async function exec({ argv, options = {}, sandbox }) {
  const { approve, env, ...rest } = options;
  const asked = [];
  const execOptions = { ...rest, env: { ...CA_ENV, ...env } };
  if (approve) {
    execOptions.onRequest = async ({ host, port }) => {
      asked.push(`${host}:${port}`);
      return approve.includes(`${host}:${port}`);
    };
  }
  const result = await newSandbox(sandbox).exec(argv, execOptions);
  return { ...result, asked };
}

async function sample({ variants, runs = 50, slice = 5, warmup = 5 }) {
  const prepared = variants.map(({ argv, options = {}, sandbox }) => ({
    argv, options: { ...options, env: { ...CA_ENV, ...options.env } }, box: newSandbox(sandbox),
  }));
  const once = async ({ argv, options, box }) => {
    const start = performance.now();
    const result = await box.exec(argv, options);
    const ms = performance.now() - start;
    if (result.exitCode !== 0) {
      throw new Error(`${argv.join(' ')} exited with ${result.exitCode}: ${result.stderr.slice(0, 400)}`);
    }
    return { ms, stdout: result.stdout };
  };
  for (const variant of prepared) for (let i = 0; i < warmup; i++) await once(variant);
  const samples = prepared.map(() => ({ times: [], stdout: [] }));
  while (samples[0].times.length < runs) {
    for (const [k, variant] of prepared.entries()) {
      for (let i = 0; i < slice && samples[k].times.length < runs; i++) {
        const { ms, stdout } = await once(variant);
        samples[k].times.push(ms);
        samples[k].stdout.push(stdout);
      }
    }
  }
  return samples;
}

function flushed() {
  const id = String(Math.random()).slice(2);
  return new Promise((resolve) => {
    flushWaiters.set(id, () => {
      flushWaiters.delete(id);
      resolve();
    });
    servers.stdin.write(`flush ${id}\n`);
  });
}

async function handle(request) {
  switch (request.op) {
    case 'exec':
      return { result: await exec(request) };
    case 'sample':
      return { samples: await sample(request) };
    case 'log':
      await flushed();
      return { log: serverLog };
    case 'clear':
      await flushed();
      serverLog = [];
      return {};
    case 'stop':
      servers.kill('SIGKILL');
      setImmediate(() => process.exit(0));
      return {};
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

let servers;
async function main() {
  sh('ip', ['link', 'set', 'lo', 'up']);
  servers = await startServers();
  mountNames();
  await loopbackTrap(80);
  await loopbackTrap(443);
  await dnsTrap();
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const request = JSON.parse(line);
    handle(request).then(
      (answer) => send({ id: request.id, ...answer }),
      (err) => send({ id: request.id, error: { name: err.name, message: err.message, code: err.code } }),
    );
  }).on('close', () => {
    servers.kill('SIGKILL');
    process.exit(0);
  });
  send({ ready: true });
}

main().catch((err) => {
  send({ failed: `${err.message}` });
  if (servers) servers.kill('SIGKILL');
  process.exit(1);
});
