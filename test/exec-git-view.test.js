'use strict';

// A mount inside another mount's source shows in the command's view as a directory its
// repository does not track: without the run's exclude file, `git status` listed it as untracked
// and `git add -A` added the mount's files to the repository. Real repositories, real commands.
const { skipWith } = require('./helpers/skips');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const ms = require('../lib');
const { makeTempDir, removeDir, write } = require('./helpers');
const { needs, run } = require('./exec-helpers');

jest.setTimeout(60000);

const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const withGit = HAS_GIT ? needs(['pid-namespace']) : skipWith('git is missing');
const IDENTITY = ['-c', 'user.email=t@example.invalid', '-c', 'user.name=T'];

let dir;
function repository(at) {
  write(path.join(at, 'tracked.txt'), 'tracked\n');
  const git = (...args) => spawnSync('git', [...IDENTITY, ...args], { cwd: at, encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'first');
}
beforeEach(() => {
  dir = makeTempDir('msb-git-view-');
  write(path.join(dir, 'data', 'rows.csv'), 'a,b\n');
  write(path.join(dir, 'docs', 'guide.md'), '# guide\n');
});
afterEach(() => removeDir(dir));

const mounts = (...targets) => targets.map(([source, target, readonly]) => ({ source: path.join(dir, source), target, readonly }));

describe('mount points inside the workspace are not untracked files to git', () => {
  withGit('git status lists what the command made, not the mounts', async () => {
    repository(path.join(dir, 'proj'));
    const sb = ms.createMountSandbox({
      root: path.join(dir, 'proj'), mounts: mounts(['data', '/data'], ['docs', '/ref/docs', true]),
    });
    const result = await run(sb, ['sh', '-c', 'echo new > made.txt; git status --porcelain']);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(['?? made.txt']);
  });

  withGit('git add -A does not add a mount\'s files to the repository', async () => {
    repository(path.join(dir, 'proj'));
    const sb = ms.createMountSandbox({ root: path.join(dir, 'proj'), mounts: mounts(['data', '/data']) });
    const result = await run(sb, ['sh', '-c', 'git add -A && git ls-files']);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(['tracked.txt']);
  });

  withGit('a repository below the root: patterns relative to its top', async () => {
    repository(path.join(dir, 'proj', 'pkg'));
    const sb = ms.createMountSandbox({ root: path.join(dir, 'proj'), mounts: mounts(['data', '/pkg/vendor/data']) });
    const result = await run(sb, ['sh', '-c', 'cd pkg && mkdir -p vendor/own && echo x > vendor/own/f && git status --porcelain -uall']);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(['?? vendor/own/f']);
  });

  withGit('the caller\'s own GIT_CONFIG entries stay', async () => {
    repository(path.join(dir, 'proj'));
    const sb = ms.createMountSandbox({ root: path.join(dir, 'proj'), mounts: mounts(['data', '/data']) });
    const env = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'Caller' };
    const result = await run(sb, ['sh', '-c', 'git config user.name; git status --porcelain'], { env });
    expect(result.stdout).toBe('Caller\n');
  });
});
