'use strict';

// mount-sandbox-mcp's stdio under a hostile client (issue 39), raw JSON-RPC lines on a real
// process: a burst of 100,000 pipelined pings (which used to wedge the server for half a minute
// behind one stdout listener per reply), and names that are not valid Unicode (a raw 0xFF byte,
// decoded to U+FFFD, used to write over another file).
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { makeTempDir, removeDir, settleWithin } = require('./helpers');
const { BIN } = require('./helpers/mcp-client');

jest.setTimeout(120_000);

let root;
beforeAll(() => {
  root = makeTempDir('msb-mcp-stdio-');
});
afterAll(() => removeDir(root));

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const line = (message) => `${JSON.stringify(message)}\n`;

// A server on `root`, initialized. replies(id) resolves the reply with that id; seen() counts
// the replies so far; rssMiB() reads the server's resident memory.
async function rawServer() {
  const child = spawn(process.execPath, [BIN, '--root', root], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const waiting = new Map();
  const got = new Map();
  let count = 0;
  let partial = '';
  child.stdout.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const text of lines) {
      count++;
      const id = /"id":("[^"]*"|\d+)/.exec(text)?.[1];
      if (id === undefined || /^\d+$/.test(id)) continue; // the burst's numbered pings are only counted
      const reply = JSON.parse(text);
      got.set(reply.id, reply);
      waiting.get(reply.id)?.(reply);
    }
  });
  const reply = (id) => (got.has(id) ? Promise.resolve(got.get(id)) : new Promise((resolve) => waiting.set(id, resolve)));
  child.stdin.write(line(INIT));
  await settleWithin(reply('init'), 10_000, 'initialize');
  child.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  return { child, reply, seen: () => count, stderr: () => stderr, rssMiB, stop: () => child.kill() };
}

describe('a burst of pipelined requests', () => {
  test('100,000 pings sent without waiting are all answered, the ping after them too, and a ping sent then within a second', async () => {
    const server = await rawServer();
    try {
      let burst = '';
      for (let i = 0; i < 100_000; i++) burst += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`;
      let most = 0;
      const sampler = setInterval(() => (most = Math.max(most, server.rssMiB())), 100);
      // A client that reads its replies slower than it sends: stdout fills while the burst goes in.
      server.child.stdout.pause();
      server.child.stdin.write(burst);
      server.child.stdin.write(line({ jsonrpc: '2.0', id: 'after', method: 'ping' }));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      server.child.stdout.resume();
      // The old server answered the burst, then nothing for 30 s or more (one stdout listener per
      // reply); its speed is bench/mcp.js's to measure, this that it answers at all.
      await settleWithin(server.reply('after'), 60_000, 'the ping after the burst');
      clearInterval(sampler);
      // Then the server is itself again: a ping sent now is answered at once (the old one took
      // 30 s or more, burning CPU on its listeners).
      const sent = Date.now();
      server.child.stdin.write(line({ jsonrpc: '2.0', id: 'later', method: 'ping' }));
      await settleWithin(server.reply('later'), 60_000, 'the ping sent once the burst was answered');
      expect(Date.now() - sent).toBeLessThan(1000);
      expect(server.seen()).toBeGreaterThanOrEqual(100_002);
      expect(server.stderr()).not.toContain('MaxListenersExceededWarning');
      expect(most).toBeLessThan(600);
    } finally {
      server.stop();
    }
  });
});

describe('names that are not valid Unicode', () => {
  const write = (id, pathBytes) => Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"write_file","arguments":{"path":"`),
    pathBytes,
    Buffer.from('","content":"new"}}}\n'),
  ]);

  test('a raw 0xFF byte is refused, never decoded onto the existing a\\ufffd.txt', async () => {
    fs.writeFileSync(path.join(root, 'a\ufffd.txt'), 'old');
    const server = await rawServer();
    try {
      server.child.stdin.write(write('ff', Buffer.from([0x2f, 0x61, 0xff, 0x2e, 0x74, 0x78, 0x74])));
      const reply = await settleWithin(server.reply('ff'), 10_000, 'the reply');
      expect(reply.error.message).toMatch(/^Refused: the message is not valid UTF-8 \(byte 0xff at offset \d+\)/);
      expect(fs.readFileSync(path.join(root, 'a\ufffd.txt'), 'utf8')).toBe('old');
      expect(fs.readdirSync(root).filter((name) => name.startsWith('a'))).toEqual(['a\ufffd.txt']);
    } finally {
      server.stop();
    }
  });

  test('a lone surrogate escape is refused; a pair (an emoji) is a name like any other', async () => {
    const server = await rawServer();
    try {
      server.child.stdin.write(write('lone', Buffer.from('/b\\ud800.txt')));
      const lone = await settleWithin(server.reply('lone'), 10_000, 'the reply');
      expect(lone.error.message).toMatch(/lone UTF-16 surrogate/);
      server.child.stdin.write(write('pair', Buffer.from('/b\\ud83d\\ude00.txt')));
      const pair = await settleWithin(server.reply('pair'), 10_000, 'the reply');
      expect(pair.result.isError).not.toBe(true);
      expect(fs.readdirSync(root).filter((name) => name.startsWith('b'))).toEqual(['b\u{1f600}.txt']);
    } finally {
      server.stop();
    }
  });
});
