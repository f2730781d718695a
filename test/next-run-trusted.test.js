'use strict';

// Commands and the files agent clients, editors and shells trust next (src/fs/trusted_names.h):
// a real command tries to rewrite the ones that exist and to plant the ones that do not, at the
// top of the sandbox and deeper; the existing ones stay as they were (bound read-only) and what
// it planted is gone after the run and reported, in virtual paths. The file API's side is
// test/trusted-names.test.js.
const fs = require('fs');
const path = require('path');
const ms = require('../lib');
const { makeTempDir, removeDir, write } = require('./helpers');
const { needs, runDirect: run } = require('./exec-helpers');

jest.setTimeout(60000);

const EXISTING = ['.mcp.json', '.vscode/tasks.json', '.bashrc', 'pkg/.envrc', '.claude/settings.json',
  // Below the depth scanned before, and the names of round 2.
  'a/b/c/d/e/.vscode/tasks.json', 'node_modules/x/.npmrc', '.config/git/config', '.ssh/config', '.cargo/config.toml'];
const PLANTED = ['.cursor/mcp.json', '.profile', '.zshrc', 'pkg/.vscode/tasks.json', 'a/b/.gitconfig', '.idea/x.xml',
  'a/b/c/d/e/f/.claude/settings.json', '.yarnrc.yml', '.local/bin/git', '.devcontainer.json', '.codex/config.toml',
  'q/w/e/r/t/y/.pre-commit-config.yaml'];

let dir;
beforeEach(() => {
  dir = makeTempDir('msb-next-run-trusted-');
  for (const rel of EXISTING) write(path.join(dir, rel), `original ${rel}\n`);
  write(path.join(dir, 'app.ts'), 'export {};\n');
});
afterEach(() => removeDir(dir));

const shellQuote = (s) => `'${s.replace(/'/g, "'\\''")}'`;

function attack() {
  const rewrite = EXISTING.map((rel) => `echo '{"command": "sh -c pwned"}' > ${shellQuote(rel)}`);
  const replace = EXISTING.map((rel) => `rm -rf ${shellQuote(rel)}`);
  const plant = PLANTED.map((rel) => `mkdir -p ${shellQuote(path.posix.dirname(rel))}; echo pwned > ${shellQuote(rel)}`);
  return ['sh', '-c', [...rewrite, ...replace, ...plant, 'echo ordinary > app.ts', 'true'].join('; ') + ''];
}

describe('commands cannot change what clients, editors and shells trust next', () => {
  needs(['pid-namespace'])('existing ones stay as they were, planted ones are removed and reported', async () => {
    const sb = ms.createMountSandbox({ root: dir });
    const result = await run(sb, attack());
    for (const rel of EXISTING) {
      expect([rel, fs.readFileSync(path.join(dir, rel), 'utf8')]).toEqual([rel, `original ${rel}\n`]);
    }
    for (const rel of PLANTED) expect([rel, fs.existsSync(path.join(dir, rel))]).toEqual([rel, false]);
    expect(result.removedAfterRun).toEqual(expect.arrayContaining(['/.cursor', '/.profile', '/.zshrc', '/pkg/.vscode', '/a/b/.gitconfig', '/.idea',
      '/a/b/c/d/e/f/.claude', '/.yarnrc.yml', '/.local/bin', '/.devcontainer.json', '/.codex', '/q/w/e/r/t/y/.pre-commit-config.yaml']));
    expect(result.stderr).toContain('which the next run would trust');
    expect(fs.readFileSync(path.join(dir, 'app.ts'), 'utf8')).toBe('ordinary\n');
  });

  needs(['pid-namespace'])('a released name may change; a link the command points elsewhere is removed', async () => {
    write(path.join(dir, 'target.json'), '{}');
    fs.symlinkSync('target.json', path.join(dir, '.vscode', 'settings.json'));
    const sb = ms.createMountSandbox({ root: dir, trustedNames: { release: ['.vscode/tasks.json'] } });
    const result = await run(sb, ['sh', '-c', 'echo changed > .vscode/tasks.json; ln -sfn /etc/passwd .vscode/settings.json; echo x > .vscode/new.json; true']);
    expect(fs.readFileSync(path.join(dir, '.vscode', 'tasks.json'), 'utf8')).toBe('changed\n');
    expect(fs.existsSync(path.join(dir, '.vscode', 'new.json'))).toBe(false);
    expect(fs.existsSync(path.join(dir, '.vscode', 'settings.json'))).toBe(false);
    expect(result.removedAfterRun).toEqual(expect.arrayContaining(['/.vscode/new.json', '/.vscode/settings.json']));
  });

  needs(['pid-namespace'])('a sandbox from a config: the config and its workers as before, the client files beside them', async () => {
    write(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    write(path.join(dir, 'workers', 'r.worker'), '---\nname: r\n---\n');
    const sb = await ms.createSandboxFromConfig(await ms.loadProgramConfig(path.join(dir, 'golem-forge.config.yaml')));
    await run(sb, ['sh', '-c', 'echo "sandbox: {root: /}" > golem-forge.config.yaml; echo x > workers/r.worker; echo "{}" > .mcp.json; true']);
    expect(fs.readFileSync(path.join(dir, 'golem-forge.config.yaml'), 'utf8')).toBe('sandbox:\n  root: .\n');
    expect(fs.readFileSync(path.join(dir, 'workers', 'r.worker'), 'utf8')).toBe('---\nname: r\n---\n');
    expect(fs.readFileSync(path.join(dir, '.mcp.json'), 'utf8')).toBe('original .mcp.json\n');
  });
});
