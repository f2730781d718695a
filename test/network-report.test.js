'use strict';

// The judge's report under a flood (issue 38): a command that fills the report's rows with junk
// (refused lookups, fetches under an allowed wildcard) must not hide what it then reached or was
// refused; counts stay exact past the rows, the note says how many refusals there were in all,
// and the report stays bounded however much junk comes. Also what the note says of allowed
// destinations that failed (no DNS answer, no connection): asking for permission cannot help.

const { EventEmitter } = require('events');
const { parseNetwork } = require('../lib/network/policy');
const { Report } = require('../lib/network/report');
const { LIMITS } = require('../lib/network/limits');
const { refusedNote } = require('../lib/exec/network');
const { useCleanups, httpOrigin, makeJudge, attachTcp, proxyGet, proxySend, connectTunnel, dnsStub } = require('./helpers/judge-world');

useCleanups();

const ROWS = LIMITS.listEntries;
const JUNK = 260;

// Every name under .test is on the origins' loopback address.
const testLookup = async (host) => {
  if (!host.endsWith('.test')) throw new Error(`ENOTFOUND ${host}`);
  return ['127.0.0.1'];
};


// Runs `work(i)` for i < count, `width` at a time.
async function inBatches(count, width, work) {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => work(start + k)));
  }
}

// A stand-in for an upstream socket: Report reads its bytes when it closes.
function upstream(bytes = 10) {
  const socket = new EventEmitter();
  socket.bytesRead = bytes;
  socket.bytesWritten = 0;
  return socket;
}

describe('a flood of junk does not hide what the command reached or was refused', () => {
  test('260 refused lookups and 260 fetches under a wildcard, then an upload and a refused CONNECT', async () => {
    const origin = await httpOrigin((req, res) => {
      let length = 0;
      req.on('data', (chunk) => (length += chunk.length));
      req.on('end', () => res.end(`got ${length} bytes`));
    });
    const policy = parseNetwork({ allow: ['*.allowed.test', 'upload.test', '127.0.0.1'] });
    const judge = await makeJudge({ allow: ['*.allowed.test', 'upload.test', '127.0.0.1'], lookup: testLookup });
    const proxy = await attachTcp(judge, 'http');
    const { ask } = await dnsStub(judge);

    // One at a time: the stub's test client takes the first answer that comes as its own.
    for (let i = 0; i < JUNK; i++) expect((await ask(`junk${i}.exfil.example`)).rcode).toBe(3);
    await inBatches(JUNK, 20, async (i) => {
      expect(await proxyGet(proxy, `http://h${i}.allowed.test:${origin.port}/`, { agent: false })).toMatchObject({ status: 200 });
    });
    expect(await proxySend(proxy, `http://upload.test:${origin.port}/upload`, { pieces: [Buffer.alloc(100_000, 0x61)] })).toBe('got 100000 bytes');
    for (let i = 0; i < 2; i++) {
      const { socket, response } = await connectTunnel(proxy, 'evil.test:443');
      expect(response).toMatch(/^HTTP\/1\.1 403 /);
      socket.destroy();
    }
    await judge.close();
    const report = judge.report();

    // Reached: the first destinations have rows of their own; past them, each is counted in the
    // row of the allow entry it matched, so the upload is there, bytes and all. (The judge must
    // hand its policy to its Report for that: lib/network/judge.js, new Report(policy).)
    expect(report.allowed).toHaveLength(ROWS + 2);
    expect(report.allowed.slice(0, ROWS).every((row) => row.destinations === undefined && row.connections === 1)).toBe(true);
    expect(report.allowed.slice(ROWS)).toEqual([
      { host: '*.allowed.test', port: null, connections: JUNK - ROWS, bytes: expect.any(Number), destinations: JUNK - ROWS },
      { host: 'upload.test', port: null, connections: 1, bytes: expect.any(Number), destinations: 1 },
    ]);
    expect(report.allowed[ROWS + 1].bytes).toBeGreaterThan(100_000);
    expect(report.allowed.reduce((sum, row) => sum + row.connections, 0)).toBe(JUNK + 1);

    // Refused: lookups and connections have rows of their own each, so the CONNECT is listed.
    expect(report.denied).toHaveLength(ROWS + 1);
    expect(report.denied.at(-1)).toEqual({ host: 'evil.test', port: 443, reason: 'not-allowed', count: 2 });
    expect(report.overflow).toEqual({
      allowed: JUNK - ROWS + 1,
      denied: JUNK - ROWS,
      refusals: JUNK - ROWS,
      reasons: { 'not-allowed': { destinations: JUNK - ROWS, refusals: JUNK - ROWS } },
      exact: true,
    });

    // The note counts every refusal and shows the refused connection before any lookup.
    const note = refusedNote(report, policy);
    expect(note).toContain(`refused ${JUNK + 2} connections and DNS lookups to ${JUNK + 1} destinations; the first 5 (connections first): ` +
      'evil.test:443 is not in the allowlist (2 times); junk0.exfil.example is not in the allowlist;');
    expect(note).toContain('This command may reach only *.allowed.test, upload.test, 127.0.0.1; ask the user');
    expect(note.split('\n')).toHaveLength(1);
  }, 60000);

  test('5,000 distinct refused names keep the report bounded, their count exact', async () => {
    const judge = await makeJudge({ allow: ['allowed.test'] });
    const { ask } = await dnsStub(judge);
    const names = 5000;
    for (let i = 0; i < names; i++) expect((await ask(`n${i}.flood.example`)).rcode).toBe(3);
    await ask('n1.flood.example'); // a repeat of a listed one: counted in its row
    const report = judge.report();
    expect(report.denied).toHaveLength(ROWS);
    expect(report.denied[1]).toEqual({ host: 'n1.flood.example', port: null, reason: 'not-allowed', count: 2 });
    // Every refusal is counted; distinct names are told apart as far as the judge remembers them.
    expect(report.overflow).toEqual({
      allowed: 0,
      denied: LIMITS.names,
      refusals: names - ROWS,
      reasons: { 'not-allowed': { destinations: LIMITS.names, refusals: names - ROWS } },
      exact: false,
    });
    const note = refusedNote(report, parseNetwork({ allow: ['allowed.test'] }));
    expect(note).toContain(`refused ${names + 1} connections and DNS lookups to at least ${ROWS + LIMITS.names} destinations; the first 5`);
  }, 60000);
});

describe('Report', () => {
  const policy = parseNetwork({ allow: ['*.wide.test', 'api.test:443', '203.0.113.7'] });

  test('without overflow the snapshot is { allowed, denied } as before', () => {
    const report = new Report(policy);
    report.connected('api.test', 443, upstream());
    report.refused('evil.test', 443, 'not-allowed');
    expect(new Report().snapshot()).toEqual({ allowed: [], denied: [] });
    expect(Object.keys(report.snapshot())).toEqual(['allowed', 'denied']);
  });

  test('past the rows, destinations fold into their entry\'s row; every connection and byte is counted', () => {
    const report = new Report(policy);
    for (let i = 0; i < ROWS; i++) report.connected(`h${i}.wide.test`, 443, upstream());
    const sockets = [];
    for (const [host, port] of [['x.wide.test', 443], ['x.wide.test', 443], ['y.wide.test', 80], ['api.test', 443], ['203.0.113.7', 22], ['approved.test', 8080]]) {
      const socket = upstream(5);
      sockets.push(socket);
      report.connected(host, port, socket);
    }
    report.connected('h0.wide.test', 443, upstream()); // a destination with a row of its own stays there
    for (const socket of sockets) socket.emit('close');
    const { allowed, overflow } = report.snapshot();
    expect(allowed).toHaveLength(ROWS + 4);
    expect(allowed[0]).toMatchObject({ host: 'h0.wide.test', port: 443, connections: 2 });
    expect(allowed.slice(ROWS)).toEqual([
      { host: '*.wide.test', port: null, connections: 3, bytes: 15, destinations: 2 },
      { host: 'api.test', port: 443, connections: 1, bytes: 5, destinations: 1 },
      { host: '203.0.113.7', port: null, connections: 1, bytes: 5, destinations: 1 },
      // Approved by onRequest, matching no entry: one row for all of them.
      { host: '*', port: null, connections: 1, bytes: 5, destinations: 1 },
    ]);
    expect(overflow).toMatchObject({ allowed: 5, denied: 0, refusals: 0, exact: true });
  });

  test('the rows of one side stay bounded under any number of destinations', () => {
    const report = new Report(policy);
    for (let i = 0; i < 20_000; i++) {
      report.connected(`h${i}.wide.test`, 443, upstream());
      report.refused(`n${i}.flood.example`, null, 'not-allowed');
      report.refused(`n${i}.flood.example`, 443, 'not-allowed');
    }
    const { allowed, denied, overflow } = report.snapshot();
    expect(allowed).toHaveLength(ROWS + 1);
    expect(allowed.at(-1)).toMatchObject({ host: '*.wide.test', connections: 20_000 - ROWS, destinations: LIMITS.names });
    expect(denied).toHaveLength(2 * ROWS);
    expect(overflow).toMatchObject({ allowed: LIMITS.names, denied: LIMITS.names, refusals: 2 * (20_000 - ROWS), exact: false });
  });
});

describe('the note on refusals', () => {
  const policy = parseNetwork({ allow: ['allowed.test', 'nowhere.test'] });

  test('one refusal reads as before', () => {
    expect(refusedNote({ allowed: [], denied: [{ host: 'evil.test', port: 443, reason: 'not-allowed', count: 1 }] }, policy)).toBe(
      "Note: the sandbox's network policy refused: evil.test:443 is not in the allowlist. " +
        'This command may reach only allowed.test, nowhere.test; ask the user to allow a destination it needs, or use an allowed one.');
  });

  test('an allowed name that does not resolve, or cannot be reached, is not sent to ask for permission', () => {
    const unresolvable = { host: 'nowhere.test', port: 443, reason: 'unresolvable', count: 2 };
    expect(refusedNote({ allowed: [], denied: [unresolvable] }, policy)).toBe(
      "Note: the sandbox's network policy allows this destination, but 2 connections to it failed: " +
        'nowhere.test:443 could not be resolved (no DNS answer; 2 times). Asking the user to allow it will not help: ' +
        'the name may be wrong, or the service down or unreachable from this machine.');
    const unreachable = { host: 'allowed.test', port: 8443, reason: 'unreachable', count: 1 };
    const both = refusedNote({ allowed: [], denied: [{ host: 'evil.test', port: 443, reason: 'not-allowed', count: 1 }, unreachable] }, policy);
    const [refused, failed] = both.split('\n');
    expect(refused).toMatch(/^Note: the sandbox's network policy refused: evil\.test:443 is not in the allowlist\. .*ask the user/);
    expect(refused).not.toContain('allowed.test:8443');
    expect(failed).toBe("Note: the sandbox's network policy allows this destination, but it could not be used: " +
      'allowed.test:8443 could not be reached (the connection failed). Asking the user to allow it will not help: ' +
      'the name may be wrong, or the service down or unreachable from this machine.');
    expect(failed).not.toContain('ask the user to allow a destination');
    const badResponse = { host: 'allowed.test', port: 80, reason: 'bad-response', count: 1 };
    expect(refusedNote({ allowed: [], denied: [badResponse] }, policy)).toContain('allows this destination, but it could not be used: allowed.test:80 answered');
  });

  test('more than five refusals: the total, and connections before lookups', () => {
    const lookups = Array.from({ length: 6 }, (_, i) => ({ host: `l${i}.example`, port: null, reason: 'not-allowed', count: 1 }));
    const denied = [...lookups, { host: 'evil.test', port: 22, reason: 'denied', count: 3 }];
    const note = refusedNote({ allowed: [], denied }, policy);
    expect(note).toContain('refused 9 connections and DNS lookups to 7 destinations; the first 5 (connections first): ' +
      'evil.test:22 is denied by the network policy (3 times); l0.example is not in the allowlist;');
    expect(note).not.toContain('l4.example');
  });

  test('refusals counted only past the rows are still a note', () => {
    const report = { allowed: [], denied: [], overflow: { allowed: 0, denied: 3, refusals: 4, reasons: { 'not-allowed': { destinations: 3, refusals: 4 } }, exact: true } };
    expect(refusedNote(report, policy)).toContain('refused 4 connections and DNS lookups to 3 destinations');
  });
});
