'use strict';

// The network judge's fourth round of attacks (issue 28), on the host's loopback: a client that
// pauses before naming another host, a request that starts with empty lines, an allowed server
// whose status line Node cannot write, and a ClientHello cut into one-byte records. The judge
// runs in this very process, as it runs in the agent's: a throw out of one of its handlers would
// end the test run. Timing (CPU per dripped hello, the event loop's lag) is in bench/network.js.
const { testIf } = require('./helpers/skips');
const net = require('net');
const { spawnSync } = require('child_process');
const {
  useCleanups, cleanups, tcpOrigin, httpOrigin, makeJudge, attachTcp, proxyGet, readUntil, connectTo, connectTunnel,
  socksConnect, delay, dnsStub, captureHello, listen, closing,
} = require('./helpers/judge-world');
const { settleWithin } = require('./helpers');
const { LIMITS } = require('../lib/network/judge');

useCleanups();
jest.setTimeout(30000);

const PAUSE_MS = LIMITS.firstByteMs + 200;

// Whether this process may listen on 127.0.0.1:443 (root may), for the tests of port 443 itself.
const CAN_BIND_443 = spawnSync(process.execPath, ['-e',
  "require('net').createServer().once('error',()=>process.exit(1)).listen(443,'127.0.0.1',function(){this.close()})"]).status === 0;
const on443 = testIf(CAN_BIND_443, 'this user cannot listen on port 443');

// An echo origin on 127.0.0.1:443 that records what reached it.
async function origin443() {
  const seen = { connections: 0, bytes: Buffer.alloc(0) };
  const server = net.createServer((socket) => {
    seen.connections++;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      seen.bytes = Buffer.concat([seen.bytes, chunk]);
    });
  });
  await listen(server, '127.0.0.1', 443);
  cleanups.push(() => {
    server.close();
    return closing(server)();
  });
  return seen;
}

// The stub's address for `name`, with a capture listener there on `port`.
async function captured(judge, name, port) {
  const { ask } = await dnsStub(judge);
  const address = (await ask(name)).answers[0].address;
  await attachTcp(judge, `capture ${port}`, address, port);
  return address;
}

const closed = (socket) => settleWithin(new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', resolve))), 15000, 'the judge closing');

// The same handshake message cut into records of `size` bytes each.
function inRecords(hello, size) {
  const message = hello.subarray(5);
  const records = [];
  for (let at = 0; at < message.length; at += size) {
    const part = message.subarray(at, at + size);
    records.push(Buffer.from([0x16, 3, 1, part.length >> 8, part.length & 0xff]), part);
  }
  return Buffer.concat(records);
}

describe('waiting skips no check', () => {
  test('a pause, then Host: evil.test on a captured port: the request is read, and goes out with the judged Host', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const address = await captured(judge, 'allowed.test', origin.port);
    const socket = await connectTo(origin.port, address);
    await delay(PAUSE_MS);
    socket.write('GET /x HTTP/1.1\r\nHost: evil.test\r\n\r\n');
    const reply = (await readUntil(socket, (b) => b.includes('hello from origin'))).toString();
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(origin.seen.requests.map((r) => r.headers.host)).toEqual([`allowed.test:${origin.port}`]);
  });

  on443('a pause, then a ClientHello naming evil.test, after CONNECT allowed.test:443: refused, the origin sees no byte', async () => {
    const seen = await origin443();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { socket, response } = await connectTunnel(proxy, 'allowed.test:443');
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    await delay(PAUSE_MS);
    socket.write(await captureHello('evil.test'));
    await closed(socket);
    expect(seen.bytes.length).toBe(0);
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: 443, reason: 'sni-mismatch', count: 1 }]);
  });

  on443('the same through SOCKS5 and on a captured port 443', async () => {
    const seen = await origin443();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    const viaSocks = await socksConnect(socksPort, 'allowed.test', 443);
    expect(viaSocks.reply[1]).toBe(0);
    await delay(PAUSE_MS);
    viaSocks.socket.write(await captureHello('evil.test'));
    await closed(viaSocks.socket);
    const address = await captured(judge, 'allowed.test', 443);
    const direct = await connectTo(443, address);
    await delay(PAUSE_MS);
    direct.write(await captureHello('evil.test'));
    await closed(direct);
    expect(seen.bytes.length).toBe(0);
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: 443, reason: 'sni-mismatch', count: 2 }]);
  });

  on443('silence on 443 is never piped, and bytes that are neither TLS nor HTTP are refused there', async () => {
    const seen = await origin443();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const raw = await connectTunnel(proxy, 'allowed.test:443');
    raw.socket.write('SSH-2.0-OpenSSH_9.6\r\n');
    await closed(raw.socket);
    const silent = await connectTunnel(proxy, 'allowed.test:443');
    await closed(silent.socket); // the judge gives up after finishMs
    expect(seen.bytes.length).toBe(0);
    expect(judge.report().denied.map((d) => d.reason).sort()).toEqual(['silent-client', 'unread-protocol']);
  });

  test('a server that speaks first still works on a port its entry names, and only there', async () => {
    const origin = await tcpOrigin({ banner: 'SSH-2.0-origin\r\n' });
    const named = await makeJudge({ allow: [`allowed.test:${origin.port}`, '127.0.0.1'] });
    const tunnel = await connectTunnel(await attachTcp(named, 'http'), `allowed.test:${origin.port}`);
    expect((await readUntil(tunnel.socket, (b) => b.includes('\n'))).toString()).toBe('SSH-2.0-origin\r\n');
    // A portless entry: the judge waits for the client (finishMs), then refuses the silence.
    const portless = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const other = await connectTunnel(await attachTcp(portless, 'http'), `allowed.test:${origin.port}`);
    await closed(other.socket);
    expect(portless.report().denied).toEqual([{ host: 'allowed.test', port: origin.port, reason: 'silent-client', count: 1 }]);
  });
});

describe('a blank line first', () => {
  for (const [name, lead] of [['CRLF', '\r\n'], ['LF only', '\n'], ['several', '\r\n\n\r\n']]) {
    test(`${name} before a request on a captured port and in a CONNECT tunnel: read as HTTP, Host rewritten`, async () => {
      const origin = await httpOrigin();
      const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
      const address = await captured(judge, 'allowed.test', origin.port);
      const socket = await connectTo(origin.port, address);
      socket.write(`${lead}GET /c HTTP/1.1\r\nHost: evil.test\r\n\r\n`);
      await readUntil(socket, (b) => b.includes('hello from origin'));
      const { socket: tunnel } = await connectTunnel(await attachTcp(judge, 'http'), `allowed.test:${origin.port}`);
      tunnel.write(`${lead}GET /t HTTP/1.1\r\nHost: evil.test\r\n\r\n`);
      await readUntil(tunnel, (b) => b.includes('hello from origin'));
      expect(origin.seen.requests.map((r) => [r.url, r.headers.host])).toEqual([
        ['/c', `allowed.test:${origin.port}`], ['/t', `allowed.test:${origin.port}`],
      ]);
    });
  }
});

describe('an allowed server cannot take down the caller', () => {
  // A raw origin answering every request with `head`, then a body.
  async function rawOrigin(head) {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end(`${head}\r\ncontent-length: 2\r\n\r\nok`));
    });
    const port = await listen(server);
    cleanups.push(closing(server));
    return port;
  }

  // [name, head, what the client gets: 502 from the judge, or the status with a clean phrase]
  const BAD_HEADS = [
    ['status 099', 'HTTP/1.1 099 OK', { status: 502 }],
    ['status 0', 'HTTP/1.1 0 OK', { status: 502 }],
    ['status 1000', 'HTTP/1.1 1000 OK', { status: 502 }],
    ['a control byte in the reason', 'HTTP/1.1 200 O\x01K', { status: 200, message: 'OK' }],
    ['DEL in the reason', 'HTTP/1.1 200 O\x7fK', { status: 200, message: 'OK' }],
    ['a 64 KiB reason', `HTTP/1.1 200 ${'x'.repeat(64 * 1024)}`, { status: 502 }],
  ];
  for (const [name, head, expected] of BAD_HEADS) {
    test(`${name}: the client gets ${expected.status === 502 ? 'a 502' : 'the status with a clean phrase'}, and the judge keeps serving`, async () => {
      const port = await rawOrigin(head);
      const good = await httpOrigin();
      const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
      const proxy = await attachTcp(judge, 'http');
      const reply = await proxyGet(proxy, `http://allowed.test:${port}/`);
      expect(reply.status).toBe(expected.status);
      if (expected.status === 502) expect(reply.message).toMatch(/^Bad Gateway from the mount-sandbox network judge/);
      else expect(reply.message).toBe(expected.message);
      expect((await proxyGet(proxy, `http://allowed.test:${good.port}/`)).body).toBe('hello from origin');
    });
  }
});

describe('linear work per byte', () => {
  test('a ClientHello in one-byte records is read whole: the right name passes, another is refused', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const good = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    const dripped = inRecords(await captureHello('allowed.test'), 1);
    for (let at = 0; at < dripped.length; at += 97) good.socket.write(dripped.subarray(at, at + 97));
    await settleWithin((async () => { while (origin.seen.bytes.length < dripped.length) await delay(20); })(), 10000, 'the hello reaching the origin');
    expect(Buffer.compare(origin.seen.bytes.subarray(0, dripped.length), dripped)).toBe(0);
    const bad = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    bad.socket.write(inRecords(await captureHello('evil.test'), 1));
    await closed(bad.socket);
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: origin.port, reason: 'sni-mismatch', count: 1 }]);
  });
});

describe('reasons that are true', () => {
  test('each refused range is named for what it is; the benchmarking range is dialled', async () => {
    const names = {
      'loop.test': ['127.0.0.9'], 'lan.test': ['192.168.1.4'], 'meta.test': ['169.254.169.254'], 'bench.test': ['198.18.0.7'],
    };
    const judge = await makeJudge({ allow: Object.keys(names), names });
    const proxy = await attachTcp(judge, 'http');
    for (const name of Object.keys(names)) await proxyGet(proxy, `http://${name}:8080/`).catch(() => null);
    const reasons = Object.fromEntries(judge.report().denied.map((d) => [d.host, d.reason]));
    expect(reasons).toMatchObject({ 'loop.test': 'loopback-address', 'lan.test': 'private-address', 'meta.test': 'metadata-address' });
    // Dialled: reached, or unreachable on a network with no route there, but not refused for its address.
    const dialled = judge.report().allowed.some((a) => a.host === 'bench.test') || reasons['bench.test'] === 'unreachable';
    expect([reasons['bench.test'], dialled]).toEqual([reasons['bench.test'], true]);
  });
});
