'use strict';

// docs/mcp-tools.md is what scripts/generate-mcp-tools.js writes from the schemas the server
// registers (tools/list over stdio): when a tool or a parameter changes, this fails until
// `npm run generate` writes the page again.
const fs = require('fs');
const path = require('path');
const { generated, typeOf, defaultOf, FILE } = require('../scripts/generate-mcp-tools');

jest.setTimeout(60000);

let text;
beforeAll(async () => {
  text = await generated();
});

test('docs/mcp-tools.md is what `npm run generate` writes from the registered schemas', () => {
  const committed = fs.readFileSync(FILE, 'utf8');
  if (committed !== text) {
    throw new Error(`${path.relative(path.join(__dirname, '..'), FILE)} differs from the tools the server registers: run \`npm run generate\``);
  }
});

test('it lists every tool, and exec\'s command as a required string', () => {
  for (const name of ['read_text_file', 'write_file', 'edit_file', 'grep_files', 'exec', 'explain_path']) {
    expect(text).toContain(`## \`${name}\`\n`);
  }
  expect(text).toMatch(/^\| `command` \| string, at least 1 character \| yes \| /m);
  expect(text).toMatch(/^\| `edits\[\]\.oldText` \| string \| yes \| /m);
});

test('types, bounds and defaults in words', () => {
  expect(typeOf({ type: 'integer', minimum: 1, maximum: 300000 })).toBe('integer, 1 to 300000');
  expect(typeOf({ type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER })).toBe('integer, at least 1');
  expect(typeOf({ type: 'array', items: { type: 'string' }, minItems: 1 })).toBe('array of strings, at least 1 item');
  expect(typeOf({ type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 64 }))
    .toBe('array of strings (each at least 1 character), at most 64 items');
  expect(typeOf({ type: 'string', enum: ['name', 'size'] })).toBe('string: `"name"` or `"size"`');
  expect(defaultOf({ type: 'boolean', default: false })).toBe('`false`');
  expect(defaultOf({ type: 'integer', description: 'Matches returned at most (default 100)' })).toBe('`100`');
  expect(defaultOf({ type: 'string', description: 'A path' })).toBe('');
});
