'use strict';

// The network judge (issue 21) against real sockets on the host's loopback: origin servers on
// 127.0.0.1, test names mapped to them by an injected lookup, real clients (Node http and tls,
// raw SOCKS5 and DNS clients written here, curl where installed). No packet leaves the machine.
// Every refusal test also shows that the origin saw no connection (or, after a tunnel was
// opened, no byte).

const net = require('net');
const tls = require('tls');
const http = require('http');
const { spawnSync, execFile } = require('child_process');
const fs = require('fs');
const path = require('path');
const { testNeeding, settleWithin, makeTempDir, removeDir } = require('./helpers');

const curlMissing = spawnSync('curl', ['--version']).status === 0 ? null : 'curl is not installed';
const opensslMissing = spawnSync('openssl', ['version']).status === 0 ? null : 'openssl is not installed (it makes the test certificate)';
const ipv6Missing = require('os').networkInterfaces().lo?.some((entry) => entry.address === '::1') ? null : 'the loopback interface has no ::1';
const pythonMissing = spawnSync('python3', ['--version']).status === 0 ? null : 'python3 is not installed';

const {
  cleanups, useCleanups, listen, closing, tcpOrigin, httpOrigin, makeJudge, attachTcp, proxyGet, proxySend, readUntil,
  connectTo, connectTunnel, socksConnect, sendClientHello, delay, encodeQuery, decodeAnswer, dnsStub, captureHello,
} = require('./helpers/judge-world');

useCleanups();

describe('HTTP proxy', () => {
  test('an allowed absolute-URI request is forwarded with Host from the URI and no proxy headers', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const reply = await proxyGet(proxy, `http://allowed.test:${origin.port}/path?q=1`, {
      headers: { host: 'evil.test', 'proxy-authorization': 'Basic c2VjcmV0OnNlY3JldA==', 'proxy-connection': 'keep-alive' },
    });
    expect(reply).toMatchObject({ status: 200, body: 'hello from origin' });
    expect(origin.seen.requests).toHaveLength(1);
    const [request] = origin.seen.requests;
    expect(request.url).toBe('/path?q=1');
    expect(request.headers.host).toBe(`allowed.test:${origin.port}`);
    expect(request.headers['proxy-authorization']).toBeUndefined();
    expect(request.headers['proxy-connection']).toBeUndefined();
    await judge.close();
    const report = judge.report();
    expect(report.denied).toEqual([]);
    expect(report.allowed).toEqual([{ host: 'allowed.test', port: origin.port, connections: 1, bytes: expect.any(Number) }]);
    expect(report.allowed[0].bytes).toBeGreaterThan(0);
    expect(JSON.stringify(report)).not.toContain('c2VjcmV0');
  });

  test('a request body is streamed through both ways', async () => {
    const origin = await httpOrigin((req, res) => {
      let length = 0;
      req.on('data', (chunk) => (length += chunk.length));
      req.on('end', () => res.end(`got ${length} bytes`));
    });
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const body = await proxySend(proxy, `http://allowed.test:${origin.port}/upload`, { pieces: [Buffer.alloc(300 * 1024, 0x61)] });
    expect(body).toBe(`got ${300 * 1024} bytes`);
  });

  test('a name not in the allowlist gets a 403 naming it and the allowlist, and the origin sees nothing', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const reply = await proxyGet(proxy, `http://evil.test:${origin.port}/`);
    expect(reply.status).toBe(403);
    expect(reply.message).toBe(`Forbidden by mount-sandbox network policy: evil.test:${origin.port} is not in the allowlist`);
    expect(reply.body).toBe(`mount-sandbox network policy: evil.test:${origin.port} is not in the allowlist.\nAllowed by the network policy: allowed.test, 127.0.0.1\n`);
    expect(origin.seen.connections).toBe(0);
    expect(judge.report().denied).toEqual([{ host: 'evil.test', port: origin.port, reason: 'not-allowed', count: 1 }]);
  });

  test('a denied name is refused as denied even when allowed by a wildcard', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['*.corp.test', '127.0.0.1'], deny: ['denied.corp.test'], names: { 'denied.corp.test': ['127.0.0.1'] } });
    const proxy = await attachTcp(judge, 'http');
    const reply = await proxyGet(proxy, `http://denied.corp.test:${origin.port}/`);
    expect(reply.status).toBe(403);
    expect(reply.message).toBe(`Forbidden by mount-sandbox network policy: denied.corp.test:${origin.port} is denied by the network policy`);
    expect(origin.seen.connections).toBe(0);
  });

  test('an allowed name that resolves to loopback is refused as loopback unless the address is named', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const proxy = await attachTcp(judge, 'http');
    const reply = await proxyGet(proxy, `http://allowed.test:${origin.port}/`);
    expect(reply.status).toBe(403);
    expect(reply.message).toBe(`Forbidden by mount-sandbox network policy: allowed.test:${origin.port} resolves only to loopback addresses (127.0.0.0/8, ::1)`);
    expect(origin.seen.connections).toBe(0);
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: origin.port, reason: 'loopback-address', count: 1 }]);
  });

  test('DNS rebinding: every private, metadata and mapped address a name resolves to is dropped', async () => {
    const origin = await httpOrigin();
    const addresses = ['10.0.0.1', '169.254.169.254', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '::1', '0.0.0.0', '127.0.0.1'];
    const judge = await makeJudge({ allow: ['allowed.test'], names: { 'allowed.test': addresses } });
    const proxy = await attachTcp(judge, 'http');
    const reply = await proxyGet(proxy, `http://allowed.test:${origin.port}/`);
    expect(reply.status).toBe(403);
    expect(origin.seen.connections).toBe(0);
  });

  test("the host's own addresses are refused for a name unless named", async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test'], names: { 'allowed.test': ['198.51.100.7'] }, ownAddresses: () => ['198.51.100.7'] });
    const proxy = await attachTcp(judge, 'http');
    const reply = await proxyGet(proxy, 'http://allowed.test/');
    expect(reply.status).toBe(403);
    expect(reply.message).toBe("Forbidden by mount-sandbox network policy: allowed.test:80 resolves only to this machine's own addresses");
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: 80, reason: 'own-address', count: 1 }]);
    expect(origin.seen.connections).toBe(0);
  });

  test('an IP literal is reached only through an IP entry, and names do not cover it', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const proxy = await attachTcp(judge, 'http');
    for (const host of ['127.0.0.1', '0x7f.1', '2130706433']) {
      const reply = await proxyGet(proxy, `http://${host}:${origin.port}/`);
      expect(reply.status).toBe(403);
      expect(reply.message).toContain(`127.0.0.1:${origin.port} is not in the allowlist`);
    }
    expect(origin.seen.connections).toBe(0);
    const named = await makeJudge({ allow: [`127.0.0.1:${origin.port}`] });
    const namedProxy = await attachTcp(named, 'http');
    expect(await proxyGet(namedProxy, `http://127.0.0.1:${origin.port}/`)).toMatchObject({ status: 200 });
  });

  test('an unresolvable name gets a 502 that says so', async () => {
    const judge = await makeJudge({ allow: ['nowhere.test'] });
    const proxy = await attachTcp(judge, 'http');
    const reply = await proxyGet(proxy, 'http://nowhere.test/');
    expect(reply.status).toBe(502);
    expect(reply.message).toBe('Bad Gateway from the mount-sandbox network judge: nowhere.test:80 could not be resolved');
    expect(judge.report().denied).toEqual([{ host: 'nowhere.test', port: 80, reason: 'unresolvable', count: 1 }]);
  });

  test('requests for different hosts on one connection are each judged', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());
    const first = await proxyGet(proxy, `http://allowed.test:${origin.port}/one`, { agent });
    const second = await proxyGet(proxy, `http://other.test:${origin.port}/two`, { agent });
    const third = await proxyGet(proxy, `http://allowed.test:${origin.port}/three`, { agent });
    expect([first.status, second.status, third.status]).toEqual([200, 403, 200]);
    expect(second.reused && third.reused).toBe(true);
    expect(origin.seen.requests.map((r) => r.url)).toEqual(['/one', '/three']);
  });

  test('an origin-form request on the proxy port gets a 400 that says what the port takes', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const proxy = await attachTcp(judge, 'http');
    const socket = await connectTo(proxy);
    socket.write('GET /index.html HTTP/1.1\r\nHost: allowed.test\r\n\r\n');
    const reply = (await readUntil(socket, (b) => b.includes('CONNECT host:port'))).toString();
    expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(reply).toContain('this port takes proxy requests');
  });

  test('request headers over 16 KiB are refused with 431 and not forwarded', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const socket = await connectTo(proxy);
    socket.write(`GET http://allowed.test:${origin.port}/ HTTP/1.1\r\nHost: allowed.test\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    const reply = (await readUntil(socket, (b) => b.includes('\n\n') || b.includes('KiB'))).toString();
    expect(reply).toMatch(/^HTTP\/1\.1 431/);
    expect(origin.seen.connections).toBe(0);
  });

  testNeeding(pythonMissing)("Python's urllib shows the refusal's reason phrase", async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const script = [
      'import sys, urllib.request',
      'opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": sys.argv[1]}))',
      'try:',
      '    opener.open(sys.argv[2], timeout=10)',
      'except Exception as e:',
      '    print(e)',
    ].join('\n');
    const stdout = await new Promise((resolve) => {
      execFile('python3', ['-c', script, `http://127.0.0.1:${proxy}`, `http://evil.test:${origin.port}/`], { timeout: 15000 }, (error, out) => resolve(out));
    });
    expect(stdout.trim()).toBe(`HTTP Error 403: Forbidden by mount-sandbox network policy: evil.test:${origin.port} is not in the allowlist`);
    expect(origin.seen.connections).toBe(0);
  });

  testNeeding(curlMissing)('curl through the proxy: allowed, and a refusal curl shows with the reason', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const curl = (url) =>
      new Promise((resolve) => {
        execFile('curl', ['-sS', '-i', '--noproxy', '', '-x', `http://127.0.0.1:${proxy}`, url], { timeout: 10000 }, (error, stdout, stderr) =>
          resolve({ stdout, stderr }),
        );
      });
    const allowed = await curl(`http://allowed.test:${origin.port}/`);
    expect(allowed.stdout).toContain('hello from origin');
    const refused = await curl(`http://evil.test:${origin.port}/`);
    expect(refused.stdout).toContain(`HTTP/1.1 403 Forbidden by mount-sandbox network policy: evil.test:${origin.port} is not in the allowlist`);
    expect(origin.seen.requests).toHaveLength(1);
  });
});

describe('upgrades (WebSocket)', () => {
  // An origin that switches /ws to an echo protocol and refuses other upgrades with a 400 while
  // keeping the connection open, recording every byte that arrives after that.
  async function upgradeOrigin() {
    const origin = await httpOrigin();
    origin.upgrades = [];
    origin.afterRefusal = '';
    const sockets = new Set();
    cleanups.push(() => sockets.forEach((socket) => socket.destroy()));
    origin.server.on('upgrade', (req, socket) => {
      sockets.add(socket);
      origin.upgrades.push({ url: req.url, host: req.headers.host, upgrade: req.headers.upgrade });
      socket.on('error', () => {});
      if (req.url !== '/ws') {
        socket.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
        socket.on('data', (chunk) => (origin.afterRefusal += chunk));
        return;
      }
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
      socket.on('data', (chunk) => socket.write(chunk));
    });
    return origin;
  }

  test('an upgrade through the proxy and on a captured port goes to the judged host, then both ways', async () => {
    const origin = await upgradeOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { ask } = await dnsStub(judge);
    const address = (await ask('allowed.test')).answers[0].address;
    await attachTcp(judge, `capture ${origin.port}`, address, origin.port);
    const viaProxy = await connectTo(proxy);
    viaProxy.write(`GET http://allowed.test:${origin.port}/ws HTTP/1.1\r\nHost: evil.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`);
    expect((await readUntil(viaProxy, (b) => b.includes('\r\n\r\n'))).toString()).toMatch(/^HTTP\/1\.1 101 /);
    viaProxy.write('frame one');
    expect((await readUntil(viaProxy, (b) => b.length >= 9)).toString()).toBe('frame one');
    const captured = await connectTo(origin.port, address);
    captured.write('GET http://evil.test/ws HTTP/1.1\r\nHost: evil.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    expect((await readUntil(captured, (b) => b.includes('\r\n\r\n'))).toString()).toMatch(/^HTTP\/1\.1 101 /);
    captured.write('frame two');
    expect((await readUntil(captured, (b) => b.length >= 9)).toString()).toBe('frame two');
    expect(origin.upgrades).toEqual([
      { url: '/ws', host: `allowed.test:${origin.port}`, upgrade: 'echo' },
      { url: '/ws', host: `allowed.test:${origin.port}`, upgrade: 'echo' },
    ]);
  });

  test('after an upgrade the origin refused, nothing more the client sends reaches it', async () => {
    const origin = await upgradeOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const { ask } = await dnsStub(judge);
    const address = (await ask('allowed.test')).answers[0].address;
    await attachTcp(judge, `capture ${origin.port}`, address, origin.port);
    const socket = await connectTo(origin.port, address);
    socket.write('GET /other HTTP/1.1\r\nHost: allowed.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    expect((await readUntil(socket, (b) => b.includes('\r\n\r\n'))).toString()).toMatch(/^HTTP\/1\.1 400 /);
    socket.write('GET /second HTTP/1.1\r\nHost: evil.test\r\n\r\n');
    await delay(300);
    expect(origin.afterRefusal).toBe('');
    expect(origin.seen.requests).toEqual([]);
  });

  test('an upgrade to a destination not allowed gets the 403', async () => {
    const origin = await upgradeOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const socket = await connectTo(proxy);
    socket.write(`GET http://evil.test:${origin.port}/ws HTTP/1.1\r\nHost: evil.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`);
    const reply = (await readUntil(socket, () => false)).toString();
    expect(reply.split('\r\n')[0]).toBe(`HTTP/1.1 403 Forbidden by mount-sandbox network policy: evil.test:${origin.port} is not in the allowlist`);
    expect(origin.seen.connections).toBe(0);
  });
});

describe('CONNECT', () => {
  test('an allowed CONNECT opens a tunnel to the checked address', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { socket, response } = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    expect(response).toBe('HTTP/1.1 200 Connection established\r\n\r\n');
    socket.write('ping');
    expect((await readUntil(socket, (b) => b.length >= 4)).toString()).toBe('ping');
    socket.destroy();
    await judge.close();
    expect(judge.report().allowed).toEqual([{ host: 'allowed.test', port: origin.port, connections: 1, bytes: 8 }]);
  });

  test('a refused CONNECT gets a 403 status line naming the destination; the origin sees nothing', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { response } = await connectTunnel(proxy, `evil.test:${origin.port}`);
    expect(response.split('\r\n')[0]).toBe(`HTTP/1.1 403 Forbidden by mount-sandbox network policy: evil.test:${origin.port} is not in the allowlist`);
    expect(origin.seen.connections).toBe(0);
  });

  testNeeding(ipv6Missing)('an IPv6 literal is reached through its bracketed entry and shown bracketed when refused', async () => {
    const origin = await tcpOrigin();
    const v6 = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.end('from ::1');
    });
    const port = await listen(v6, '::1');
    cleanups.push(closing(v6));
    const judge = await makeJudge({ allow: [`[::1]:${port}`] });
    const proxy = await attachTcp(judge, 'http');
    const allowed = await connectTunnel(proxy, `[::1]:${port}`);
    expect(allowed.response).toBe('HTTP/1.1 200 Connection established\r\n\r\n');
    expect((await readUntil(allowed.socket, () => false)).toString()).toBe('from ::1');
    const refused = await connectTunnel(proxy, `[::1]:${origin.port}`);
    expect(refused.response.split('\r\n')[0]).toBe(`HTTP/1.1 403 Forbidden by mount-sandbox network policy: [::1]:${origin.port} is not in the allowlist`);
    expect(origin.seen.connections).toBe(0);
  });

  test('plain HTTP through a CONNECT or SOCKS5 tunnel goes to the tunnel\'s host whatever Host it names', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const socksPort = await attachTcp(judge, 'socks');
    const { socket } = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    const viaSocks = await socksConnect(socksPort, 'allowed.test', origin.port);
    for (const client of [socket, viaSocks.socket]) {
      client.write('GET /one HTTP/1.1\r\nHost: evil.test\r\n\r\n');
      await readUntil(client, (b) => b.includes('hello from origin'));
      client.write('GET http://evil.test/two HTTP/1.1\r\nHost: evil.test\r\n\r\n');
      await readUntil(client, (b) => b.includes('hello from origin'));
    }
    expect(origin.seen.requests.map((r) => [r.url, r.headers.host])).toEqual(
      Array(2).fill([['/one', `allowed.test:${origin.port}`], ['/two', `allowed.test:${origin.port}`]]).flat(),
    );
    // The connection the tunnel opened served its first request; the second got its own.
    expect(origin.seen.connections).toBe(4);
  });

  test('a ClientHello whose SNI names another host closes the tunnel before a byte reaches the origin', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { socket } = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    sendClientHello(socket, 'evil.test');
    await settleWithin(new Promise((resolve) => socket.once('close', resolve)), 5000, 'the tunnel closing');
    expect(origin.seen.bytes.length).toBe(0);
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: origin.port, reason: 'sni-mismatch', count: 1 }]);
  });

  test('a ClientHello naming the CONNECT host (in any case) passes', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { socket } = await connectTunnel(proxy, `ALLOWED.test:${origin.port}`);
    sendClientHello(socket, 'Allowed.Test');
    await settleWithin((async () => { while (origin.seen.bytes.length === 0) await delay(20); })(), 5000, 'the hello reaching the origin');
    expect(origin.seen.bytes[0]).toBe(0x16);
    expect(judge.report().denied).toEqual([]);
  });

  test('a ClientHello sent in pieces is still read whole before anything passes', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const hello = await captureHello('evil.test');
    const { socket } = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    socket.write(hello.subarray(0, 3));
    await delay(500);
    socket.write(hello.subarray(3));
    await settleWithin(new Promise((resolve) => socket.once('close', resolve)), 5000, 'the tunnel closing');
    expect(origin.seen.bytes.length).toBe(0);
    expect(judge.report().denied[0].reason).toBe('sni-mismatch');
  });

  testNeeding(curlMissing)('curl https through CONNECT to a refused host prints the reason', async () => {
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    // execFile, not spawnSync: the judge runs in this process and must keep serving.
    const stderr = await new Promise((resolve) => {
      execFile('curl', ['-sS', '-v', '--noproxy', '', '-x', `http://127.0.0.1:${proxy}`, 'https://evil.test/'], { timeout: 10000 }, (error, stdout, err) => resolve(err));
    });
    expect(stderr).toContain('403 Forbidden by mount-sandbox network policy: evil.test:443 is not in the allowlist');
  });
});

// A self-signed certificate for allowed.test, made by openssl in a temp dir.
function testCertificate() {
  const dir = makeTempDir('msb-judge-cert-');
  try {
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=allowed.test',
      '-addext', 'subjectAltName=DNS:allowed.test', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
    return { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) };
  } finally {
    removeDir(dir);
  }
}

// A TLS origin for allowed.test that answers a line with "tls says: <line>", and an HTTP
// request with "hello over tls".
async function tlsOrigin(credentials) {
  const seen = { connections: 0 };
  const server = tls.createServer(credentials, (socket) => {
    socket.on('error', () => {});
    socket.once('data', (line) => {
      if (!line.toString().startsWith('GET ')) return socket.end(`tls says: ${line}`);
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 14\r\nConnection: close\r\n\r\nhello over tls');
    });
  });
  server.on('connection', () => seen.connections++);
  const port = await listen(server);
  cleanups.push(closing(server));
  return { port, seen };
}

// Completes a TLS handshake for allowed.test over `socket` (or to address:port) trusting only
// the test certificate, sends a line and resolves the answer.
function tlsExchange(credentials, target) {
  return settleWithin(
    new Promise((resolve, reject) => {
      const client = tls.connect({ ...target, servername: 'allowed.test', ca: credentials.cert }, () => client.write('hi'));
      cleanups.push(() => client.destroy());
      let text = '';
      client.on('data', (chunk) => (text += chunk));
      client.on('end', () => resolve(text));
      client.on('error', reject);
    }),
    10000,
    'the TLS exchange',
  );
}

describe('TLS end to end', () => {
  let credentials;
  beforeAll(() => {
    if (opensslMissing === null) credentials = testCertificate();
  });

  testNeeding(opensslMissing)('a real handshake completes through CONNECT, SOCKS5 and a capture listener', async () => {
    const origin = await tlsOrigin(credentials);
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const socksPort = await attachTcp(judge, 'socks');
    const { ask } = await dnsStub(judge);
    const tunnel = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    expect(await tlsExchange(credentials, { socket: tunnel.socket })).toBe('tls says: hi');
    const viaSocks = await socksConnect(socksPort, 'allowed.test', origin.port);
    expect(await tlsExchange(credentials, { socket: viaSocks.socket })).toBe('tls says: hi');
    const address = (await ask('allowed.test')).answers[0].address;
    await attachTcp(judge, `capture ${origin.port}`, address, origin.port);
    expect(await tlsExchange(credentials, { host: address, port: origin.port })).toBe('tls says: hi');
    expect(origin.seen.connections).toBe(3);
    await judge.close();
    expect(judge.report()).toEqual({ allowed: [{ host: 'allowed.test', port: origin.port, connections: 3, bytes: expect.any(Number) }], denied: [] });
  });

  testNeeding(curlMissing ?? opensslMissing)('curl https through the proxy and through SOCKS5', async () => {
    const origin = await tlsOrigin(credentials);
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const socksPort = await attachTcp(judge, 'socks');
    const dir = makeTempDir('msb-judge-ca-');
    cleanups.push(() => removeDir(dir));
    fs.writeFileSync(path.join(dir, 'ca.pem'), credentials.cert);
    const curl = (how) =>
      new Promise((resolve) => {
        const args = ['-sS', '--noproxy', '', ...how, '--cacert', path.join(dir, 'ca.pem'), `https://allowed.test:${origin.port}/`];
        execFile('curl', args, { timeout: 10000 }, (error, stdout, stderr) => resolve({ stdout, stderr }));
      });
    expect(await curl(['-x', `http://127.0.0.1:${proxy}`])).toEqual({ stdout: 'hello over tls', stderr: '' });
    expect(await curl(['--socks5-hostname', `127.0.0.1:${socksPort}`])).toEqual({ stdout: 'hello over tls', stderr: '' });
  });
});

// The bytes Node's TLS client sends first for `servername`, caught by a plain TCP server.
describe('SOCKS5', () => {
  test('CONNECT by name to an allowed destination succeeds with bound address 0.0.0.0:0', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    const { socket, reply } = await socksConnect(socksPort, 'allowed.test', origin.port);
    expect(reply).toEqual([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    socket.write('over socks');
    expect((await readUntil(socket, (b) => b.length >= 10)).toString()).toBe('over socks');
  });

  test('CONNECT to a destination not allowed gets 0x02 and the origin sees nothing', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    for (const host of ['evil.test', '127.0.0.2', '::1']) {
      const { reply } = await socksConnect(socksPort, host, origin.port);
      expect(reply[1]).toBe(2);
    }
    expect(origin.seen.connections).toBe(0);
    expect(judge.report().denied.map((d) => d.host)).toEqual(['evil.test', '127.0.0.2', '::1']);
  });

  test('IPv4 and IPv6 literals reach an address an IP entry names', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    const { reply } = await socksConnect(socksPort, '127.0.0.1', origin.port);
    expect(reply[1]).toBe(0);
    const mapped = await socksConnect(socksPort, '::ffff:127.0.0.1', origin.port);
    expect(mapped.reply[1]).toBe(0);
  });

  test('a client that half-closes after sending still gets the answer', async () => {
    const origin = await tcpOrigin({ farewell: 'bye' });
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    const proxy = await attachTcp(judge, 'http');
    const viaSocks = await socksConnect(socksPort, 'allowed.test', origin.port);
    viaSocks.socket.end('ping');
    expect((await readUntil(viaSocks.socket, () => false)).toString()).toBe('pingbye');
    const viaConnect = await connectTunnel(proxy, `allowed.test:${origin.port}`);
    await delay(400);
    viaConnect.socket.end('pong');
    expect((await readUntil(viaConnect.socket, () => false)).toString()).toBe('pongbye');
  });

  test('BIND and UDP ASSOCIATE are refused with 0x07', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const socksPort = await attachTcp(judge, 'socks');
    expect((await socksConnect(socksPort, 'allowed.test', 443, { command: 2 })).reply[1]).toBe(7);
    expect((await socksConnect(socksPort, 'allowed.test', 443, { command: 3 })).reply[1]).toBe(7);
    expect(judge.report().denied.map((d) => d.reason)).toEqual(['unsupported-command', 'udp']);
  });

  test('a dial that fails gets 0x04', async () => {
    const origin = await tcpOrigin();
    const port = origin.port;
    await closing(origin.server)();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    expect((await socksConnect(socksPort, 'allowed.test', port)).reply[1]).toBe(4);
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port, reason: 'unreachable', count: 1 }]);
  });

  test('a client offering only authentication methods is turned away', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const socksPort = await attachTcp(judge, 'socks');
    const socket = await connectTo(socksPort);
    socket.write(Buffer.from([5, 1, 2]));
    expect([...(await readUntil(socket, () => false))]).toEqual([5, 0xff]);
  });

  test('a handshake over 1 KiB is cut off', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const socksPort = await attachTcp(judge, 'socks');
    const socket = await connectTo(socksPort);
    socket.write(Buffer.from([5, 1, 0]));
    await readUntil(socket, (b) => b.length >= 2);
    socket.write(Buffer.from([5, 1, 0, 3, 255]));
    socket.write(Buffer.alloc(2000, 0x61));
    await settleWithin(new Promise((resolve) => socket.once('close', resolve)), 5000, 'the judge closing the socket');
  });

  test('SNI is checked after a SOCKS CONNECT as after an HTTP one', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    const { socket } = await socksConnect(socksPort, 'allowed.test', origin.port);
    sendClientHello(socket, 'evil.test');
    await settleWithin(new Promise((resolve) => socket.once('close', resolve)), 5000, 'the tunnel closing');
    expect(origin.seen.bytes.length).toBe(0);
    expect(judge.report().denied[0].reason).toBe('sni-mismatch');
  });

  testNeeding(curlMissing)('curl --socks5-hostname reaches an allowed name and is refused another', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const socksPort = await attachTcp(judge, 'socks');
    const run = (url) =>
      new Promise((resolve) => {
        execFile('curl', ['-sS', '--noproxy', '', '--socks5-hostname', `127.0.0.1:${socksPort}`, url], { timeout: 10000 }, (error, stdout, stderr) =>
          resolve({ status: error ? error.code : 0, stdout, stderr }),
        );
      });
    expect((await run(`http://allowed.test:${origin.port}/`)).stdout).toBe('hello from origin');
    const refused = await run(`http://evil.test:${origin.port}/`);
    expect(refused.status).not.toBe(0);
    expect(origin.seen.requests).toHaveLength(1);
  });
});

describe('DNS stub', () => {
  test('an allowed name gets a stable per-name loopback address with TTL 60', async () => {
    const judge = await makeJudge({ allow: ['allowed.test', '*.example.test:443'] });
    const { ask } = await dnsStub(judge);
    const first = await ask('allowed.test', 1, 0xbeef);
    expect(first).toMatchObject({ id: 0xbeef, response: true, recursionAvailable: true, rcode: 0, questions: 1 });
    expect(first.answers).toEqual([{ type: 1, ttl: 60, address: '127.1.0.1' }]);
    expect((await ask('api.example.test')).answers[0].address).toBe('127.1.0.2');
    expect((await ask('ALLOWED.test')).answers[0].address).toBe('127.1.0.1');
  });

  test('AAAA, HTTPS and SVCB for an allowed name: NOERROR with no answer', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const { ask } = await dnsStub(judge);
    for (const type of [28, 65, 64]) {
      expect(await ask('allowed.test', type)).toMatchObject({ rcode: 0, answers: [] });
    }
  });

  test('names not allowed never resolve and are reported with port null', async () => {
    const judge = await makeJudge({ allow: ['*.corp.test'], deny: ['denied.corp.test', 'mail.corp.test:25'] });
    const { ask } = await dnsStub(judge);
    expect((await ask('evil.example')).rcode).toBe(3);
    expect((await ask('denied.corp.test')).rcode).toBe(3);
    expect((await ask('corp.test')).rcode).toBe(3);
    expect((await ask('mail.corp.test')).rcode).toBe(0);
    expect((await ask('data-0123456789abcdef.exfil.example', 16)).rcode).toBe(3);
    expect(judge.report().denied).toEqual([
      { host: 'evil.example', port: null, reason: 'not-allowed', count: 1 },
      { host: 'denied.corp.test', port: null, reason: 'denied', count: 1 },
      { host: 'corp.test', port: null, reason: 'not-allowed', count: 1 },
      { host: 'data-0123456789abcdef.exfil.example', port: null, reason: 'not-allowed', count: 1 },
    ]);
  });

  test('malformed queries get FORMERR or no answer', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const { exchange } = await dnsStub(judge);
    expect(await exchange(Buffer.from([1, 2, 3, 4, 5]), 300)).toBeNull();
    const pointer = Buffer.concat([encodeQuery(7, 'x', 1).subarray(0, 12), Buffer.from([0xc0, 12, 0, 1, 0, 1])]);
    expect(decodeAnswer(await exchange(pointer))).toMatchObject({ id: 7, rcode: 1, questions: 0 });
    const two = encodeQuery(8, 'allowed.test', 1);
    two.writeUInt16BE(2, 4);
    expect(decodeAnswer(await exchange(two)).rcode).toBe(1);
    const truncated = encodeQuery(9, 'allowed.test', 1).subarray(0, 20);
    expect(decodeAnswer(await exchange(truncated)).rcode).toBe(1);
    const response = encodeQuery(10, 'allowed.test', 1, { flags: 0x8100 });
    expect(await exchange(response, 300)).toBeNull();
    const overlong = encodeQuery(11, 'a'.repeat(63), 1);
    overlong[12] = 64;
    expect(decodeAnswer(await exchange(overlong)).rcode).toBe(1);
  });

  test('at most 4096 names get addresses; then SERVFAIL', async () => {
    const judge = await makeJudge({ allow: ['*.many.test'] });
    const { ask } = await dnsStub(judge);
    for (let i = 0; i < 4096; i++) {
      const reply = await ask(`n${i}.many.test`);
      expect(reply.answers).toHaveLength(1);
    }
    expect((await ask('n4096.many.test')).rcode).toBe(2);
    expect((await ask('n0.many.test')).answers[0].address).toBe('127.1.0.1');
    expect(judge.report().denied).toEqual([{ host: 'n4096.many.test', port: null, reason: 'too-many-names', count: 1 }]);
  });
});

describe('capture listeners', () => {
  // A capture listener on the stub's address for `name`, on the origin's port (on another
  // loopback address), as the launcher's 0.0.0.0:<port> listener sees connections to it.
  async function captured(judge, ask, name, port) {
    const reply = await ask(name);
    const address = reply.answers[0].address;
    await attachTcp(judge, `capture ${port}`, address, port);
    return address;
  }

  test('plain HTTP to a captured name is forwarded with Host set to the name, whatever the client sent', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const { ask } = await dnsStub(judge);
    const address = await captured(judge, ask, 'allowed.test', origin.port);
    const socket = await connectTo(origin.port, address);
    socket.write('GET /a HTTP/1.1\r\nHost: evil.test\r\n\r\nGET http://evil.test/b HTTP/1.1\r\nHost: evil.test\r\n\r\n');
    const replies = (await readUntil(socket, (b) => b.toString().split('hello from origin').length === 3)).toString();
    expect(replies.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(origin.seen.requests.map((r) => [r.url, r.headers.host])).toEqual([
      ['/a', `allowed.test:${origin.port}`],
      ['/b', `allowed.test:${origin.port}`],
    ]);
  });

  test('a connection to an address the stub never gave out is closed and reported', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    await attachTcp(judge, `capture ${origin.port}`, '127.1.0.9', origin.port);
    const socket = await connectTo(origin.port, '127.1.0.9');
    socket.write('hello');
    await settleWithin(new Promise((resolve) => socket.once('close', resolve)), 5000, 'the judge closing');
    expect(origin.seen.connections).toBe(0);
    expect(judge.report().denied).toEqual([{ host: '127.1.0.9', port: origin.port, reason: 'unknown-address', count: 1 }]);
  });

  test('TLS to a captured name with another SNI is closed before the origin sees a connection', async () => {
    const origin = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const { ask } = await dnsStub(judge);
    const address = await captured(judge, ask, 'allowed.test', origin.port);
    const client = tls.connect({ host: address, port: origin.port, servername: 'evil.test', rejectUnauthorized: false });
    client.on('error', () => {});
    cleanups.push(() => client.destroy());
    await settleWithin(new Promise((resolve) => client.once('close', resolve)), 5000, 'the judge closing');
    expect(origin.seen.connections).toBe(0);
    expect(judge.report().denied).toEqual([{ host: 'allowed.test', port: origin.port, reason: 'sni-mismatch', count: 1 }]);
  });

  test('TLS with the matching SNI is piped; a server that speaks first is piped after a short wait on a port its entry names', async () => {
    const origin = await tcpOrigin({ banner: '220 ready\r\n' });
    const judge = await makeJudge({ allow: [`allowed.test:${origin.port}`, '127.0.0.1'] });
    const { ask } = await dnsStub(judge);
    const address = await captured(judge, ask, 'allowed.test', origin.port);
    const silent = await connectTo(origin.port, address);
    expect((await readUntil(silent, (b) => b.includes('\n'))).toString()).toBe('220 ready\r\n');
    const client = tls.connect({ host: address, port: origin.port, servername: 'allowed.test', rejectUnauthorized: false });
    client.on('error', () => {});
    cleanups.push(() => client.destroy());
    await settleWithin((async () => { while (origin.seen.bytes.length === 0) await delay(20); })(), 5000, 'the hello reaching the origin');
    expect(origin.seen.bytes[0]).toBe(0x16);
  });

  test('a captured name on a port not allowed gets a 403 over HTTP and reaches nothing', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test:443', '127.0.0.1'] });
    const { ask } = await dnsStub(judge);
    const address = await captured(judge, ask, 'allowed.test', origin.port);
    const socket = await connectTo(origin.port, address);
    socket.write('GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n');
    const reply = (await readUntil(socket, () => false)).toString();
    expect(reply.split('\r\n')[0]).toBe(`HTTP/1.1 403 Forbidden by mount-sandbox network policy: allowed.test:${origin.port} is not in the allowlist`);
    expect(origin.seen.connections).toBe(0);
  });

  test("Node's fetch with no proxy configuration reaches a captured name", async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const { ask } = await dnsStub(judge);
    const address = await captured(judge, ask, 'allowed.test', origin.port);
    const response = await fetch(`http://${address}:${origin.port}/via-fetch`);
    expect(await response.text()).toBe('hello from origin');
    expect(origin.seen.requests[0].headers.host).toBe(`allowed.test:${origin.port}`);
  });
});

describe('onRequest', () => {
  test('asked once per destination left out; yes allows it for the judge\'s life', async () => {
    const origin = await httpOrigin();
    const asked = [];
    const judge = await makeJudge({
      allow: ['allowed.test', '127.0.0.1'],
      onRequest: async (destination) => {
        asked.push(destination);
        return destination.host === 'other.test';
      },
    });
    const proxy = await attachTcp(judge, 'http');
    const { ask } = await dnsStub(judge);
    expect((await ask('other.test')).rcode).toBe(3);
    expect((await proxyGet(proxy, `http://other.test:${origin.port}/`)).status).toBe(200);
    expect((await proxyGet(proxy, `http://other.test:${origin.port}/`)).status).toBe(200);
    expect((await proxyGet(proxy, `http://evil.test:${origin.port}/`)).status).toBe(403);
    expect((await proxyGet(proxy, `http://evil.test:${origin.port}/`)).status).toBe(403);
    expect(asked).toEqual([
      { host: 'other.test', port: origin.port },
      { host: 'evil.test', port: origin.port },
    ]);
    expect((await ask('other.test')).rcode).toBe(0);
    expect(origin.seen.requests).toHaveLength(2);
  });

  test('never asked for a denied destination; a throwing callback refuses', async () => {
    const origin = await httpOrigin();
    const asked = [];
    const judge = await makeJudge({
      allow: ['allowed.test', '127.0.0.1'],
      deny: ['denied.test'],
      onRequest: async (destination) => {
        asked.push(destination.host);
        throw new Error('prompt failed');
      },
    });
    const proxy = await attachTcp(judge, 'http');
    expect((await proxyGet(proxy, `http://denied.test:${origin.port}/`)).status).toBe(403);
    expect((await proxyGet(proxy, `http://other.test:${origin.port}/`)).status).toBe(403);
    expect(asked).toEqual(['other.test']);
    expect(origin.seen.connections).toBe(0);
  });
});

describe('onRequest and local addresses', () => {
  test('an approved address is named explicitly; an approved name that resolves to loopback is still refused', async () => {
    const origin = await httpOrigin();
    const judge = await makeJudge({ allow: [], onRequest: async () => true });
    const proxy = await attachTcp(judge, 'http');
    expect((await proxyGet(proxy, `http://other.test:${origin.port}/`)).status).toBe(403);
    expect(origin.seen.connections).toBe(0);
    expect((await proxyGet(proxy, `http://127.0.0.1:${origin.port}/`)).status).toBe(200);
    expect(judge.report().denied).toEqual([expect.objectContaining({ host: 'other.test', reason: 'loopback-address' })]);
  });
});

describe('robustness', () => {
  test('clients killed mid-stream, and an origin killed mid-stream, leave the judge serving', async () => {
    const origin = await httpOrigin((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const timer = setInterval(() => res.write(Buffer.alloc(64 * 1024)), 5);
      res.on('close', () => clearInterval(timer));
      if (req.url === '/die') setTimeout(() => req.socket.destroy(), 50);
    });
    const echo = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const socksPort = await attachTcp(judge, 'socks');
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => {
        const req = http.request({ host: '127.0.0.1', port: proxy, path: `http://allowed.test:${origin.port}/stream` });
        req.on('response', (res) => res.once('data', () => { req.destroy(); resolve(); }));
        req.on('error', resolve);
        req.end();
      });
      const died = await new Promise((resolve) => {
        const req = http.request({ host: '127.0.0.1', port: proxy, path: `http://allowed.test:${origin.port}/die` });
        req.on('response', (res) => { res.on('data', () => {}); res.on('error', () => resolve('error')); res.on('close', () => resolve('closed')); });
        req.on('error', () => resolve('error'));
        req.end();
      });
      expect(['error', 'closed']).toContain(died);
      const { socket } = await connectTunnel(proxy, `allowed.test:${echo.port}`);
      socket.write(Buffer.alloc(256 * 1024));
      socket.destroy();
      const viaSocks = await socksConnect(socksPort, 'allowed.test', echo.port);
      viaSocks.socket.write(Buffer.alloc(128 * 1024));
      viaSocks.socket.resetAndDestroy();
      const half = await connectTo(socksPort);
      half.write(Buffer.from([5, 1]));
      half.destroy();
    }
    const fine = await httpOrigin();
    expect((await proxyGet(proxy, `http://allowed.test:${fine.port}/`)).status).toBe(200);
  });

  test('beyond 512 open connections, new ones are closed', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const socksPort = await attachTcp(judge, 'socks');
    const sockets = [];
    for (let i = 0; i < 512; i++) sockets.push(await connectTo(socksPort));
    await delay(100);
    const extra = await connectTo(socksPort);
    await settleWithin(new Promise((resolve) => extra.once('close', resolve)), 5000, 'the extra connection closing');
    // Once one closes, there is room again (the judge may take a moment to see the close).
    sockets[0].destroy();
    let greeted = [];
    for (let attempt = 0; attempt < 50 && greeted.length === 0; attempt++) {
      await delay(100);
      const next = await connectTo(socksPort);
      next.write(Buffer.from([5, 1, 0]));
      greeted = [...(await readUntil(next, (b) => b.length >= 2))];
    }
    expect(greeted).toEqual([5, 0]);
  }, 60000);

  test('close() ends every listener and open tunnel', async () => {
    const echo = await tcpOrigin();
    const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
    const proxy = await attachTcp(judge, 'http');
    const { socket } = await connectTunnel(proxy, `allowed.test:${echo.port}`);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await settleWithin(judge.close(), 5000, 'close()');
    await settleWithin(closed, 5000, 'the tunnel closing');
    await expect(connectTo(proxy)).rejects.toThrow(/ECONNREFUSED/);
  });
});
