#!/usr/bin/env node
'use strict';

// Benchmark: the native sandbox against a pure-JS string-checking sandbox (bench/baseline.js),
// over identical fresh temp directories, in one run.
//
//   node bench/run.js [--json] [--time=MS] [--rounds=N]
//
//   --json      print machine-readable results instead of the table
//   --time=MS   time budget per measurement (default 1000)
//   --rounds=N  repeat every throughput measurement N times and keep the best (default 2)
//   --only=K,K  run only the throughput rows with these keys (write_100, edit_one_24, ...)
//
// Peak-RSS figures for readBinary come from child processes (this file run with --rss-child),
// one per implementation, so neither measurement pollutes the other. The process always exits 0:
// missed targets are reported, never turned into a failure.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { performance } = require('perf_hooks');

const lib = require('../lib');
const { createBaselineSandbox } = require('./baseline');

const KIB = 1024;
const MIB = 1024 * 1024;
const SMALL_SIZE = 1 * KIB;
const SMALL_FILES = 100;
const LIST_ENTRIES = 1000;
const BLOB_SIZE = 64 * MIB;
const CONCURRENCY = 100;
const EDITS_IN_FLIGHT = 24; // edits of one file at a time (issue 19's scenario)
const RESOLVE_MIN_CALLS = 200_000;
const RSS_SLACK = 0.2; // readBinary target: peak growth <= size * (1 + RSS_SLACK)

const IMPLS = ['addon', 'baseline'];

function parseArgs(argv) {
  const opts = { json: false, timeMs: 1000, rounds: 2 };
  for (const arg of argv) {
    if (arg === '--json') opts.json = true;
    else if (arg.startsWith('--time=')) opts.timeMs = Math.max(50, Number(arg.slice(7)) || 1000);
    else if (arg.startsWith('--rounds=')) opts.rounds = Math.max(1, Math.floor(Number(arg.slice(9)) || 2));
    else if (arg.startsWith('--only=')) opts.only = arg.slice(7).split(',');
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: node bench/run.js [--json] [--time=MS] [--rounds=N] [--only=KEY,...]\n');
      process.exit(0);
    } else {
      process.stderr.write(`bench: ignoring unknown argument ${arg}\n`);
    }
  }
  opts.warmupMs = Math.min(250, Math.max(50, opts.timeMs / 4));
  return opts;
}

function createSandbox(impl, config) {
  return impl === 'addon' ? lib.createMountSandbox(config) : createBaselineSandbox(config);
}

// ---------------------------------------------------------------------------------------------
// Fixtures: one fresh directory tree per implementation, identical content.
//
//   <dir>/root            sandbox root "/"
//     r/f000.txt..f099.txt  1 KiB files (read, stat, exists)
//     w/                    write target
//     e/one.txt, e/busy.txt 1 KiB files holding one token per editor ([k00] .. [k23])
//     blob.bin              64 MiB (readBinary peak RSS)
//   <dir>/data            mounted at /data
//     big/e0000..e0999      1000 entries (list)
//   <dir>/ro              mounted read-only at /ro

const SMALL_TEXT = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(SMALL_SIZE / 36)).slice(0, SMALL_SIZE);

// One token per concurrent editor; each edit replaces its token with itself, so every edit
// always finds exactly one occurrence and still rewrites the whole file.
const editToken = (w) => `[k${String(w).padStart(2, '0')}]`;
const EDIT_TEXT = Array.from({ length: EDITS_IN_FLIGHT }, (_, w) => `${editToken(w)}\n`)
  .join('')
  .padEnd(SMALL_SIZE, '.');

function smallName(i) {
  return `f${String(i).padStart(3, '0')}.txt`;
}

function makeFixture(base, blob) {
  const dir = fs.mkdtempSync(path.join(base, 'tree-'));
  const root = path.join(dir, 'root');
  const data = path.join(dir, 'data');
  const ro = path.join(dir, 'ro');
  fs.mkdirSync(path.join(root, 'r'), { recursive: true });
  fs.mkdirSync(path.join(root, 'w'), { recursive: true });
  fs.mkdirSync(path.join(root, 'e'), { recursive: true });
  for (const name of ['one.txt', 'busy.txt']) fs.writeFileSync(path.join(root, 'e', name), EDIT_TEXT);
  fs.mkdirSync(path.join(data, 'big'), { recursive: true });
  fs.mkdirSync(ro, { recursive: true });
  for (let i = 0; i < SMALL_FILES; i++) fs.writeFileSync(path.join(root, 'r', smallName(i)), SMALL_TEXT);
  for (let i = 0; i < LIST_ENTRIES; i++) {
    fs.writeFileSync(path.join(data, 'big', `e${String(i).padStart(4, '0')}`), '');
  }
  fs.writeFileSync(path.join(ro, 'readme.txt'), 'read only\n');
  fs.writeFileSync(path.join(root, 'blob.bin'), blob);
  return {
    dir,
    config: {
      root,
      mounts: [
        { source: data, target: '/data' },
        { source: ro, target: '/ro', readonly: true },
      ],
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Timing

const now = () => performance.now();

function measureSync(fn, budgetMs, minCalls, warmupCalls) {
  for (let i = 0; i < warmupCalls; i++) fn(i);
  const batch = 10_000;
  let calls = 0;
  const start = now();
  let elapsed = 0;
  do {
    for (let i = 0; i < batch; i++) fn(calls + i);
    calls += batch;
    elapsed = now() - start;
  } while (elapsed < budgetMs || calls < minCalls);
  return { opsPerSec: calls / (elapsed / 1000), ops: calls, ms: elapsed };
}

async function runFor(fn, concurrency, ms) {
  let ops = 0;
  const start = now();
  const end = start + ms;
  const worker = async (w) => {
    while (now() < end) {
      await fn(w, ops);
      ops++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const elapsed = now() - start;
  return { opsPerSec: ops / (elapsed / 1000), ops, ms: elapsed };
}

// Failed operations per implementation: the baseline's concurrent edits (read, then writeFile
// truncating in place) can read a file another edit is rewriting and find no match. They are
// counted as operations and reported under the table.
const failures = { addon: 0, baseline: 0 };
function tolerated(impl, promise) {
  return promise.catch(() => {
    failures[impl]++;
  });
}

// Runs `fn` in `concurrency` loops until the returned stop() is awaited.
function keepInFlight(concurrency, fn) {
  let running = true;
  const loops = Array.from({ length: concurrency }, async (_, w) => {
    while (running) await fn(w);
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

async function measureAsync(fn, concurrency, opts) {
  await runFor(fn, concurrency, opts.warmupMs);
  return runFor(fn, concurrency, opts.timeMs);
}

// ---------------------------------------------------------------------------------------------
// Scenarios. Each `make(sandbox)` returns (worker, counter) => value or promise.

const RESOLVE_PATHS = [
  '/r/f001.txt',
  '/data/big/e0042', // through a mount
  '/ro/readme.txt', // through a read-only mount
  '/a/b/../c/./d.txt',
  '/deep/one/two/three/four/five/six.txt',
  '/',
  '/w//x/./y',
  '/data',
];

const SCENARIOS = [
  {
    key: 'resolve',
    label: `resolve (sync, ${RESOLVE_PATHS.length}-path mix)`,
    sync: true,
    target: 5,
    make: (sb) => (i) => sb.resolve(RESOLVE_PATHS[i % RESOLVE_PATHS.length]),
  },
  {
    key: 'read_seq',
    label: '1 KiB read, sequential',
    concurrency: 1,
    target: 10,
    make: (sb) => (w, i) => sb.read(`/r/${smallName(i % SMALL_FILES)}`),
  },
  {
    key: 'read_100',
    label: `1 KiB read, ${CONCURRENCY} in flight`,
    concurrency: CONCURRENCY,
    target: 4,
    make: (sb) => (w) => sb.read(`/r/${smallName(w % SMALL_FILES)}`),
  },
  {
    key: 'write_seq',
    label: '1 KiB write, sequential',
    concurrency: 1,
    target: 10,
    make: (sb) => () => sb.write('/w/seq.txt', SMALL_TEXT),
  },
  {
    key: 'write_100',
    label: `1 KiB write, ${CONCURRENCY} in flight`,
    concurrency: CONCURRENCY,
    target: 4,
    make: (sb) => (w) => sb.write(`/w/c${w}.txt`, SMALL_TEXT),
  },
  {
    key: 'write_one_100',
    label: `1 KiB write to one file, ${CONCURRENCY} in flight`,
    concurrency: CONCURRENCY,
    target: null,
    make: (sb) => () => sb.write('/w/one.txt', SMALL_TEXT),
  },
  {
    key: 'edit_one_24',
    label: `edit of one 1 KiB file, ${EDITS_IN_FLIGHT} in flight`,
    concurrency: EDITS_IN_FLIGHT,
    target: null,
    make: (sb, impl) => (w) => tolerated(impl, sb.edit('/e/one.txt', editToken(w), editToken(w))),
  },
  {
    key: 'write_100_edits',
    label: `1 KiB write, ${CONCURRENCY} in flight, beside ${EDITS_IN_FLIGHT} edits of one file`,
    concurrency: CONCURRENCY,
    target: null,
    // Edits of another file kept in flight all along: writes to other files must not queue
    // behind them.
    background: (sb, impl) =>
      keepInFlight(EDITS_IN_FLIGHT, (w) => tolerated(impl, sb.edit('/e/busy.txt', editToken(w), editToken(w)))),
    make: (sb) => (w) => sb.write(`/w/c${w}.txt`, SMALL_TEXT),
  },
  {
    key: 'list',
    label: `list (${LIST_ENTRIES} entries)`,
    concurrency: 1,
    target: 3,
    make: (sb) => () => sb.list('/data/big'),
  },
  {
    key: 'stat',
    label: 'stat',
    concurrency: 1,
    target: 2,
    make: (sb) => (w, i) => sb.stat(`/r/${smallName(i % SMALL_FILES)}`),
  },
  {
    key: 'exists',
    label: 'exists (half hits, half misses)',
    concurrency: 1,
    target: 2,
    make: (sb) => (w, i) =>
      sb.exists(i & 1 ? `/r/missing${i % SMALL_FILES}.txt` : `/r/${smallName(i % SMALL_FILES)}`),
  },
];

// Both implementations must agree before their speed is compared.
async function sanityCheck(sandboxes, fixtures) {
  const problems = [];
  const expect = (cond, what) => {
    if (!cond) problems.push(what);
  };
  for (const impl of IMPLS) {
    const sb = sandboxes[impl];
    const cfg = fixtures[impl].config;
    try {
      expect((await sb.read('/r/f000.txt')) === SMALL_TEXT, `${impl}: read content`);
      const names = await sb.list('/data/big');
      expect(names.length === LIST_ENTRIES && names[0] === 'e0000', `${impl}: list`);
      const st = await sb.stat('/r/f000.txt');
      expect(st.size === SMALL_SIZE && st.isDirectory === false, `${impl}: stat`);
      expect((await sb.exists('/r/f000.txt')) === true, `${impl}: exists hit`);
      expect((await sb.exists('/r/missing.txt')) === false, `${impl}: exists miss`);
      await sb.write('/w/check.txt', SMALL_TEXT);
      expect(fs.readFileSync(path.join(cfg.root, 'w', 'check.txt'), 'utf8') === SMALL_TEXT, `${impl}: write`);
      expect(
        fs.realpathSync(sb.resolve('/data/big/e0001')) ===
          fs.realpathSync(path.join(cfg.mounts[0].source, 'big', 'e0001')),
        `${impl}: resolve through mount`,
      );
      let escaped = false;
      try {
        sb.resolve('/../etc/passwd');
        escaped = true;
      } catch {
        // expected
      }
      expect(!escaped, `${impl}: resolve refuses escape`);
    } catch (err) {
      problems.push(`${impl}: ${err && err.message}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// readBinary peak RSS, one child process per implementation

// Peak RSS in KiB. process.resourceUsage().maxRSS is getrusage's ru_maxrss, which on Linux also
// counts the image this process was forked from before exec (the parent's RSS, here inflated by the
// 64 MiB fixture), so it can sit far above anything this process ever touched. /proc/self/status
// VmHWM is the high-water mark of this process's own address space, and writing "5" to
// /proc/self/clear_refs resets it to the current RSS: that gives a clean "peak since now".
function procHwmKiB() {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function resetHwm() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

async function rssChild(spec) {
  const { impl, config, file, size } = JSON.parse(spec);
  const sb = createSandbox(impl, config);
  // Warm up: load code, start the threadpool, run the read path once on a small file.
  for (let i = 0; i < 3; i++) await sb.readBinary('/r/f000.txt');
  const hwmReset = resetHwm();
  const source = hwmReset && procHwmKiB() !== undefined ? 'VmHWM' : 'maxRSS';
  const peak = () => (source === 'VmHWM' ? procHwmKiB() : process.resourceUsage().maxRSS);
  const maxRssBefore = process.resourceUsage().maxRSS; // KiB
  const rssBefore = process.memoryUsage.rss();
  const before = source === 'VmHWM' ? peak() : maxRssBefore;
  const t0 = now();
  const bytes = await sb.readBinary(file);
  const ms = now() - t0;
  const after = peak();
  const ok = bytes instanceof Uint8Array && bytes.byteLength === size;
  const report = {
    impl,
    source,
    beforeKiB: before,
    afterKiB: after,
    rssBeforeKiB: Math.round(rssBefore / 1024),
    rssAfterKiB: Math.round(process.memoryUsage.rss() / 1024),
    maxRssBeforeKiB: maxRssBefore,
    maxRssAfterKiB: process.resourceUsage().maxRSS,
    ms,
    ok,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function measureRss(impl, fixture) {
  const spec = JSON.stringify({ impl, config: fixture.config, file: '/blob.bin', size: BLOB_SIZE });
  const child = spawnSync(process.execPath, [__filename, '--rss-child', spec], {
    encoding: 'utf8',
    timeout: 60_000,
    env: process.env,
  });
  const line = (child.stdout || '').trim().split('\n').pop();
  try {
    const r = JSON.parse(line);
    const growthMiB = (r.afterKiB - r.beforeKiB) / 1024;
    return { ...r, growthMiB, sizeRatio: growthMiB / (BLOB_SIZE / MIB) };
  } catch {
    const why = child.error ? child.error.message : (child.stderr || '').trim().split('\n').slice(-3).join(' | ');
    return { impl, error: `child failed (status ${child.status}): ${why}` };
  }
}

// ---------------------------------------------------------------------------------------------
// Reporting

function fsTypeName(dir) {
  try {
    const type = fs.statfsSync(dir).type;
    const names = {
      0x01021994: 'tmpfs',
      0xef53: 'ext4',
      0x794c7630: 'overlayfs',
      0x58465342: 'xfs',
      0x9123683e: 'btrfs',
      0x2fc12fc1: 'zfs',
    };
    return names[type] || `0x${type.toString(16)}`;
  } catch {
    return 'unknown';
  }
}

function fmtOps(n) {
  if (n === undefined || !Number.isFinite(n)) return 'n/a';
  return Math.round(n).toLocaleString('en-US');
}

function fmtRatio(r) {
  if (r === undefined || !Number.isFinite(r)) return 'n/a';
  return `${r >= 100 ? r.toFixed(0) : r.toFixed(2)}x`;
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r) =>
    r.map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]))).join('  ');
  const out = [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows.slice(1)) out.push(line(r));
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const log = opts.json ? () => {} : (s = '') => process.stdout.write(`${s}\n`);
  const started = now();

  const meta = {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform}-${process.arch}`,
    kernel: os.release(),
    cpus: os.cpus().length,
    availableParallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : undefined,
    cpuModel: (os.cpus()[0] || {}).model,
    uvThreadpoolSize: Number(process.env.UV_THREADPOOL_SIZE) || 4,
    openat2: lib.openat2Supported(),
    resolverSetting: process.env.MOUNT_SANDBOX_RESOLVER || 'auto',
    tmpdir: os.tmpdir(),
    tmpdirFs: fsTypeName(os.tmpdir()),
    loadavg1m: os.loadavg()[0],
    timeMs: opts.timeMs,
    rounds: opts.rounds,
  };
  const resolverUsed =
    meta.resolverSetting === 'walk' || !meta.openat2 ? 'walk' : 'openat2';
  meta.resolverUsed = resolverUsed;

  log('mount-sandbox benchmark: native addon vs pure-JS string-check baseline (bench/baseline.js)');
  log(
    `node ${meta.node} (V8 ${meta.v8}), ${meta.platform}, kernel ${meta.kernel}, ${meta.cpus} CPUs` +
      (meta.cpuModel ? ` (${meta.cpuModel.trim()})` : ''),
  );
  log(
    `openat2 supported: ${meta.openat2 ? 'yes' : 'no'}; resolver: ${meta.resolverSetting} -> ${resolverUsed}; ` +
      `UV_THREADPOOL_SIZE=${meta.uvThreadpoolSize}; tmpdir ${meta.tmpdir} (${meta.tmpdirFs})`,
  );
  log(`budget ${opts.timeMs} ms per measurement after ${opts.warmupMs} ms warm-up, best of ${opts.rounds} round(s)`);
  if (meta.loadavg1m >= meta.cpus) {
    log(`note: 1-minute load average ${meta.loadavg1m.toFixed(2)} on ${meta.cpus} CPUs at start; figures may be noisy`);
  }
  log();

  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mount-sandbox-bench-'));
  const cleanup = () => fs.rmSync(base, { recursive: true, force: true });
  process.once('exit', cleanup);

  const results = [];
  let rss = {};
  let problems = [];
  try {
    const blob = Buffer.alloc(BLOB_SIZE);
    for (let i = 0; i < BLOB_SIZE; i += 4096) blob[i] = i & 0xff;
    const fixtures = {};
    for (const impl of IMPLS) fixtures[impl] = makeFixture(base, blob);
    const sandboxes = {};
    for (const impl of IMPLS) sandboxes[impl] = createSandbox(impl, fixtures[impl].config);

    problems = await sanityCheck(sandboxes, fixtures);
    for (const p of problems) log(`WARNING: implementations disagree: ${p}`);

    for (const sc of SCENARIOS.filter((s) => !opts.only || opts.only.includes(s.key))) {
      const row = { key: sc.key, label: sc.label, unit: 'ops/s', target: sc.target };
      for (let round = 0; round < opts.rounds; round++) {
        // Alternate which implementation goes first so drift does not favour one of them.
        const order = round % 2 === 0 ? IMPLS : [...IMPLS].reverse();
        for (const impl of order) {
          try {
            const fn = sc.make(sandboxes[impl], impl);
            const stop = sc.background ? sc.background(sandboxes[impl], impl) : null;
            let r;
            try {
              r = sc.sync
                ? measureSync(fn, opts.timeMs, RESOLVE_MIN_CALLS, 20_000)
                : await measureAsync(fn, sc.concurrency, opts);
            } finally {
              if (stop) await stop();
            }
            if (!row[impl] || r.opsPerSec > row[impl]) row[impl] = r.opsPerSec;
          } catch (err) {
            row[`${impl}Error`] = err && err.message;
          }
        }
      }
      row.ratio = row.addon && row.baseline ? row.addon / row.baseline : undefined;
      // Rows without a target are figures to compare between runs (before/after a change).
      row.met = sc.target === null ? null : row.ratio !== undefined && row.ratio >= sc.target;
      results.push(row);
      if (!opts.json && process.stderr.isTTY) process.stderr.write(`  done: ${sc.label}\n`);
    }

    if (!opts.only) for (const impl of IMPLS) rss[impl] = measureRss(impl, fixtures[impl]);
  } finally {
    cleanup();
  }

  const sizeMiB = BLOB_SIZE / MIB;
  const addonRss = rss.addon || {};
  const baseRss = rss.baseline || {};
  const rssRow = {
    key: 'readBinary_rss',
    label: `readBinary ${sizeMiB} MiB, peak RSS growth`,
    unit: 'MiB',
    addon: addonRss.growthMiB,
    baseline: baseRss.growthMiB,
    addonSizeRatio: addonRss.sizeRatio,
    baselineSizeRatio: baseRss.sizeRatio,
    addonMs: addonRss.ms,
    baselineMs: baseRss.ms,
    ratio: addonRss.growthMiB !== undefined && baseRss.growthMiB ? addonRss.growthMiB / baseRss.growthMiB : undefined,
    target: `<= ${(1 + RSS_SLACK).toFixed(2)}x size`,
    met: addonRss.ok === true && addonRss.sizeRatio <= 1 + RSS_SLACK,
    addonDetail: addonRss,
    baselineDetail: baseRss,
    addonError: addonRss.error || (addonRss.ok === false ? 'wrong length returned' : undefined),
    baselineError: baseRss.error || (baseRss.ok === false ? 'wrong length returned' : undefined),
  };

  const totalSeconds = (now() - started) / 1000;
  const rssRows = opts.only ? [] : [rssRow]; // --only skips the readBinary measurement

  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify({ meta, problems, results: [...results, ...rssRows], totalSeconds }, null, 2)}\n`,
    );
    return;
  }

  const rows = [['benchmark', 'addon', 'baseline', 'addon/baseline', 'target', 'status']];
  for (const r of results) {
    rows.push([
      r.label,
      r.addonError ? 'ERROR' : fmtOps(r.addon),
      r.baselineError ? 'ERROR' : fmtOps(r.baseline),
      fmtRatio(r.ratio),
      r.target === null ? '-' : `>= ${r.target}x`,
      r.met === null ? '-' : r.met ? 'met' : 'MISSED',
    ]);
  }
  const mib = (v, ratio) => (v === undefined ? 'ERROR' : `${v.toFixed(1)} MiB (${ratio.toFixed(2)}x size)`);
  for (const r of rssRows) {
    rows.push([
      r.label,
      mib(r.addon, r.addonSizeRatio || 0),
      mib(r.baseline, r.baselineSizeRatio || 0),
      fmtRatio(r.ratio),
      r.target,
      r.met ? 'met' : 'MISSED',
    ]);
  }
  log('throughput in ops/s (higher is better); readBinary row in MiB of peak RSS growth (lower is better)');
  log(table(rows));
  for (const r of [...results, ...rssRows]) {
    for (const impl of IMPLS) {
      if (r[`${impl}Error`]) log(`  ${r.label}: ${impl} failed: ${r[`${impl}Error`]}`);
    }
  }
  for (const impl of IMPLS) {
    if (failures[impl] > 0) log(`  ${impl}: ${failures[impl]} edit(s) failed during the edit rows (counted as operations)`);
  }
  if (rssRows.length > 0 && rssRow.addonMs !== undefined && rssRow.baselineMs !== undefined) {
    log(
      `readBinary ${sizeMiB} MiB: peak from ${addonRss.source} in a child process per implementation; ` +
        `wall time addon ${rssRow.addonMs.toFixed(1)} ms, baseline ${rssRow.baselineMs.toFixed(1)} ms`,
    );
  }
  const missed = [...results, ...rssRows].filter((r) => r.met === false).length;
  log(`${missed === 0 ? 'all targets met' : `${missed} target(s) missed`}; total ${totalSeconds.toFixed(1)} s`);
}

if (process.argv[2] === '--rss-child') {
  rssChild(process.argv[3]).catch((err) => {
    process.stderr.write(`${(err && err.stack) || err}\n`);
    process.exitCode = 1;
  });
} else {
  main()
    .catch((err) => {
      process.stderr.write(`bench: ${(err && err.stack) || err}\n`);
    })
    .finally(() => {
      process.exitCode = 0; // benchmarks never fail CI
    });
}
