'use strict';

// ripgrep's Perl classes are Unicode-aware (issue 40): `\w` matches "é", `\d` the Arabic-Indic
// and full-width digits, `\s` a no-break space. RE2's are ASCII, so before the core rewrote them
// `\w+é\w*` missed "één" and `\d+` missed "٣٤"; its `\b` took "é" for no word character. Each
// pattern's matching lines are compared with ripgrep's on the same fixture where rg is installed,
// and with the lines expected here always.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox } = require('..');
const { makeTempDir, removeDir } = require('./helpers');

const LINES = [
  'één twee drie', // 1 Dutch: an accented word start
  'café au lait', // 2
  'naïve approach', // 3
  'plain ascii words', // 4
  'digits ٣٤٥ arabic-indic', // 5
  'full-width ３２１ digits', // 6
  'no\u00a0break space', // 7 U+00A0
  'ideographic\u3000space', // 8 U+3000
  'under_score and dash-word', // 9
  'Ⓐ circled letter', // 10 (Alphabetic, a symbol)
  'ελληνικά λέξεις', // 11 Greek
  'emoji 😀 here', // 12
  '12 ascii digits', // 13
  'tab\there', // 14
  'caf, then café', // 15
  'deja\u0301 vu', // 16 a combining accent: a mark, so part of the word
];

const CASES = [
  ['\\w+é\\w*', [1, 2, 15]],
  ['^\\w+ \\w+$', [3, 11, 16]],
  ['\\d+', [5, 6, 13]],
  ['\\D\\d', [5, 6]],
  ['no\\sbreak', [7]],
  ['ideographic\\sspace', [8]],
  ['\\S\\s\\S', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]],
  ['^[\\w-]+ ', [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 16]],
  ['[^\\w\\s]', [5, 6, 9, 12, 15]],
  ['^\\W', []], // Ⓐ is Alphabetic: a word character
  ['(?-u)^\\w+\\s', [4, 5, 9, 12, 13, 14]],
  ['(?-u:\\d)\\d', [13]],
  ['caf\\w', [2, 15]],
  // Word boundaries: RE2's are ASCII, so before PCRE2 decided the non-ASCII lines `caf\b`
  // matched inside "café" and `\bé` missed "één".
  ['caf\\b', [15]],
  ['\\bé', [1]],
  ['é\\b', [2, 15]],
  ['\\Bé', [1, 2, 15]],
  ['\\b\\d+\\b', [5, 6, 13]],
  ['\\bλέξεις\\b', [11]],
  ['(?i)\\bÉÉN\\b', [1]],
  ['ja\\b', []], // the accent after "a" is a mark: no boundary there
  ['e\\B', [1, 7, 8, 9, 10, 12, 14, 15, 16]],
  ['\\b[^\\w ]+\\b', [5, 6, 7, 8, 9, 14]],
  ['\\B😀\\B', [12]],
  ['\\b٣', [5]],
  ['(?-u:\\b)é', [2, 15]], // ASCII words: é is no word character
];

let dir;
beforeAll(() => {
  dir = makeTempDir('msb-search-unicode-');
  fs.writeFileSync(path.join(dir, 'words.txt'), `${LINES.join('\n')}\n`);
});
afterAll(() => removeDir(dir));

const hasRg = spawnSync('rg', ['--version']).status === 0;

function rgLines(pattern) {
  const ran = spawnSync('rg', ['--no-config', '-n', '--no-filename', pattern, 'words.txt'], { cwd: dir, encoding: 'utf8' });
  return ran.stdout.split('\n').filter(Boolean).map((l) => Number(l.split(':')[0]));
}

describe('Unicode classes as ripgrep has them', () => {
  test.each(CASES)('%s', async (pattern, expected) => {
    const result = await createMountSandbox({ root: dir }).grep(pattern);
    const lines = result.matches.map((m) => m.line);
    expect(lines).toEqual(expected);
    if (hasRg) expect(lines).toEqual(rgLines(pattern));
  });

  test('a boundary pattern that would backtrack without end gives up on that line and says so', async () => {
    // RE2's loose form finds the line; PCRE2 would try every split of the a's (2^40 ways).
    fs.writeFileSync(path.join(dir, 'runaway.txt'), `-${'a'.repeat(80)}é\n-é\n`);
    try {
      const result = await createMountSandbox({ root: dir }).grep('-(?:a|aa)*\\bé', { path: '/runaway.txt' });
      expect(result.matches.map((m) => m.line)).toEqual([2]);
      expect(result.undecidedLines).toBe(1);
    } finally {
      fs.rmSync(path.join(dir, 'runaway.txt'));
    }
  });

  test('\\W or \\S inside a set is refused with its place, since RE2 cannot take that complement there', async () => {
    await expect(createMountSandbox({ root: dir }).grep('[\\W_]')).rejects.toMatchObject({
      code: 'INVALID_PATTERN', message: expect.stringContaining('at character 2 ("\\\\W_]")'),
    });
  });
});
