#!/usr/bin/env node
'use strict';

// Content search through the sandbox against ripgrep, in one run (issue 30):
//
//   node bench/grep.js [--runs=N] [--json] [--tree=DIR]
//
// --tree searches an existing directory instead (a node_modules, /usr/include), warm only, and
// leaves it as it is.
// A generated tree (40 x 25 directories of 20 files of 60 lines: 20,000 files, about 80 MB), a
// literal, a regular expression and one with word boundaries, each searched by sandbox.grep() (the core: a walk through
// the sandbox, RE2, files over threads), by `rg -n` over the same directory, and by the MCP
// server's grep_files over stdio (the same search, plus the reply). Warm (the page cache holds
// the tree) always; cold too where this process may drop the page cache (root), else said so.
// Printed: the median of --runs (default 5) for each, the ratios to ripgrep, and whether the
// match sets are equal. Goal: the library within 1.5x ripgrep, the MCP call within 2x.
// Where ripgrep is not installed the bench says so and times only the library and the server.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { performance } = require('perf_hooks');
const ms = require('..');
const { startServer } = require('../test/helpers/mcp-client');

function parseArgs(argv) {
  const opts = { runs: 5, json: false };
  for (const arg of argv) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (arg === '--json') opts.json = true;
    else if (key === 'runs' && Number(value) >= 1) opts.runs = Math.floor(Number(value));
    else if (key === 'tree' && value) opts.tree = path.resolve(value);
  }
  return opts;
}

// For a tree of code nobody here wrote: a few hundred to a few thousand matches each.
const TREE_CASES = [['literal', 'deprecated', true], ['regex', 'function\\s+\\w+Sync\\(', false], ['boundary', '\\bnoop\\b', false],
  ['unicode', '\\w+é\\w*', false]];

const WORDS = ['const', 'let', 'function', 'return', 'import', 'export', 'value', 'index', 'result', 'error'];

// 40 x 25 directories of 20 files of 60 lines; needleX on about one line in 16,000.
function makeTree(root) {
  let seed = 42;
  const random = () => {
    // In 32-bit integers: a double product loses its low bits and the sequence falls into a cycle.
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let a = 0; a < 40; a++) {
    for (let b = 0; b < 25; b++) {
      const dir = path.join(root, `pkg${a}`, `mod${b}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 20; f++) {
        const lines = [];
        for (let l = 0; l < 60; l++) {
          const words = Array.from({ length: 8 }, () => WORDS[Math.floor(random() * WORDS.length)]);
          if (random() < 1 / 16000) words.splice(3, 0, 'needleX');
          // One comment in eight is French, so that some lines are not ASCII.
          const note = random() < 1 / 8 ? 'déjà vu' : Math.floor(random() * 1e9);
          lines.push(`  ${words.join(' ')}; // ${note}`);
        }
        fs.writeFileSync(path.join(dir, `file${f}.ts`), `${lines.join('\n')}\n`);
      }
    }
  }
}

function dropCaches() {
  try {
    spawnSync('sync');
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeOf(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

function rgSet(root, pattern, literal) {
  const run = spawnSync('rg', ['--no-config', '-n', '-H', '--no-heading', '--color', 'never', ...(literal ? ['-F'] : []), '-e', pattern, '.'],
    { cwd: root, encoding: 'latin1', maxBuffer: 1 << 28 });
  return run.stdout.split('\n').filter(Boolean).map((l) => {
    const [file, line] = l.split(':');
    return `/${path.posix.normalize(file)}:${line}`;
  }).sort();
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const hasRg = spawnSync('rg', ['--version']).status === 0;
  const root = opts.tree ?? fs.mkdtempSync(path.join(os.tmpdir(), 'msb-bench-grep-'));
  if (!opts.tree) makeTree(root);
  const sandbox = ms.createMountSandbox({ root });
  const server = await startServer(['--root', root]);
  const cases = opts.tree ? TREE_CASES : [['literal', 'needleX', true], ['regex', 'need[l]eX|valu[e] index result error const', false],
    // Unicode word boundaries: RE2 finds the candidate lines, RE2 (ASCII) or PCRE2 decides them.
    ['boundary', '\\bvalu[e] index result\\b', false]];
  const rows = [];
  const canCold = !opts.tree && dropCaches();
  try {
    for (const [name, pattern, literal] of cases) {
      for (const temperature of canCold ? ['cold', 'warm'] : ['warm']) {
        const times = { library: [], rg: [], mcp: [] };
        let libSet = [];
        for (let i = 0; i < opts.runs; i++) {
          if (temperature === 'cold') dropCaches();
          const lib = await timeOf(() => sandbox.grep(pattern, { literal, maxResults: 100000 }));
          times.library.push(lib.ms);
          libSet = lib.value.matches.map((m) => `${m.path}:${m.line}`).sort();
          if (hasRg) {
            if (temperature === 'cold') dropCaches();
            times.rg.push((await timeOf(() => spawnSync('rg', ['--no-config', '-n', ...(literal ? ['-F'] : []), '-e', pattern, '.'], { cwd: root, stdio: 'ignore' }))).ms);
          }
          if (temperature === 'cold') dropCaches();
          times.mcp.push((await timeOf(() => server.client.callTool({ name: 'grep_files', arguments: { path: '/', pattern, literal, maxResults: 1000 } }))).ms);
        }
        const same = hasRg ? JSON.stringify(libSet) === JSON.stringify(rgSet(root, pattern, literal)) : null;
        const row = { case: name, temperature, matches: libSet.length, libraryMs: median(times.library), mcpMs: median(times.mcp) };
        if (hasRg) Object.assign(row, { rgMs: median(times.rg), libraryRatio: median(times.library) / median(times.rg), mcpRatio: median(times.mcp) / median(times.rg), sameMatches: same });
        rows.push(row);
      }
    }
  } finally {
    await server.close();
    if (!opts.tree) fs.rmSync(root, { recursive: true, force: true });
  }
  if (opts.json) return console.log(JSON.stringify({ rows, cold: canCold, rg: hasRg }));
  const tree = opts.tree ? path.basename(opts.tree) : '20,000 files (40 x 25 directories x 20 files x 60 lines)';
  console.log(`content search, ${tree}, median of ${opts.runs}` +
    `${hasRg ? '' : ' (ripgrep not installed: no baseline)'}${canCold ? '' : ' (cold runs skipped: this process cannot drop the page cache)'}`);
  console.log('case      cache  matches  library     rg        mcp       library/rg  mcp/rg  same matches');
  for (const r of rows) {
    const f = (x) => (x === undefined ? '-' : `${x.toFixed(1)} ms`).padEnd(10);
    const ratio = (x) => (x === undefined ? '-' : `${x.toFixed(2)}x`).padEnd(12);
    console.log(`${r.case.padEnd(10)}${r.temperature.padEnd(7)}${String(r.matches).padEnd(9)}${f(r.libraryMs)}${f(r.rgMs)}${f(r.mcpMs)}` +
      `${ratio(r.libraryRatio)}${ratio(r.mcpRatio)}${r.sameMatches === undefined ? '-' : r.sameMatches}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
