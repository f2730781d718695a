#!/usr/bin/env node
'use strict';

// Launch overhead of sandbox.exec() against a plain child_process.spawn of the same program, in
// one run, sequentially (one command at a time, as an agent's shell tool runs them).
//
//   node bench/exec.js [--runs=N] [--json]
//
// Both sides run /bin/true and wait for it to end and its pipes to close. sandbox.exec() also
// makes and removes its private temp directory, checks the working directory through the
// sandbox and starts the launcher, which sets up its layers before the exec.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { performance } = require('perf_hooks');
const lib = require('../lib');

function parseArgs(argv) {
  const opts = { runs: 200, json: false };
  for (const arg of argv) {
    if (arg === '--json') opts.json = true;
    else if (arg.startsWith('--runs=')) opts.runs = Math.max(10, Math.floor(Number(arg.slice(7)) || 200));
    else process.stderr.write(`bench/exec: ignoring unknown argument ${arg}\n`);
  }
  return opts;
}

function plainSpawn() {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', resolve);
  });
}

async function sample(fn, runs) {
  for (let i = 0; i < Math.min(20, runs); i++) await fn(); // warm-up
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { median: at(0.5), p90: at(0.9), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-bench-exec-'));
  try {
    const sandbox = lib.createMountSandbox({ root });
    const probe = await sandbox.exec(['/bin/true']);
    const rows = [['plain spawn', await sample(plainSpawn, opts.runs)]];
    rows.push([`sandbox.exec (${probe.enforcement.layers.length} layers)`, await sample(() => sandbox.exec(['/bin/true']), opts.runs)]);
    const [base, confined] = [rows[0][1], rows[1][1]];
    const result = {
      runs: opts.runs,
      layers: probe.enforcement.layers,
      plain: base,
      exec: confined,
      ratio: confined.median / base.median,
      overheadMs: confined.median - base.median,
    };
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return;
    }
    const ms = (v) => `${v.toFixed(2)} ms`;
    process.stdout.write(`exec launch overhead (/bin/true, ${opts.runs} sequential runs each, ${os.cpus().length} CPUs)\n`);
    for (const [name, s] of rows) {
      process.stdout.write(`  ${name.padEnd(34)} median ${ms(s.median).padStart(9)}  p90 ${ms(s.p90).padStart(9)}\n`);
    }
    process.stdout.write(`  ratio (median, exec / plain): ${result.ratio.toFixed(2)}x, +${ms(result.overheadMs)} per command\n`);
    process.stdout.write(`  layers: ${probe.enforcement.layers.join(', ')}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench/exec: ${err.stack || err}\n`);
  process.exitCode = 1;
});
