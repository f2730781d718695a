'use strict';

// sandbox.grep(): the core's search (src/search) on real trees, its matches compared with
// ripgrep's where ripgrep is installed (the default flags of both: hidden entries, links and
// binary files passed over, .gitignore inside a git repository and .ignore honoured), and the
// sandbox's rules holding while it walks: no link followed out (nor a directory swapped for one
// meanwhile), denied files never read, a read-only worker's view, cancellation.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const ms = require('../lib');
const { makeTempDir, removeDir, testNeeding } = require('./helpers');

const withRg = testNeeding(spawnSync('rg', ['--version']).status === 0 ? null : 'ripgrep (rg) is not installed');

let root;
let outside;
beforeAll(() => {
  root = makeTempDir('msb-search-');
  outside = makeTempDir('msb-search-out-');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'needle TOP-SECRET\n');
});
afterAll(() => {
  removeDir(root);
  removeDir(outside);
});

function write(rel, content) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

// ripgrep's matches in `dir` as "/path:line", with its default flags (and -F for a literal).
function rgMatches(dir, pattern, { literal = false, ignoreCase = false } = {}) {
  const args = ['--no-heading', '-n', '-H', '--color', 'never', '--no-config', ...(literal ? ['-F'] : []), ...(ignoreCase ? ['-i'] : []), '-e', pattern, '.'];
  const run = spawnSync('rg', args, { cwd: dir, encoding: 'latin1', maxBuffer: 1 << 28 });
  expect([run.status === 0 || run.status === 1, run.stderr]).toEqual([true, run.stderr]);
  return run.stdout.split('\n').filter(Boolean).map((line) => {
    const [file, number] = line.split(':');
    return `/${path.posix.normalize(file)}:${number}`;
  }).sort();
}

const ours = (result, base = '') => result.matches.map((m) => `${m.path.slice(base.length)}:${m.line}`).sort();

describe('the same matches as ripgrep', () => {
  const WORDS = ['alpha', 'beta', 'gamma', 'needleX', 'delta', 'Needlex', 'epsilon'];
  beforeAll(() => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let d = 0; d < 8; d++) {
      for (let f = 0; f < 12; f++) {
        const lines = Array.from({ length: 60 }, () => Array.from({ length: 6 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' '));
        write(`tree/d${d}/f${f}.ts`, `${lines.join('\n')}\n`);
      }
    }
    // Edge cases beside the generated files.
    write('tree/edge/crlf.txt', 'one needleX\r\ntwo\r\nthree needleX\r\n');
    write('tree/edge/no-newline.txt', 'first\nlast needleX');
    write('tree/edge/long.txt', `${'x'.repeat(200_000)}needleX\nshort needleX\n`);
    write('tree/edge/binary.dat', Buffer.concat([Buffer.from('needleX\n\0\0'), Buffer.from('needleX\n')]));
    write('tree/edge/empty.txt', '');
    write('tree/edge/utf8.txt', 'café needleX\nnaïve\n');
    write('tree/edge/invalid.txt', Buffer.concat([Buffer.from([0x41, 0xc3, 0x28, 0x80, 0x0a]), Buffer.from('needleX after invalid \xc3\n')]));
    write('tree/edge/.hidden.txt', 'needleX hidden\n');
    fs.mkdirSync(path.join(root, 'tree', '.git'), { recursive: true });
    write('tree/.gitignore', 'ignored/\n*.log\n!keep.log\n');
    write('tree/ignored/a.txt', 'needleX ignored\n');
    write('tree/edge/drop.log', 'needleX log\n');
    write('tree/edge/keep.log', 'needleX kept\n');
    write('tree/edge/sub/.ignore', 'local.txt\n');
    write('tree/edge/sub/local.txt', 'needleX local\n');
    write('tree/edge/sub/other.txt', 'needleX other\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'tree', 'edge', 'link-out.txt'));
    fs.symlinkSync('crlf.txt', path.join(root, 'tree', 'edge', 'link-in.txt'));
  });

  for (const [name, pattern, opts] of [
    ['a literal', 'needleX', { literal: true }],
    ['a regular expression', 'need(le|el)X$', {}],
    ['ignoring case', 'needlex', { literal: true, ignoreCase: true }],
    ['anchored alternatives', '^(alpha|beta) gamma', {}],
  ]) {
    withRg(`${name}, on a generated tree and the edge cases`, async () => {
      const sb = ms.createMountSandbox({ root });
      const result = await sb.grep(pattern, { path: '/tree', ...opts, gitignore: true, maxResults: 100000 });
      expect(result.truncated).toBeNull();
      expect(ours(result, '/tree')).toEqual(rgMatches(path.join(root, 'tree'), pattern, opts));
      expect(JSON.stringify(result)).not.toContain('TOP-SECRET');
    });
  }

  test('what each edge case gives', async () => {
    const sb = ms.createMountSandbox({ root });
    const result = await sb.grep('needleX', { path: '/tree/edge', literal: true, gitignore: true, context: 1 });
    const byPath = Object.fromEntries(result.matches.map((m) => [`${m.path}:${m.line}`, m]));
    expect(byPath['/tree/edge/crlf.txt:1'].text).toBe('one needleX\r');
    expect(byPath['/tree/edge/crlf.txt:3'].before.map((l) => l.text)).toEqual(['two\r']);
    expect(byPath['/tree/edge/no-newline.txt:2'].text).toBe('last needleX');
    expect(byPath['/tree/edge/long.txt:1']).toMatchObject({ cut: true });
    expect(Buffer.byteLength(byPath['/tree/edge/long.txt:1'].text)).toBeLessThanOrEqual(400);
    expect(byPath['/tree/edge/utf8.txt:1'].text).toBe('café needleX');
    expect(byPath['/tree/edge/invalid.txt:2']).toBeDefined();
    expect(Object.keys(byPath).some((k) => /binary|hidden|drop\.log|local\.txt|link-/.test(k))).toBe(false);
    expect(byPath['/tree/edge/keep.log:1']).toBeDefined();
    expect(byPath['/tree/edge/sub/other.txt:1']).toBeDefined();
    expect(result.skippedBinary).toBe(1);
  });
});

describe('the sandbox\'s rules hold while it searches', () => {
  test('a pattern that backtracks in other engines runs in linear time', async () => {
    write('evil/a.txt', `${'a'.repeat(200_000)}!\n`);
    const sb = ms.createMountSandbox({ root });
    const result = await sb.grep('^(a+)+$', { path: '/evil' });
    expect(result.matches).toEqual([]);
    expect(result.filesSearched).toBe(1);
  });

  test('a directory swapped for a link out while the search walks is never followed', async () => {
    const base = path.join(root, 'swap');
    for (let i = 0; i < 50; i++) write(`swap/d${i}/f.txt`, 'needle here\n');
    const sb = ms.createMountSandbox({ root });
    let running = true;
    const swapper = (async () => {
      while (running) {
        const victim = path.join(base, `d${Math.floor(Math.random() * 50)}`);
        try {
          fs.renameSync(victim, `${victim}.moved`);
          fs.symlinkSync(outside, victim);
          await new Promise((r) => setImmediate(r));
          fs.unlinkSync(victim);
          fs.renameSync(`${victim}.moved`, victim);
        } catch {
          // another round took it
        }
      }
    })();
    for (let round = 0; round < 30; round++) {
      const result = await sb.grep('needle', { path: '/swap', maxResults: 100000 });
      expect(JSON.stringify(result)).not.toContain('TOP-SECRET');
    }
    running = false;
    await swapper;
  });

  test('files the policy denies are never searched, and are counted', async () => {
    write('policy/keys.env', 'needle in a secret\n');
    write('policy/notes.txt', 'needle in notes\n');
    const sb = ms.createMountSandbox({ root, deniedSuffixes: ['.env'] });
    const result = await sb.grep('needle', { path: '/policy' });
    expect(result.matches.map((m) => m.path)).toEqual(['/policy/notes.txt']);
    expect(result.skippedRefused).toBe(1);
  });

  test('a read-only worker\'s view searches its subtree, named as it sees it', async () => {
    write('view/src/a.ts', 'const needle = 1;\n');
    write('view/secret.txt', 'needle outside the view\n');
    const child = ms.createMountSandbox({ root }).restrict({ restrict: '/view/src', readonly: true });
    const result = await child.grep('needle');
    expect(result.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['/a.ts:1']);
  });

  test('bad input: a pattern RE2 refuses, a bad glob, a path out of the sandbox', async () => {
    const sb = ms.createMountSandbox({ root });
    await expect(sb.grep('(')).rejects.toMatchObject({ code: 'INVALID_PATTERN', message: expect.stringMatching(/literal: true/) });
    await expect(sb.grep('(?=x)')).rejects.toMatchObject({ code: 'INVALID_PATTERN' });
    await expect(sb.grep('x', { include: '[' })).rejects.toMatchObject({ code: 'INVALID_PATTERN', index: 1 });
    await expect(sb.grep('x', { path: '/../etc' })).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(sb.grep('x', { maxResults: 0 })).rejects.toThrow(RangeError);
    await expect(sb.grep('x', { bogus: 1 })).rejects.toThrow(/unknown option "bogus"/);
  });

  test('cancellation: an aborted signal rejects with its reason, before and during the search', async () => {
    for (let i = 0; i < 500; i++) write(`many/f${i}.txt`, 'needle\n'.repeat(200));
    const sb = ms.createMountSandbox({ root });
    const before = new AbortController();
    before.abort(new Error('stop'));
    await expect(sb.grep('needle', { path: '/many', signal: before.signal })).rejects.toThrow('stop');
    const during = new AbortController();
    const search = sb.grep('needle', { path: '/many', maxResults: 100000, signal: during.signal });
    setImmediate(() => during.abort());
    await expect(search).rejects.toMatchObject({ name: 'AbortError' });
  });

  test('bounded by results, not by a count of files', async () => {
    const sb = ms.createMountSandbox({ root });
    const capped = await sb.grep('needle', { path: '/many', maxResults: 10 });
    expect(capped.matches).toHaveLength(10);
    expect(capped.truncated).toBe('results');
    expect(capped.matches.map((m) => m.path)).toEqual(Array(10).fill('/many/f0.txt'));
  });

  test('results come in the order of their whole paths while the walk streams them, a cap keeping the first', async () => {
    // Directory and file names that sort differently alone and as paths: "a" < "a.txt", but
    // "/order/a.txt" < "/order/a/z" ('.' before '/'), and "a-b" sorts before both.
    for (const rel of ['a/z', 'a.txt', 'a-b', 'a0', 'b/a', 'a/y/x', 'A']) write(`order/${rel}`, 'needle\n');
    const sb = ms.createMountSandbox({ root });
    const all = await sb.grep('needle', { path: '/order' });
    const paths = all.matches.map((m) => m.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths).toEqual(['/order/A', '/order/a-b', '/order/a.txt', '/order/a/y/x', '/order/a/z', '/order/a0', '/order/b/a']);
    const capped = await sb.grep('needle', { path: '/order', maxResults: 3 });
    expect(capped.matches.map((m) => m.path)).toEqual(paths.slice(0, 3));
  });
});
