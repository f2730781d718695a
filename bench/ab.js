#!/usr/bin/env node
'use strict';

// Two builds of the addon, A and B, measured in one process, alternating in short slices, so
// that load from anything else on the machine falls on both alike: for before/after comparisons
// of one change, where bench/run.js's separate runs differ by more than the change.
//
//   node bench/ab.js A.node B.node [--slices=N] [--ms=MS] [--only=KEY,...]
//
// Each slice runs one scenario on one build for MS milliseconds (default 200); A and B alternate,
// N slices each (default 15) per scenario. Prints ops/s per build (sum of ops over sum of time)
// and B/A, with the spread of the per-slice ratios.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { performance } = require('perf_hooks');
const { normalizeConfig } = require('../lib/config/config');
const { errorFromCode } = require('../lib/errors/from-codes');

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));
const option = (name, fallback) => {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};
if (files.length !== 2) {
  process.stderr.write('usage: node bench/ab.js A.node B.node [--slices=N] [--ms=MS] [--only=KEY,...]\n');
  process.exit(2);
}
const SLICES = Number(option('slices', 15));
const SLICE_MS = Number(option('ms', 200));
const only = option('only', null);

const TEXT = 'x'.repeat(1024);
const EDITORS = 24;
const token = (w) => `[k${String(w).padStart(2, '0')}]`;
const EDIT_TEXT = Array.from({ length: EDITORS }, (_, w) => `${token(w)}\n`).join('').padEnd(1024, '.');

function load(file) {
  const mod = { exports: {} };
  process.dlopen(mod, path.resolve(file));
  return mod.exports;
}

function sandboxOf(addon, root) {
  return new addon.NativeSandbox(normalizeConfig({ root }), function makeError(code, p, details) {
    return errorFromCode(code, p, details, this);
  });
}

// Runs fn in `concurrency` loops for `ms`; ops done.
async function slice(fn, concurrency, ms) {
  let ops = 0;
  const end = performance.now() + ms;
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    while (performance.now() < end) {
      await fn(w);
      ops++;
    }
  }));
  return ops;
}

function keepInFlight(concurrency, fn) {
  let running = true;
  const loops = Array.from({ length: concurrency }, async (_, w) => {
    while (running) await fn(w).catch(() => {});
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

const SCENARIOS = [
  { key: 'write_seq', label: '1 KiB write, sequential', concurrency: 1, run: (sb) => () => sb.write('/w/seq.txt', TEXT) },
  { key: 'write_100', label: '1 KiB write, 100 in flight', concurrency: 100, run: (sb) => (w) => sb.write(`/w/c${w}.txt`, TEXT) },
  { key: 'write_one_100', label: '1 KiB write to one file, 100 in flight', concurrency: 100, run: (sb) => () => sb.write('/w/one.txt', TEXT) },
  { key: 'edit_one_24', label: `edit of one 1 KiB file, ${EDITORS} in flight`, concurrency: EDITORS, run: (sb) => (w) => sb.edit('/e/one.txt', token(w), token(w)) },
  {
    key: 'write_100_edits',
    label: `1 KiB write, 100 in flight, beside ${EDITORS} edits of one file`,
    concurrency: 100,
    background: (sb) => keepInFlight(EDITORS, (w) => sb.edit('/e/busy.txt', token(w), token(w))),
    run: (sb) => (w) => sb.write(`/w/c${w}.txt`, TEXT),
  },
];

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mount-sandbox-ab-'));
  process.once('exit', () => fs.rmSync(base, { recursive: true, force: true }));
  const builds = files.map((file, i) => {
    const root = path.join(base, `root${i}`);
    fs.mkdirSync(path.join(root, 'w'), { recursive: true });
    fs.mkdirSync(path.join(root, 'e'), { recursive: true });
    for (const name of ['one.txt', 'busy.txt']) fs.writeFileSync(path.join(root, 'e', name), EDIT_TEXT);
    return { name: i === 0 ? 'A' : 'B', file, sb: sandboxOf(load(file), root) };
  });
  process.stdout.write(`A = ${files[0]}\nB = ${files[1]}\n${SLICES} slices of ${SLICE_MS} ms per build and scenario, alternating; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} CPUs\n\n`);
  for (const sc of SCENARIOS.filter((s) => !only || only.split(',').includes(s.key))) {
    const totals = { A: 0, B: 0 };
    const ratios = [];
    for (const b of builds) await slice(sc.run(b.sb), sc.concurrency, 50); // warm-up
    for (let i = 0; i < SLICES; i++) {
      const order = i % 2 === 0 ? builds : [...builds].reverse();
      const got = {};
      for (const b of order) {
        const stop = sc.background ? sc.background(b.sb) : null;
        got[b.name] = await slice(sc.run(b.sb), sc.concurrency, SLICE_MS);
        if (stop) await stop();
        totals[b.name] += got[b.name];
      }
      ratios.push(got.B / got.A);
    }
    ratios.sort((x, y) => x - y);
    const perSec = (n) => Math.round(n / ((SLICES * SLICE_MS) / 1000)).toLocaleString('en-US');
    const q = (f) => ratios[Math.min(ratios.length - 1, Math.floor(f * ratios.length))].toFixed(2);
    process.stdout.write(`${sc.label.padEnd(58)} A ${perSec(totals.A).padStart(7)}/s  B ${perSec(totals.B).padStart(7)}/s  ` +
      `B/A ${(totals.B / totals.A).toFixed(2)} (slices: median ${q(0.5)}, ${q(0.1)}..${q(0.9)})\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exitCode = 1;
});
