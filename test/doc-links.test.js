'use strict';

// A reader can follow the documentation out: every page that names an outside project in its
// prose (README.md, mcp/README.md, docs/*.md) links it at least once, to the address
// test/helpers/outside-links.js gives (a repository or the project's own documentation), and
// every link out is an https address. docs/mcp-tools.md is written from the tools' schemas and
// left out.
const fs = require('fs');
const path = require('path');
const { PROJECTS, maskOf, firstMention } = require('./helpers/outside-links');

const ROOT = path.join(__dirname, '..');
const FILES = ['README.md', 'mcp/README.md', ...fs.readdirSync(path.join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md') && f !== 'mcp-tools.md').sort().map((f) => `docs/${f}`)];

test.each(FILES)('%s links every outside project it names', (file) => {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const mask = maskOf(text);
  const unlinked = PROJECTS.filter((p) => firstMention(text, p.pattern, mask) !== null && !text.includes(`](${p.url})`));
  expect(unlinked.map((p) => `${p.name}: link ${p.url}`)).toEqual([]);
});

test('the projects the issue names are linked somewhere', () => {
  const all = FILES.map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')).join('\n');
  const named = ['golem-forge', 'the MCP TypeScript SDK', 'Landlock', 'sandbox-runtime', 'ripgrep', 'RE2', 'yaml-cpp', 'simdjson', 'node-addon-api', 'bubblewrap'];
  for (const name of named) {
    const project = PROJECTS.find((p) => p.name === name);
    expect([name, all.includes(`](${project.url})`)]).toEqual([name, true]);
  }
  expect(all).toMatch(/\]\(https:\/\/github\.com\/zby\/golem-forge\/commit\/8cdb671[0-9a-f]*\)/);
});

test('every link out is to an https address', () => {
  for (const file of FILES) {
    const out = [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\]\(([a-z][a-z0-9+.-]*:[^)\s]*)\)/gi)].map((m) => m[1]);
    expect(out.filter((url) => !url.startsWith('https://'))).toEqual([]);
  }
});

test('the mask leaves prose and hides code, links and headings', () => {
  const text = '# golem-forge\n`golem-forge` and [golem-forge](x) then golem-forge.\n```\ngolem-forge\n```\n';
  const found = firstMention(text, PROJECTS[0].pattern);
  expect(text.slice(found.index, found.index + 11)).toBe('golem-forge');
  expect(text.slice(found.index - 5, found.index)).toBe('then ');
  expect(firstMention('golem-forge.config.yaml and @golem-forge/core', PROJECTS[0].pattern)).toBeNull();
});
