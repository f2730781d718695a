'use strict';

// The options a ripgrep user reaches for (issue 40): word (-w), invert (-v), file types (-t),
// files with a match (-l), counts (-c) and the spans of each match (--json's submatches). Before,
// none existed: each was refused as an unknown option. Every answer is compared with ripgrep's on
// the same generated tree where rg is installed, and with what the tree was built to hold always.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox } = require('..');
const { makeTempDir, removeDir } = require('./helpers');
const { testIf } = require('./helpers/skips');

const WORDS = ['foo', 'foobar', 'barfoo', 'café', 'cafés', 'naïve', 'x_foo', 'foo-bar', 'één', 'Foo', '٣٤'];
const FILES = ['src/a.rs', 'src/b.md', 'src/c.c', 'src/d.h', 'lib/e.md', 'lib/f.txt', 'lib/deep/g.rs', 'Makefile'];

// A seeded generator, so that a failure names a tree that can be made again.
function random(seed) {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}

let dir;
let sandbox;
beforeAll(() => {
  dir = makeTempDir('msb-search-options-');
  const next = random(40);
  for (const file of FILES) {
    const lines = [];
    for (let i = 0; i < 30 + next(30); i += 1) {
      lines.push(Array.from({ length: next(6) }, () => WORDS[next(WORDS.length)]).join(next(3) === 0 ? ', ' : ' '));
    }
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), `${lines.join('\n')}\n`);
  }
  sandbox = createMountSandbox({ root: dir });
});
afterAll(() => removeDir(dir));

const hasRg = spawnSync('rg', ['--version']).status === 0;
const rgReason = 'ripgrep (rg) is not installed: the answers are checked against the tree alone';

function rg(args) {
  // stdin closed: rg would search a piped stdin instead of the directory
  const ran = spawnSync('rg', ['--no-config', '--sort', 'path', ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return ran.stdout.split('\n').filter(Boolean);
}

// Each file's lines, as the tree holds them.
function fileLines(file) {
  return fs.readFileSync(path.join(dir, file), 'utf8').split('\n').slice(0, -1);
}

const byLine = (result) => result.matches.map((m) => `${m.path.slice(1)}:${m.line}:${m.text}`);

describe('word', () => {
  test.each(['foo', 'café', 'foo-bar', 'één'])('%s matches only as a whole word, as rg -w', async (pattern) => {
    const result = await sandbox.grep(pattern, { word: true, maxResults: 100000 });
    const wordChar = /[\p{L}\p{M}\p{Nd}\p{Pc}]/u;
    for (const m of result.matches) {
      const text = m.text;
      let at = text.indexOf(pattern);
      let whole = false;
      for (; at >= 0 && !whole; at = text.indexOf(pattern, at + 1)) {
        whole = !wordChar.test(text[at - 1] ?? ' ') && !wordChar.test(text[at + pattern.length] ?? ' ');
      }
      expect(whole).toBe(true);
    }
    expect(result.matches.length).toBeGreaterThan(0);
    if (hasRg) expect(byLine(result)).toEqual(rg(['-n', '-w', pattern]));
  });

  test('a literal word: its characters are not a pattern', async () => {
    const result = await sandbox.grep('foo-bar', { word: true, literal: true, path: '/src/a.rs' });
    expect(byLine(result)).toEqual(byLine(await sandbox.grep('foo-bar', { word: true, path: '/src/a.rs' })));
    await expect(sandbox.grep('.', { word: true, literal: true })).resolves.toMatchObject({ matches: [] });
  });
});

describe('invert', () => {
  test('every line without a match, numbered as in the file', async () => {
    const result = await sandbox.grep('foo', { invert: true, path: '/src/a.rs' });
    const expected = fileLines('src/a.rs').map((text, i) => `src/a.rs:${i + 1}:${text}`).filter((l) => !l.split(':')[2].includes('foo'));
    expect(byLine(result)).toEqual(expected);
    expect(result.matches.length).toBeGreaterThan(0);
    if (hasRg) expect(byLine(result)).toEqual(rg(['-n', '-v', '--with-filename', 'foo', 'src/a.rs']));
  });

  test('with context, and with word', async () => {
    const result = await sandbox.grep('foo', { invert: true, word: true, context: 1, maxResults: 100000 });
    if (hasRg) expect(byLine(result)).toEqual(rg(['-n', '-v', '-w', 'foo']));
    expect(result.matches.every((m) => !/(^|[^\p{L}\p{Nd}_])foo($|[^\p{L}\p{Nd}_])/u.test(m.text))).toBe(true);
  });
});

describe('output: files and count', () => {
  test('files: the files with a match, in path order, no lines', async () => {
    const result = await sandbox.grep('naïve');
    const named = await sandbox.grep('naïve', { output: 'files' });
    expect(named.matches).toEqual([]);
    expect(named.files).toEqual([...new Set(result.matches.map((m) => m.path))].map((p) => ({ path: p })));
    if (hasRg) expect(named.files.map((f) => f.path.slice(1))).toEqual(rg(['-l', 'naïve']));
  });

  test('count: matching lines per file, all of them, however many maxResults allows of lines', async () => {
    const counted = await sandbox.grep('foo', { output: 'count', maxResults: 3 });
    expect(counted.files).toHaveLength(3);
    expect(counted.truncated).toBe('results');
    const all = await sandbox.grep('foo', { output: 'count' });
    for (const { path: file, count } of all.files) {
      expect(count).toBe(fileLines(file.slice(1)).filter((l) => l.includes('foo')).length);
    }
    if (hasRg) expect(all.files.map((f) => `${f.path.slice(1)}:${f.count}`)).toEqual(rg(['-c', 'foo']));
  });

  test('count with invert and maxCount, as rg -c -v -m', async () => {
    const result = await sandbox.grep('foo', { output: 'count', invert: true, maxCount: 5 });
    expect(result.files.every((f) => f.count <= 5)).toBe(true);
    if (hasRg) expect(result.files.map((f) => `${f.path.slice(1)}:${f.count}`)).toEqual(rg(['-c', '-v', '-m', '5', 'foo']));
  });

  test('lines-only options are refused with another output', async () => {
    await expect(sandbox.grep('foo', { output: 'files', context: 1 })).rejects.toThrow(/apply to output 'lines' only/);
    await expect(sandbox.grep('foo', { output: 'count', spans: true })).rejects.toThrow(RangeError);
    await expect(sandbox.grep('foo', { output: 'all' })).rejects.toThrow("expected one of 'lines', 'files', 'count' for output");
  });
});

describe('type', () => {
  test.each([['rust', ['lib/deep/g.rs', 'src/a.rs']], ['md', ['lib/e.md', 'src/b.md']], ['c', ['src/c.c', 'src/d.h']],
    ['make', ['Makefile']]])('%s searches only its files', async (type, files) => {
    const result = await sandbox.grep('.', { type, output: 'files' });
    expect(result.files.map((f) => f.path.slice(1))).toEqual(files);
    if (hasRg) expect(result.files.map((f) => f.path.slice(1))).toEqual(rg(['-l', '-t', type, '.']));
  });

  test('several types, and with include: a file must be of a type and match include', async () => {
    const several = await sandbox.grep('.', { type: ['rust', 'md'], output: 'files' });
    expect(several.files.map((f) => f.path)).toEqual(['/lib/deep/g.rs', '/lib/e.md', '/src/a.rs', '/src/b.md']);
    const both = await sandbox.grep('.', { type: ['rust', 'md'], include: 'src/**', output: 'files' });
    expect(both.files.map((f) => f.path)).toEqual(['/src/a.rs', '/src/b.md']);
  });

  test('an unknown type is refused with the names there are, and nothing is searched', async () => {
    await expect(sandbox.grep('.', { type: 'rs' })).rejects.toThrow(/among: asm, c, clojure, .*rust/);
    await expect(sandbox.grep('.', { type: 7 })).rejects.toThrow(RangeError);
  });
});

describe('spans', () => {
  // rg --json gives each submatch's text; ours are offsets into the line's text.
  function rgSubmatches(args) {
    return rg(['--json', ...args]).map((l) => JSON.parse(l)).filter((e) => e.type === 'match')
      .map((e) => `${e.data.path.text}:${e.data.line_number}:${e.data.submatches.map((s) => s.match.text).join('|')}`);
  }
  const ours = (result) => result.matches.map((m) => `${m.path.slice(1)}:${m.line}:${m.spans.map((s) => m.text.slice(s.start, s.end)).join('|')}`);

  test.each([['caf\\w*', {}], ['foo', { word: true }], ['\\bé\\w*', {}], ['o+', { ignoreCase: true }]])('%s %j', async (pattern, options) => {
    const result = await sandbox.grep(pattern, { spans: true, maxResults: 100000, ...options });
    expect(result.matches.length).toBeGreaterThan(0);
    // Each span is a whole match of the pattern (JavaScript's \w is ASCII even with "u").
    const source = pattern.replace('\\b', '').replaceAll('\\w', '[\\p{L}\\p{M}\\p{Nd}\\p{Pc}]');
    const whole = new RegExp(`^(?:${source})$`, options.ignoreCase ? 'ui' : 'u');
    for (const m of result.matches) {
      expect(m.spans.length).toBeGreaterThan(0);
      for (const s of m.spans) expect(whole.test(m.text.slice(s.start, s.end))).toBe(true);
    }
    const flags = [...(options.word ? ['-w'] : []), ...(options.ignoreCase ? ['-i'] : [])];
    if (hasRg) expect(ours(result)).toEqual(rgSubmatches([...flags, pattern]));
  });

  test('a cut line keeps the spans within what is kept', async () => {
    fs.writeFileSync(path.join(dir, 'long.txt'), `${'ab '.repeat(100)}\n`);
    try {
      const result = await sandbox.grep('ab', { spans: true, path: '/long.txt', maxLineBytes: 10 });
      expect(result.matches[0].text).toBe('ab ab ab a');
      expect(result.matches[0].spans).toEqual([{ start: 0, end: 2 }, { start: 3, end: 5 }, { start: 6, end: 8 }, { start: 9, end: 10 }]);
    } finally {
      fs.rmSync(path.join(dir, 'long.txt'));
    }
  });

  test('refused with invert, which has no matches to place', async () => {
    await expect(sandbox.grep('foo', { spans: true, invert: true })).rejects.toThrow('spans apply to matches');
  });
});

testIf(hasRg, rgReason)('compared with ripgrep where it is installed', () => expect(hasRg).toBe(true));

test('docs/api.md lists every type name the core has, and no other', () => {
  const { addon } = require('../lib/common/native');
  const page = fs.readFileSync(path.join(__dirname, '..', 'docs', 'api.md'), 'utf8').replace(/\s+/g, ' ');
  const listed = /ripgrep 14's for these names \([^)]*\): ([a-z, ]+)\./.exec(page);
  expect(listed).not.toBeNull();
  expect(listed[1].split(', ')).toEqual(Object.keys(addon().limits.fileTypes));
});
