'use strict';

// Files the host trusts to run things next (git's hooks and config, the sandbox's own config and
// workers, agent clients' and editors' project files, shell start-up files), attacked through the
// library's file API as golem-forge's file tools reach it: every change refused with
// HostTrustedError and nothing on disk changed, reads allowed, ordinary files still changing, and
// the host's own `git status` running nothing planted. The MCP server's door is
// test/mcp-trusted.test.js, a command's test/next-run-trusted.test.js.
const { testIf } = require('./helpers/skips');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const ms = require('../lib');
const { HostTrustedError } = require('../lib');
const errorsEntry = require('../lib/sandbox-errors');
const { makeTempDir, removeDir, snapshotTree, testNeeding } = require('./helpers');

const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const withGit = testNeeding(HAS_GIT ? null : 'git is not installed');

// Existing files at trusted names, relative to the project root.
const EXISTING = [
  '.git/config', '.git/hooks/pre-commit', '.git/info/attributes', '.git/modules/sub/config',
  'golem-forge.config.yaml', 'workers/r.worker',
  '.mcp.json', '.vscode/settings.json', '.vscode/tasks.json', '.cursor/mcp.json', '.claude/settings.json',
  '.claude/commands/go.md', '.idea/workspace.xml', '.zed/settings.json',
  '.bashrc', '.bash_profile', '.profile', '.zshrc', '.zprofile', '.gitconfig', '.ripgreprc', '.envrc',
  'sub/dir/.envrc', 'vendor/lib/.git',
  // Round 2: git's XDG config, login files, more clients, tools' files (kind "tool"), at any depth.
  '.config/git/config', '.ssh/config', '.npmrc', '.cargo/config.toml', '.yarnrc.yml',
  'a/b/c/d/e/.devcontainer.json', 'a/b/c/d/e/f/.vscode/tasks.json',
];
// Trusted names that do not exist yet: making any of them is a change too.
const ABSENT = [
  '.git/hooks/post-checkout', '.git/config.worktree', '.git/commondir', '.git/worktrees/w/config',
  'golem-forge.config.yml', 'golem-forge.config.json', 'workers/new.worker',
  '.cursor/rules.json', '.claude/agents/a.md', '.claude/hooks/h.sh', '.idea/run.xml', 'deep/a/b/.vscode/tasks.json',
  '.zlogin', '.zshenv', 'pkg/.git', 'deep/x/.mcp.json',
  '.config/git/attributes', '.ssh/authorized_keys', '.config/fish/config.fish', '.config/systemd/user/x.service',
  '.config/autostart/x.desktop', '.local/bin/git', '.hg/hgrc', '.gemini/settings.json', 'opencode.json',
  'opencode.jsonc', '.opencode/agent/a.md', '.roo/mcp.json', '.kilocode/mcp.json', '.continue/config.yaml',
  '.amazonq/mcp.json', '.windsurf/rules.md', '.codex/config.toml', '.devcontainer/devcontainer.json',
  '.devcontainer.json', '.yarnrc', '.cargo/config', '.pnpmfile.cjs', 'bunfig.toml', '.pre-commit-config.yaml',
  '.direnv/bin/x', 'pkg/deep/er/and/deeper/.npmrc',
];
const WORKER = '---\nname: r\nsandbox:\n  restrict: /src\n  readonly: true\n---\nRead only.\n';

let root;
let sandbox;

function seedProject(dir) {
  if (HAS_GIT) {
    expect(spawnSync('git', ['init', '-q', dir]).status).toBe(0);
  }
  for (const rel of EXISTING) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (rel === '.git/config' && HAS_GIT) continue; // git wrote it
    fs.writeFileSync(file, rel === 'workers/r.worker' ? WORKER : `original ${rel}\n`);
  }
  fs.writeFileSync(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.mkdirSync(path.join(dir, 'deep'));
  fs.writeFileSync(path.join(dir, 'src', 'app.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'ordinary\n');
}

beforeAll(async () => {
  root = makeTempDir('msb-trusted-');
  seedProject(root);
  sandbox = await ms.createSandboxFromConfig(await ms.loadProgramConfig(path.join(root, 'golem-forge.config.yaml')));
});

afterAll(() => removeDir(root));

const v = (rel) => `/${rel}`;

async function expectTrusted(promise) {
  const error = await promise.then(() => null, (e) => e);
  expect(error).toBeInstanceOf(HostTrustedError);
  expect(error.code).toBe('HOST_TRUSTED');
  expect(error.message).not.toContain(root);
  return error;
}

describe('every change to a trusted name is refused and changes nothing', () => {
  const writes = [
    ['write', (p) => sandbox.write(p, 'planted\n')],
    ['writeBinary', (p) => sandbox.writeBinary(p, Buffer.from('planted\n'))],
    ['move onto', (p) => sandbox.move('/notes.txt', p, { overwrite: true })],
    ['copy onto', (p) => sandbox.copy('/notes.txt', p, { overwrite: true })],
  ];
  for (const [op, change] of writes) {
    test(`${op}, on every existing and absent name`, async () => {
      const before = snapshotTree(root);
      for (const rel of [...EXISTING, ...ABSENT]) {
        const error = await expectTrusted(change(v(rel)));
        expect([rel, error.path]).toEqual([rel, v(rel)]);
      }
      expect(snapshotTree(root)).toEqual(before);
    });
  }

  test('edit, delete and move away, on every existing name', async () => {
    const before = snapshotTree(root);
    for (const rel of EXISTING) {
      if (!fs.statSync(path.join(root, rel)).isFile()) continue;
      const text = fs.readFileSync(path.join(root, rel), 'utf8');
      await expectTrusted(sandbox.edit(v(rel), text.slice(0, 4), 'XXXX'));
      await expectTrusted(sandbox.delete(v(rel)));
      const moved = await sandbox.move(v(rel), '/moved-away', {}).then(() => null, (e) => e);
      expect([rel, moved && moved.code, moved && moved.index]).toEqual([rel, 'HOST_TRUSTED', 0]);
    }
    expect(snapshotTree(root)).toEqual(before);
  });

  test('mkdir of a trusted directory, or of one inside', async () => {
    const before = snapshotTree(root);
    for (const rel of ['.git/hooks/more', '.git/modules/new', '.vscode/sub', '.claude/agents', '.zed/x', 'workers/nested', 'a/.cursor']) {
      await expectTrusted(sandbox.mkdir(v(rel)));
    }
    expect(snapshotTree(root)).toEqual(before);
  });

  test('a write whose parents are missing makes none of them', async () => {
    await expectTrusted(sandbox.write('/fresh/one/.vscode/tasks.json', '{}'));
    await expectTrusted(sandbox.write('/fresh2/.claude/commands/x.md', 'x'));
    expect(fs.existsSync(path.join(root, 'fresh'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'fresh2'))).toBe(false);
  });

  test('names compare case-insensitively (a case-folding directory would find them)', async () => {
    const before = snapshotTree(root);
    for (const p of ['/.GIT/CONFIG', '/.Git/Hooks/pre-push', '/.VSCODE/tasks.json', '/.BashRC', '/.MCP.JSON',
      '/.git/hoo\u212As/x', '/.claude/\u017Fettings.json', '/GOLEM-FORGE.CONFIG.YAML']) {
      await expectTrusted(sandbox.write(p, 'x'));
    }
    expect(snapshotTree(root)).toEqual(before);
  });

  test('the error says why, that reading is fine, and who can change it; it is in mount-sandbox/errors', async () => {
    const git = await expectTrusted(sandbox.write('/.git/hooks/pre-commit', 'x'));
    expect(git.trusted).toBe('git');
    expect(git.toLLMMessage()).toMatch(/host trusts this file to run things/);
    expect(git.toLLMMessage()).toMatch(/Reading it is fine/);
    expect(git.toLLMMessage()).toMatch(/user/);
    expect((await expectTrusted(sandbox.write('/golem-forge.config.yaml', 'x'))).trusted).toBe('sandbox');
    expect((await expectTrusted(sandbox.write('/workers/r.worker', 'x'))).trusted).toBe('sandbox');
    expect((await expectTrusted(sandbox.write('/.mcp.json', 'x'))).trusted).toBe('client');
    expect((await expectTrusted(sandbox.write('/.bashrc', 'x'))).trusted).toBe('shell');
    const tool = await expectTrusted(sandbox.write('/.npmrc', 'x'));
    expect(tool.trusted).toBe('tool');
    expect(tool.toLLMMessage()).toMatch(/package manager or build tool/);
    expect((await expectTrusted(sandbox.write('/.config/git/config', 'x'))).trusted).toBe('git');
    expect(errorsEntry.HostTrustedError).toBe(HostTrustedError);
    expect(ms.isSandboxError(git)).toBe(true);
  });
});

describe('ways around the name', () => {
  test('a link inside the mount leading to .git, or to .vscode', async () => {
    fs.symlinkSync('.git', path.join(root, 'alias'));
    fs.symlinkSync('.vscode', path.join(root, 'editor'));
    try {
      const before = snapshotTree(root);
      await expectTrusted(sandbox.write('/alias/config', '[core]\n\tfsmonitor = "touch pwned"\n'));
      await expectTrusted(sandbox.write('/alias/hooks/pre-commit', '#!/bin/sh\n'));
      await expectTrusted(sandbox.write('/editor/tasks.json', '{}'));
      await expectTrusted(sandbox.mkdir('/alias/hooks/new'));
      expect(snapshotTree(root)).toEqual(before);
    } finally {
      fs.unlinkSync(path.join(root, 'alias'));
      fs.unlinkSync(path.join(root, 'editor'));
    }
  });

  test('a restricted child (onto .git, onto a folder holding .vscode) and a worker keep the set', async () => {
    const before = snapshotTree(root);
    const gitView = sandbox.restrict({ restrict: '/.git' });
    await expectTrusted(gitView.write('/config', 'x'));
    await expectTrusted(gitView.write('/hooks/pre-commit', 'x'));
    const deep = sandbox.restrict({ restrict: '/deep' });
    await expectTrusted(deep.write('/a/b/.vscode/tasks.json', 'x'));
    await expectTrusted(deep.write('/.bashrc', 'x'));
    const grand = sandbox.restrict({ restrict: '/sub' }).restrict({ restrict: '/dir' });
    await expectTrusted(grand.write('/.envrc', 'x'));
    expect(snapshotTree(root)).toEqual(before);
  });

  test('a directory moved onto the way is not possible, and a file cannot take a directory\'s name', async () => {
    const before = snapshotTree(root);
    // Moving the parent of a trusted name away: directories are never moved by the file API.
    const error = await sandbox.move('/.vscode', '/elsewhere', {}).then(() => null, (e) => e);
    expect(error).not.toBeNull();
    await expectTrusted(sandbox.write('/.claude', 'a file where the directory is'));
    await expectTrusted(sandbox.write('/workers', 'x'));
    expect(snapshotTree(root)).toEqual(before);
  });

  withGit('the host\'s own git status afterwards runs nothing the agent tried to plant', async () => {
    const marker = path.join(root, '..', `${path.basename(root)}-pwned`);
    const config = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    await expectTrusted(sandbox.edit('/.git/config', '[core]', `[core]\n\tfsmonitor = "touch ${marker}"`));
    await expectTrusted(sandbox.write('/.git/config', `${config}[core]\n\tfsmonitor = "touch ${marker}"\n`));
    await expectTrusted(sandbox.write('/.git/hooks/fsmonitor-watchman', `#!/bin/sh\ntouch ${marker}\n`));
    const status = spawnSync('git', ['status', '--short'], { cwd: root, encoding: 'utf8' });
    expect(status.status).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('what stays allowed', () => {
  test('reading every trusted file', async () => {
    for (const rel of EXISTING) {
      if (!fs.statSync(path.join(root, rel)).isFile()) continue;
      expect([rel, await sandbox.read(v(rel))]).toEqual([rel, fs.readFileSync(path.join(root, rel), 'utf8')]);
    }
    expect((await sandbox.list('/.vscode')).sort()).toEqual(['settings.json', 'tasks.json']);
  });

  test('ordinary files, and git\'s objects and refs, still change', async () => {
    await sandbox.write('/src/new.ts', 'x');
    await sandbox.edit('/src/app.ts', 'a = 1', 'a = 2');
    await sandbox.copy('/src/new.ts', '/src/copy.ts');
    await sandbox.move('/src/copy.ts', '/src/moved.ts');
    await sandbox.delete('/src/moved.ts');
    await sandbox.mkdir('/build/.git'); // a directory named .git: only files and links of that name are refused
    await sandbox.write('/.git/objects/info/packs', '');
    await sandbox.write('/.vscodeish.json', '{}'); // not the name, only like it
    await sandbox.write('/my.bashrc', 'x');
    expect(fs.readFileSync(path.join(root, 'src', 'app.ts'), 'utf8')).toBe('export const a = 2;\n');
    expect(fs.existsSync(path.join(root, 'src', 'moved.ts'))).toBe(false);
  });

  test('canWrite, checkChange and approvalFor agree with the refusal', () => {
    for (const p of ['/.git/config', '/.mcp.json', '/.bashrc', '/workers/r.worker', '/x/.git']) {
      expect([p, sandbox.canWrite(p)]).toEqual([p, false]);
      expect([p, sandbox.checkChange(p, 'write')?.code]).toEqual([p, 'HOST_TRUSTED']);
      expect([p, sandbox.checkChange(p, 'delete')?.code]).toEqual([p, 'HOST_TRUSTED']);
      expect([p, sandbox.approvalFor(p, 'write')]).toEqual([p, 'blocked']);
    }
    expect(sandbox.canWrite('/src/app.ts')).toBe(true);
    expect(sandbox.checkChange('/src/app.ts', 'write')).toBeNull();
  });
});

describe('the operator decides, never the agent', () => {
  let dir;
  beforeEach(() => {
    dir = makeTempDir('msb-trusted-op-');
    fs.mkdirSync(path.join(dir, '.vscode'));
    fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), '{}');
  });
  afterEach(() => removeDir(dir));

  test('createMountSandbox with no config: built-in names and the config names at its root', async () => {
    const sb = ms.createMountSandbox({ root: dir });
    await expectTrusted(sb.write('/golem-forge.config.yaml', 'sandbox:\n  root: /\n'));
    await expectTrusted(sb.write('/.vscode/settings.json', '{}'));
    expect(fs.existsSync(path.join(dir, 'golem-forge.config.yaml'))).toBe(false);
  });

  test('trustedNames.release lets a name change, trustedNames.add protects another', async () => {
    const sb = ms.createMountSandbox({ root: dir, trustedNames: { release: ['.vscode/settings.json'], add: ['**/deploy.sh'] } });
    await sb.write('/.vscode/settings.json', '{"editor.tabSize": 2}');
    await expectTrusted(sb.write('/.vscode/tasks.json', '{}'));
    const added = await expectTrusted(sb.write('/scripts/deploy.sh', 'rm -rf /'));
    expect(added.trusted).toBe('named');
    expect(sb.describe().trustedNames.released).toEqual(['.vscode/settings.json']);
    expect(sb.describe().trustedNames.names.map((n) => n.name)).toEqual(expect.arrayContaining(['.git/hooks', '.mcp.json', '**/deploy.sh']));
  });

  test('the same keys in a program config; bad names are refused where they are written', async () => {
    const file = path.join(dir, 'golem-forge.config.yaml');
    fs.writeFileSync(file, 'sandbox:\n  root: .\n  trustedNames:\n    release: [.vscode/settings.json]\n    add: [Makefile]\n');
    const sb = await ms.createSandboxFromConfig(await ms.loadProgramConfig(file));
    await sb.write('/.vscode/settings.json', '{}');
    await expectTrusted(sb.write('/Makefile', 'all:\n'));
    await expectTrusted(sb.write('/golem-forge.config.yaml', 'x'));
    fs.writeFileSync(file, 'sandbox:\n  root: .\n  trustedNames:\n    release: [../x]\n');
    await expect(ms.loadProgramConfig(file)).rejects.toMatchObject({ code: 'INVALID_CONFIG', keyPath: 'sandbox.trustedNames.release[0]' });
    expect(() => ms.createMountSandbox({ root: dir, trustedNames: { release: ['/abs'] } })).toThrow(/trustedNames.release\[0\]/);
    expect(() => ms.createMountSandbox({ root: dir, trustedNames: { allow: [] } })).toThrow(/unknown key trustedNames.allow/);
  });
});

describe('releases and additions name a place', () => {
  let dir;
  beforeEach(() => {
    dir = makeTempDir('msb-trusted-places-');
    for (const rel of ['.claude/settings.json', 'pkg/.claude/settings.json', 'deploy/run.sh', 'x/deploy/run.sh']) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), 'original\n');
    }
  });
  afterEach(() => removeDir(dir));

  test('a bare name that would match inside a protected directory is refused: it names nothing protected', () => {
    for (const release of ['config', 'settings.json', 'hooks/pre-commit', 'src/app.ts']) {
      expect(() => ms.createMountSandbox({ root: dir, trustedNames: { release: [release] } }))
        .toThrow(/names nothing the sandbox protects.*\.claude\/settings\.json/);
    }
  });

  test('a release names a place: that file there, not the same name elsewhere; **/ for every depth', async () => {
    const one = ms.createMountSandbox({ root: dir, trustedNames: { release: ['.claude/settings.json'] } });
    await one.write('/.claude/settings.json', '{}');
    await expectTrusted(one.write('/pkg/.claude/settings.json', '{}'));
    await expectTrusted(one.write('/.claude/settings.local.json', '{}'));
    const every = ms.createMountSandbox({ root: dir, trustedNames: { release: ['**/.claude/settings.json'] } });
    await every.write('/pkg/.claude/settings.json', '{}');
    await expectTrusted(every.write('/pkg/.claude/commands/a.md', 'x'));
  });

  test('an addition names a place or **/name; glob characters are refused with where they are', async () => {
    const sb = ms.createMountSandbox({ root: dir, trustedNames: { add: ['deploy/run.sh', '**/Makefile'] } });
    expect((await expectTrusted(sb.write('/deploy/run.sh', 'x'))).trusted).toBe('named');
    await sb.write('/x/deploy/run.sh', 'changed\n');
    await expectTrusted(sb.write('/a/b/Makefile', 'all:\n'));
    expect(() => ms.createMountSandbox({ root: dir, trustedNames: { add: ['*.sh'] } }))
      .toThrow(/trustedNames.add\[0\] "\*\.sh".*at character 1: '\*' is a glob character/);
    expect(() => ms.createMountSandbox({ root: dir, trustedNames: { add: ['ok', 'deploy/*'] } }))
      .toThrow(/trustedNames.add\[1\].*at character 8/);
    const file = path.join(dir, 'golem-forge.config.yaml');
    fs.writeFileSync(file, 'sandbox:\n  root: .\n  trustedNames:\n    add:\n      - tools/x\n      - deploy/[a-z].sh\n');
    const error = await ms.loadProgramConfig(file).then(() => null, (e) => e);
    expect(error).toMatchObject({ code: 'INVALID_CONFIG', keyPath: 'sandbox.trustedNames.add[1]', line: 6, column: 9 });
    expect(error.message).toMatch(/at character 8: '\[' is a glob character/);
  });

  test('a rootless sandbox places entries under its mounts, and refuses one no mount holds', () => {
    const mounts = [{ source: path.join(dir, 'pkg'), target: '/pkg' }];
    const sb = ms.createMountSandbox({ root: null, mounts, trustedNames: { release: ['pkg/.claude/settings.json'] } });
    expect(sb.canWrite('/pkg/.claude/settings.json')).toBe(true);
    expect(() => ms.createMountSandbox({ root: null, mounts, trustedNames: { add: ['other/x'] } }))
      .toThrow(/trustedNames.add\[0\] "other\/x" lies under no mount/);
  });
});

describe('every way in does the same thing (found on the way)', () => {
  let dir;
  beforeEach(() => {
    dir = makeTempDir('msb-trusted-ways-');
  });
  afterEach(() => removeDir(dir));

  test('a host path given to a file operation says paths are virtual and what it probably means, naming no other host path', async () => {
    fs.mkdirSync(path.join(dir, 'proj', 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'data'));
    const sb = ms.createMountSandbox({ root: path.join(dir, 'proj'), mounts: [{ source: path.join(dir, 'data'), target: '/data' }] });
    const mapped = await sb.read(path.join(dir, 'proj', 'src', 'app.ts')).then(() => null, (e) => e);
    expect(mapped.code).toBe('NOT_FOUND');
    expect(mapped.toLLMMessage()).toContain('Paths here are virtual');
    expect(mapped.toLLMMessage()).toContain('it probably means /src/app.ts');
    const mount = await sb.read(path.join(dir, 'data', 'a.csv')).then(() => null, (e) => e);
    expect(mount.toLLMMessage()).toContain('it probably means /data/a.csv');
    const etc = await sb.read('/etc/passwd').then(() => null, (e) => e);
    expect(etc.toLLMMessage()).toContain('"/" is the sandbox\'s root (the project), and the mounts are /data');
    for (const e of [mapped, mount, etc]) expect(e.toLLMMessage().split(e.path).join('')).not.toContain(dir);
    // An ordinary missing file keeps golem-forge's text.
    const plain = await sb.read('/src/missing.ts').then(() => null, (e) => e);
    expect(plain.toLLMMessage()).toBe('File not found: /src/missing.ts. Please check the path and try again.');
  });

  test('the CLI\'s exec creates a missing mount source, as createSandboxFromConfig and the MCP server do', () => {
    const proj = path.join(dir, 'proj');
    fs.mkdirSync(proj);
    fs.writeFileSync(path.join(proj, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n  mounts:\n    - source: ./cache-src\n      target: /cache\n');
    const bin = path.join(__dirname, '..', 'bin', 'mount-sandbox.js');
    const ran = spawnSync(process.execPath, [bin, 'exec', '--config', proj, '--allow-weaker', '--', 'sh', '-c', 'echo hi > cache/a && cat cache/a'], { encoding: 'utf8' });
    expect(ran.stderr).not.toContain('Directory nonexistent');
    expect(ran.status).toBe(0);
    expect(fs.readFileSync(path.join(proj, 'cache-src', 'a'), 'utf8')).toBe('hi\n');
  });
});

// A directory that really folds case: tmpfs mounted with `casefold` (the kernel needs
// CONFIG_UNICODE), as root. Where this machine cannot make one, the test says why and is skipped
// (the folding rule itself is checked above on names, and in test/native/fs/trusted_names_test.cc).
function caseFoldingDir() {
  if (process.getuid() !== 0) return { reason: 'only root can mount a case-folding tmpfs' };
  const dir = makeTempDir('msb-casefold-');
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'casefold', 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    removeDir(dir);
    return { reason: `this kernel cannot make a case-folding directory (mount -t tmpfs -o casefold: ${mounted.stderr.trim() || 'failed'})` };
  }
  fs.mkdirSync(path.join(dir, 'p'));
  const flagged = spawnSync('chattr', ['+F', path.join(dir, 'p')], { encoding: 'utf8' });
  if (flagged.status !== 0) {
    spawnSync('umount', [dir]);
    removeDir(dir);
    return { reason: `chattr +F failed: ${flagged.stderr.trim()}` };
  }
  return { dir: path.join(dir, 'p'), unmount: () => { spawnSync('umount', [dir]); removeDir(dir); } };
}

const folding = caseFoldingDir();
const onFoldingDir = testIf(folding.dir, folding.reason);
afterAll(() => folding.unmount && folding.unmount());

onFoldingDir('on a case-folding directory, another spelling of a trusted name is the same file, and refused', async () => {
  fs.mkdirSync(path.join(folding.dir, '.git', 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(folding.dir, '.git', 'config'), '[core]\n');
  const sb = ms.createMountSandbox({ root: folding.dir });
  await expectTrusted(sb.write('/.GIT/CONFIG', '[core]\n\tfsmonitor = "touch pwned"\n'));
  await expectTrusted(sb.write('/.Git/Hooks/pre-commit', '#!/bin/sh\n'));
  await expectTrusted(sb.write('/.VSCode/tasks.json', '{}'));
  expect(fs.readFileSync(path.join(folding.dir, '.git', 'config'), 'utf8')).toBe('[core]\n');
  expect(fs.readdirSync(path.join(folding.dir, '.git', 'hooks'))).toEqual([]);
});
