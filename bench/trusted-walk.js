#!/usr/bin/env node
'use strict';

// What the walk for the files the host trusts next costs a command (src/fs/trusted_scan.h): it
// reads every writable source to any depth before and after each run. Measured against GNU find
// walking the same tree (`find DIR -printf ''`: no stat per entry either), in one run, in turns,
// on trees of 1,000, 21,000 and 105,000 entries; then sandbox.exec() of /bin/true in a project of
// each size against one of a few files, to show what the walk adds to a run.
//
//   node bench/trusted-walk.js [--rounds=N] [--json]

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { performance } = require('perf_hooks');
const lib = require('../lib');

const args = process.argv.slice(2);
const rounds = Math.max(3, Number((args.find((a) => a.startsWith('--rounds=')) || '').slice(9)) || 7);
const json = args.includes('--json');

// `dirs` directories of 20 files each, two levels deep, a .vscode/ and a nested repository's .git
// among them: the shape of a project with its dependencies.
function makeTree(root, dirs) {
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(root, `pkg${Math.floor(d / 25)}`, `mod${d % 25}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(dir, `file${f}.ts`), 'export {};\n');
  }
  fs.mkdirSync(path.join(root, 'pkg0', '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(root, 'pkg0', '.vscode', 'tasks.json'), '{}');
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-bench-walk-'));
  const rows = [];
  try {
    const small = path.join(base, 'small');
    makeTree(small, 0);
    for (const dirs of [48, 1000, 5000]) {
      const root = path.join(base, `tree${dirs}`);
      makeTree(root, dirs);
      const entries = spawnSync('find', [root, '-mindepth', '1', '-printf', '.'], { encoding: 'utf8', maxBuffer: 1 << 24 }).stdout.length;
      const sandbox = lib.createMountSandbox({ root });
      const quiet = lib.createMountSandbox({ root: small });
      const runs = [];
      const smallRuns = [];
      const find = [];
      for (let i = 0; i < rounds; i++) {
        runs.push(await timed(() => sandbox.exec(['true'])));
        smallRuns.push(await timed(() => quiet.exec(['true'])));
        find.push(await timed(() => spawnSync('find', [root, '-printf', ''])));
      }
      rows.push({
        entries, execMs: median(runs), execSmallMs: median(smallRuns), findMs: median(find),
        addedMs: median(runs) - median(smallRuns),
      });
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  console.log('sandbox.exec(["true"]) in a project of N entries, against one of a few files and GNU find over the tree');
  for (const r of rows) {
    console.log(`${String(r.entries).padStart(7)} entries: exec ${r.execMs.toFixed(1)} ms (small project ${r.execSmallMs.toFixed(1)} ms, ` +
      `+${r.addedMs.toFixed(1)} ms = ${(r.addedMs / r.findMs).toFixed(2)}x one find of ${r.findMs.toFixed(1)} ms; the walk runs twice)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
