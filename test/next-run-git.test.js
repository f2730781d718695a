'use strict';

// What a command leaves in a writable repository's .git must not run on the host afterwards: git
// runs hooks on commit and the core.fsmonitor program on every `git status` (shell prompts
// included), unconfined, as whoever types the command. Each attack below plants a program that
// would append to a marker file outside the sandbox, then runs the host's git as a user would
// and checks the marker was never written. Real repositories made with the host's git in temp
// directories; the suite is skipped where git is missing or commands cannot run with a mount
// namespace (the read-only binds need one).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox, ExecError } = require('../lib');
const { launcherPath } = require('../lib/exec/launcher');
const { makeTempDir, removeDir, snapshotTree, write, testNeeding, describeIf } = require('./helpers');

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid',
};
const HAS_GIT = spawnSync('git', ['--version']).status === 0;

// The layers a trivial command gets here, asked of the launcher itself before tests are collected.
function namespaceLayerApplies() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-git-probe-'));
  const file = path.join(dir, 'policy.json');
  const system = ['/usr', '/bin', '/lib', '/lib64'].filter((p) => fs.existsSync(p));
  fs.writeFileSync(file, JSON.stringify({
    argv: ['true'], env: ['PATH=/usr/bin:/bin'], cwd: '/',
    paths: system.map((p) => ({ path: p, access: 'read' })), network: false, namespaces: 'prefer', allowWeaker: true,
  }));
  const policyFd = fs.openSync(file, 'r');
  try {
    const r = spawnSync(launcherPath(), [], { stdio: ['ignore', 'pipe', 'pipe', 'pipe', policyFd], env: {}, encoding: 'utf8' });
    const ok = (r.output[3] || '').split('\n').find((line) => line.startsWith('ok '));
    return ok !== undefined && ok.split(' ')[2].split(',').includes('mount-namespace');
  } finally {
    fs.closeSync(policyFd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const RUNNABLE = HAS_GIT && namespaceLayerApplies();
const maybe = describeIf(RUNNABLE, HAS_GIT ? 'commands cannot run with a mount namespace here' : 'git is not installed');
if (!RUNNABLE) {
  testNeeding(HAS_GIT ? 'commands cannot run with a mount namespace here' : 'git is not installed')('the git next-run suite', () => {});
}

let base;
let repo;
let markers;
let hostHome;

// The host's git, as the user would run it after the command: their own environment, nothing
// confining it (a scratch HOME and no system config, so the machine's settings play no part).
function hostGit(cwd, args) {
  return spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: hostHome, GIT_CONFIG_NOSYSTEM: '1', ...IDENTITY },
  });
}

function makeRepo(dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const args of [['init', '-q'], ['commit', '-q', '--allow-empty', '-m', 'first']]) {
    const r = hostGit(dir, args);
    if (r.status !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr}`);
  }
}

const marker = (name) => path.join(markers, name);
const ranPlanted = () => fs.readdirSync(markers);

// A program that only leaves a trace: proof that git ran it.
const plantScript = (file, name) =>
  `printf '#!/bin/sh\\necho ran >> ${marker(name)}\\nexit 1\\n' > ${file}; chmod 755 ${file};`;

// With direct writes, the mode whose git protections this file attacks (changes: 'direct');
// test/exec-changes.test.js attacks the default copy-on-write mode.
function exec(sandbox, script, options = {}) {
  return sandbox.exec(['sh', '-c', script], { env: IDENTITY, changes: 'direct', ...options });
}

// Every way the host would set a planted program off: a commit (hooks) and a status (fsmonitor).
function hostRuns(dir) {
  hostGit(dir, ['status']);
  hostGit(dir, ['commit', '-q', '--allow-empty', '-m', 'by the host']);
}

beforeEach(() => {
  base = makeTempDir('msb-git-');
  repo = path.join(base, 'repo');
  markers = path.join(base, 'markers');
  hostHome = path.join(base, 'home');
  fs.mkdirSync(markers);
  fs.mkdirSync(hostHome);
  makeRepo(repo);
  write(path.join(repo, 'app.txt'), 'app');
});

afterEach(() => removeDir(base));

maybe('a writable repository: what git would run later stays as it was', () => {
  test('a hook written into .git/hooks never runs on the host\'s next commit', async () => {
    const hooks = snapshotTree(path.join(repo, '.git', 'hooks'));
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `${plantScript('.git/hooks/pre-commit', 'hook')} ls .git/hooks/pre-commit`);
    hostRuns(repo);
    expect(result.exitCode).not.toBe(0);
    expect(ranPlanted()).toEqual([]);
    expect(snapshotTree(path.join(repo, '.git', 'hooks'))).toEqual(hooks);
  });

  test('core.fsmonitor and core.hooksPath set with git config, or appended to .git/config, never run', async () => {
    const config = fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8');
    const sandbox = createMountSandbox({ root: repo });
    const script = `${plantScript('monitor.sh', 'fsmonitor')} ${plantScript('hooks2/pre-commit', 'hooks-path').replace(/^/, 'mkdir -p hooks2; ')}
      git config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      git config core.hooksPath ${path.join(repo, 'hooks2')}
      printf '[core]\\n\\tfsmonitor = ${path.join(repo, 'monitor.sh')}\\n' >> .git/config
      true`;
    await exec(sandbox, script);
    expect(fs.existsSync(path.join(repo, 'monitor.sh'))).toBe(true); // the worktree itself is writable
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    expect(fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8')).toBe(config);
  });

  test('a .git/hooks that does not exist yet cannot be created with a hook in it', async () => {
    fs.rmSync(path.join(repo, '.git', 'hooks'), { recursive: true });
    const sandbox = createMountSandbox({ root: repo });
    await exec(sandbox, `mkdir .git/hooks; ${plantScript('.git/hooks/pre-commit', 'hook')} true`);
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    // Made host-side before the run, as git init would have.
    const hooks = fs.lstatSync(path.join(repo, '.git', 'hooks'));
    expect(hooks.isDirectory()).toBe(true);
    expect(hooks.mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(path.join(repo, '.git', 'hooks'))).toEqual([]);
  });

  test('.git renamed away and replaced by a copy with a hook and an fsmonitor is not what the host finds', async () => {
    const sandbox = createMountSandbox({ root: repo });
    const script = `
      mv .git old-git || cp -R .git old-git
      mv .git/hooks old-hooks; mv .git/config old-config
      rm -rf .git; mkdir -p .git
      cp -R old-git/. .git/
      mkdir -p .git/hooks; ${plantScript('.git/hooks/pre-commit', 'hook')}
      printf '[core]\\n\\tfsmonitor = ${path.join(repo, 'monitor.sh')}\\n' >> .git/config
      ${plantScript('monitor.sh', 'fsmonitor')}
      true`;
    await exec(sandbox, script);
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    expect(hostGit(repo, ['log', '--format=%s']).stdout).toContain('first');
  });

  test('a .git/commondir or .git/config.worktree the command creates is gone when it ends', async () => {
    const sandbox = createMountSandbox({ root: repo });
    // A repository of the command's own, whose config git would read instead of ours.
    const script = `
      git init -q evil && ${plantScript('monitor.sh', 'fsmonitor')}
      git -C evil config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      mkdir -p evil/.git/hooks && ${plantScript('evil/.git/hooks/pre-commit', 'hook')}
      echo ../evil/.git > .git/commondir
      printf '[core]\\n\\tfsmonitor = ${path.join(repo, 'monitor.sh')}\\n' > .git/config.worktree
      ls .git/commondir .git/config.worktree`;
    const result = await exec(sandbox, script);
    expect(result.stdout).toContain('commondir'); // creating absent names cannot be refused
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    expect(fs.existsSync(path.join(repo, '.git', 'commondir'))).toBe(false);
    expect(fs.existsSync(path.join(repo, '.git', 'config.worktree'))).toBe(false);
  });

  test('a linked worktree\'s .git file cannot be pointed elsewhere, nor its repository\'s config changed', async () => {
    const main = path.join(base, 'main');
    const tree = path.join(base, 'tree');
    makeRepo(main);
    expect(hostGit(main, ['worktree', 'add', '-q', tree]).status).toBe(0);
    const sandbox = createMountSandbox({ root: tree, mounts: [{ source: main, target: '/main' }] });
    await exec(sandbox, `
      git init -q evil; ${plantScript('monitor.sh', 'fsmonitor')}
      git -C evil config core.fsmonitor ${path.join(tree, 'monitor.sh')}
      echo 'gitdir: evil/.git' > .git || { mv .git old && echo 'gitdir: evil/.git' > .git; }
      true`);
    await exec(sandbox, `
      git config core.fsmonitor ${path.join(tree, 'monitor.sh')}
      mkdir -p .git/hooks; ${plantScript('.git/hooks/pre-commit', 'hook')}
      true`, { cwd: '/main' });
    hostRuns(tree);
    hostRuns(main);
    expect(ranPlanted()).toEqual([]);
    expect(fs.readFileSync(path.join(tree, '.git'), 'utf8')).toMatch(/^gitdir: .*worktrees/);
  });

  test('a worktree whose repository lies outside the sandbox: its .git file still cannot be pointed elsewhere', async () => {
    const main = path.join(base, 'main');
    const tree = path.join(base, 'tree');
    makeRepo(main);
    expect(hostGit(main, ['worktree', 'add', '-q', tree]).status).toBe(0);
    const gitFile = fs.readFileSync(path.join(tree, '.git'), 'utf8');
    const sandbox = createMountSandbox({ root: tree });
    await exec(sandbox, `
      git init -q evil; ${plantScript('monitor.sh', 'fsmonitor')}
      git -C evil config core.fsmonitor ${path.join(tree, 'monitor.sh')}
      echo 'gitdir: evil/.git' > .git || { mv .git old; echo 'gitdir: evil/.git' > .git; }
      true`);
    hostRuns(tree);
    expect(ranPlanted()).toEqual([]);
    expect(fs.readFileSync(path.join(tree, '.git'), 'utf8')).toBe(gitFile);
  });

  test('a bare repository mounted writable keeps its hooks and config (a push runs them)', async () => {
    const bare = path.join(base, 'bare.git');
    expect(hostGit(base, ['init', '-q', '--bare', bare]).status).toBe(0);
    const sandbox = createMountSandbox({ root: bare });
    await exec(sandbox, `${plantScript('hooks/pre-receive', 'pre-receive')} git config receive.denyCurrentBranch ignore; true`);
    const push = hostGit(repo, ['push', '-q', bare, 'HEAD:refs/heads/main']);
    expect(ranPlanted()).toEqual([]);
    expect(push.status).toBe(0);
  });

  test('a submodule\'s .git file and its repository under .git/modules are kept too', async () => {
    const library = path.join(base, 'library');
    makeRepo(library);
    const add = hostGit(repo, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib']);
    expect(add.status).toBe(0);
    const sandbox = createMountSandbox({ root: repo });
    await exec(sandbox, `
      ${plantScript('monitor.sh', 'fsmonitor')}
      git -C lib config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      ${plantScript('.git/modules/lib/hooks/pre-commit', 'module-hook')}
      git init -q evil && git -C evil config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      echo 'gitdir: ../evil/.git' > lib/.git
      true`);
    hostRuns(repo);
    hostRuns(path.join(repo, 'lib'));
    expect(ranPlanted()).toEqual([]);
  });

  test('a new repository registered as a gitlink in the index never runs on the host', async () => {
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `
      ${plantScript('monitor.sh', 'fsmonitor')}
      git init -q sub && git -C sub commit -q --allow-empty -m sub
      git -C sub config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub`);
    hostGit(repo, ['status']);
    expect(ranPlanted()).toEqual([]);
    expect(fs.existsSync(path.join(repo, 'sub', '.git'))).toBe(false);
    expect(result.removedAfterRun).toEqual(['/sub/.git']);
  });

  // The red team's attack: a submodule the repository names but never initialized. The command
  // makes its git directory under .git/modules and points the submodule's .git file at it.
  const plantModule = (name, subPath) => `
      ${plantScript('monitor.sh', 'fsmonitor')}
      mkdir -p .git/modules && git init -q --bare .git/modules/${name}
      git --git-dir=.git/modules/${name} config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      git --git-dir=.git/modules/${name} config core.bare false
      git --git-dir=.git/modules/${name} config core.worktree ../../../${subPath}
      mkdir -p ${subPath} && echo 'gitdir: ../.git/modules/${name}' > ${subPath}/.git
      true`;

  function nameUninitializedSubmodule(name, subPath) {
    const library = path.join(base, `library-${name}`);
    makeRepo(library);
    const head = hostGit(library, ['rev-parse', 'HEAD']).stdout.trim();
    write(path.join(repo, '.gitmodules'), `[submodule "${name}"]\n\tpath = ${subPath}\n\turl = ${library}\n`);
    expect(hostGit(repo, ['update-index', '--add', '--cacheinfo', `160000,${head},${subPath}`]).status).toBe(0);
    expect(hostGit(repo, ['add', '.gitmodules']).status).toBe(0);
    expect(hostGit(repo, ['commit', '-q', '-m', 'names a submodule']).status).toBe(0);
  }

  test('an uninitialized submodule, .git/modules missing: a git directory planted for it never runs', async () => {
    nameUninitializedSubmodule('evil', 'sub');
    expect(fs.existsSync(path.join(repo, '.git', 'modules'))).toBe(false);
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, plantModule('evil', 'sub'));
    hostRuns(repo);
    hostGit(repo, ['submodule', 'status']);
    expect(ranPlanted()).toEqual([]);
    // Made before the run as git would, and kept empty.
    expect(fs.readdirSync(path.join(repo, '.git', 'modules'))).toEqual([]);
    expect(fs.existsSync(path.join(repo, 'sub', '.git'))).toBe(false);
    expect(result.removedAfterRun).toEqual(['/sub/.git']);
  });

  test('an uninitialized submodule, .git/modules present: the planted module git directory is removed', async () => {
    const library = path.join(base, 'library');
    makeRepo(library);
    expect(hostGit(repo, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib']).status).toBe(0);
    expect(hostGit(repo, ['commit', '-q', '-m', 'lib']).status).toBe(0);
    const head = hostGit(library, ['rev-parse', 'HEAD']).stdout.trim();
    fs.appendFileSync(path.join(repo, '.gitmodules'), `[submodule "evil"]\n\tpath = sub\n\turl = ${library}\n`);
    expect(hostGit(repo, ['update-index', '--add', '--cacheinfo', `160000,${head},sub`]).status).toBe(0);
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, plantModule('evil', 'sub'));
    hostRuns(repo);
    hostGit(repo, ['submodule', 'update', '--init']);
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    expect(fs.readdirSync(path.join(repo, '.git', 'modules')).sort()).toEqual(['lib']);
    expect([...result.removedAfterRun].sort()).toEqual(['/.git/modules/evil', '/sub/.git']);
  });

  test('a submodule path and gitlink the command adds itself, in an index of version 4: its .git is removed', async () => {
    expect(hostGit(repo, ['update-index', '--index-version', '4']).status).toBe(0);
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `
      ${plantScript('monitor.sh', 'fsmonitor')}
      mkdir -p deep/er/path && git init -q deep/er/path/mod && git -C deep/er/path/mod commit -q --allow-empty -m m
      git -C deep/er/path/mod config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      printf '[submodule "m"]\\n\\tpath = deep/er/path/mod\\n' > .gitmodules
      git update-index --add --cacheinfo 160000,$(git -C deep/er/path/mod rev-parse HEAD),deep/er/path/mod`);
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    expect(result.removedAfterRun).toEqual(['/deep/er/path/mod/.git']);
  });

  test('a .git planted as a symbolic link at a submodule path is itself removed, its target kept', async () => {
    nameUninitializedSubmodule('evil', 'sub');
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `
      ${plantScript('monitor.sh', 'fsmonitor')}
      git init -q elsewhere && git -C elsewhere config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      mkdir -p sub && ln -s ../elsewhere/.git sub/.git`);
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    expect(result.removedAfterRun).toEqual(['/sub/.git']);
    expect(fs.existsSync(path.join(repo, 'elsewhere', '.git', 'config'))).toBe(true);
  });

  test('a mode-000 directory planted at .git/commondir or at a submodule\'s .git is removed, the result kept', async () => {
    nameUninitializedSubmodule('evil', 'sub');
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `
      mkdir -p .git/commondir/inner sub/.git/hooks && touch .git/commondir/inner/f sub/.git/HEAD
      chmod 000 .git/commondir/inner .git/commondir sub/.git/hooks sub/.git
      echo done`);
    expect(result.stdout).toBe('done\n');
    expect(fs.existsSync(path.join(repo, '.git', 'commondir'))).toBe(false);
    expect(fs.existsSync(path.join(repo, 'sub', '.git'))).toBe(false);
    expect([...result.removedAfterRun].sort()).toEqual(['/.git/commondir', '/sub/.git']);
  });

  test('a submodule\'s git directory under .git/modules gets no commondir, config.worktree or info of the command\'s', async () => {
    const library = path.join(base, 'library');
    makeRepo(library);
    expect(hostGit(repo, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib']).status).toBe(0);
    fs.rmSync(path.join(repo, '.git', 'modules', 'lib', 'info'), { recursive: true, force: true });
    fs.rmSync(path.join(repo, '.git', 'info'), { recursive: true, force: true });
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `
      git init -q evil && ${plantScript('monitor.sh', 'fsmonitor')}
      git -C evil config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      echo ../../../evil/.git > .git/modules/lib/commondir
      printf '[core]\\n\\tfsmonitor = ${path.join(repo, 'monitor.sh')}\\n' > .git/modules/lib/config.worktree
      mkdir -p .git/info .git/modules/lib/info; echo '* filter=x' > .git/info/attributes; echo '* filter=x' > .git/modules/lib/info/attributes
      true`);
    hostRuns(repo);
    hostRuns(path.join(repo, 'lib'));
    expect(ranPlanted()).toEqual([]);
    expect(fs.readdirSync(path.join(repo, '.git', 'info'))).toEqual([]);
    expect(fs.readdirSync(path.join(repo, '.git', 'modules', 'lib', 'info'))).toEqual([]);
    expect([...result.removedAfterRun].sort()).toEqual(['/.git/modules/lib/commondir', '/.git/modules/lib/config.worktree']);
  });

  test('a sandbox rooted at an uninitialized submodule of a repository outside it: a repository made there is removed', async () => {
    nameUninitializedSubmodule('evil', 'sub');
    fs.mkdirSync(path.join(repo, 'sub'));
    const sandbox = createMountSandbox({ root: path.join(repo, 'sub') });
    const result = await exec(sandbox, `
      ${plantScript('monitor.sh', 'fsmonitor')}
      git init -q . && git commit -q --allow-empty -m planted
      git config core.fsmonitor ${path.join(repo, 'sub', 'monitor.sh')}`);
    hostRuns(repo);
    expect(ranPlanted()).toEqual([]);
    expect(fs.existsSync(path.join(repo, 'sub', '.git'))).toBe(false);
    expect(result.removedAfterRun).toEqual(['/.git']);
  });

  test('an index swapped for a symbolic link to one with a planted gitlink is removed', async () => {
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `
      ${plantScript('monitor.sh', 'fsmonitor')}
      git init -q sub && git -C sub commit -q --allow-empty -m sub
      git -C sub config core.fsmonitor ${path.join(repo, 'monitor.sh')}
      cp .git/index other-index && GIT_INDEX_FILE=other-index git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub
      rm .git/index && ln -s ../other-index .git/index`);
    hostGit(repo, ['status']);
    expect(ranPlanted()).toEqual([]);
    expect(result.removedAfterRun).toContain('/.git/index');
  });

  test('a .gitmodules with a 120,000-space line or `path = .` twenty times neither hangs exec nor blocks the event loop', async () => {
    const sandbox = createMountSandbox({ root: repo });
    for (const text of [`${' '.repeat(120000)}\n[submodule "x"]\n\tpath = lib\n`, '[submodule "x"]\n\tpath = .\n'.repeat(20)]) {
      write(path.join(repo, '.gitmodules'), text);
      let ticks = 0;
      const ticker = setInterval(() => { ticks += 1; }, 1);
      try {
        const result = await exec(sandbox, 'echo ran');
        expect(result.stdout).toBe('ran\n');
      } finally {
        clearInterval(ticker);
      }
      expect(ticks).toBeGreaterThan(0);
    }
  }, 60000);

  test('git add and git commit inside the sandbox keep working', async () => {
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, 'echo more >> app.txt && git add app.txt && git commit -q -m inside && git status --short');
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(hostGit(repo, ['log', '--format=%s']).stdout).toBe('inside\nfirst\n');
  });

  test('protectGit: false leaves .git as writable as the rest of the mount', async () => {
    const sandbox = createMountSandbox({ root: repo });
    const result = await exec(sandbox, `${plantScript('.git/hooks/pre-commit', 'hook')} git config core.bare false`, { protectGit: false });
    expect(result.exitCode).toBe(0);
    expect(fs.existsSync(path.join(repo, '.git', 'hooks', 'pre-commit'))).toBe(true);
  });

  test('protectGit takes a boolean only', async () => {
    const sandbox = createMountSandbox({ root: repo });
    await expect(exec(sandbox, 'true', { protectGit: 'no' })).rejects.toThrow(TypeError);
  });

  test('a .git/hooks that is a symbolic link cannot be kept read-only: the run is refused, naming no host path', async () => {
    const shared = path.join(repo, 'shared-hooks');
    fs.mkdirSync(shared);
    fs.rmSync(path.join(repo, '.git', 'hooks'), { recursive: true });
    fs.symlinkSync('../shared-hooks', path.join(repo, '.git', 'hooks'));
    const sandbox = createMountSandbox({ root: repo });
    const attempt = exec(sandbox, `${plantScript('.git/hooks/pre-commit', 'hook')} true`);
    await expect(attempt).rejects.toThrow(ExecError);
    await attempt.catch((err) => {
      expect(err.message).toMatch(/\.git\/hooks.*symbolic link/);
      expect(err.message).not.toContain(base);
    });
    expect(fs.readdirSync(shared)).toEqual([]);
  });
});

// A project directory with no repository in it or above it: the command's `git init` makes one
// the host's git will use there (a shell prompt runs `git status` on cd). What it configured must
// run nothing: the repository stays, and what could make git run a program is taken out of it
// (config keys outside an allowlist, hooks other than git's samples, commondir, a stopped rebase).
maybe('a writable project without a repository: one the command makes', () => {
  let project;
  beforeEach(() => {
    project = path.join(base, 'project');
    fs.mkdirSync(project);
    write(path.join(project, 'app.txt'), 'app');
  });

  const inProject = (name) => path.join(project, name);
  // What a user does next in the project: a status (prompt), a diff, an add, a commit, a fetch.
  function hostUses(dir) {
    fs.appendFileSync(path.join(dir, 'app.txt'), 'changed by the host\n');
    hostGit(dir, ['status']);
    hostGit(dir, ['diff']);
    hostGit(dir, ['add', '-A']);
    hostGit(dir, ['commit', '-q', '-m', 'by the host']);
    hostGit(dir, ['fetch', '-q', 'origin']);
  }
  const init = 'git init -q && git add -A && git commit -q -m agent';

  const attacks = [
    ['core.fsmonitor', () => `${plantScript('monitor.sh', 'fsmonitor')} ${init}; git config core.fsmonitor ${inProject('monitor.sh')}`],
    ['a hook in .git/hooks', () => `${init}; ${plantScript('.git/hooks/pre-commit', 'hook')} ${plantScript('.git/hooks/post-index-change', 'hook2')} true`],
    ['core.hooksPath', () => `mkdir hooks2; ${plantScript('hooks2/pre-commit', 'hooks-path')} ${init}; git config core.hooksPath ${inProject('hooks2')}`],
    ['a clean filter with .gitattributes', () => `${plantScript('clean.sh', 'filter')} echo '* filter=x' > .gitattributes; ${init}; git config filter.x.clean ${inProject('clean.sh')}`],
    ['diff.external', () => `${plantScript('diff.sh', 'diff')} ${init}; git config diff.external ${inProject('diff.sh')}`],
    ['core.sshCommand with an ssh remote', () => `${plantScript('ssh.sh', 'ssh')} ${init}; git remote add origin ssh://example.invalid/x.git; git config core.sshCommand ${inProject('ssh.sh')}`],
    ['include.path naming a config with core.fsmonitor', () => `${plantScript('monitor.sh', 'fsmonitor')} ${init}; printf '[core]\\n\\tfsmonitor = ${inProject('monitor.sh')}\\n' > inc.cfg; git config include.path ${inProject('inc.cfg')}`],
    ['core.fsmonitor under a mixed-case section, a continuation line and a comment', () => `${plantScript('monitor.sh', 'fsmonitor')} ${init}; printf '# remote\\n[CoRe] ; x\\n\\tFsMonitor = "${inProject('monitor')}\\\\\\n.sh"\\n' >> .git/config`],
    ['a .git file pointing at a git directory planted elsewhere in the project', () => `${plantScript('monitor.sh', 'fsmonitor')} git init -q --separate-git-dir=.hidden . && git config core.fsmonitor ${inProject('monitor.sh')} && echo 'gitdir: .hidden' > .git`],
    ['a .git symlink to a planted git directory', () => `${plantScript('monitor.sh', 'fsmonitor')} ${init} && git config core.fsmonitor ${inProject('monitor.sh')} && mv .git .hidden && ln -s .hidden .git`],
    ['a submodule whose own repository sets core.fsmonitor', () => `${plantScript('monitor.sh', 'fsmonitor')} ${init}; git init -q sub && git -C sub commit -q --allow-empty -m sub
      git -C sub config core.fsmonitor ${inProject('monitor.sh')}; git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub`],
  ];

  // A `.git` file or link at the top points anywhere: it goes; every other plant is taken out.
  const LINKED = ['a .git file pointing at a git directory planted elsewhere in the project', 'a .git symlink to a planted git directory'];

  test.each(attacks)('%s in a new repository never runs on the host: what runs is taken out', async (name, script) => {
    const sandbox = createMountSandbox({ root: project });
    const result = await exec(sandbox, script());
    expect(ranPlanted()).toEqual([]); // nothing ran inside: what follows is the host's git
    hostUses(project);
    expect(ranPlanted()).toEqual([]);
    if (LINKED.includes(name)) {
      expect(fs.existsSync(inProject('.git'))).toBe(false);
      expect(result.removedAfterRun).toEqual(['/.git']);
      expect(result.stderr).toMatch(/a \.git file or link made where there was no repository was removed/);
    } else {
      expect(fs.lstatSync(inProject('.git')).isDirectory()).toBe(true);
      expect(result.removedAfterRun).toEqual([]);
    }
    expect(result.gitTakenOut.length).toBeGreaterThan(0);
    expect(result.stderr).toMatch(/was taken out of it \(the repository stays\)/);
    expect(result.stderr).not.toContain(base);
    expect(fs.readFileSync(inProject('app.txt'), 'utf8')).toContain('app'); // the worktree stays
  });

  test.each([
    ['an ext:: remote url', 'git remote add origin "ext::sh -c touch% /tmp/x"', '/.git/config: remote.origin.url'],
    ['a branch whose remote is an ext:: url', 'git config branch.master.remote "ext::sh -c true"', '/.git/config: branch.master.remote'],
    ['a commondir', 'echo /nowhere > .git/commondir', '/.git/commondir'],
    ['a hooks symlink', 'rm -rf .git/hooks && ln -s ../hooks2 .git/hooks && mkdir hooks2', '/.git/hooks'],
    ['an alias', 'git config alias.st "!touch x"', '/.git/config: alias.st'],
  ])('a new repository with %s keeps the rest', async (_name, script, taken) => {
    const sandbox = createMountSandbox({ root: project });
    const result = await exec(sandbox, `${init} && ${script}`);
    expect(result.gitTakenOut).toContain(taken);
    expect(hostGit(project, ['log', '--format=%s']).stdout).toBe('agent\n');
  });

  test('a rebase left stopped with an exec line to come never runs it on the host\'s rebase --continue', async () => {
    const sandbox = createMountSandbox({ root: project });
    const result = await exec(sandbox, `${plantScript('step.sh', 'rebase')} ${init} && git commit -q --allow-empty -m two
      GIT_SEQUENCE_EDITOR="printf 'break\\nexec ${inProject('step.sh')}\\n' >" git rebase -q -i HEAD~1; ls .git/rebase-merge >/dev/null`);
    expect(result.exitCode).toBe(0);
    hostGit(project, ['rebase', '--continue']);
    expect(ranPlanted()).toEqual([]);
    expect(result.gitTakenOut).toContain('/.git/rebase-merge');
  });

  test('the project made a repository itself (HEAD, objects, refs at its top) with core.fsmonitor: the key goes', async () => {
    const sandbox = createMountSandbox({ root: project });
    const result = await exec(sandbox, `${plantScript('monitor.sh', 'fsmonitor')}
      git init -q --bare . && git config core.bare false && git config core.worktree . && git config core.fsmonitor ${inProject('monitor.sh')}`);
    hostUses(project);
    expect(ranPlanted()).toEqual([]);
    expect(result.gitTakenOut).toEqual(expect.arrayContaining(['/config: core.worktree', '/config: core.fsmonitor']));
    expect(fs.readFileSync(inProject('app.txt'), 'utf8')).toContain('app');
  });

  test('a project whose own files are named HEAD, objects and refs keeps them', async () => {
    write(inProject('HEAD'), 'not git\n');
    fs.mkdirSync(inProject('objects'));
    const sandbox = createMountSandbox({ root: project });
    const result = await exec(sandbox, 'mkdir refs && echo more >> HEAD');
    expect(result.removedAfterRun).toEqual([]);
    expect(fs.readFileSync(inProject('HEAD'), 'utf8')).toBe('not git\nmore\n');
  });

  test('git init, user.name/email, a remote, an upstream branch, add and commit: the repository and its commit stay', async () => {
    const sandbox = createMountSandbox({ root: project });
    const result = await exec(sandbox, `git init -q && git config user.name Agent && git config user.email agent@example.invalid
      git remote add origin https://example.invalid/project.git && git remote add backup git@example.invalid:me/project.git
      git add -A && git commit -q -m agent && git branch -q other && git config branch.master.remote origin && git config branch.master.merge refs/heads/master
      git status --short`);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual([]);
    expect(hostGit(project, ['log', '--format=%s']).stdout).toBe('agent\n');
    expect(hostGit(project, ['config', 'user.name']).stdout).toBe('Agent\n');
    expect(hostGit(project, ['remote', 'get-url', 'origin']).stdout).toBe('https://example.invalid/project.git\n');
    expect(fs.readdirSync(inProject('.git/hooks')).every((name) => name.endsWith('.sample'))).toBe(true);
  });

  test('a repository that was there before the run is not judged by the new-repository rule', async () => {
    makeRepo(project);
    expect(hostGit(project, ['config', 'pull.rebase', 'true']).status).toBe(0);
    const sandbox = createMountSandbox({ root: project });
    const result = await exec(sandbox, 'git add -A && git commit -q -m agent');
    expect(result.removedAfterRun).toEqual([]);
    expect(hostGit(project, ['log', '--format=%s']).stdout).toBe('agent\nfirst\n');
  });
});
