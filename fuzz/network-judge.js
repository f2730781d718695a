#!/usr/bin/env node
'use strict';

// Fuzzes the network judge from both sides (issues 28 and 38): a judge runs in a child process,
// as it runs in an agent's, with its HTTP proxy, SOCKS5, DNS stub, a capture listener and a
// redirect listener on loopback (TLS handshakes followed past the first hello, pipelined and
// chunked requests among the inputs);
// this process throws random and mutated bytes at each of them as a command would, while the
// origin it dials answers with random and mutated responses as a hostile server would. The child
// must stay alive throughout (a throw out of any handler ends it) and answer an allowed request
// afterwards. Usage: node fuzz/network-judge.js [cases] [seed]   (default 2000 cases)
const net = require('net');
const dgram = require('dgram');
const path = require('path');
const { fork } = require('child_process');
const { clientHello, HRR_RANDOM } = require('../test/helpers/tls-hello');

const CASES = Number(process.argv[2] ?? 2000);
let seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);
const FIRST_SEED = seed;

// A small deterministic generator (mulberry32), so a failing run can be repeated by its seed.
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const bytes = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));

function mutate(input) {
  const out = Buffer.from(input);
  const edits = 1 + Math.floor(random() * 4);
  let buf = out;
  for (let i = 0; i < edits && buf.length > 0; i++) {
    const at = Math.floor(random() * buf.length);
    const kind = random();
    if (kind < 0.4) buf[at] = Math.floor(random() * 256);
    else if (kind < 0.6) buf = Buffer.concat([buf.subarray(0, at), bytes(1 + Math.floor(random() * 8)), buf.subarray(at)]);
    else if (kind < 0.8) buf = Buffer.concat([buf.subarray(0, at), buf.subarray(at + 1 + Math.floor(random() * 8))]);
    else buf = buf.subarray(0, at);
  }
  return buf;
}

// An A query for allowed.test.
const ALLOWED_QUERY = Buffer.concat([Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
  Buffer.from([7, ...Buffer.from('allowed'), 4, ...Buffer.from('test'), 0, 0, 1, 0, 1])]);

// ---- the child: a judge and nothing else ----

function runJudgeChild() {
  const { NetworkJudge } = require('../lib/network/judge');
  const { parseNetwork } = require('../lib/network/policy');
  const [originPort] = process.argv.slice(3).map(Number);
  const judge = new NetworkJudge({
    policy: parseNetwork({ allow: ['allowed.test', `allowed.test:${originPort}`, '127.0.0.1'] }),
    lookup: async (host) => (host === 'allowed.test' || host === 'other.test' ? ['127.0.0.1'] : []),
    ownAddresses: () => [],
    // No netfilter here: a connection to the redirect listener stands for one the command made to
    // allowed.test's address on the origin's port, or (every third) on a port no entry names.
    originalDestination: () => ({ address: '127.1.0.1', port: redirects++ % 3 === 0 ? 9 : originPort }),
  });
  let redirects = 0;
  const ports = {};
  const listenOn = (label, host, port) => new Promise((resolve) => {
    const server = net.createServer();
    server.listen(port, host, () => {
      judge.attach(label, server);
      resolve(server.address().port);
    });
  });
  (async () => {
    ports.http = await listenOn('http', '127.0.0.1', 0);
    ports.socks = await listenOn('socks', '127.0.0.1', 0);
    const dns = dgram.createSocket('udp4');
    await new Promise((resolve) => dns.bind(0, '127.0.0.1', resolve));
    judge.attach('dns', dns);
    ports.dns = dns.address().port;
    ports.capture = await listenOn(`capture ${originPort}`, '127.1.0.1', originPort);
    ports.redirect = await listenOn('redirect', '127.1.0.2', 0);
    // The stub hands out 127.1.0.1 for the first name it is asked: allowed.test, here.
    const asker = dgram.createSocket('udp4');
    await new Promise((resolve) => {
      asker.once('message', resolve);
      asker.send(ALLOWED_QUERY, ports.dns, '127.0.0.1');
    });
    asker.close();
    process.send({ ports });
  })();
  process.on('message', (m) => {
    if (m === 'ping') process.send({ pong: true, rss: process.memoryUsage().rss });
  });
  // The fuzzer gone (done, or failed), the judge goes too.
  process.on('disconnect', () => process.exit(0));
}

// ---- this process: the command's side and the origin's ----

const HTTP_REQUESTS = [
  'GET http://allowed.test:%PORT%/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n',
  'POST http://allowed.test:%PORT%/p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',
  'GET http://allowed.test:%PORT%/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
  'CONNECT allowed.test:%PORT% HTTP/1.1\r\nHost: allowed.test:%PORT%\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n',
  'CONNECT allowed.test:%PORT% HTTP/1.1\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n',
  'GET http://allowed.test:%PORT%/ HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
];
const CAPTURED = [
  'GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n',
  '\r\nGET / HTTP/1.1\r\n\r\n',
  'SSH-2.0-x\r\n',
  'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: b\r\n\r\nHEAD /c HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc',
  'GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n23\r\nGET /s HTTP/1.1\r\nHost: evil.test\r\n\r\n\r\n0\r\n\r\n',
  'GET /ws HTTP/1.1\r\nUpgrade: x\r\nConnection: Upgrade\r\nContent-Length: 4\r\n\r\nbody',
];
const RESPONSES = [
  'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
  'HTTP/1.1 099 Weird\r\nContent-Length: 0\r\n\r\n',
  'HTTP/1.1 200 O\x01K\r\nContent-Length: 0\r\n\r\n',
  'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n',
  'HTTP/1.1 200 OK\r\nX-A: b\x7f\r\nContent-Length: 0\r\n\r\n',
];

// A ClientHello-like record (random body) for tunnels and the capture port; half the time a
// well-formed hello naming allowed.test followed by more records (a ChangeCipherSpec, a second
// hello naming allowed.test or evil.test, random records), which the judge follows past the
// first hello.
function helloLike() {
  if (random() < 0.5) {
    const first = clientHello({ servername: 'allowed.test', keyShare: random() < 0.5 });
    const more = [CHANGE_CIPHER_SPEC, clientHello({ servername: pick(['allowed.test', 'evil.test']), random: first.random }).record, record(pick([0x14, 0x15, 0x16, 0x17]), bytes(Math.floor(random() * 64)))];
    return Buffer.concat([first.record, ...more.filter(() => random() < 0.6)]);
  }
  const body = bytes(40 + Math.floor(random() * 200));
  const msg = Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 0xff]), body]);
  return record(0x16, msg);
}

const CHANGE_CIPHER_SPEC = Buffer.from([0x14, 0x03, 0x03, 0x00, 0x01, 0x01]);

function record(type, body) {
  return Buffer.concat([Buffer.from([type, 3, 3, body.length >> 8, body.length & 0xff]), body]);
}

// What a TLS server answers a hello with: a ServerHello (a HelloRetryRequest, TLS 1.3 or 1.2),
// then random records.
function serverHelloLike() {
  const randomBytes = random() < 0.4 ? HRR_RANDOM : bytes(32);
  const versions = random() < 0.5 ? Buffer.from([0x00, 0x2b, 0x00, 0x02, 0x03, 0x04]) : Buffer.alloc(0);
  const body = Buffer.concat([Buffer.from([3, 3]), randomBytes, Buffer.from([0, 0x13, 0x01, 0, 0, versions.length]), versions]);
  const message = Buffer.concat([Buffer.from([2, 0, body.length >> 8, body.length & 0xff]), body]);
  return Buffer.concat([record(0x16, message), record(pick([0x14, 0x16, 0x17]), bytes(Math.floor(random() * 64)))]);
}

function socksInput(port) {
  const name = Buffer.from('allowed.test');
  const req = Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 0xff])]);
  return Buffer.concat([Buffer.from([5, 1, 0]), req, random() < 0.5 ? helloLike() : Buffer.from(pick(CAPTURED))]);
}

function dnsInput() {
  return random() < 0.3 ? bytes(Math.floor(random() * 600)) : mutate(ALLOWED_QUERY);
}

function startOrigin() {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => {
        const base = random() < 0.3 ? serverHelloLike() : Buffer.from(pick(RESPONSES), 'latin1');
        const reply = random() < 0.5 ? mutate(base) : random() < 0.5 ? bytes(Math.floor(random() * 300)) : base;
        socket.end(reply);
      });
      setTimeout(() => socket.destroy(), 2000);
    });
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port }));
  });
}

// Sends `input` in random pieces with small pauses, then closes after a short while.
function sendTo(port, host, input) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.on('error', () => resolve());
    socket.on('data', () => {});
    socket.on('close', () => resolve());
    socket.once('connect', async () => {
      let at = 0;
      while (at < input.length && !socket.destroyed) {
        const size = 1 + Math.floor(random() * (random() < 0.2 ? 4 : 512));
        socket.write(input.subarray(at, at + size));
        at += size;
        if (random() < 0.1) await new Promise((r) => setTimeout(r, Math.floor(random() * 20)));
      }
      setTimeout(() => socket.destroy(), 50 + Math.floor(random() * 150));
    });
  });
}

function ask(child, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the judge did not answer a ping')), timeoutMs);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.send('ping');
  });
}

function allowedRequest(proxyPort, goodPort) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: proxyPort }, () => {
      socket.write(`GET http://allowed.test:${goodPort}/ HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n`);
    });
    let got = '';
    socket.on('data', (c) => (got += c));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

async function main() {
  const origin = await startOrigin();
  const child = fork(__filename, ['--judge', String(origin.port)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let exited = null;
  child.on('exit', (code, signal) => (exited = { code, signal }));
  const { ports } = await new Promise((resolve) => child.once('message', resolve));
  const P = origin.port;
  const inputs = [
    () => [ports.http, '127.0.0.1', random() < 0.7 ? mutate(Buffer.from(pick(HTTP_REQUESTS).replaceAll('%PORT%', P))) : bytes(Math.floor(random() * 2000))],
    () => [ports.socks, '127.0.0.1', random() < 0.7 ? mutate(socksInput(P)) : bytes(Math.floor(random() * 300))],
    () => [ports.capture, '127.1.0.1', random() < 0.5 ? mutate(helloLike()) : mutate(Buffer.from(pick(CAPTURED)))],
    () => [ports.redirect, '127.1.0.2', random() < 0.5 ? mutate(helloLike()) : mutate(Buffer.from(pick(CAPTURED)))],
  ];
  const client = dgram.createSocket('udp4');
  const inFlight = new Set();
  for (let i = 0; i < CASES && exited === null; i++) {
    if (random() < 0.15) {
      client.send(dnsInput(), ports.dns, '127.0.0.1');
      continue;
    }
    const [port, host, input] = pick(inputs)();
    const done = sendTo(port, host, input);
    inFlight.add(done);
    done.then(() => inFlight.delete(done));
    if (inFlight.size >= 32) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  client.close();
  if (exited !== null) throw new Error(`the judge's process ended during the run (${JSON.stringify(exited)}); seed ${FIRST_SEED}`);
  const pong = await ask(child);
  const good = await new Promise((resolve) => {
    const server = require('http').createServer((req, res) => res.end('alive'));
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
  const reply = await allowedRequest(ports.http, good.address().port);
  good.close();
  child.kill();
  origin.server.close();
  if (!/^HTTP\/1\.1 200/.test(reply) || !reply.endsWith('alive')) throw new Error(`no allowed request after the run: ${JSON.stringify(reply.slice(0, 200))}`);
  console.log(`network judge fuzz: ${CASES} cases (seed ${FIRST_SEED}), the judge stayed alive ` +
    `(RSS ${(pong.rss / 2 ** 20).toFixed(0)} MiB) and answered an allowed request afterwards`);
}

if (process.argv[2] === '--judge') runJudgeChild();
else main().then(() => process.exit(0), (error) => {
  console.error(`network judge fuzz failed: ${error.message}`);
  process.exit(1);
});
