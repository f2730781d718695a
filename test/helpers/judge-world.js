'use strict';

// The judge's test world on the host's loopback, shared by test/network-judge*.test.js: origin
// servers on 127.0.0.1, test names mapped to them by an injected lookup, a judge with its
// listeners, and raw clients (HTTP proxy form, CONNECT, SOCKS5, DNS, a TLS ClientHello). Each
// file calls useCleanups() once: what a test opens is closed after it.
const net = require('net');
const tls = require('tls');
const http = require('http');
const dgram = require('dgram');
const { NetworkJudge } = require('../../lib/network/judge');
const { parseNetwork } = require('../../lib/network/policy');
const { settleWithin } = require('../helpers');

const cleanups = [];
function useCleanups() {
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()();
  });
}

function listen(server, host = '127.0.0.1', port = 0) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address().port));
  });
}

function closing(server) {
  return () => new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

// A TCP origin that echoes what it gets and records connections and bytes (`banner` is written
// on connect, for servers that speak first).
async function tcpOrigin({ banner = null, farewell = null } = {}) {
  const seen = { connections: 0, bytes: Buffer.alloc(0) };
  const sockets = new Set();
  // With a farewell, the origin answers a client's end of sending with it, then ends too.
  const server = net.createServer({ allowHalfOpen: farewell !== null }, (socket) => {
    if (farewell !== null) socket.on('end', () => socket.end(farewell));
    seen.connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    if (banner) socket.write(banner);
    socket.on('data', (chunk) => {
      seen.bytes = Buffer.concat([seen.bytes, chunk]);
      socket.write(chunk);
    });
  });
  const port = await listen(server);
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return closing(server)();
  });
  return { port, seen, server };
}

// An HTTP origin that answers "hello from origin" and records each request's line and headers.
async function httpOrigin(handler) {
  const seen = { connections: 0, requests: [] };
  const server = http.createServer((req, res) => {
    seen.requests.push({ method: req.method, url: req.url, headers: req.headers });
    if (handler) return handler(req, res);
    req.resume();
    req.on('end', () => res.end('hello from origin'));
  });
  server.on('connection', () => seen.connections++);
  const port = await listen(server);
  cleanups.push(closing(server));
  return { port, seen, server };
}

const TEST_NAMES = { 'allowed.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'], 'denied.test': ['127.0.0.1'] };

async function makeJudge({ allow, deny = [], onRequest, lookup, ownAddresses, names = TEST_NAMES } = {}) {
  const judge = new NetworkJudge({
    policy: parseNetwork({ allow, deny }),
    onRequest,
    lookup:
      lookup ??
      (async (host) => {
        if (!(host in names)) throw new Error(`ENOTFOUND ${host}`);
        return names[host];
      }),
    ownAddresses: ownAddresses ?? (() => []),
  });
  cleanups.push(() => judge.close());
  return judge;
}

async function attachTcp(judge, label, host = '127.0.0.1', port = 0) {
  const server = net.createServer();
  const bound = await listen(server, host, port);
  judge.attach(label, server);
  return bound;
}

// One request through the HTTP proxy with Node's http client in proxy form.
function proxyGet(proxyPort, url, { headers = {}, agent } = {}) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = http.request({ host: '127.0.0.1', port: proxyPort, path: url, headers: { host: target.host, ...headers }, agent });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, message: res.statusMessage, body, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

// A request with a body through the HTTP proxy in proxy form, the body written piece by piece
// (a short pause between); resolves the answer's body.
function proxySend(proxyPort, url, { method = 'POST', headers = {}, pieces = [] } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, method, path: url, headers: { host: new URL(url).host, ...headers } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    (async () => {
      for (const piece of pieces) {
        req.write(piece);
        await delay(20);
      }
      req.end();
    })();
  });
}

// Reads from `socket` until `done(bytes)` is true; resolves the bytes (or what came before close).
function readUntil(socket, done, ms = 5000) {
  return settleWithin(
    new Promise((resolve) => {
      let bytes = Buffer.alloc(0);
      const onData = (chunk) => {
        bytes = Buffer.concat([bytes, chunk]);
        if (done(bytes)) finish();
      };
      const finish = () => {
        socket.off('data', onData);
        socket.off('close', finish);
        resolve(bytes);
      };
      socket.on('data', onData);
      socket.once('close', finish);
    }),
    ms,
    'reading from the judge',
  );
}

function connectTo(port, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port }, () => resolve(socket));
    socket.once('error', reject);
    cleanups.push(() => socket.destroy());
  });
}

// Opens a CONNECT tunnel through the proxy; resolves { socket, response } (the response head).
async function connectTunnel(proxyPort, authority) {
  const socket = await connectTo(proxyPort);
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  const head = await readUntil(socket, (bytes) => bytes.includes('\r\n\r\n'));
  return { socket, response: head.toString('latin1') };
}

// A SOCKS5 CONNECT request with the destination in the given form.
function socksRequest(command, host, port) {
  let address;
  if (net.isIPv4(host)) address = Buffer.from([1, ...host.split('.').map(Number)]);
  else if (net.isIPv6(host)) {
    const full = new URL(`http://[${host}]`).hostname.slice(1, -1);
    const parts = full.split('::');
    const head = parts[0] ? parts[0].split(':') : [];
    const tail = parts.length > 1 && parts[1] ? parts[1].split(':') : [];
    const groups = [...head, ...Array(8 - head.length - tail.length).fill('0'), ...tail];
    const bytes = Buffer.alloc(16);
    groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2));
    address = Buffer.concat([Buffer.from([4]), bytes]);
  } else address = Buffer.concat([Buffer.from([3, host.length]), Buffer.from(host, 'latin1')]);
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(port);
  return Buffer.concat([Buffer.from([5, command, 0]), address, portBytes]);
}

// Greets the SOCKS5 port with no-auth and sends one request; resolves { socket, reply }.
async function socksConnect(socksPort, host, port, { command = 1 } = {}) {
  const socket = await connectTo(socksPort);
  socket.write(Buffer.from([5, 1, 0]));
  const greeting = await readUntil(socket, (bytes) => bytes.length >= 2);
  expect([...greeting]).toEqual([5, 0]);
  socket.write(socksRequest(command, host, port));
  const reply = await readUntil(socket, (bytes) => bytes.length >= 10);
  return { socket, reply: [...reply] };
}

// A ClientHello naming `servername`, as Node's TLS client sends it, over `socket`.
function sendClientHello(socket, servername) {
  const client = tls.connect({ socket, servername, rejectUnauthorized: false });
  client.on('error', () => {});
  cleanups.push(() => client.destroy());
  return client;
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- DNS ----

function encodeQuery(id, name, type, { flags = 0x0100, qclass = 1 } = {}) {
  const labels = name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')]));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(qclass, 2);
  return Buffer.concat([header, ...labels, Buffer.from([0]), tail]);
}

function decodeAnswer(packet) {
  const flags = packet.readUInt16BE(2);
  const out = {
    id: packet.readUInt16BE(0),
    response: Boolean(flags & 0x8000),
    recursionAvailable: Boolean(flags & 0x0080),
    rcode: flags & 0xf,
    questions: packet.readUInt16BE(4),
    answers: [],
  };
  let at = 12;
  for (let i = 0; i < out.questions; i++) {
    while (packet[at] !== 0) at += packet[at] + 1;
    at += 5;
  }
  for (let i = 0; i < packet.readUInt16BE(6); i++) {
    at += 2; // a pointer to the question's name
    const type = packet.readUInt16BE(at);
    const ttl = packet.readUInt32BE(at + 4);
    const length = packet.readUInt16BE(at + 8);
    out.answers.push({ type, ttl, address: [...packet.subarray(at + 10, at + 10 + length)].join('.') });
    at += 10 + length;
  }
  return out;
}

async function dnsStub(judge) {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  judge.attach('dns', socket);
  const client = dgram.createSocket('udp4');
  await new Promise((resolve) => client.bind(0, '127.0.0.1', resolve));
  cleanups.push(() => client.close());
  const port = socket.address().port;
  // Sends a packet and resolves the raw reply, or null when none comes within `ms`.
  const exchange = (packet, ms = 5000) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        client.off('message', onMessage);
        resolve(null);
      }, ms);
      const onMessage = (reply) => {
        clearTimeout(timer);
        client.off('message', onMessage);
        resolve(reply);
      };
      client.on('message', onMessage);
      client.send(packet, port, '127.0.0.1');
    });
  const ask = async (name, type = 1, id = 0x1234) => decodeAnswer(await exchange(encodeQuery(id, name, type)));
  return { exchange, ask };
}

// The ClientHello Node's TLS client sends for `servername`, caught by a plain TCP server.
async function captureHello(servername) {
  const server = net.createServer();
  const port = await listen(server);
  const got = new Promise((resolve) => {
    server.once('connection', (socket) => {
      socket.once('data', (chunk) => {
        resolve(chunk);
        socket.destroy();
      });
    });
  });
  const client = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
  client.on('error', () => {});
  const hello = await got;
  client.destroy();
  await closing(server)();
  return hello;
}

module.exports = {
  cleanups, useCleanups, listen, closing, tcpOrigin, httpOrigin, TEST_NAMES, makeJudge, attachTcp, proxyGet, proxySend, readUntil,
  connectTo, connectTunnel, socksRequest, socksConnect, sendClientHello, delay, encodeQuery, decodeAnswer, dnsStub,
  captureHello,
};
