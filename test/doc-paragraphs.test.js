'use strict';

// No paragraph of README.md, docs/*.md or mcp/README.md runs past MAX_WORDS words, so that a
// reader can follow each one. Code blocks, tables, headings and comments are not prose and are
// not counted; each item of a list is a paragraph of its own.
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const MAX_WORDS = 150;
const FILES = ['README.md', 'mcp/README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

// [{ line, words }] for each paragraph of a markdown text.
function paragraphs(text) {
  const found = [];
  let current = null;
  let fence = false;
  const end = () => {
    if (current !== null) found.push(current);
    current = null;
  };
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) {
      end();
      fence = !fence;
      return;
    }
    if (fence || line.trim() === '' || /^\s*(\||#|<!--)/.test(line)) return end();
    if (/^\s*([-*+]|\d+\.) /.test(line)) end();
    if (current === null) current = { line: i + 1, words: 0 };
    current.words += line.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  });
  end();
  return found;
}

test('paragraphs are told apart: lists, tables and code blocks', () => {
  const text = 'one two three\nfour\n\n- a b\n- c d e\n\n| x | y |\n|---|---|\n\n```\nnot counted here\n```\n# Head ing\n';
  expect(paragraphs(text)).toEqual([{ line: 1, words: 4 }, { line: 4, words: 2 }, { line: 5, words: 3 }]);
});

test.each(FILES)(`%s has no paragraph over ${MAX_WORDS} words`, (file) => {
  const long = paragraphs(fs.readFileSync(path.join(ROOT, file), 'utf8')).filter((p) => p.words > MAX_WORDS);
  expect(long.map((p) => `${file}:${p.line}: ${p.words} words`)).toEqual([]);
});

module.exports = { paragraphs, MAX_WORDS };
