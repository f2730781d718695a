'use strict';

// Replies within their caps as bytes on the wire (issue 39, point 4): the server is driven as a
// process over stdio with raw JSON-RPC, and each reply is measured as the line it writes, JSON
// escapes included. An error quotes at most a bounded prefix of what the client sent.
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { makeTempDir, removeDir } = require('./helpers');
const { BIN } = require('./helpers/mcp-client');
const { DEFAULT_LIMITS } = require('../mcp/lib/server');

jest.setTimeout(60000);

let root;
let server;

// One server process for the file; call(name, args) resolves { line, bytes, reply }: the reply's
// line as written, its size in bytes and the parsed reply.
function startRaw(args) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map();
  let pending = Buffer.alloc(0);
  child.stdout.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (let nl = pending.indexOf(0x0a); nl !== -1; nl = pending.indexOf(0x0a)) {
      const line = pending.subarray(0, nl).toString('utf8');
      const bytes = nl;
      pending = pending.subarray(nl + 1);
      const reply = JSON.parse(line);
      waiting.get(reply.id)?.({ line, bytes, reply });
      waiting.delete(reply.id);
    }
  });
  child.stderr.resume();
  let nextId = 1;
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const request = (method, params) => new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    send({ jsonrpc: '2.0', id, method, params });
  });
  return {
    async init() {
      await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'caps', version: '1' } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
    call: (name, args) => request('tools/call', { name, arguments: args }),
    close: () => child.kill(),
  };
}

const textOf = (reply) => reply.result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

beforeAll(async () => {
  root = makeTempDir('msb-mcp-caps-');
  fs.writeFileSync(path.join(root, 'nul.bin'), Buffer.alloc(256 * 1024));
  fs.writeFileSync(path.join(root, 'quotes.txt'), '"'.repeat(300 * 1024));
  fs.writeFileSync(path.join(root, 'plain.txt'), 'a'.repeat(100 * 1024));
  server = startRaw(['--root', root]);
  await server.init();
});

afterAll(() => {
  server?.close();
  removeDir(root);
});

// A reply of a read holds its text twice (the text and structuredContent.content), each held to
// maxReadBytes as sent, plus the notes.
const READ_REPLY_CAP = 2 * DEFAULT_LIMITS.maxReadBytes + 8192;

describe('reads measured as sent', () => {
  test.each(['read_text_file', 'read_file'])('%s of 256 KiB of NUL bytes: fewer bytes read, the reply within its cap, the cut said', async (name) => {
    const { bytes, reply } = await server.call(name, { path: '/nul.bin' });
    expect(bytes).toBeLessThanOrEqual(READ_REPLY_CAP);
    expect(reply.result.structuredContent.truncated).toBe(true);
    const next = reply.result.structuredContent.nextOffset;
    expect(next).toBeGreaterThan(0);
    expect(next).toBeLessThan(256 * 1024);
    expect(textOf(reply)).toContain(`offset ${next}`);
    expect(textOf(reply)).toMatch(/escapes/);
  });

  test('head and tail of an escape-heavy file stay within the cap too', async () => {
    for (const args of [{ head: 5 }, { tail: 5 }]) {
      const { bytes, reply } = await server.call('read_text_file', { path: '/quotes.txt', ...args });
      expect([args, bytes <= READ_REPLY_CAP]).toEqual([args, true]);
      expect(reply.result.structuredContent.truncated).toBe(true);
    }
  });

  test('plain text is read as before: 100 KiB whole', async () => {
    const { reply } = await server.call('read_text_file', { path: '/plain.txt' });
    expect(reply.result.structuredContent.content).toHaveLength(100 * 1024);
    expect(reply.result.structuredContent.truncated).toBe(false);
  });

  test('read_multiple_files of escape-heavy files: the whole reply within its cap', async () => {
    const { bytes } = await server.call('read_multiple_files', { paths: ['/nul.bin', '/quotes.txt', '/nul.bin'] });
    expect(bytes).toBeLessThanOrEqual(DEFAULT_LIMITS.maxReadBytes + DEFAULT_LIMITS.maxOutputBytes + 8192);
  });
});

describe('errors quote a bounded prefix of what the client sent', () => {
  const HUGE = 4 * 1024 * 1024;
  test('an invalid 4 MiB pattern to grep_files', async () => {
    const { bytes, reply } = await server.call('grep_files', { path: '/', pattern: `(${'a'.repeat(HUGE)}` });
    expect(reply.result.isError).toBe(true);
    expect(reply.result.structuredContent.code).toBe('INVALID_PATTERN');
    expect(bytes).toBeLessThan(4096);
    expect(textOf(reply)).toContain(`(${'a'.repeat(199)}…`);
  });

  test('an invalid 4 MiB glob in excludePatterns and in include', async () => {
    const glob = `[${'b'.repeat(HUGE)}`;
    for (const [name, args] of [['search_files', { path: '/', pattern: '*', excludePatterns: [glob] }], ['grep_files', { path: '/', pattern: 'x', include: glob }],
      ['search_files', { path: '/', pattern: glob }]]) {
      const { bytes, reply } = await server.call(name, args);
      expect([name, bytes < 4096]).toEqual([name, true]);
      expect(JSON.stringify(reply)).not.toContain('b'.repeat(201));
    }
  });

  test('a 4 MiB path, to a read, a write and a stat', async () => {
    const long = `/${'c'.repeat(HUGE)}`;
    for (const [name, args] of [['read_text_file', { path: long }], ['write_file', { path: long, content: 'x' }], ['get_file_info', { path: long }],
      ['move_file', { source: long, destination: long }], ['explain_path', { path: long }]]) {
      const { bytes, reply } = await server.call(name, args);
      expect([name, bytes < 4096]).toEqual([name, true]);
      expect(JSON.stringify(reply)).not.toContain('c'.repeat(201));
    }
  });

  test('a 3,000-character path of control characters is quoted shortly', async () => {
    const long = `/${'\u0001'.repeat(3000)}`;
    const { bytes } = await server.call('get_file_info', { path: long });
    expect(bytes).toBeLessThan(4096);
  });
});
