#!/usr/bin/env node
'use strict';

// What a dripped ClientHello costs the caller's process (issues 28 and 38), in one run:
//
//   node bench/network-drip.js [--connections=N] [--json]
//
// N connections (default 100) each open a CONNECT tunnel through a judge in this process and
// send a ClientHello (2 KiB, padded as browsers pad theirs) cut into one-byte TLS records, 48
// bytes every 5 ms; the baseline is
// the same hellos, each whole in one record, sent the same way. Printed: the judge's CPU time
// (this process's, the clients running in a child) for each, their ratio, and the worst lag of a
// 10 ms setInterval in this process meanwhile. Then the same for a second hello, dripped after a
// first one sent whole (the judge follows the handshake past the first hello and holds a second
// one until it is whole). Goal: each ratio near the ratio of bytes (records add 5 bytes of
// header each), and no lag near a second.
const net = require('net');
const { fork } = require('child_process');
const { NetworkJudge } = require('../lib/network/judge');
const { parseNetwork } = require('../lib/network/policy');

function parseArgs(argv) {
  const opts = { connections: 100, json: false };
  for (const arg of argv) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (arg === '--json') opts.json = true;
    else if (key === 'connections' && Number(value) >= 1) opts.connections = Math.floor(Number(value));
  }
  return opts;
}

// ---- the clients, in a child process so that their work is not counted as the judge's ----

// A ClientHello naming allowed.test, with a padding extension (RFC 7685) of `padding` bytes, as
// browsers pad theirs: big enough that per-fragment work shows.
function paddedHello(padding) {
  const name = Buffer.from('allowed.test');
  const u16 = (n) => [n >> 8, n & 0xff];
  const sni = Buffer.from([0, 0, ...u16(name.length + 5), ...u16(name.length + 3), 0, ...u16(name.length), ...name]);
  const pad = Buffer.concat([Buffer.from([0, 21, ...u16(padding)]), Buffer.alloc(padding)]);
  const extensions = Buffer.concat([sni, pad]);
  const body = Buffer.concat([Buffer.from([3, 3]), Buffer.alloc(32, 7), Buffer.from([0, 0, 2, 0x13, 0x01, 1, 0]),
    Buffer.from(u16(extensions.length)), extensions]);
  const message = Buffer.concat([Buffer.from([1, 0, ...u16(body.length)]), body]);
  return Buffer.concat([Buffer.from([0x16, 3, 1, ...u16(message.length)]), message]);
}

function inRecords(hello, size) {
  const message = hello.subarray(5);
  const parts = [];
  for (let at = 0; at < message.length; at += size) {
    const part = message.subarray(at, at + size);
    parts.push(Buffer.from([0x16, 3, 1, part.length >> 8, part.length & 0xff]), part);
  }
  return Buffer.concat(parts);
}

function drip(proxyPort, originPort, bytes) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: proxyPort }, () => {
      socket.write(`CONNECT allowed.test:${originPort} HTTP/1.1\r\n\r\n`);
    });
    socket.on('error', () => resolve());
    socket.once('data', () => {
      let at = 0;
      const step = 48; // bytes per packet: several one-byte records
      const timer = setInterval(() => {
        if (at >= bytes.length) {
          clearInterval(timer);
          setTimeout(() => { socket.destroy(); resolve(); }, 50);
          return;
        }
        socket.write(bytes.subarray(at, at + step));
        at += step;
      }, 5);
    });
  });
}

async function clients() {
  const { proxyPort, originPort, connections, size, second } = JSON.parse(process.argv[3]);
  const hello = paddedHello(2000);
  const bytes = second ? Buffer.concat([hello, inRecords(hello, size)]) : inRecords(hello, size);
  await Promise.all(Array.from({ length: connections }, () => drip(proxyPort, originPort, bytes)));
  process.send({ bytes: bytes.length });
}

// ---- the judge and the measurement ----

async function measure(judge, proxyPort, originPort, connections, size, second = false) {
  let worstLag = 0;
  let last = process.hrtime.bigint();
  const ticker = setInterval(() => {
    const now = process.hrtime.bigint();
    worstLag = Math.max(worstLag, Number(now - last) / 1e6 - 10);
    last = now;
  }, 10);
  const before = process.cpuUsage();
  const child = fork(__filename, ['--clients', JSON.stringify({ proxyPort, originPort, connections, size, second })]);
  const { bytes } = await new Promise((resolve) => child.once('message', resolve));
  const cpu = process.cpuUsage(before);
  clearInterval(ticker);
  child.kill();
  return { cpuMs: (cpu.user + cpu.system) / 1000, worstLagMs: worstLag, bytes };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const origin = net.createServer((s) => { s.on('error', () => {}); s.resume(); });
  await new Promise((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const originPort = origin.address().port;
  const judge = new NetworkJudge({
    policy: parseNetwork({ allow: ['allowed.test', '127.0.0.1'] }),
    lookup: async () => ['127.0.0.1'],
    ownAddresses: () => [],
  });
  const proxy = net.createServer();
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  judge.attach('http', proxy);
  const proxyPort = proxy.address().port;
  const whole = await measure(judge, proxyPort, originPort, opts.connections, 1 << 14);
  const dripped = await measure(judge, proxyPort, originPort, opts.connections, 1);
  const secondWhole = await measure(judge, proxyPort, originPort, opts.connections, 1 << 14, true);
  const secondDripped = await measure(judge, proxyPort, originPort, opts.connections, 1, true);
  await judge.close();
  origin.close();
  const result = {
    connections: opts.connections,
    whole: { ...whole, cpuMs: Math.round(whole.cpuMs) },
    dripped: { ...dripped, cpuMs: Math.round(dripped.cpuMs) },
    cpuRatio: Number((dripped.cpuMs / whole.cpuMs).toFixed(2)),
    bytesRatio: Number((dripped.bytes / whole.bytes).toFixed(2)),
    second: {
      whole: { ...secondWhole, cpuMs: Math.round(secondWhole.cpuMs) },
      dripped: { ...secondDripped, cpuMs: Math.round(secondDripped.cpuMs) },
      cpuRatio: Number((secondDripped.cpuMs / secondWhole.cpuMs).toFixed(2)),
      bytesRatio: Number((secondDripped.bytes / secondWhole.bytes).toFixed(2)),
    },
  };
  if (opts.json) return console.log(JSON.stringify(result));
  console.log(`dripped ClientHello, ${opts.connections} CONNECT tunnels, one judge in this process:`);
  console.log(`  whole hello (one record, ${whole.bytes} B):    judge CPU ${result.whole.cpuMs} ms, worst 10 ms-tick lag ${whole.worstLagMs.toFixed(1)} ms`);
  console.log(`  one-byte records (${dripped.bytes} B): judge CPU ${result.dripped.cpuMs} ms, worst 10 ms-tick lag ${dripped.worstLagMs.toFixed(1)} ms`);
  console.log(`  CPU ratio dripped/whole ${result.cpuRatio}x (bytes ratio ${result.bytesRatio}x)`);
  const { second } = result;
  console.log('a second hello after a first one sent whole, the same way:');
  console.log(`  whole (${secondWhole.bytes} B):    judge CPU ${second.whole.cpuMs} ms, worst 10 ms-tick lag ${secondWhole.worstLagMs.toFixed(1)} ms`);
  console.log(`  one-byte records (${secondDripped.bytes} B): judge CPU ${second.dripped.cpuMs} ms, worst 10 ms-tick lag ${secondDripped.worstLagMs.toFixed(1)} ms`);
  console.log(`  CPU ratio dripped/whole ${second.cpuRatio}x (bytes ratio ${second.bytesRatio}x)`);
}

if (process.argv[2] === '--clients') clients();
else main();
