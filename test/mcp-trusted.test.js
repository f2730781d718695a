'use strict';

// mount-sandbox-mcp and the files the host trusts to run things next, driven over stdio by the
// SDK's client as an agent client would (`mount-sandbox-mcp --root proj`): every write tool on
// every name answers isError with HOST_TRUSTED and leaves the file as it was; a command through
// the exec tool cannot change them either; reading works; the descriptions and explain_path say
// which names stay unchanged. The library's side is test/trusted-names.test.js.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { makeTempDir, removeDir, snapshotTree } = require('./helpers');
const { startServer, textOf } = require('./helpers/mcp-client');
const { needs } = require('./exec-helpers');

jest.setTimeout(60000);

const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const NAMES = [
  '.git/config', '.git/hooks/pre-commit', '.git/info/attributes', 'golem-forge.config.yaml', '.mcp.json',
  '.vscode/mcp.json', '.vscode/tasks.json', '.cursor/mcp.json', '.claude/settings.json', '.claude/commands/go.md',
  '.idea/workspace.xml', '.bashrc', '.profile', '.zshrc', '.gitconfig', '.envrc', 'sub/.git',
  '.config/git/config', '.ssh/authorized_keys', '.npmrc', '.yarnrc.yml', '.cargo/config.toml', '.devcontainer.json',
  'a/b/c/d/e/.vscode/tasks.json',
];
const ABSENT = ['.git/hooks/post-merge', '.zed/settings.json', 'golem-forge.config.json', 'deep/.claude/agents/a.md',
  '.gemini/settings.json', 'opencode.json', '.codex/config.toml', '.devcontainer/devcontainer.json', '.hg/hgrc',
  '.local/bin/ls', '.config/systemd/user/x.service', '.pre-commit-config.yaml', 'bunfig.toml', '.pnpmfile.cjs',
  'a/b/c/d/e/f/.continue/config.yaml'];

let root;
let server;

beforeAll(async () => {
  root = makeTempDir('msb-mcp-trusted-');
  if (HAS_GIT) expect(spawnSync('git', ['init', '-q', root]).status).toBe(0);
  for (const rel of NAMES) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file)) fs.writeFileSync(file, `original ${rel}\n`);
  }
  fs.writeFileSync(path.join(root, 'notes.txt'), 'ordinary\n');
  server = await startServer(['--root', root]);
});

afterAll(async () => {
  await server?.close();
  removeDir(root);
});

const call = (name, args) => server.client.callTool({ name, arguments: args });

function expectTrusted(result, p) {
  expect([p, result.isError, result.structuredContent?.code]).toEqual([p, true, 'HOST_TRUSTED']);
  expect(textOf(result)).toContain('the host trusts this file to run things');
  expect(textOf(result)).not.toContain(root);
}

test('every write tool on every trusted name answers HOST_TRUSTED and changes nothing', async () => {
  const before = snapshotTree(root);
  for (const rel of [...NAMES, ...ABSENT]) {
    const p = `/${rel}`;
    expectTrusted(await call('write_file', { path: p, content: 'planted\n' }), p);
    expectTrusted(await call('move_file', { source: '/notes.txt', destination: p }), p);
    expectTrusted(await call('copy_file', { source: '/notes.txt', destination: p, overwrite: true }), p);
    if (NAMES.includes(rel)) {
      const text = fs.readFileSync(path.join(root, rel), 'utf8');
      expectTrusted(await call('edit_file', { path: p, edits: [{ oldText: text.slice(0, 6), newText: 'XXXXXX' }] }), p);
      expectTrusted(await call('delete_file', { path: p }), p);
      expectTrusted(await call('move_file', { source: p, destination: '/away.txt' }), p);
    }
  }
  for (const dir of ['/.git/hooks/new', '/.vscode/sub', '/.claude/agents']) expectTrusted(await call('create_directory', { path: dir }), dir);
  expect(snapshotTree(root)).toEqual(before);
});

test('reading stays allowed, and ordinary files still change', async () => {
  const read = await call('read_text_file', { path: '/.mcp.json' });
  expect(read.isError).toBeFalsy();
  expect(textOf(read)).toContain('original .mcp.json');
  const wrote = await call('write_file', { path: '/notes.txt', content: 'changed\n' });
  expect(wrote.isError).toBeFalsy();
  expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('changed\n');
});

test('the write and exec tools say which names stay unchanged; explain_path says why', async () => {
  const { tools } = await server.client.listTools();
  for (const name of ['write_file', 'edit_file', 'move_file', 'copy_file', 'delete_file', 'create_directory', 'exec']) {
    const tool = tools.find((t) => t.name === name);
    expect([name, tool.description]).toEqual([name, expect.stringContaining('Files the host trusts to run things cannot be changed')]);
    expect(tool.description).toContain('.git/hooks');
    expect(tool.description).toContain('.mcp.json');
    expect(tool.description).toContain('.bashrc');
  }
  const explained = textOf(await call('explain_path', { path: '/.vscode/tasks.json' }));
  expect(explained).toMatch(/Write: refused: Cannot change \/\.vscode\/tasks\.json: the host trusts this file to run things/);
  expect(explained).toMatch(/Delete: refused:/);
});

needs(['pid-namespace'])('a command through the exec tool cannot change them either', async () => {
  const result = await call('exec', {
    command: 'echo \'{"mcpServers":{"x":{"command":"sh"}}}\' > .mcp.json; echo x > .vscode/mcp.json; mkdir -p .cursor; ' +
      'echo x > .cursor/new.json; echo "alias ls=rm" >> .bashrc; true',
  });
  expect(result.isError).toBeFalsy();
  expect(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')).toBe('original .mcp.json\n');
  expect(fs.readFileSync(path.join(root, '.vscode', 'mcp.json'), 'utf8')).toBe('original .vscode/mcp.json\n');
  expect(fs.readFileSync(path.join(root, '.bashrc'), 'utf8')).toBe('original .bashrc\n');
  expect(fs.existsSync(path.join(root, '.cursor', 'new.json'))).toBe(false);
});
