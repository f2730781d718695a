'use strict';

// The judge's protocol readers on their own (lib/network/sni.js, network-dns.js,
// network-socks.js): the bytes real clients send, the same bytes cut or altered, and random
// bytes, which must never throw.

const net = require('net');
const tls = require('tls');
const crypto = require('crypto');
const { readClientHello, looksLikeTls } = require('../lib/network/sni');
const { decodeQuery, encodeResponse, NameTable, RCODE } = require('../lib/network/dns');
const socks = require('../lib/network/socks');
const { canonicalHost, parseAuthority, originForm, refusalSentence, REFUSALS } = require('../lib/network/judge');

// The first bytes Node's TLS client sends for `options`, caught by a plain TCP server.
async function clientHello(options) {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const got = new Promise((resolve) => {
    server.once('connection', (socket) => {
      socket.once('data', (chunk) => {
        resolve(chunk);
        socket.destroy();
      });
    });
  });
  const client = tls.connect({ host: '127.0.0.1', port: server.address().port, rejectUnauthorized: false, ...options });
  client.on('error', () => {});
  const hello = await got;
  client.destroy();
  await new Promise((resolve) => server.close(resolve));
  return hello;
}

// The same handshake message split over two records at `cut` bytes into it.
function splitRecords(hello, cut) {
  const message = hello.subarray(5);
  const record = (part) => Buffer.concat([Buffer.from([0x16, 3, 1, part.length >> 8, part.length & 0xff]), part]);
  return Buffer.concat([record(message.subarray(0, cut)), record(message.subarray(cut))]);
}

describe('ClientHello SNI', () => {
  let hello;
  beforeAll(async () => {
    hello = await clientHello({ servername: 'Api.Example.COM' });
  });

  test("reads the name of Node's hello, lowercased, and waits for the rest of a cut one", async () => {
    expect(looksLikeTls(hello)).toBe(true);
    expect(readClientHello(hello)).toEqual({ sni: 'api.example.com' });
    for (const cut of [1, 5, 9, 40, hello.length - 1]) expect(readClientHello(hello.subarray(0, cut))).toBe('more');
    expect(readClientHello(splitRecords(hello, 10))).toEqual({ sni: 'api.example.com' });
    expect(readClientHello(splitRecords(hello, 2))).toEqual({ sni: 'api.example.com' });
  });

  test('a hello without SNI reads as none', async () => {
    const bare = await clientHello({ host: '127.0.0.1' });
    expect(readClientHello(bare)).toEqual({ sni: null });
  });

  test('altered hellos are invalid, never a name', () => {
    const wrongRecord = Buffer.from(hello);
    wrongRecord[5] = 2; // a ServerHello
    expect(readClientHello(wrongRecord)).toBe('invalid');
    const notHandshake = Buffer.concat([Buffer.from([0x17, 3, 1, 0, 1, 0]), hello]);
    expect(readClientHello(notHandshake)).toBe('invalid');
    const longer = Buffer.from(hello);
    longer.writeUIntBE(hello.length - 9 + 1, 6, 3); // the message claims a byte more than its record
    expect(readClientHello(Buffer.concat([longer, Buffer.from([0x17, 3, 3, 0, 1, 0])]))).toBe('invalid');
    // Two server_name extensions: the name is found, its extension copied in front.
    const at = hello.indexOf(Buffer.from('Api.Example.COM', 'latin1'));
    const extensionStart = at - 9;
    const extension = hello.subarray(extensionStart, at + 'api.example.com'.length);
    expect(extension.readUInt16BE(0)).toBe(0);
    const twice = insertExtension(hello, extension);
    expect(readClientHello(twice)).toBe('invalid');
  });

  test('random bytes never throw', () => {
    for (let i = 0; i < 2000; i++) {
      const bytes = crypto.randomBytes(1 + (i % 300));
      bytes[0] = 0x16;
      if (i % 2) bytes[1] = 3;
      expect(() => readClientHello(bytes)).not.toThrow();
      const flipped = Buffer.from(hello);
      flipped[5 + (i % (hello.length - 5))] ^= 1 << (i % 8);
      const result = readClientHello(flipped);
      if (typeof result === 'object' && result.sni !== null) expect(result.sni).toMatch(/^[a-z0-9._-]+$/);
    }
  });
});

// `hello` with `extension` added at the front of its extension list (lengths fixed up).
function insertExtension(hello, extension) {
  const body = hello.subarray(9);
  let at = 2 + 32;
  at += 1 + body[at];
  at += 2 + body.readUInt16BE(at);
  at += 1 + body[at];
  const listLength = body.readUInt16BE(at);
  const newBody = Buffer.concat([body.subarray(0, at), u16(listLength + extension.length), extension, body.subarray(at + 2)]);
  const header = Buffer.from([1, newBody.length >> 16, (newBody.length >> 8) & 0xff, newBody.length & 0xff]);
  const message = Buffer.concat([header, newBody]);
  return Buffer.concat([Buffer.from([0x16, 3, 1]), u16(message.length), message]);
}

function u16(n) {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

describe('DNS codec', () => {
  const query = (name, type = 1) => {
    const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
    return Buffer.concat([Buffer.from([0xab, 0xcd, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, type, 0, 1])]);
  };

  test('decodes one question and echoes it in the answer', () => {
    const decoded = decodeQuery(query('WWW.Example.com', 28));
    expect(decoded.question).toMatchObject({ name: 'www.example.com', type: 28, qclass: 1 });
    const answer = encodeResponse(decoded, RCODE.NOERROR, { address: '127.1.0.3', ttl: 60 });
    expect(answer.readUInt16BE(0)).toBe(0xabcd);
    expect(answer.readUInt16BE(2)).toBe(0x8180);
    expect(answer.subarray(12, 12 + decoded.question.bytes.length)).toEqual(decoded.question.bytes);
    expect([...answer.subarray(answer.length - 4)]).toEqual([127, 1, 0, 3]);
  });

  test('names with other bytes than letters, digits, - and _ decode as unnamed', () => {
    expect(decodeQuery(query('a b.example')).question.name).toBeNull();
    expect(decodeQuery(query('a\u0000.example')).question.name).toBeNull();
  });

  test('a compression pointer or reserved label type in the question is a format error, however the bytes after it read', () => {
    const header = Buffer.from([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    for (const first of [0xc0, 0x80, 0x40]) {
      // Read as a length, the byte would make a plain label of the bytes that follow.
      const packet = Buffer.concat([header, Buffer.from([first]), Buffer.alloc(first, 0x61), Buffer.from([0, 0, 1, 0, 1])]);
      expect(decodeQuery(packet).error).toBe('format');
    }
  });

  test('a name over 255 bytes is a format error', () => {
    const long = Array(5).fill('a'.repeat(60)).join('.');
    expect(decodeQuery(query(long)).error).toBe('format');
  });

  test('random bytes never throw', () => {
    for (let i = 0; i < 5000; i++) {
      const bytes = crypto.randomBytes(i % 80);
      if (bytes.length > 5) bytes[4] = 0;
      if (bytes.length > 5) bytes[5] = 1;
      expect(() => decodeQuery(bytes)).not.toThrow();
    }
  });

  test('the name table hands out stable addresses outside 127.0.0.0/16 and stops at its limit', () => {
    const table = new NameTable(300);
    const addresses = Array.from({ length: 300 }, (_, i) => table.addressFor(`n${i}.test`));
    expect(addresses[0]).toBe('127.1.0.1');
    expect(addresses[253]).toBe('127.1.0.254');
    expect(addresses[254]).toBe('127.1.1.1');
    expect(new Set(addresses).size).toBe(300);
    expect(table.addressFor('n7.test')).toBe(addresses[7]);
    expect(table.nameAt(addresses[7])).toBe('n7.test');
    expect(table.addressFor('one-more.test')).toBeNull();
    expect(table.nameAt('127.0.0.1')).toBeNull();
  });
});

describe('SOCKS5 parsers', () => {
  test('need more until whole, then the destination', () => {
    expect(socks.parseGreeting(Buffer.from([5]))).toBe('more');
    expect(socks.parseGreeting(Buffer.from([5, 2, 0]))).toBe('more');
    expect(socks.parseGreeting(Buffer.from([5, 2, 2, 0]))).toEqual({ noAuth: true, length: 4 });
    expect(socks.parseGreeting(Buffer.from([4, 1, 0]))).toBe('invalid');
    const request = Buffer.from([5, 1, 0, 3, 4, ...Buffer.from('a.io'), 1, 187, 9, 9]);
    for (let cut = 0; cut < 11; cut++) expect(socks.parseRequest(request.subarray(0, cut))).toBe('more');
    expect(socks.parseRequest(request)).toEqual({ command: 1, addressType: 3, host: 'a.io', port: 443, length: 11 });
    const v6 = Buffer.from([5, 1, 0, 4, ...Array(15).fill(0), 1, 0, 80]);
    expect(socks.parseRequest(v6).host).toBe('0:0:0:0:0:0:0:1');
    expect(socks.parseRequest(Buffer.from([5, 1, 0, 9, 0, 0])).host).toBeNull();
  });

  test('random bytes never throw', () => {
    for (let i = 0; i < 5000; i++) {
      const bytes = crypto.randomBytes(i % 40);
      if (bytes.length > 0) bytes[0] = 5;
      expect(() => socks.parseGreeting(bytes)).not.toThrow();
      expect(() => socks.parseRequest(bytes)).not.toThrow();
    }
  });
});

describe('destinations as the judge reads them', () => {
  test('hosts are canonical; what is not a host is null', () => {
    expect(canonicalHost('Example.COM.')).toBe('example.com');
    expect(canonicalHost('0x7f.1')).toBe('127.0.0.1');
    expect(canonicalHost('[::FFFF:7f00:1]')).toBe('127.0.0.1');
    expect(canonicalHost('0:0:0:0:0:0:0:1')).toBe('::1');
    for (const bad of ['', 'a b', 'user@host', 'a/b', 'a..b', '%65vil.test', 'ex\u00e4mple.com']) expect(canonicalHost(bad)).toBeNull();
  });

  test('authorities and request targets', () => {
    expect(parseAuthority('example.com:443', null)).toEqual({ host: 'example.com', port: 443 });
    expect(parseAuthority('[2001:db8::1]:8443', null)).toEqual({ host: '2001:db8::1', port: 8443 });
    expect(parseAuthority('example.com', 80)).toEqual({ host: 'example.com', port: 80 });
    for (const bad of ['example.com', 'example.com:0', 'example.com:65536', 'a@example.com:443', ':443']) expect(parseAuthority(bad, null)).toBeNull();
    expect(originForm('/a?b')).toBe('/a?b');
    expect(originForm('http://evil.test/x?y')).toBe('/x?y');
    expect(originForm('http://evil.test')).toBe('/');
    expect(originForm('http://evil.test?q')).toBe('/?q');
    expect(originForm('evil')).toBeNull();
  });
});

describe('refusal sentences', () => {
  test('name the destination as a client would write it', () => {
    expect(refusalSentence({ host: 'evil.test', port: null, reason: 'not-allowed' })).toBe('evil.test is not in the allowlist');
    expect(refusalSentence({ host: '2001:db8::1', port: 443, reason: 'denied' })).toBe('[2001:db8::1]:443 is denied by the network policy');
    expect(refusalSentence({ host: 'api.test', port: 443, reason: 'sni-mismatch' })).toBe('api.test:443 was sent a TLS server name (SNI) naming another host');
  });

  test('every reason the judge records has one', () => {
    const fs = require('fs');
    const judgeFiles = ['judge', 'limits', 'destination', 'report', 'sockets', 'dialer', 'http-proxy', 'tunnel', 'socks-server', 'dns-stub', 'capture'];
    const source = judgeFiles.map((name) => fs.readFileSync(require.resolve(`../lib/network/${name}`), 'utf8')).join('\n');
    const recorded = new Set();
    for (const match of source.matchAll(/'([a-z]+(?:-[a-z]+)*)'/g)) if (match[1] in REFUSALS) recorded.add(match[1]);
    const literal = [...source.matchAll(/\.refused\([^;]*, '([a-z-]+)'\)/g)];
    expect(literal.length).toBeGreaterThanOrEqual(3); // the judge's files record refusals this way
    for (const match of literal) expect(REFUSALS).toHaveProperty([match[1]]);
    for (const match of source.matchAll(/return '([a-z]+-[a-z-]+)';/g)) expect(REFUSALS).toHaveProperty([match[1]]);
    expect(recorded.size).toBe(Object.keys(REFUSALS).length);
  });
});
