'use strict';

// ripgrep's Perl classes are Unicode-aware (issue 40): `\w` matches "é", `\d` the Arabic-Indic
// and full-width digits, `\s` a no-break space. RE2's are ASCII, so before the core rewrote them
// `\w+é\w*` missed "één" and `\d+` missed "٣٤". Each pattern's matching lines are compared with
// ripgrep's on the same fixture where rg is installed, and with the lines expected here always.
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
];

const CASES = [
  ['\\w+é\\w*', [1, 2]],
  ['^\\w+ \\w+$', [3, 11]],
  ['\\d+', [5, 6, 13]],
  ['\\D\\d', [5, 6]],
  ['no\\sbreak', [7]],
  ['ideographic\\sspace', [8]],
  ['\\S\\s\\S', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]],
  ['^[\\w-]+ ', [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13]],
  ['[^\\w\\s]', [5, 6, 9, 12]],
  ['^\\W', []], // Ⓐ is Alphabetic: a word character
  ['(?-u)^\\w+\\s', [4, 5, 9, 12, 13, 14]],
  ['(?-u:\\d)\\d', [13]],
  ['caf\\w', [2]],
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

  test('\\W or \\S inside a set is refused with its place, since RE2 cannot take that complement there', async () => {
    await expect(createMountSandbox({ root: dir }).grep('[\\W_]')).rejects.toMatchObject({
      code: 'INVALID_PATTERN', message: expect.stringContaining('at character 2 ("\\\\W_]")'),
    });
  });
});
