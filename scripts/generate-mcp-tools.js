#!/usr/bin/env node
'use strict';

// Writes docs/mcp-tools.md, the reference of mount-sandbox-mcp's tools and their parameters, from
// the schemas the server registers: it starts the real server (mcp/bin/mount-sandbox-mcp.js) over
// stdio on an empty writable directory, so that every tool is registered, asks for tools/list as
// a client does, and writes what it answers. `npm run generate` runs it; test/mcp-tools-doc.test.js
// fails when the committed page differs from what this writes. The page is never edited by hand.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');

const ROOT = path.join(__dirname, '..');
const FILE = path.join(ROOT, 'docs', 'mcp-tools.md');
const BIN = path.join(ROOT, 'mcp', 'bin', 'mount-sandbox-mcp.js');

// tools/list from a server started on an empty directory: `inputSchema` as JSON Schema.
async function listTools() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-mcp-tools-'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--root', dir], stderr: 'pipe' });
  const client = new Client({ name: 'generate-mcp-tools', version: '0' });
  try {
    await client.connect(transport);
    return (await client.listTools()).tools;
  } finally {
    await client.close().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// A JSON Schema's type in words: "integer, 1 to 300000", "array of strings, at least 1 item".
function typeOf(schema) {
  const either = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(either)) return either.map(typeOf).join('; or ');
  if (Array.isArray(schema.enum)) return `string: ${schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' or ')}`;
  const bounds = [];
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : schema.minimum;
    const max = schema.maximum === Number.MAX_SAFE_INTEGER ? undefined : schema.maximum;
    if (min !== undefined && max !== undefined) bounds.push(`${min} to ${max}`);
    else if (min !== undefined) bounds.push(`at least ${min}`);
    else if (max !== undefined) bounds.push(`at most ${max}`);
  }
  if (schema.type === 'string' && schema.minLength) bounds.push(`at least ${plural(schema.minLength, 'character')}`);
  if (schema.type === 'array') {
    if (schema.minItems) bounds.push(`at least ${plural(schema.minItems, 'item')}`);
    if (schema.maxItems !== undefined) bounds.push(`at most ${plural(schema.maxItems, 'item')}`);
    const items = schema.items || {};
    const [itemType, ...itemBounds] = items.type === 'object' ? ['object'] : typeOf(items).split(', ');
    const each = itemBounds.length > 0 ? ` (each ${itemBounds.join(', ')})` : '';
    return [`array of ${itemType}s${each}`, ...bounds].join(', ');
  }
  if (schema.type === undefined) return 'any';
  return [schema.type, ...bounds].join(', ');
}

// The default a client may leave out: the schema's own, else the one its description states.
function defaultOf(schema) {
  if (schema.default !== undefined) return `\`${JSON.stringify(schema.default)}\``;
  const stated = /\(default ([^),;]+)/.exec(schema.description || '');
  return stated ? `\`${stated[1]}\`` : '';
}

// A table cell: pipes and asterisks (globs such as *.ts) escaped, one line.
const cell = (text) => String(text).replace(/[|*]/g, '\\$&').replace(/\n/g, ' ');

// One row per parameter; the fields of an array of objects follow it as name[].field.
function rows(schema, prefix = '') {
  const required = new Set(schema.required || []);
  return Object.entries(schema.properties || {}).flatMap(([name, p]) => {
    const row = `| \`${prefix}${name}\` | ${cell(typeOf(p))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(defaultOf(p))} | ${cell(p.description || '')} |`;
    const items = p.type === 'array' && p.items && p.items.type === 'object' ? rows(p.items, `${prefix}${name}[].`) : [];
    return [row, ...items];
  });
}

function toolSection(tool) {
  const lines = [`## \`${tool.name}\``, '', `${tool.title}.`, ''];
  const body = rows(tool.inputSchema);
  if (body.length === 0) return [...lines, 'No parameters.', ''];
  return [...lines, '| Parameter | Type | Required | Default | Description |', '| --- | --- | --- | --- | --- |', ...body, ''];
}

function render(tools) {
  return [
    '# The MCP server\'s tools',
    '',
    '<!-- Written by `npm run generate` (scripts/generate-mcp-tools.js) from the schemas the server registers; not edited by hand. -->',
    '',
    'Every tool `mount-sandbox-mcp` registers and each of its parameters, as the server lists them to a client',
    '(`tools/list`): the type, whether it is required, the default when it is left out, and the description the',
    'model reads. Arguments are checked against these schemas before a tool runs; a value of another type is',
    'refused with a schema error (`exec`\'s `command` is a string, and an array is refused). Write tools are',
    'registered only where the sandbox can write something. What each tool does, against the official filesystem',
    'server\'s, is in [mcp/README.md](../mcp/README.md#tools); [The MCP server](mcp-server.md) sums the server up.',
    '',
    '## Contents',
    '',
    ...tools.map((t) => `- [\`${t.name}\`](#${t.name})`),
    '',
    ...tools.flatMap(toolSection),
  ].join('\n');
}

async function generated() {
  return render(await listTools());
}

if (require.main === module) {
  generated().then((text) => {
    fs.writeFileSync(FILE, text);
    console.log(`wrote ${path.relative(ROOT, FILE)}`);
  }, (error) => {
    console.error(error);
    process.exitCode = 1;
  });
}

module.exports = { generated, render, typeOf, defaultOf, FILE };
