'use strict';

// Patterns refused as ripgrep refuses them (issue 40), each with its reason and where it lies in
// the pattern. Before, a pattern holding "\n" matched nothing, silently (RE2 never matches across
// a line end here), and every refusal read alike.
const fs = require('fs');
const path = require('path');
const { createMountSandbox } = require('..');
const { makeTempDir, removeDir } = require('./helpers');

let dir;
let sandbox;
beforeEach(() => {
  dir = makeTempDir('msb-search-patterns-');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\nb\nab\n');
  sandbox = createMountSandbox({ root: dir });
});
afterEach(() => removeDir(dir));

async function refusal(pattern, options = {}) {
  try {
    await sandbox.grep(pattern, options);
  } catch (error) {
    expect(error.code).toBe('INVALID_PATTERN');
    return error.message;
  }
  throw new Error(`${JSON.stringify(pattern)} was searched`);
}

describe('patterns refused with their reason and place', () => {
  test.each([
    ['a\\nb', 2], ['a\nb', 2], ['x\\x0a', 2], ['x\\x{A}', 2], ['é\\012', 2], ['[\\n]', 2],
  ])('a line break written in %j, at character %i', async (pattern, at) => {
    const message = await refusal(pattern);
    expect(message).toContain(`it holds a line break, at character ${at} (`);
    expect(message).toContain('no match can span lines');
  });

  test('a line break in a literal pattern', async () => {
    expect(await refusal('a\nb', { literal: true })).toMatch(/^Invalid pattern "a\\nb": it holds a line break, at character 2/);
  });

  test('backreferences, numbered and named', async () => {
    expect(await refusal('(a)\\1')).toMatch(/a backreference is not supported, at character 4 \("\\\\1"\)/);
    expect(await refusal('(?P<n>a)(?P=n)')).toMatch(/a backreference is not supported, at character 9 \("\(\?P=n\)"\)/);
  });

  test.each([['é(?=x)', 2], ['(?!x)', 1], ['a(?<=b)', 2], ['(?<n>a)b(?<!a)', 9]])('look-around in %j, at character %i', async (pattern, at) => {
    expect(await refusal(pattern)).toContain(`look-around (look-ahead, look-behind) is not supported, at character ${at} (`);
  });

  test('other syntax errors say where RE2 stopped', async () => {
    expect(await refusal('a**')).toContain('RE2 cannot parse it, at character 2 ("**")');
    expect(await refusal('x{2,1}')).toContain('at character 2 ("{2,1}")');
    expect(await refusal('(abc')).toContain('at character 1 ("(abc")');
  });

  test('what is no line break is searched: an escaped backslash before n, \\Q\\n\\E, \\s', async () => {
    for (const pattern of ['a\\\\nb', '\\Q\\n\\E', 'a\\sb']) await expect(sandbox.grep(pattern)).resolves.toMatchObject({ matches: [] });
    expect((await sandbox.grep('^a', { path: '/a.txt' })).matches.map((m) => m.line)).toEqual([1, 3]);
  });
});
