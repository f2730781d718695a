'use strict';

// git takes any directory holding a valid HEAD, `objects` and `refs` for a repository and runs
// what its `config` names (src/git/git_layout.h). Each attack below builds that layout where
// there was no repository, or voids a repository's HEAD so that git's discovery goes on to a
// planted one, through every way in: the library's file API, the MCP server's tools and a
// command. The planted config sets core.fsmonitor to a program that leaves a marker outside the
// sandbox; the host's own git is then run where a user would run it, and the marker must not
// appear. Real repositories, real git, real files in temp directories.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox, HostTrustedError } = require('../lib');
const { makeTempDir, removeDir, testNeeding } = require('./helpers');
const { needs } = require('./exec-helpers');
const { startServer } = require('./helpers/mcp-client');

jest.setTimeout(60000);

const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const withGit = testNeeding(HAS_GIT ? null : 'git is not installed');
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

let base;
let root;
let markers;

// The host's git as the user runs it later: nothing confining it, discovery stopped above the
// temp directory, a scratch HOME and no system config.
function hostGit(cwd, args) {
  return spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH, HOME: path.join(base, 'home'), GIT_CONFIG_NOSYSTEM: '1',
      GIT_CEILING_DIRECTORIES: base, ...IDENTITY,
    },
  });
}

function makeRepo(dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const args of [['init', '-q', '-b', 'main'], ['commit', '-q', '--allow-empty', '-m', 'first']]) {
    const r = hostGit(dir, args);
    if (r.status !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr}`);
  }
}

const planted = (name) => `[core]\n\tfsmonitor = "echo ran >> ${path.join(markers, name)}"\n`;
const ranPlanted = () => fs.readdirSync(markers);

// Every way the host would set a planted program off in `dir`.
function hostRuns(dir) {
  hostGit(dir, ['status']);
  hostGit(dir, ['commit', '-q', '--allow-empty', '-m', 'by the host']);
}

async function refusedAsGit(promise) {
  const error = await promise.then(() => null, (e) => e);
  expect(error).toBeInstanceOf(HostTrustedError);
  expect(error.trusted).toBe('git');
  expect(error.message).not.toContain(base);
  return error;
}

// Runs each step; returns the index of the first refused one (HostTrustedError, kind git), or -1.
async function firstRefused(steps) {
  for (const [i, step] of steps.entries()) {
    const error = await step().then(() => null, (e) => e);
    if (error !== null) {
      expect(error).toBeInstanceOf(HostTrustedError);
      expect(error.trusted).toBe('git');
      return i;
    }
  }
  return -1;
}

beforeEach(() => {
  base = makeTempDir('msb-git-layout-');
  root = path.join(base, 'project');
  markers = path.join(base, 'markers');
  fs.mkdirSync(root);
  fs.mkdirSync(markers);
  fs.mkdirSync(path.join(base, 'home'));
});
afterEach(() => removeDir(base));

describe('the file API: no change completes a layout, none voids a repository', () => {
  withGit('a layout planted in a subdirectory, in every order, is refused at its last piece', async () => {
    const sb = createMountSandbox({ root });
    const pieces = {
      HEAD: (d) => sb.write(`/${d}/HEAD`, 'ref: refs/heads/main\n'),
      objects: (d) => sb.mkdir(`/${d}/objects`),
      refs: (d) => sb.mkdir(`/${d}/refs`),
    };
    const orders = [['HEAD', 'objects', 'refs'], ['refs', 'objects', 'HEAD'], ['objects', 'HEAD', 'refs']];
    for (const [i, order] of orders.entries()) {
      const dir = `sub${i}`;
      await sb.write(`/${dir}/config`, planted(dir));
      expect(await firstRefused(order.map((name) => () => pieces[name](dir)))).toBe(2);
      hostRuns(path.join(root, dir));
    }
    expect(ranPlanted()).toEqual([]);
  });

  withGit('at the top of a root that is not a repository; a file for a directory and a refs file count too', async () => {
    const sb = createMountSandbox({ root });
    await sb.write('/config', planted('top'));
    await sb.write('/HEAD', '0123456789abcdef0123456789abcdef01234567\n');
    await sb.write('/refs', 'a file where a directory goes\n');
    await refusedAsGit(sb.mkdir('/objects'));
    await refusedAsGit(sb.write('/objects', 'x'));
    hostRuns(root);
    expect(ranPlanted()).toEqual([]);
  });

  withGit('in a repository: HEAD moved, deleted or voided is refused, and the top cannot become another repository', async () => {
    makeRepo(root);
    const sb = createMountSandbox({ root });
    await refusedAsGit(sb.move('/.git/HEAD', '/HEAD'));
    await refusedAsGit(sb.delete('/.git/HEAD'));
    await refusedAsGit(sb.write('/.git/HEAD', 'garbage'));
    await refusedAsGit(sb.edit('/.git/HEAD', 'ref: refs/heads/main', 'not a ref'));
    // The whole plant of the attack: every piece but the last is ordinary content.
    await sb.write('/config', `${planted('top')}\tworktree = .\n`);
    await sb.write('/objects/info/alternates', '../.git/objects\n');
    await sb.copy('/.git/refs/heads/main', '/refs/heads/main');
    await refusedAsGit(sb.copy('/.git/HEAD', '/HEAD'));
    await refusedAsGit(sb.write('/HEAD', 'ref: refs/heads/main\n'));
    hostRuns(root);
    expect(ranPlanted()).toEqual([]);
    expect(hostGit(root, ['log', '--format=%s']).stdout).toContain('first');
  });

  withGit('a bare repository, or one planted before the sandbox, keeps its config and hooks under any name', async () => {
    expect(hostGit(base, ['init', '-q', '--bare', path.join(root, 'mirror.git')]).status).toBe(0);
    const sb = createMountSandbox({ root });
    await refusedAsGit(sb.write('/mirror.git/config', planted('bare')));
    await refusedAsGit(sb.write('/mirror.git/hooks/pre-receive', '#!/bin/sh\n'));
    await refusedAsGit(sb.mkdir('/mirror.git/hooks/new'));
    await refusedAsGit(sb.delete('/mirror.git/HEAD'));
    await sb.write('/mirror.git/description', 'ordinary\n'); // not what git runs
    expect(ranPlanted()).toEqual([]);
  });

  test('the pieces written at once, by parallel calls, never complete a layout either', async () => {
    const sb = createMountSandbox({ root });
    for (let round = 0; round < 150; round++) {
      const dir = `/race${round}`;
      await sb.mkdir(dir);
      const outcomes = await Promise.allSettled([
        sb.write(`${dir}/HEAD`, 'ref: refs/heads/main\n'), sb.mkdir(`${dir}/objects`), sb.mkdir(`${dir}/refs`),
      ]);
      const made = ['HEAD', 'objects', 'refs'].filter((name) => fs.existsSync(path.join(root, dir, name)));
      expect([round, made.length]).toEqual([round, 2]);
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason.code)).toEqual(['HOST_TRUSTED']);
    }
  });

  withGit('controls: a repository\'s HEAD to another ref, its objects and refs, and files named like the pieces elsewhere', async () => {
    makeRepo(root);
    const sb = createMountSandbox({ root });
    await sb.write('/.git/HEAD', 'ref: refs/heads/other\n');
    await sb.write('/.git/HEAD', 'ref: refs/heads/main\n');
    await sb.write('/.git/refs/heads/topic', fs.readFileSync(path.join(root, '.git', 'refs', 'heads', 'main'), 'utf8'));
    await sb.write('/src/objects/index.ts', 'export {};\n');
    await sb.write('/src/refs/HEAD.md', 'notes\n');
    await sb.write('/docs/HEAD', 'not a repository: no objects or refs beside it\n');
    await sb.mkdir('/docs/objects');
    expect(hostGit(root, ['branch', '--list']).stdout).toContain('topic');
    expect(hostGit(root, ['status', '--short']).status).toBe(0);
  });
});

describe('the MCP server\'s tools', () => {
  withGit('write_file and create_directory cannot complete a layout; move_file cannot void HEAD', async () => {
    makeRepo(path.join(root, 'repo'));
    const server = await startServer(['--root', root]);
    try {
      const call = (name, args) => server.client.callTool({ name, arguments: args });
      expect((await call('write_file', { path: '/sub/HEAD', content: 'ref: refs/heads/main\n' })).isError).toBeFalsy();
      expect((await call('write_file', { path: '/sub/config', content: planted('mcp') })).isError).toBeFalsy();
      expect((await call('create_directory', { path: '/sub/objects' })).isError).toBeFalsy();
      const last = await call('create_directory', { path: '/sub/refs' });
      expect([last.isError, last.structuredContent?.code]).toEqual([true, 'HOST_TRUSTED']);
      const moved = await call('move_file', { source: '/repo/.git/HEAD', destination: '/repo/HEAD' });
      expect([moved.isError, moved.structuredContent?.code]).toEqual([true, 'HOST_TRUSTED']);
    } finally {
      await server.close();
    }
    hostRuns(path.join(root, 'sub'));
    hostRuns(path.join(root, 'repo'));
    expect(ranPlanted()).toEqual([]);
  });
});

describe('commands on copy-on-write layers: the plant never lands', () => {
  const runnable = HAS_GIT ? needs(['copy-on-write']) : testNeeding('git is not installed');

  runnable('the one-line plant: HEAD voided, a layout at the top; nothing of it reaches the host', async () => {
    makeRepo(root);
    const sb = createMountSandbox({ root });
    const config = planted('top').replace(/\n/g, '\\n').replace(/"/g, '\\"');
    const result = await sb.exec(['sh', '-c',
      `printf garbage > .git/HEAD; printf 'ref: refs/heads/main\\n' > HEAD; mkdir objects refs; printf "${config}\\tworktree = .\\n" > config`],
    { env: IDENTITY });
    expect(result.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(root, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(['HEAD', 'objects', 'refs'].every((n) => fs.existsSync(path.join(root, n)))).toBe(false);
    expect(result.changes.refused.map((c) => c.path)).toEqual(expect.arrayContaining(['/.git/HEAD']));
    hostRuns(root);
    expect(ranPlanted()).toEqual([]);
  });
});

describe('commands: every repository settled after the run', () => {
  // With direct writes (changes: 'direct'): settling after the run is that mode's protection.
  const exec = (sb, script) => sb.exec(['sh', '-c', script], { env: IDENTITY, changes: 'direct' });
  const runnable = HAS_GIT ? needs(['pid-namespace', 'mount-namespace']) : testNeeding('git is not installed');

  runnable('the one-line plant: HEAD voided, a layout at the top; HEAD is put back and the plant runs nothing', async () => {
    makeRepo(root);
    const sb = createMountSandbox({ root });
    const config = planted('top').replace(/\n/g, '\\n').replace(/"/g, '\\"');
    const result = await exec(sb, `printf garbage > .git/HEAD; printf 'ref: refs/heads/main\\n' > HEAD; mkdir objects refs; printf "${config}\\tworktree = .\\n" > config`);
    expect(result.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(root, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(result.gitTakenOut).toEqual(expect.arrayContaining(['/.git/HEAD', '/config: core.fsmonitor', '/config: core.worktree']));
    expect(result.stderr).toContain('was taken out of it');
    hostRuns(root);
    expect(ranPlanted()).toEqual([]);
    expect(hostGit(root, ['log', '--format=%s']).stdout).toContain('first');
  });

  runnable('git init with a planted fsmonitor and hook, at any depth: the repository stays, what runs goes', async () => {
    const sb = createMountSandbox({ root });
    const result = await exec(sb, [
      'git init -q -b main a/b/lib', 'cd a/b/lib',
      `git config core.fsmonitor "echo ran >> ${path.join(markers, 'fsmonitor')}"`,
      'git config user.name Agent',
      `printf '#!/bin/sh\\necho ran >> ${path.join(markers, 'hook')}\\n' > .git/hooks/pre-commit`, 'chmod 755 .git/hooks/pre-commit',
      'echo x > file && git add file',
    ].join(' && '));
    expect(result.exitCode).toBe(0);
    expect(result.gitTakenOut).toEqual(expect.arrayContaining(['/a/b/lib/.git/config: core.fsmonitor', '/a/b/lib/.git/hooks/pre-commit']));
    const lib = path.join(root, 'a', 'b', 'lib');
    hostRuns(lib);
    expect(ranPlanted()).toEqual([]);
    // The host's git can use it: what the command staged is committed, user.name kept.
    expect(hostGit(lib, ['log', '--format=%s', '--name-only']).stdout).toContain('file');
    expect(hostGit(lib, ['config', 'user.name']).stdout.trim()).toBe('Agent');
    expect(fs.readdirSync(path.join(lib, '.git', 'hooks')).every((n) => n.endsWith('.sample'))).toBe(true);
  });

  runnable('an existing repository below a root that is not one: its config and hooks stay read-only', async () => {
    makeRepo(path.join(root, 'pkg'));
    const config = fs.readFileSync(path.join(root, 'pkg', '.git', 'config'), 'utf8');
    const sb = createMountSandbox({ root });
    await exec(sb, [
      `git -C pkg config core.fsmonitor "echo ran >> ${path.join(markers, 'pkg')}"`,
      `printf '#!/bin/sh\\necho ran >> ${path.join(markers, 'pkg-hook')}\\n' > pkg/.git/hooks/pre-commit`,
      'chmod 755 pkg/.git/hooks/pre-commit', 'true',
    ].join('; '));
    expect(fs.readFileSync(path.join(root, 'pkg', '.git', 'config'), 'utf8')).toBe(config);
    hostRuns(path.join(root, 'pkg'));
    expect(ranPlanted()).toEqual([]);
  });

  runnable('a bare repository made by a command keeps objects and refs, loses what runs', async () => {
    const sb = createMountSandbox({ root });
    const result = await exec(sb, `git init -q --bare mirror.git && git -C mirror.git config core.fsmonitor "echo ran >> ${path.join(markers, 'bare')}"`);
    expect(result.gitTakenOut).toEqual(['/mirror.git/config: core.fsmonitor']);
    expect(hostGit(path.join(root, 'mirror.git'), ['rev-parse', '--is-bare-repository']).stdout.trim()).toBe('true');
  });

  runnable('a release of .git/config holds for every way in: the file API and a command both change it', async () => {
    makeRepo(root);
    const released = createMountSandbox({ root, trustedNames: { release: ['.git/config'] } });
    const config = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    await released.write('/.git/config', `${config}[user]\n\tname = By the file API\n`);
    const result = await exec(released, 'git config user.email agent@example.invalid');
    expect(result.exitCode).toBe(0);
    expect(hostGit(root, ['config', 'user.email']).stdout.trim()).toBe('agent@example.invalid');
    // Without the release, neither may.
    const kept = createMountSandbox({ root });
    await refusedAsGit(kept.write('/.git/config', config));
    expect((await exec(kept, 'git config user.email other@example.invalid')).exitCode).not.toBe(0);
    expect(hostGit(root, ['config', 'user.email']).stdout.trim()).toBe('agent@example.invalid');
  });

  runnable('controls: commit, branch, checkout and rebase inside a command work, and leave nothing to settle', async () => {
    makeRepo(root);
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
    const sb = createMountSandbox({ root });
    const result = await exec(sb, [
      'git add a.txt', 'git commit -qm second', 'git checkout -q -b topic', 'echo two >> a.txt', 'git commit -qam third',
      'git checkout -q main', 'echo other > b.txt', 'git add b.txt', 'git commit -qm fourth',
      'git checkout -q topic', 'git rebase -q main', 'git log --format=%s',
    ].join(' && '));
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(['third', 'fourth', 'second', 'first']);
    expect(result.gitTakenOut).toEqual([]);
    expect(hostGit(root, ['rev-parse', '--abbrev-ref', 'HEAD']).stdout.trim()).toBe('topic');
  });
});

describe('core.hooksPath (husky)', () => {
  withGit('the directory it names is trusted like .git/hooks, by the file API and by commands', async () => {
    makeRepo(root);
    expect(hostGit(root, ['config', 'core.hooksPath', '.husky/_']).status).toBe(0);
    const hook = path.join(root, '.husky', '_', 'pre-commit');
    fs.mkdirSync(path.dirname(hook), { recursive: true });
    fs.writeFileSync(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const sb = createMountSandbox({ root });
    expect(sb.describe().trustedNames.hookDirs).toEqual([path.join(root, '.husky', '_')]);
    await refusedAsGit(sb.write('/.husky/_/pre-commit', `#!/bin/sh\necho ran >> ${path.join(markers, 'husky')}\n`));
    await refusedAsGit(sb.write('/.husky/_/post-checkout', '#!/bin/sh\n'));
    await refusedAsGit(sb.move('/.husky', '/husky-away'));
    await sb.write('/.husky/pre-commit.md', 'notes beside the hooks are ordinary\n');
    if (needs(['mount-namespace']) === test) {
      const result = await sb.exec(['sh', '-c', `echo 'echo ran >> ${path.join(markers, 'husky-cmd')}' >> .husky/_/pre-commit`]);
      // Refused at once with direct writes; on a copy-on-write layer, when the change set is judged.
      if (result.changes === null) expect(result.exitCode).not.toBe(0);
      else expect(result.changes.refused.map((c) => [c.path, c.code])).toEqual([['/.husky/_/pre-commit', 'HOST_TRUSTED']]);
    }
    hostRuns(root);
    expect(ranPlanted()).toEqual([]);
    expect(fs.readFileSync(hook, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });
});
