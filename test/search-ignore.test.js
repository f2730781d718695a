'use strict';

// Ignore rules as git reads them (issue 40), checked against git's own `check-ignore` on a tree
// planted with the cases rg users meet: .git/info/exclude, a nested repository with rules of its
// own (the outer repository's do not reach into it), and patterns whose "*" must cover names
// that begin with a dot (`*.bak` and `.x.bak`, `*rc` and `.bashrc`). Before, the first was not
// read, the nested repository inherited the outer rules, and the dot names were searched.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox } = require('..');
const { makeTempDir, removeDir, testNeeding } = require('./helpers');

const hasGit = spawnSync('git', ['--version']).status === 0;
const withGit = testNeeding(hasGit ? null : 'git is not installed');

let dir;
beforeEach(() => {
  dir = makeTempDir('msb-search-ignore-');
});
afterEach(() => removeDir(dir));

const FILES = [
  'keep.txt', 'a.bak', '.x.bak', '.bashrc', 'notes.rc', 'build/out.js', 'lib/app.js', 'lib/app.log',
  'lib/.hidden.log', 'local.secret', 'docs/draft.md', 'docs/final.md',
  'inner/keep.log', 'inner/a.bak', 'inner/only-inner.tmp', 'inner/src/x.js', 'inner/local.secret',
];

function git(cwd, args) {
  const ran = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
  return ran;
}

function plant() {
  for (const file of FILES) {
    fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), 'needle\n');
  }
  git(dir, ['init', '-q']);
  git(path.join(dir, 'inner'), ['init', '-q']);
  fs.writeFileSync(path.join(dir, '.gitignore'), '*.bak\n*rc\nbuild/\n*.log\ndocs/*\n!docs/final.md\n');
  fs.writeFileSync(path.join(dir, '.git', 'info', 'exclude'), '*.secret\n');
  fs.writeFileSync(path.join(dir, 'inner', '.gitignore'), '*.tmp\n');
}

// What git ignores, each file asked of the repository it lies in.
function ignoredByGit() {
  const out = new Set();
  for (const file of FILES) {
    const inner = file.startsWith('inner/');
    const ran = git(inner ? path.join(dir, 'inner') : dir, ['check-ignore', '-q', '--no-index', inner ? file.slice(6) : file]);
    if (ran.status === 0) out.add(file);
  }
  return out;
}

describe('ignore rules', () => {
  withGit('a search passes over exactly what git ignores', async () => {
    plant();
    const ignored = ignoredByGit();
    // git's own answers, for the cases the issue names.
    expect([...ignored].sort()).toEqual(['.bashrc', '.x.bak', 'a.bak', 'build/out.js', 'docs/draft.md', 'local.secret',
      'notes.rc', 'lib/.hidden.log', 'lib/app.log', 'inner/only-inner.tmp'].sort());
    const result = await createMountSandbox({ root: dir }).grep('needle', { hidden: true, maxResults: 1000 });
    const searched = new Set(result.matches.map((m) => m.path.slice(1)));
    const notIgnored = FILES.filter((f) => !ignored.has(f));
    expect([...searched].sort()).toEqual(notIgnored.sort());
  });

  withGit('ignore rules are on by default, as ripgrep\'s; gitignore: false searches every file', async () => {
    plant();
    const sandbox = createMountSandbox({ root: dir });
    const byDefault = await sandbox.grep('needle', { hidden: true });
    expect(byDefault.matches.map((m) => m.path)).not.toContain('/a.bak');
    const all = await sandbox.grep('needle', { hidden: true, gitignore: false });
    expect(all.matches.map((m) => m.path.slice(1)).sort()).toEqual([...FILES].sort());
  });

  withGit('searching from inside the nested repository: only its own rules, and the outer .ignore files still bind', async () => {
    plant();
    fs.writeFileSync(path.join(dir, '.ignore'), 'keep.log\n');
    const result = await createMountSandbox({ root: dir }).grep('needle', { path: '/inner', hidden: true });
    expect(result.matches.map((m) => m.path).sort()).toEqual(['/inner/a.bak', '/inner/local.secret', '/inner/src/x.js']);
  });
});
