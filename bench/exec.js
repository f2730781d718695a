#!/usr/bin/env node
'use strict';

// Launch overhead of sandbox.exec() against a plain child_process.spawn of the same program and,
// where bubblewrap is installed, against bwrap building a comparable root, in one run,
// sequentially (one command at a time, as an agent's shell tool runs them).
//
//   node bench/exec.js [--runs=N] [--json]
//
// All sides run /bin/true and wait for it to end and its pipes to close. sandbox.exec() also
// makes and removes its private temp directory, checks the working directory through the
// sandbox and starts the launcher, which sets up its layers before the exec. The three are
// sampled in turns (a slice of each, repeated) so that a machine's load falls on all alike.

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

function spawnAndWait(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`))));
  });
}

const plainSpawn = () => spawnAndWait('/bin/true', []);

function findBwrap() {
  for (const dir of (process.env.PATH || '/usr/bin:/bin').split(':')) {
    const file = path.join(dir || '.', 'bwrap');
    if (fs.existsSync(file)) return file;
  }
  return null;
}

// The root sandbox.exec builds, as bwrap options: every namespace, the system directories and a
// few /etc files read-only, private /proc and /dev, a tmpfs /tmp, the project at /workspace.
function bwrapArgs(root) {
  const args = ['--unshare-all', '--die-with-parent', '--new-session'];
  for (const dir of ['/usr', '/bin', '/sbin', '/lib', '/lib64']) {
    if (!fs.existsSync(dir)) continue;
    const link = fs.lstatSync(dir).isSymbolicLink();
    args.push(...(link ? ['--symlink', fs.readlinkSync(dir), dir] : ['--ro-bind', dir, dir]));
  }
  for (const name of ['passwd', 'group', 'hosts', 'ld.so.cache', 'nsswitch.conf', 'localtime']) {
    if (fs.existsSync(`/etc/${name}`)) args.push('--ro-bind', `/etc/${name}`, `/etc/${name}`);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', root, '/workspace', '--chdir', '/workspace');
  return [...args, '/bin/true'];
}

// Samples each function in turns of `slice` runs until each has `runs`.
async function sampleInTurns(fns, runs, slice = 10) {
  for (const fn of fns) for (let i = 0; i < Math.min(20, runs); i++) await fn(); // warm-up
  const times = fns.map(() => []);
  while (times[0].length < runs) {
    for (const [k, fn] of fns.entries()) {
      for (let i = 0; i < slice && times[k].length < runs; i++) {
        const start = performance.now();
        await fn();
        times[k].push(performance.now() - start);
      }
    }
  }
  return times.map(summary);
}

function summary(times) {
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
    const names = ['plain spawn', `sandbox.exec (${probe.enforcement.layers.length} layers)`];
    const fns = [plainSpawn, () => sandbox.exec(['/bin/true'])];
    const bwrap = findBwrap();
    if (bwrap) {
      const args = bwrapArgs(root);
      names.push('bwrap, comparable root');
      fns.push(() => spawnAndWait(bwrap, args));
    }
    const stats = await sampleInTurns(fns, opts.runs);
    const rows = names.map((name, k) => [name, stats[k]]);
    const [base, confined, wrapped] = stats;
    const result = {
      runs: opts.runs,
      layers: probe.enforcement.layers,
      plain: base,
      exec: confined,
      bwrap: wrapped ?? null,
      ratio: confined.median / base.median,
      ratioToBwrap: wrapped ? confined.median / wrapped.median : null,
      overheadMs: confined.median - base.median,
    };
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return;
    }
    const ms = (v) => `${v.toFixed(2)} ms`;
    process.stdout.write(`exec launch overhead (/bin/true, ${opts.runs} sequential runs each, in turns, ${os.cpus().length} CPUs)\n`);
    for (const [name, s] of rows) {
      process.stdout.write(`  ${name.padEnd(34)} median ${ms(s.median).padStart(9)}  p90 ${ms(s.p90).padStart(9)}\n`);
    }
    process.stdout.write(`  ratio (median, exec / plain): ${result.ratio.toFixed(2)}x, +${ms(result.overheadMs)} per command\n`);
    if (wrapped) process.stdout.write(`  ratio (median, exec / bwrap): ${result.ratioToBwrap.toFixed(2)}x\n`);
    else process.stdout.write('  bwrap: not installed, no comparison (apt-get install bubblewrap)\n');
    process.stdout.write(`  layers: ${probe.enforcement.layers.join(', ')}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench/exec: ${err.stack || err}\n`);
  process.exitCode = 1;
});
