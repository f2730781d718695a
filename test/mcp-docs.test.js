'use strict';

// mcp/README.md as a new user reads it: the route from a clone runs as written, and each client
// configuration (copied as it is into a client's file) parses, has the shape its client reads
// (VS Code: "servers" with type "stdio"; the others: "mcpServers"), passes the server's own
// command line parser, and starts the server it names, which lists its tools to the SDK's client.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { parseArgs } = require('../mcp/lib/args');
const { startServer } = require('./helpers/mcp-client');
const { makeTempDir, removeDir } = require('./helpers');

jest.setTimeout(600000);

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

const DOC = 'mcp/README.md';
// Where the snippets say the clone and the project are.
const CLONE = '/home/me/mount-sandbox';
const BIN = `${CLONE}/mcp/bin/mount-sandbox-mcp.js`;

// The file each client reads, as the intro line names it, and the key holding its servers.
const CLIENT_FILES = [
  { file: '.mcp.json', key: 'mcpServers' },
  { file: '.cursor/mcp.json', key: 'mcpServers' },
  { file: '.vscode/mcp.json', key: 'servers', type: 'stdio' },
];

function expectServerArgs(command, args) {
  expect(command).toBe('node');
  expect(args[0]).toBe(BIN);
  expect(fs.existsSync(path.join(ROOT, path.relative(CLONE, args[0])))).toBe(true);
  const parsed = parseArgs(args.slice(1));
  expect(parsed.config).toMatch(/golem-forge\.config\.yaml$/);
  return parsed;
}

// A project with a config, for the snippets' servers to serve.
function project() {
  const dir = makeTempDir('msb-mcp-docs-');
  fs.writeFileSync(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello\n');
  return dir;
}

// Starts the server a snippet names (the clone is this repository, the project a temp one) and
// lists its tools through the SDK's client, as the client would.
async function startsAndLists(args, dir) {
  const real = args.map((a) => a.replace(CLONE, ROOT).replace('/home/me/project', dir).replace('${workspaceFolder}', dir));
  const server = await startServer(real.slice(1), { bin: real[0] });
  try {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'exec']));
  } finally {
    await server.close();
  }
}

const found = blocks(section(DOC, '## Client configuration'));

describe(DOC, () => {
  let dir;
  beforeAll(() => {
    dir = project();
  });
  afterAll(() => removeDir(dir));

  test.each(CLIENT_FILES)('has a $file snippet that parses and starts the server it names', async ({ file: clientFile, key, type }) => {
    const snippets = found.filter((b) => b.lang === 'json' && b.intro.includes(`\`${clientFile}\``));
    expect(snippets.length).toBe(1);
    const config = JSON.parse(snippets[0].code);
    expect(Object.keys(config)).toEqual([key]);
    const servers = Object.values(config[key]);
    expect(servers.length).toBe(1);
    for (const server of servers) {
      if (type) expect(server.type).toBe(type);
      expectServerArgs(server.command, server.args);
      await startsAndLists(server.args, dir);
    }
  });

  test('has the `claude mcp add` command, whose server command is the clone\'s server', () => {
    const lines = found.filter((b) => b.lang === 'text').flatMap((b) => b.code.split('\n')).filter((l) => l.startsWith('claude mcp add '));
    expect(lines.length).toBe(1);
    const words = lines[0].trim().split(/\s+/);
    const dashes = words.indexOf('--');
    expect(dashes).toBeGreaterThan(3);
    expect(words.slice(3, dashes)).toContain('mount-sandbox');
    expectServerArgs(words[dashes + 1], words.slice(dashes + 2));
  });

  test('every JSON block in the section parses; none names a client that cannot start it', () => {
    const json = found.filter((b) => b.lang === 'json');
    expect(json.length).toBe(CLIENT_FILES.length);
    for (const b of json) expect(() => JSON.parse(b.code)).not.toThrow();
    expect(found.some((b) => b.intro.includes('claude_desktop_config.json'))).toBe(false);
  });

  test('the route from a clone runs as written', () => {
    const shell = blocks(section(DOC, '## Starting it')).filter((b) => b.lang === 'sh');
    expect(shell.length).toBe(1);
    const ran = spawnSync('bash', ['-euo', 'pipefail', '-c', shell[0].code], { cwd: ROOT, encoding: 'utf8', timeout: 600000 });
    expect([ran.status, ran.status === 0 ? '' : ran.stderr.slice(-2000)]).toEqual([0, '']);
    expect(ran.stdout.trim().split('\n').pop()).toBe(require('../mcp/package.json').version);
  });
});
