'use strict';

// Files of any size searched in bounded memory (issues 39 and 40): the core reads each file in
// 256 KiB chunks instead of whole. A line across a chunk's edge, context lines on the far side
// of one, binary data late in a file, a line too long to hold, and a 1 GiB file searched in a
// child process whose peak memory is read from /proc. Before, a file was read whole: a file over
// maxReadBytes (128 MiB) was skipped as unreadable, one under it cost its size in memory, and any
// NUL byte hid every match in the file.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox, GREP_BYTES_PER_THREAD } = require('..');
const { makeTempDir, removeDir } = require('./helpers');

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 256 * KiB;

let dir;
beforeEach(() => {
  dir = makeTempDir('msb-search-chunks-');
});
afterEach(() => removeDir(dir));

// A deterministic generator, so that a failure can be replayed.
function random(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

// The matches grep must give, computed from the whole text split into lines.
function expected(text, needle, context, maxLineBytes, file, { before = context, after = context, maxCount = Infinity } = {}) {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const cut = (n) => {
    const bytes = Buffer.from(lines[n - 1], 'latin1');
    return bytes.length > maxLineBytes
      ? { line: n, text: bytes.subarray(0, maxLineBytes).toString('latin1'), cut: true }
      : { line: n, text: lines[n - 1] };
  };
  const out = [];
  lines.forEach((line, i) => {
    if (!line.includes(needle) || out.length >= maxCount) return;
    const n = i + 1;
    const shownBefore = [];
    for (let b = Math.max(1, n - before); b < n; b++) shownBefore.push(cut(b));
    const shownAfter = [];
    for (let a = n + 1; a <= Math.min(lines.length, n + after); a++) shownAfter.push(cut(a));
    out.push({ ...cut(n), path: file, before: shownBefore, after: shownAfter });
  });
  return out;
}

// Lines of every length around the chunk size, some holding the needle near a chunk's edge.
function generated(seed) {
  const next = random(seed);
  const parts = [];
  let size = 0;
  while (size < 3 * CHUNK + 1000) {
    const long = next(10) === 0;
    let line = 'a'.repeat(long ? CHUNK - 50 + next(300) : next(120));
    if (next(6) === 0) {
      const at = next(line.length + 1);
      line = `${line.slice(0, at)}NEEDLE${line.slice(at)}`;
    }
    parts.push(line);
    size += line.length + 1;
  }
  // Needles straddling each chunk edge: the edge falls inside the word itself.
  let text = `${parts.join('\n')}${next(2) === 0 ? '\n' : ''}`;
  for (let edge = CHUNK; edge < text.length - 10; edge += CHUNK) {
    text = `${text.slice(0, edge - 3)}NEEDLE${text.slice(edge + 3)}`;
  }
  return text;
}

describe('a file read in chunks', () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8])('finds every line and its context as the whole text has them (seed %i)', async (seed) => {
    const text = generated(seed);
    fs.writeFileSync(path.join(dir, 'f.txt'), text, 'latin1');
    const sandbox = createMountSandbox({ root: dir });
    for (const context of [0, 1, 3]) {
      const result = await sandbox.grep('NEEDLE', { literal: true, context, maxResults: 100000, maxLineBytes: 40 });
      expect(result.matches).toEqual(expected(text, 'NEEDLE', context, 40, '/f.txt'));
      expect(result.matches.length).toBeGreaterThan(3);
    }
  });

  test.each([1, 2, 3])('before and after apart (-B, -A), and a per-file count (-m) whose last match takes its lines after from the next chunk (seed %i)', async (seed) => {
    const text = generated(seed);
    fs.writeFileSync(path.join(dir, 'f.txt'), text, 'latin1');
    const sandbox = createMountSandbox({ root: dir });
    const all = expected(text, 'NEEDLE', 0, 40, '/f.txt');
    // The first match whose line ends past the first chunk's edge: its lines after are read later.
    const edge = all.findIndex((m) => text.indexOf('\n', text.split('\n').slice(0, m.line - 1).join('\n').length + 1) >= CHUNK - 1) + 1;
    for (const shape of [{ before: 3, after: 0 }, { before: 0, after: 2 }, { before: 1, after: 3, maxCount: edge }, { after: 2, maxCount: 1 }]) {
      const result = await sandbox.grep('NEEDLE', { literal: true, maxResults: 100000, maxLineBytes: 40, ...shape });
      expect(result.matches).toEqual(expected(text, 'NEEDLE', 0, 40, '/f.txt', shape));
    }
  });

  test('"^$" finds the empty lines, and no line after the last "\\n" of a chunk', async () => {
    const text = `${'b'.repeat(CHUNK - 1)}\n\n${'c'.repeat(CHUNK - 1)}\n`;
    fs.writeFileSync(path.join(dir, 'f.txt'), text);
    const result = await createMountSandbox({ root: dir }).grep('^$');
    expect(result.matches.map((m) => m.line)).toEqual([2]);
  });

  test('binary data late in a file: the matches in the chunks before it are kept, and the file is counted as binary', async () => {
    // needle four shares its chunk with the NUL: as ripgrep's buffer, that chunk is not searched.
    const text = `${'line\n'.repeat(100)}needle one\n${'x'.repeat(2 * MiB)}\nneedle two\n${'w\n'.repeat(MiB / 2)}needle four\n`;
    fs.writeFileSync(path.join(dir, 'late.bin'), Buffer.concat([Buffer.from(text), Buffer.from('\0needle three\n')]));
    fs.writeFileSync(path.join(dir, 'early.bin'), Buffer.from('needle\n\0needle\n'));
    const result = await createMountSandbox({ root: dir }).grep('needle');
    expect(result.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['/late.bin:101', '/late.bin:103']);
    expect(result.skippedBinary).toBe(2);
  });

  test('a line longer than 16 MiB ends that file\'s search, counted; the lines before it are searched', async () => {
    fs.writeFileSync(path.join(dir, 'wide.txt'), `needle first\n${'z'.repeat(17 * MiB)}needle\nneedle last\n`);
    fs.writeFileSync(path.join(dir, 'plain.txt'), 'needle\n');
    const result = await createMountSandbox({ root: dir }).grep('needle');
    expect(result.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['/plain.txt:1', '/wide.txt:1']);
    expect(result.skippedLongLines).toBe(1);
    expect(GREP_BYTES_PER_THREAD).toBe(CHUNK + 16 * MiB);
  });

  test('a file exactly maxBytes long without a final "\\n" is searched to its last line, not stopped at the bound', async () => {
    // Before, the read that reached the bound left the last line for a next read never made.
    const text = `${'a\n'.repeat(1000)}needle`;
    fs.writeFileSync(path.join(dir, 'f.txt'), text);
    const result = await createMountSandbox({ root: dir }).grep('needle', { maxBytes: text.length });
    expect(result.matches.map((m) => m.line)).toEqual([1001]);
    expect(result.truncated).toBeNull();
    const short = await createMountSandbox({ root: dir }).grep('needle', { maxBytes: text.length - 1 });
    expect(short.truncated).toBe('bytes');
  });

  test('a file over maxReadBytes is searched (maxReadBytes bounds read(), not a search); the policy\'s maxFileBytes still refuses it', async () => {
    fs.writeFileSync(path.join(dir, 'f.txt'), `${'y'.repeat(3 * MiB)}\nneedle\n`);
    const result = await createMountSandbox({ root: dir, maxReadBytes: MiB }).grep('needle');
    expect(result.matches.map((m) => m.line)).toEqual([2]);
    const refused = await createMountSandbox({ root: dir, maxFileBytes: MiB }).grep('needle');
    expect(refused.matches).toEqual([]);
    expect(refused.skippedRefused).toBe(1);
  });

  test('1 GiB with its matches at the end: found, with the search\'s peak memory a small part of the file', () => {
    const file = path.join(dir, 'big.txt');
    const block = Buffer.from(`${'x'.repeat(1023)}\n`.repeat(1024));
    const fd = fs.openSync(file, 'w');
    try {
      for (let i = 0; i < 1024; i++) fs.writeSync(fd, block);
      fs.writeSync(fd, 'the needle at the end\nlast line\n');
    } finally {
      fs.closeSync(fd);
    }
    const script = `
      const { createMountSandbox } = require(${JSON.stringify(path.join(__dirname, '..'))});
      createMountSandbox({ root: ${JSON.stringify(dir)} }).grep('needle', { maxBytes: 2 ** 31, context: 1, threads: 2 }).then((r) => {
        const peak = Number(/VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
        process.stdout.write(JSON.stringify({ lines: r.matches.map((m) => [m.line, m.text, m.after[0].text]), bytes: r.bytesSearched, peak }));
      });`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const { lines, bytes, peak } = JSON.parse(child.stdout);
    expect(lines).toEqual([[1024 * 1024 + 1, 'the needle at the end', 'last line']]);
    expect(bytes).toBe(2 ** 30 + 32);
    // Node itself takes some 50 MiB; the file is 1024 MiB.
    expect(peak).toBeLessThan(160 * MiB);
  }, 60_000);
});
