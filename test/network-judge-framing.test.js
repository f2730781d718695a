'use strict';

// Requests the network judge forwards (issue 38): each body framed so the origin cannot read it
// as a request of its own (a chunked body on GET, HEAD, DELETE or OPTIONS used to go on with no
// framing at all), through the proxy, a tunnel and a captured port; and what one client
// connection can make the judge hold: pipelined requests dialled one at a time, upstream sockets
// closed when the client leaves. Origins here are Node HTTP servers that keep reading a
// connection, as an origin that ignores the judge's Connection: close would.

const fs = require('fs');
const {
  useCleanups, httpOrigin, makeJudge, attachTcp, connectTo, connectTunnel, dnsStub, readUntil, delay, proxySend,
} = require('./helpers/judge-world');

useCleanups();

const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: evil.test\r\n\r\n';
const chunked = (text) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`;

// The world: an origin, a judge allowing allowed.test on it, and an opener per path.
async function world(handler) {
  const origin = await httpOrigin(handler);
  const judge = await makeJudge({ allow: ['allowed.test', '127.0.0.1'] });
  const proxy = await attachTcp(judge, 'http');
  const { ask } = await dnsStub(judge);
  const address = (await ask('allowed.test')).answers[0].address;
  await attachTcp(judge, `capture ${origin.port}`, address, origin.port);
  const paths = {
    proxy: { open: () => connectTo(proxy), target: (p) => `http://allowed.test:${origin.port}${p}` },
    tunnel: { open: async () => (await connectTunnel(proxy, `allowed.test:${origin.port}`)).socket, target: (p) => p },
    captured: { open: () => connectTo(origin.port, address), target: (p) => p },
  };
  return { origin, judge, paths, proxy };
}

const answered = (bytes) => /\r\n\r\n/.test(bytes.toString('latin1'));

describe('bodies framed', () => {
  for (const method of ['GET', 'HEAD', 'DELETE', 'OPTIONS']) {
    test(`a chunked ${method} whose body is another request reaches the origin as one request, on every path`, async () => {
      const { origin, paths } = await world();
      for (const [name, { open, target }] of Object.entries(paths)) {
        const socket = await open();
        socket.write(`${method} ${target('/x')} HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(SMUGGLED)}`);
        const reply = await readUntil(socket, answered);
        expect([name, reply.toString('latin1').split('\r\n')[0]]).toEqual([name, 'HTTP/1.1 200 OK']);
        socket.destroy();
      }
      await delay(200);
      expect(origin.seen.requests.map((r) => [r.method, r.url, r.headers.host])).toEqual(
        Object.keys(paths).map(() => [method, '/x', `allowed.test:${origin.port}`]),
      );
      for (const request of origin.seen.requests) expect(request.headers['transfer-encoding']).toBe('chunked');
    });
  }

  test('bodies still arrive whole: POST with a length, PUT streamed chunked, GET with a length', async () => {
    const { origin, proxy } = await world((req, res) => {
      let body = '';
      req.setEncoding('latin1');
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => res.end(`${req.method} got ${body.length}: ${body.slice(0, 12)}`));
    });
    const send = (method, headers, pieces) => proxySend(proxy, `http://allowed.test:${origin.port}/up`, { method, headers, pieces });
    expect(await send('POST', { 'content-length': '11' }, ['hello world'])).toBe('POST got 11: hello world');
    expect(await send('PUT', { 'transfer-encoding': 'chunked' }, ['streamed ', 'in ', 'pieces'])).toBe('PUT got 18: streamed in ');
    expect(await send('GET', { 'content-length': '7' }, ['{"q":1}'])).toBe('GET got 7: {"q":1}');
  });

  test('an upgrade that carries a body is refused before anything is dialled', async () => {
    const { origin, paths } = await world();
    const socket = await paths.proxy.open();
    socket.write(`GET ${paths.proxy.target('/ws')} HTTP/1.1\r\nHost: allowed.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`);
    const reply = await readUntil(socket, answered);
    expect(reply.toString('latin1')).toMatch(/^HTTP\/1\.1 400 /);
    expect(origin.seen.connections).toBe(0);
  });
});

function openDescriptors() {
  return fs.readdirSync('/proc/self/fd').length;
}

describe('what one client connection holds', () => {
  test('50 pipelined requests to a response that never ends hold one upstream socket, none after the client leaves', async () => {
    const { origin, paths } = await world((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('never ends');
    });
    const before = openDescriptors();
    const socket = await paths.proxy.open();
    let requests = '';
    for (let i = 0; i < 50; i++) requests += `GET ${paths.proxy.target(`/${i}`)} HTTP/1.1\r\nHost: allowed.test\r\n\r\n`;
    socket.write(requests);
    await readUntil(socket, (bytes) => bytes.includes('never ends'));
    await delay(300);
    // The client's socket and the judge's end of it, one upstream and the origin's end of it.
    expect(openDescriptors() - before).toBeLessThanOrEqual(4);
    expect(origin.seen.connections).toBe(1);
    socket.destroy();
    await delay(300);
    expect(openDescriptors()).toBeLessThanOrEqual(before);
  });

  test('700 pipelined requests: the client is closed past the bound, and the caller holds nothing after', async () => {
    const { origin, paths } = await world((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('never ends');
    });
    const before = openDescriptors();
    const socket = await paths.proxy.open();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    let requests = '';
    for (let i = 0; i < 700; i++) requests += `GET ${paths.proxy.target(`/${i}`)} HTTP/1.1\r\nHost: allowed.test\r\n\r\n`;
    socket.write(requests);
    await closed;
    await delay(300);
    expect(origin.seen.connections).toBeLessThanOrEqual(1);
    expect(openDescriptors()).toBeLessThanOrEqual(before);
  });

  test('pipelined requests are all answered, in order, one upstream connection at a time', async () => {
    let open = 0;
    let most = 0;
    const { origin, paths } = await world((req, res) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.end(`answer ${req.url}`);
      }, 10);
    });
    const socket = await paths.tunnel.open();
    let requests = '';
    for (let i = 0; i < 10; i++) requests += `GET /${i} HTTP/1.1\r\nHost: allowed.test\r\n\r\n`;
    socket.write(requests);
    const replies = await readUntil(socket, (bytes) => bytes.toString().includes('answer /9'));
    const order = [...replies.toString().matchAll(/answer \/(\d)/g)].map((m) => Number(m[1]));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(1);
    expect(origin.seen.requests).toHaveLength(10);
  });

  test('a client past the pipelining bound is closed, and nothing it queued is dialled', async () => {
    const { origin, paths } = await world((req, res) => setTimeout(() => res.end('late'), 200));
    const socket = await paths.proxy.open();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    let requests = '';
    for (let i = 0; i < 200; i++) requests += `GET ${paths.proxy.target(`/${i}`)} HTTP/1.1\r\nHost: allowed.test\r\n\r\n`;
    socket.write(requests);
    await closed;
    await delay(300);
    expect(origin.seen.requests.length).toBeLessThanOrEqual(1);
  });
});
