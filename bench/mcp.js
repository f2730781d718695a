#!/usr/bin/env node
'use strict';

// Tool-call latency of mount-sandbox-mcp against the official @modelcontextprotocol/server-filesystem
// on the same files, in one run: read (read_text_file), write (write_file) and list
// (list_directory), each server started as a process and driven by the MCP SDK's client over stdio,
// as an agent client drives it. Calls are made one at a time, in turns (a slice of one server's,
// then the other's, repeated), so that a machine's load falls on both alike.
//
//   node bench/mcp.js [--runs=N] [--json]
//
// The official server is installed at bench time into a temp directory with npm (from the
// registry npm's own config names); nothing of it is kept. Where npm cannot fetch it the bench
// says so and exits 0 (so `npm run bench` goes on offline). Reads and writes use a 4 KiB text
// file, lists a directory of 100 entries. The process always exits 0 once both servers ran.
// Then a burst: BURST pings written at once on a raw stdio pipe, timed to the last reply, and a
// ping sent after them, timed alone (issue 39: one listener per reply used to wedge the server).

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { performance } = require('perf_hooks');

const OFFICIAL = '@modelcontextprotocol/server-filesystem';
const OURS = path.join(__dirname, '..', 'mcp', 'bin', 'mount-sandbox-mcp.js');
const FILE_BYTES = 4 * 1024;
const LIST_ENTRIES = 100;
const SLICE = 10; // calls of one server before the other's turn
const BURST = 20_000;
const BURST_TIMEOUT_MS = 120_000;

function parseArgs(argv) {
  const opts = { runs: 200, json: false };
  for (const arg of argv) {
    if (arg === '--json') opts.json = true;
    else if (arg.startsWith('--runs=')) opts.runs = Math.max(1, Math.floor(Number(arg.slice(7)) || 200));
    else process.stderr.write(`bench/mcp: ignoring unknown argument ${arg}\n`);
  }
  return opts;
}

// The SDK client (ESM-only exports are fine through require in Node 20's CJS build of it).
function loadClient() {
  try {
    const { Client } = require('@modelcontextprotocol/client');
    const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
    return { Client, StdioClientTransport };
  } catch {
    return null;
  }
}

// Installs the official server into `dir`; its entry point, or null with the reason.
function installOfficial(dir) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const ran = spawnSync(npm, ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', '--ignore-scripts', '--loglevel=error', OFFICIAL], {
    encoding: 'utf8', timeout: 180_000,
  });
  if (ran.error || ran.status !== 0) {
    const lines = (ran.stderr || '').split('\n').map((l) => l.replace(/^npm error\s*/, '').trim())
      .filter((l) => l !== '' && !/complete log/.test(l));
    const why = ran.error ? ran.error.message : lines.slice(0, 2).join(' ');
    return { entry: null, reason: `npm could not install ${OFFICIAL}: ${why || `exit ${ran.status}`}` };
  }
  const manifestPath = path.join(dir, 'node_modules', ...OFFICIAL.split('/'), 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin || {})[0];
  if (!bin) return { entry: null, reason: `${OFFICIAL} ${manifest.version} has no bin` };
  return { entry: path.join(path.dirname(manifestPath), bin), version: manifest.version, reason: null };
}

function makeFiles(dir) {
  const text = `${'the quick brown fox jumps over the lazy dog\n'.repeat(Math.ceil(FILE_BYTES / 44))}`.slice(0, FILE_BYTES);
  fs.writeFileSync(path.join(dir, 'read.txt'), text);
  fs.mkdirSync(path.join(dir, 'list'));
  for (let i = 0; i < LIST_ENTRIES; i++) fs.writeFileSync(path.join(dir, 'list', `entry-${String(i).padStart(3, '0')}.txt`), 'x');
  return text;
}

async function connect(sdk, args) {
  const transport = new sdk.StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new sdk.Client({ name: 'mount-sandbox-bench', version: '0' });
  await client.connect(transport);
  return client;
}

// The three calls for one server: `at(name)` gives the path its tools take for a file in `dir`.
function calls(at, text) {
  return {
    read: { name: 'read_text_file', arguments: { path: at('read.txt') } },
    write: { name: 'write_file', arguments: { path: at('write.txt'), content: text } },
    list: { name: 'list_directory', arguments: { path: at('list') } },
  };
}

async function timeCall(client, call) {
  const start = performance.now();
  const result = await client.callTool(call);
  const ms = performance.now() - start;
  if (result.isError) throw new Error(`${call.name} failed: ${result.content.map((c) => c.text).join(' ')}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function measure(servers, runs) {
  const samples = Object.fromEntries(servers.map((s) => [s.name, { read: [], write: [], list: [] }]));
  for (const server of servers) {
    for (const call of Object.values(server.calls)) await timeCall(server.client, call); // warm-up
  }
  for (const op of ['read', 'write', 'list']) {
    for (let done = 0; done < runs; done += SLICE) {
      const n = Math.min(SLICE, runs - done);
      // Alternate which server goes first in each turn.
      const order = (done / SLICE) % 2 === 0 ? servers : [...servers].reverse();
      for (const server of order) {
        for (let i = 0; i < n; i++) samples[server.name][op].push(await timeCall(server.client, server.calls[op]));
      }
    }
  }
  return samples;
}

// `args` started as a process; BURST pings written at once: the time to the last reply, then the
// time of one more ping (null where the burst was not answered within BURST_TIMEOUT_MS).
async function burst(args) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  let replies = 0;
  let waiter = null;
  let partial = '';
  child.stdout.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    replies += lines.length;
    if (waiter && replies >= waiter.count) waiter.resolve(true);
  });
  const until = (count) => new Promise((resolve) => {
    if (replies >= count) return resolve(true);
    waiter = { count, resolve };
    setTimeout(() => resolve(false), BURST_TIMEOUT_MS).unref();
  });
  const send = (text) => child.stdin.write(text);
  try {
    send(`${JSON.stringify({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } })}\n`);
    await until(1);
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    let text = '';
    for (let i = 0; i < BURST; i++) text += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`;
    const start = performance.now();
    send(text);
    if (!(await until(1 + BURST))) return { burstMs: null, afterMs: null };
    const burstMs = performance.now() - start;
    const after = performance.now();
    send('{"jsonrpc":"2.0","id":"after","method":"ping"}\n');
    if (!(await until(2 + BURST))) return { burstMs, afterMs: null };
    return { burstMs, afterMs: performance.now() - after };
  } finally {
    child.kill();
  }
}

function burstLines(bursts) {
  const ms = (x) => (x === null ? `> ${BURST_TIMEOUT_MS / 1000} s` : `${x.toFixed(1)} ms`);
  const ratio = (a, b) => (a === null || b === null ? '-' : `${(a / b).toFixed(2)}x`);
  return [
    `burst of ${BURST} pipelined pings: to the last reply, then one ping sent after`,
    'what            mount-sandbox-mcp   official   ours/official',
    `burst ${ms(bursts.ours.burstMs).padStart(27)} ${ms(bursts.official.burstMs).padStart(10)} ${ratio(bursts.ours.burstMs, bursts.official.burstMs).padStart(15)}`,
    `ping after ${ms(bursts.ours.afterMs).padStart(22)} ${ms(bursts.official.afterMs).padStart(10)} ${ratio(bursts.ours.afterMs, bursts.official.afterMs).padStart(15)}`,
  ];
}

function report(samples, opts, version, bursts) {
  const rows = ['read', 'write', 'list'].map((op) => {
    const ours = median(samples.ours[op]);
    const official = median(samples.official[op]);
    return { op, oursMs: ours, officialMs: official, ratio: ours / official };
  });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ runs: opts.runs, official: `${OFFICIAL}@${version}`, rows, burst: { pings: BURST, ...bursts } }, null, 2)}\n`);
    return;
  }
  console.log(`MCP tool-call latency, median of ${opts.runs} calls each, over stdio (${OFFICIAL}@${version})`);
  console.log('op     mount-sandbox-mcp   official   ours/official');
  for (const r of rows) {
    console.log(`${r.op.padEnd(6)} ${`${r.oursMs.toFixed(3)} ms`.padStart(17)} ${`${r.officialMs.toFixed(3)} ms`.padStart(10)} ${r.ratio.toFixed(2).padStart(15)}x`);
  }
  console.log('');
  for (const line of burstLines(bursts)) console.log(line);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const sdk = loadClient();
  if (sdk === null) {
    console.log('bench/mcp: skipped: @modelcontextprotocol/client is not installed (npm install in the repository)');
    return;
  }
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'msb-bench-mcp-')));
  const clients = [];
  try {
    const installed = installOfficial(path.join(tmp, 'official'));
    if (installed.entry === null) {
      console.log(`bench/mcp: skipped: ${installed.reason}`);
      return;
    }
    const data = path.join(tmp, 'data');
    fs.mkdirSync(data);
    const text = makeFiles(data);
    const ours = await connect(sdk, [OURS, '--root', data]);
    clients.push(ours);
    const official = await connect(sdk, [installed.entry, data]);
    clients.push(official);
    const servers = [
      { name: 'ours', client: ours, calls: calls((name) => `/${name}`, text) },
      { name: 'official', client: official, calls: calls((name) => path.join(data, name), text) },
    ];
    const samples = await measure(servers, opts.runs);
    const bursts = { ours: await burst([OURS, '--root', data]), official: await burst([installed.entry, data]) };
    report(samples, opts, installed.version, bursts);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench/mcp: ${error && error.stack ? error.stack : error}`);
  process.exitCode = 1;
});
