#!/usr/bin/env node
'use strict';

// What judging a command's changes costs (docs/exec.md, "What lands"): the same command run with
// changes: 'apply' (copy-on-write layers, each change judged and landed after the run) and with
// changes: 'direct' (writes straight to the host, guarded by the walks that mode needs), in one
// process, in turns, medians of N rounds:
//   - a command that writes nothing, in a project of a few files and in one of 21,000 entries;
//   - a command writing 20,000 small files (tar x of an archive, as a package install does);
//   - a command appending one line to a 1 GiB file (the layer copies the whole file up first).
//
//   node bench/changes.js [--rounds=N] [--json] [--no-big]

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { performance } = require('perf_hooks');
const lib = require('../lib');

const args = process.argv.slice(2);
const rounds = Math.max(3, Number((args.find((a) => a.startsWith('--rounds=')) || '').slice(9)) || 5);
const json = args.includes('--json');
const big = !args.includes('--no-big');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function makeTree(root, dirs) {
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(root, `pkg${Math.floor(d / 25)}`, `mod${d % 25}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(dir, `file${f}.ts`), 'export {};\n');
  }
}

// `prepare` runs before each timed run, outside the timing; `check` after it.
async function compare(name, sandbox, argv, { prepare = () => {}, check = () => {} } = {}) {
  const times = { direct: [], apply: [] };
  for (let i = 0; i < rounds; i++) {
    for (const mode of i % 2 === 0 ? ['direct', 'apply'] : ['apply', 'direct']) {
      prepare();
      let result;
      times[mode].push(await timed(async () => {
        result = await sandbox.exec(argv, { changes: mode, timeoutMs: 300_000 });
      }));
      if (result.exitCode !== 0) throw new Error(`${name} (${mode}) failed: ${result.stderr}`);
      if (mode === 'apply' && result.enforcement.changes !== 'apply') throw new Error('no copy-on-write layer on this machine');
      check(result, mode);
    }
  }
  const direct = median(times.direct);
  const apply = median(times.apply);
  return { name, directMs: Math.round(direct), applyMs: Math.round(apply), ratio: Number((apply / direct).toFixed(2)) };
}

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-bench-changes-'));
  const rows = [];
  try {
    const small = path.join(base, 'small');
    fs.mkdirSync(small);
    fs.writeFileSync(path.join(small, 'a.txt'), 'a\n');
    rows.push(await compare('writes nothing, 1 file', lib.createMountSandbox({ root: small }), ['true']));
    const tree = path.join(base, 'tree');
    makeTree(tree, 1000);
    rows.push(await compare('writes nothing, 21,000 entries', lib.createMountSandbox({ root: tree }), ['true']));

    // 20,000 files of 100 bytes in 200 directories, as an archive outside the project.
    const source = path.join(base, 'archive-src', 'pkg');
    for (let d = 0; d < 200; d++) {
      fs.mkdirSync(path.join(source, `d${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(source, `d${d}`, `f${f}.js`), 'x'.repeat(100));
    }
    const archive = path.join(base, 'project', 'pkg.tar');
    fs.mkdirSync(path.dirname(archive));
    spawnSync('tar', ['cf', archive, '-C', path.dirname(source), 'pkg']);
    const project = path.dirname(archive);
    rows.push(await compare('tar x of 20,000 small files', lib.createMountSandbox({ root: project }), ['tar', 'xf', 'pkg.tar'], {
      prepare: () => fs.rmSync(path.join(project, 'pkg'), { recursive: true, force: true }),
      check: () => {
        if (fs.readdirSync(path.join(project, 'pkg', 'd199')).length !== 100) throw new Error('the files did not land');
      },
    }));

    if (big) {
      const bigDir = path.join(base, 'big');
      fs.mkdirSync(bigDir);
      const file = path.join(bigDir, 'data.bin');
      // Written, not allocated: overlayfs skips holes and unwritten extents when it copies up.
      spawnSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=1M', 'count=1024', 'conv=fsync', 'status=none']);
      // The layer (the file copied up whole) shares the command's /tmp size: 1 GiB by default.
      const roomy = lib.createMountSandbox({ root: bigDir, tmpBytes: 2 * 2 ** 30 });
      rows.push(await compare('append a line to a 1 GiB file', roomy, ['sh', '-c', 'echo x >> data.bin']));
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  if (json) {
    console.log(JSON.stringify({ rounds, rows }, null, 2));
    return;
  }
  console.log(`sandbox.exec() with changes 'apply' against 'direct', medians of ${rounds} rounds in turns`);
  for (const r of rows) {
    console.log(`  ${r.name.padEnd(34)} direct ${String(r.directMs).padStart(6)} ms   apply ${String(r.applyMs).padStart(6)} ms   ${r.ratio}x`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
