'use strict';

// The client configurations for mount-sandbox-mcp in README.md ("MCP server: mount-sandbox-mcp")
// and mcp/README.md ("Client configuration") are copied as they are into clients' files: each one
// must be there, parse, have the shape its client reads (VS Code: "servers" with type "stdio"; the
// others: "mcpServers"), start the server with `npx -y mount-sandbox-mcp --config ...`, and pass
// the server's own command line parser.
const fs = require('fs');
const path = require('path');
const { parseArgs } = require('../mcp/lib/args');

const ROOT = path.join(__dirname, '..');

// The section of a markdown file from a heading to the next heading of the same or higher level.
function section(file, heading) {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`${file}: no "${heading}"`);
  const level = /^#+/.exec(heading)[0].length;
  const rest = text.slice(start + heading.length + 1);
  const next = new RegExp(`^#{1,${level}} `, 'm').exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

// Each fenced block with the prose line that introduces it (the last non-empty line before it).
function blocks(text) {
  const found = [];
  const re = /^```(\S*)\n([\s\S]*?)^```$/gm;
  for (let m; (m = re.exec(text)); ) {
    const before = text.slice(0, m.index).trimEnd().split('\n').pop();
    found.push({ lang: m[1], code: m[2], intro: before });
  }
  return found;
}

const SOURCES = [
  ['README.md', '## MCP server: mount-sandbox-mcp'],
  ['mcp/README.md', '## Client configuration'],
];

// The file each client reads, as the intro line names it, and the key holding its servers.
const CLIENT_FILES = [
  { file: 'claude_desktop_config.json', key: 'mcpServers' },
  { file: '.mcp.json', key: 'mcpServers' },
  { file: '.cursor/mcp.json', key: 'mcpServers' },
  { file: '.vscode/mcp.json', key: 'servers', type: 'stdio' },
];

function expectServerArgs(command, args) {
  expect(command).toBe('npx');
  expect(args.slice(0, 2)).toEqual(['-y', 'mount-sandbox-mcp']);
  const parsed = parseArgs(args.slice(2));
  expect(parsed.config).toMatch(/golem-forge\.config\.yaml$/);
  return parsed;
}

describe.each(SOURCES)('%s', (file, heading) => {
  const found = blocks(section(file, heading));

  test.each(CLIENT_FILES)('has a $file snippet that parses and starts mount-sandbox-mcp --config', ({ file: clientFile, key, type }) => {
    const snippets = found.filter((b) => b.lang === 'json' && b.intro.includes(`\`${clientFile}\``));
    expect(snippets.length).toBe(1);
    const config = JSON.parse(snippets[0].code);
    expect(Object.keys(config)).toEqual([key]);
    const servers = Object.values(config[key]);
    expect(servers.length).toBe(1);
    for (const server of servers) {
      if (type) expect(server.type).toBe(type);
      expectServerArgs(server.command, server.args);
    }
  });

  test('has the `claude mcp add` command, whose server command is npx -y mount-sandbox-mcp --config', () => {
    const lines = found.filter((b) => b.lang === 'text').flatMap((b) => b.code.split('\n')).filter((l) => l.startsWith('claude mcp add '));
    expect(lines.length).toBe(1);
    const words = lines[0].trim().split(/\s+/);
    const dashes = words.indexOf('--');
    expect(dashes).toBeGreaterThan(3);
    expect(words.slice(3, dashes)).toContain('mount-sandbox');
    expectServerArgs(words[dashes + 1], words.slice(dashes + 2));
  });

  test('every JSON block in the section parses', () => {
    const json = found.filter((b) => b.lang === 'json');
    expect(json.length).toBe(CLIENT_FILES.length);
    for (const b of json) expect(() => JSON.parse(b.code)).not.toThrow();
  });
});
