'use strict';

// TLS through the network judge past its first ClientHello (issue 38): a HelloRetryRequest's
// second hello naming another host, against a server that picks its certificate by that name
// (openssl s_server with two names, the callback nginx, HAProxy and Apache use), on every path
// (CONNECT, SOCKS5, a captured port); TLS 1.2 renegotiation; and the handshakes that must still
// work (a real retry, TLS 1.2).

const tls = require('tls');
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { testNeeding, settleWithin, makeTempDir, removeDir } = require('./helpers');
const {
  cleanups, useCleanups, listen, makeJudge, attachTcp, readUntil, connectTo, connectTunnel, socksConnect, dnsStub, delay,
} = require('./helpers/judge-world');
const { clientHello, serverHello } = require('./helpers/tls-hello');
const { HandshakeFollower } = require('../lib/network/tls-handshake');

const opensslMissing = spawnSync('openssl', ['version']).status === 0 ? null : 'openssl is not installed';

useCleanups();

// Self-signed certificates for allowed.test and evil.test, made by openssl.
function certificates() {
  const dir = makeTempDir('msb-judge-tls-');
  for (const name of ['allowed', 'evil']) {
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', `/CN=${name}.test`, '-addext', `subjectAltName=DNS:${name}.test`,
      '-keyout', path.join(dir, `${name}.key`), '-out', path.join(dir, `${name}.pem`)], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  }
  return dir;
}

// openssl s_server serving allowed.test, switching to evil.test's certificate when a hello names
// it; `log()` is what it printed ("Hostname in TLS extension: ..." per hello it read).
async function twoNameServer(dir) {
  const free = require('net').createServer();
  const port = await listen(free);
  await new Promise((resolve) => free.close(resolve));
  // Line-buffered, so what it printed can be read while it runs.
  const server = spawn('stdbuf', ['-oL', '-eL', 'openssl', 's_server', '-accept', `127.0.0.1:${port}`, '-tls1_3',
    '-cert', path.join(dir, 'allowed.pem'), '-key', path.join(dir, 'allowed.key'),
    '-servername', 'evil.test', '-cert2', path.join(dir, 'evil.pem'), '-key2', path.join(dir, 'evil.key')], { stdio: 'pipe' });
  let log = '';
  server.stdout.on('data', (chunk) => (log += chunk));
  server.stderr.on('data', (chunk) => (log += chunk));
  cleanups.push(() => server.kill());
  await settleWithin(new Promise((resolve) => {
    const ready = () => (log.includes('ACCEPT') ? resolve() : setTimeout(ready, 20));
    ready();
  }), 10000, 'openssl s_server starting');
  return { port, log: () => log };
}

// The attack: a first hello naming allowed.test with no key share, so the server asks for a
// retry; then a second one naming `second`. Resolves whether the retry came and what followed.
async function retryWithName(socket, second) {
  const first = clientHello({ servername: 'allowed.test', keyShare: false });
  socket.write(first.record);
  const answer = await readUntil(socket, (bytes) => serverHello(bytes) !== null);
  const hello = serverHello(answer);
  socket.write(Buffer.from([0x14, 0x03, 0x03, 0x00, 0x01, 0x01]));
  socket.write(clientHello({ servername: second, random: first.random, session: first.session, cookie: hello.cookie }).record);
  const after = await readUntil(socket, (bytes) => bytes.length > 0, 3000);
  return { retried: hello.retry, after };
}

describe('HelloRetryRequest', () => {
  let dir;
  beforeAll(() => {
    if (opensslMissing === null) dir = certificates();
  });
  afterAll(() => dir && removeDir(dir));

  testNeeding(opensslMissing)('a second hello naming another host is refused on CONNECT, SOCKS5 and a captured port', async () => {
    const server = await twoNameServer(dir);
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const socksPort = await attachTcp(judge, 'socks');
    const { ask } = await dnsStub(judge);
    const address = (await ask('allowed.test')).answers[0].address;
    await attachTcp(judge, `capture ${server.port}`, address, server.port);
    const paths = [
      async () => (await connectTunnel(proxy, `allowed.test:${server.port}`)).socket,
      async () => (await socksConnect(socksPort, 'allowed.test', server.port)).socket,
      () => connectTo(server.port, address),
    ];
    for (const open of paths) {
      const socket = await open();
      const { retried, after } = await retryWithName(socket, 'evil.test');
      expect(retried).toBe(true);
      expect(after).toHaveLength(0);
      expect(socket.destroyed || socket.readableEnded).toBe(true);
    }
    await delay(100);
    expect(server.log()).toContain('Hostname in TLS extension: "allowed.test"');
    expect(server.log()).not.toContain('evil.test');
    expect(server.log()).not.toContain('Switching server context');
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: server.port, reason: 'sni-mismatch', count: 3 }]);
  });

  testNeeding(opensslMissing)('a second hello naming the same host goes on, and the server answers it', async () => {
    const server = await twoNameServer(dir);
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { socket } = await connectTunnel(proxy, `allowed.test:${server.port}`);
    const { retried, after } = await retryWithName(socket, 'allowed.test');
    expect(retried).toBe(true);
    expect(after[0]).toBe(0x16); // the ServerHello
    expect(server.log().match(/Hostname in TLS extension: "allowed.test"/g)).toHaveLength(2);
    expect(judge.report().denied).toEqual([]);
  });
});

// A Node TLS origin for allowed.test with `options`; it answers a line with "tls says: <line>".
async function nodeOrigin(dir, options = {}) {
  const cert = fs.readFileSync(path.join(dir, 'allowed.pem'));
  const server = tls.createServer({ cert, key: fs.readFileSync(path.join(dir, 'allowed.key')), ...options }, (socket) => {
    socket.on('error', () => {});
    socket.on('data', (line) => socket.write(`tls says: ${line}`));
  });
  const port = await listen(server);
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { port, cert };
}

function secureConnect(options) {
  return settleWithin(new Promise((resolve, reject) => {
    const client = tls.connect({ servername: 'allowed.test', ...options }, () => resolve(client));
    client.once('error', reject);
    cleanups.push(() => client.destroy());
  }), 10000, 'the TLS handshake');
}

function exchange(client, line) {
  return settleWithin(new Promise((resolve) => {
    client.once('data', (chunk) => resolve(chunk.toString()));
    client.write(line);
  }), 5000, 'a line over TLS');
}

describe('handshakes that go on', () => {
  let dir;
  beforeAll(() => {
    if (opensslMissing === null) dir = certificates();
  });
  afterAll(() => dir && removeDir(dir));

  testNeeding(opensslMissing)('a real retry (the server wants another group) and TLS 1.2 complete through a tunnel', async () => {
    const retrying = await nodeOrigin(dir, { ecdhCurve: 'P-256' });
    const older = await nodeOrigin(dir, { maxVersion: 'TLSv1.2' });
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    for (const origin of [retrying, older]) {
      const { socket } = await connectTunnel(proxy, `allowed.test:${origin.port}`);
      const client = await secureConnect({ socket, ca: origin.cert, ecdhCurve: 'X25519:P-256' });
      expect(await exchange(client, 'one')).toBe('tls says: one');
      expect(await exchange(client, 'two')).toBe('tls says: two');
    }
    expect(judge.report().denied).toEqual([]);
  });

  testNeeding(opensslMissing)('a TLS 1.2 renegotiation is refused: its hello is encrypted, its server name unread', async () => {
    const origin = await nodeOrigin(dir, { maxVersion: 'TLSv1.2' });
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { socket } = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    const client = await secureConnect({ socket, ca: origin.cert, maxVersion: 'TLSv1.2' });
    expect(await exchange(client, 'before')).toBe('tls says: before');
    const closed = new Promise((resolve) => client.once('close', resolve));
    client.on('error', () => {});
    client.renegotiate({ rejectUnauthorized: false }, () => {});
    await settleWithin(closed, 5000, 'the connection closing');
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: origin.port, reason: 'tls-renegotiation', count: 1 }]);
  });
});

describe('the follower, byte by byte', () => {
  test('a retry naming another host, dripped one byte at a time, passes nothing of the second hello', () => {
    const first = clientHello({ servername: 'allowed.test', keyShare: false });
    const second = clientHello({ servername: 'evil.test', random: first.random, session: first.session });
    const follower = new HandshakeFollower('allowed.test');
    const passed = [];
    const drip = (bytes) => {
      for (const byte of bytes) {
        const out = follower.fromClient(Buffer.from([byte]));
        if (out === null) return false;
        passed.push(out);
      }
      return true;
    };
    expect(drip(first.record)).toBe(true);
    expect(Buffer.concat(passed)).toEqual(first.record);
    const retry = Buffer.from(first.record);
    retry[5] = 2; // a ServerHello...
    retry.set(require('./helpers/tls-hello').HRR_RANDOM, 5 + 4 + 2); // ...with the retry random
    for (const byte of retry) follower.fromServer(Buffer.from([byte]));
    const ccs = Buffer.from([0x14, 0x03, 0x03, 0x00, 0x01, 0x01]);
    expect(drip(ccs)).toBe(true);
    expect(drip(second.record)).toBe(false);
    expect(follower.refusal).toBe('sni-mismatch');
    expect(Buffer.concat(passed)).toEqual(Buffer.concat([first.record, ccs]));
  });

  test('bytes that are not TLS records after a hello are refused, not piped unread', () => {
    const first = clientHello({ servername: 'allowed.test' });
    const follower = new HandshakeFollower('allowed.test');
    expect(follower.fromClient(first.record)).toEqual(first.record);
    expect(follower.fromClient(Buffer.from('GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n'))).toBeNull();
    expect(follower.refusal).toBe('bad-tls-hello');
  });
});
