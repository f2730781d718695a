'use strict';

// Every TCP port of an allowed name, for clients that ignore the proxy variables (issue 38): the
// launcher redirects every port of the DNS stub's addresses to the judge in the command's network
// namespace (nf_tables), and the judge reads the port the command asked for back. Node 20's
// fetch, which reads no proxy variable, reaches an allowed name on 8080 as curl does through the
// proxy; a port the entry does not allow is refused with a line in the report, not a bare
// ECONNREFUSED. Where the kernel refuses the rule, 'network-every-port' is missing and only the
// captured ports (80, 443 and those entries name) answer.

const { testNeeding } = require('./helpers');
const { useWorld, worldNeeds } = require('./helpers/net-world');

jest.setTimeout(60_000);

const HOSTS = { 'example.test': 'server', 'registry.test': 'server', 'echo.test': 'server' };
const filtered = (allow) => ({ network: { allow } });
const node = (code) => ['node', '-e', code];

const world = useWorld(HOSTS);

// Node's own fetch (no proxy): prints the status and body, or "fetch error <code>".
const fetchScript = (url) => `
  fetch(${JSON.stringify(url)}).then(async (r) => console.log(r.status + ' ' + (await r.text()).trim()),
    (e) => { console.log('fetch error ' + ((e.cause && e.cause.code) || e.message)); process.exitCode = 3; });`;

// Connects to host:port, sends "ping", prints what comes back or the error.
const tcpScript = (host, port) => `
  const s = require('net').connect({ host: ${JSON.stringify(host)}, port: ${port} }, () => s.write('ping'));
  s.setTimeout(5000, () => { console.log('tcp timeout'); s.destroy(); });
  s.on('data', (d) => { console.log('tcp got ' + d); s.destroy(); });
  s.on('error', (e) => console.log('tcp error ' + e.code));
  s.on('close', () => console.log('tcp closed'));`;

const everyPort = (result) => result.enforcement.layers.includes('network-every-port');

describe('every port of an allowed name', () => {
  testNeeding(worldNeeds())("Node's fetch reaches an allowed name on 8080, with no proxy variable read", async () => {
    const result = await world.current.exec(node(fetchScript('http://example.test:8080/any-port')), filtered(['example.test']));
    if (!everyPort(result)) {
      expect(result.enforcement.missing).toContain('network-every-port');
      expect(result.stdout).toMatch(/^fetch error ECONNREFUSED/);
      return;
    }
    expect(result.stdout.trim()).toBe('200 hello from example.test GET /any-port over http');
    expect(result.network.allowed).toEqual([expect.objectContaining({ host: 'example.test', port: 8080, connections: 1 })]);
    expect(result.network.denied).toEqual([]);
  });

  testNeeding(worldNeeds())('a port the entry does not name is refused by the judge, with a line in the report', async () => {
    const result = await world.current.exec(node(fetchScript('http://registry.test:8080/not-this-port')), filtered(['registry.test:443']));
    if (!everyPort(result)) return expect(result.enforcement.missing).toContain('network-every-port');
    expect(result.stdout).toMatch(/^403 mount-sandbox network policy: registry\.test:8080 is not in the allowlist/);
    expect(result.network.denied).toEqual([expect.objectContaining({ host: 'registry.test', port: 8080, reason: 'not-allowed' })]);
    expect(result.stderr).toContain('registry.test:8080');
    expect(await world.current.serverLog()).toEqual([]);
  });

  testNeeding(worldNeeds())('a raw TCP client reaches a port-less entry on 7000, its bytes judged as a tunnel judges them', async () => {
    const result = await world.current.exec(node(tcpScript('echo.test', 7000)), filtered(['echo.test']));
    if (!everyPort(result)) return expect(result.stdout).toMatch(/^tcp error ECONNREFUSED/);
    expect(result.stdout).toMatch(/^tcp got ping/);
    expect(result.network.allowed).toEqual([expect.objectContaining({ host: 'echo.test', port: 7000 })]);
  });

  testNeeding(worldNeeds())('an address of the stub network the stub never gave out is refused, on any port', async () => {
    const result = await world.current.exec(node(tcpScript('127.1.200.200', 9999)), filtered(['example.test']));
    if (!everyPort(result)) return expect(result.stdout).toMatch(/^tcp error ECONNREFUSED/);
    expect(result.stdout).not.toMatch(/tcp got/);
    expect(result.network.denied).toEqual([expect.objectContaining({ host: '127.1.200.200', port: 9999, reason: 'unknown-address' })]);
    expect(await world.current.serverLog()).toEqual([]);
  });
});
