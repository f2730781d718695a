'use strict';

// A command's changes reach the host only through the core's rules (docs/exec.md, "What lands"):
// it runs on copy-on-write layers, and what it changed is judged after it by the code the file
// API uses. Each attack below went straight to the host with direct writes (changes: 'direct',
// or before layers existed); here the host must stay as it was for the attack while ordinary
// writes of the same run land. Real files, links, repositories and programs in temp directories.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox, findProgramConfig, createSandboxFromConfig, SandboxConfigError } = require('../lib');
const { makeTempDir, removeDir, snapshotTree, testNeeding } = require('./helpers');
const { needs, run, sleep } = require('./exec-helpers');

jest.setTimeout(120000);

const layered = needs(['copy-on-write']);
const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const withGit = HAS_GIT ? layered : testNeeding('git is not installed');
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1', HOME: '/tmp',
};

let base;
let root;
beforeEach(() => {
  base = makeTempDir('msb-changes-');
  root = path.join(base, 'project');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
});
afterEach(() => removeDir(base));

const sh = (sb, script, options = {}) => run(sb, ['/bin/sh', '-c', script], options);
const read = (...parts) => fs.readFileSync(path.join(root, ...parts), 'utf8');
const exists = (...parts) => fs.existsSync(path.join(root, ...parts));
const refusedPaths = (result) => result.changes.refused.map((c) => c.path);

function git(dir, ...args) {
  const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('attacks that went straight to the host are judged now', () => {
  layered('a trusted file at depth 6 is refused; the ordinary write of the same run lands', async () => {
    const result = await sh(createMountSandbox({ root }),
      'mkdir -p a/b/c/d/.vscode && echo "{}" > a/b/c/d/.vscode/tasks.json && echo two > a.txt && echo new > b.txt');
    expect(result.exitCode).toBe(0);
    expect(exists('a', 'b', 'c', 'd', '.vscode')).toBe(false);
    expect(refusedPaths(result)).toEqual(expect.arrayContaining(['/a/b/c/d/.vscode', '/a/b/c/d/.vscode/tasks.json']));
    expect(result.changes.refused.find((c) => c.path.endsWith('tasks.json')).code).toBe('HOST_TRUSTED');
    expect(read('a.txt')).toBe('two\n');
    expect(read('b.txt')).toBe('new\n');
    expect(result.stderr).toContain('/workspace/a/b/c/d/.vscode (');
    expect(result.enforcement.changes).toBe('apply');
    expect(result.enforcement.layers).toContain('copy-on-write');
  });

  withGit('an existing nested repository keeps its config and hooks', async () => {
    const nested = path.join(root, 'vendor', 'lib');
    fs.mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    const gitDir = path.join(nested, '.git');
    const before = snapshotTree(gitDir, { contents: true });
    const result = await sh(createMountSandbox({ root }),
      'printf "[core]\\n\\tfsmonitor = /tmp/evil\\n" >> vendor/lib/.git/config && ' +
      'printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > vendor/lib/.git/hooks/pre-commit && chmod +x vendor/lib/.git/hooks/pre-commit && echo ok > c.txt');
    expect(result.exitCode).toBe(0);
    expect(snapshotTree(gitDir, { contents: true })).toEqual(before);
    expect(refusedPaths(result)).toEqual(expect.arrayContaining(['/vendor/lib/.git/config', '/vendor/lib/.git/hooks/pre-commit']));
    expect(read('c.txt')).toBe('ok\n');
  });

  withGit('a voided HEAD and a repository built at the top of the source are refused', async () => {
    git(root, 'init', '-q');
    const head = read('.git', 'HEAD');
    const result = await sh(createMountSandbox({ root }),
      'echo garbage > .git/HEAD; echo "ref: refs/heads/main" > HEAD && mkdir -p objects refs && ' +
      'printf "[core]\\n\\tfsmonitor = /tmp/evil\\n" > config; echo fine > d.txt');
    expect(result.exitCode).toBe(0);
    expect(read('.git', 'HEAD')).toBe(head);
    // The layout is never complete on the host: HEAD, objects and refs do not all land.
    const complete = ['HEAD', 'objects', 'refs'].every((n) => exists(n));
    expect(complete).toBe(false);
    expect(result.changes.refused.some((c) => c.path === '/.git/HEAD' && c.code === 'HOST_TRUSTED')).toBe(true);
    expect(read('d.txt')).toBe('fine\n');
  });

  layered('a write through a hard link never reaches the file outside', async () => {
    const outside = path.join(base, 'outside.txt');
    fs.writeFileSync(outside, 'secret\n');
    fs.linkSync(outside, path.join(root, 'linked.txt'));
    const result = await sh(createMountSandbox({ root }), 'echo changed > linked.txt; echo x >> a.txt');
    expect(result.exitCode).toBe(0);
    expect(fs.readFileSync(outside, 'utf8')).toBe('secret\n');
    expect(read('a.txt')).toBe('one\nx\n');
    // The name inside gets the new contents as a file of its own, as a write() would give it.
    expect(read('linked.txt')).toBe('changed\n');
    expect(fs.statSync(outside).nlink).toBe(1);
  });

  layered('suffix and size policies bind commands as they bind write()', async () => {
    const sb = createMountSandbox({ root, deniedSuffixes: ['.pem'], maxFileBytes: 1000 });
    const result = await sh(sb, 'echo key > id.pem; head -c 5000 /dev/zero > big.bin; echo small > ok.txt');
    expect(result.exitCode).toBe(0);
    expect(exists('id.pem')).toBe(false);
    expect(exists('big.bin')).toBe(false);
    expect(read('ok.txt')).toBe('small\n');
    const codes = Object.fromEntries(result.changes.refused.map((c) => [c.path, c.code]));
    expect(codes).toEqual({ '/id.pem': 'SUFFIX_NOT_ALLOWED', '/big.bin': 'TOO_LARGE' });
  });

  layered('a blocked zone takes nothing; an ask zone with holdAsk waits until applied', async () => {
    fs.mkdirSync(path.join(root, 'locked'));
    fs.mkdirSync(path.join(root, 'asked'));
    const sb = createMountSandbox({
      root,
      approval: { write: 'preApproved', delete: 'preApproved' },
      mounts: [
        { source: path.join(root, 'locked'), target: '/locked', approval: { write: 'blocked', delete: 'blocked' } },
        { source: path.join(root, 'asked'), target: '/asked', approval: { write: 'ask', delete: 'ask' } },
      ],
    });
    const result = await sh(sb, 'echo no > locked/x; echo later > asked/y; echo now > z.txt', { holdAsk: true });
    expect(result.exitCode).toBe(0);
    // A place no change may reach is read-only for the command itself: it learns at once.
    expect(result.stderr).toMatch(/locked\/x: Read-only file system/);
    expect(exists('locked', 'x')).toBe(false);
    expect(result.changes.refused).toEqual([]);
    expect(exists('asked', 'y')).toBe(false);
    expect(result.changes.pending.map((c) => [c.path, c.approval])).toEqual([['/asked/y', 'ask']]);
    expect(read('z.txt')).toBe('now\n');
    const applied = await result.changes.apply();
    expect(applied.applied.map((c) => c.path)).toEqual(['/asked/y']);
    expect(read('asked', 'y')).toBe('later\n');
  });

  layered('a file the host changed during the run is a conflict, never overwritten', async () => {
    const sb = createMountSandbox({ root });
    const running = sh(sb, 'sleep 1; echo mine > a.txt; echo other > e.txt');
    await sleep(300);
    fs.writeFileSync(path.join(root, 'a.txt'), 'theirs\n');
    const result = await running;
    expect(result.exitCode).toBe(0);
    expect(read('a.txt')).toBe('theirs\n');
    expect(result.changes.conflicts.map((c) => [c.path, c.code])).toEqual([['/a.txt', 'CONFLICT']]);
    expect(read('e.txt')).toBe('other\n');
    expect(result.stderr).toContain('CONFLICT');
  });
});

describe('review', () => {
  layered('nothing lands until apply(); apply(filter) lands only what it keeps', async () => {
    const sb = createMountSandbox({ root });
    const before = snapshotTree(root, { contents: true });
    const result = await sh(sb, 'echo two > a.txt; echo b > b.txt; mkdir d; echo c > d/c.txt', { changes: 'review' });
    expect(snapshotTree(root, { contents: true })).toEqual(before);
    expect(result.changes.mode).toBe('review');
    expect(result.changes.pending.map((c) => c.path).sort()).toEqual(['/a.txt', '/b.txt', '/d', '/d/c.txt']);
    expect(result.stderr).toContain('wait for the user');
    const first = await result.changes.apply(['/b.txt']);
    expect(first.applied.map((c) => c.path)).toEqual(['/b.txt']);
    expect(read('a.txt')).toBe('one\n');
    expect(read('b.txt')).toBe('b\n');
    const rest = await result.changes.apply();
    expect(rest.applied.map((c) => c.path).sort()).toEqual(['/a.txt', '/d', '/d/c.txt']);
    expect(read('d', 'c.txt')).toBe('c\n');
    await expect(result.changes.apply()).rejects.toThrow(/applied or discarded already/);
  });

  layered('diff() shows a held change as a unified diff; each change names the version it replaces', async () => {
    fs.writeFileSync(path.join(root, 'poem.txt'), 'one\ntwo\nthree\n');
    const version = (await createMountSandbox({ root }).stat('/poem.txt')).version;
    const result = await sh(createMountSandbox({ root }),
      'sed -i s/two/TWO/ poem.txt; rm a.txt; printf "\\000bin" > b.bin; ln -s poem.txt l', { changes: 'review' });
    const poem = result.changes.pending.find((c) => c.path === '/poem.txt');
    expect(poem.replaces).toBe(version);
    expect(result.changes.pending.find((c) => c.path === '/b.bin').replaces).toBe(null);
    expect(await result.changes.diff('/poem.txt')).toBe(
      '===================================================================\n--- a/poem.txt\n+++ b/poem.txt\n' +
      '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n');
    expect(await result.changes.diff('/a.txt')).toContain('--- a/a.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-one\n');
    expect(await result.changes.diff('/b.bin')).toBe('Binary files a/b.bin and b/b.bin differ\n');
    expect(await result.changes.diff('/l')).toBe('');
    await expect(result.changes.diff('/elsewhere.txt')).rejects.toThrow(TypeError);
    await result.changes.discard();
    await expect(result.changes.diff('/poem.txt')).rejects.toThrow(/nothing of this change set is held/);
  });

  layered('discard() leaves the host as it was, for good, and removes the held layer', async () => {
    const sb = createMountSandbox({ root });
    const before = snapshotTree(root, { contents: true });
    const result = await sh(sb, 'rm a.txt; echo b > b.txt', { changes: 'review' });
    await result.changes.discard();
    expect(snapshotTree(root, { contents: true })).toEqual(before);
    await expect(result.changes.apply()).rejects.toThrow(/applied or discarded already/);
  });

  layered('a refused change is listed in review too, and apply() does not land it', async () => {
    const result = await sh(createMountSandbox({ root }), 'mkdir .vscode; echo {} > .vscode/tasks.json', { changes: 'review' });
    expect(refusedPaths(result)).toEqual(['/.vscode', '/.vscode/tasks.json']);
    await result.changes.apply();
    expect(exists('.vscode')).toBe(false);
  });
});

describe('what commands do every day works and lands', () => {
  withGit('git init, commit, branch, checkout and rebase', async () => {
    const result = await sh(createMountSandbox({ root }),
      'git init -q repo && cd repo && echo 1 > f && git add f && git commit -qm one && git checkout -qb topic && ' +
      'echo 2 > g && git add g && git commit -qm two && git checkout -q - && echo 3 > h && git add h && git commit -qm three && ' +
      'git checkout -q topic && git rebase -q - && git log --format=%s', { env: GIT_ENV });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('two\nthree\none\n');
    const repo = path.join(root, 'repo');
    expect(git(repo, 'log', '--format=%s')).toBe('two\nthree\none\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // What git init writes that a host git would run is refused, and the note names it once: a
    // refused directory stands for what it holds.
    expect(refusedPaths(result)).toEqual(expect.arrayContaining(['/repo/.git/config', '/repo/.git/hooks']));
    expect(result.stderr).toContain('/workspace/repo/.git/hooks (');
    expect(result.stderr).not.toContain('pre-commit.sample');
  });

  layered('tar x, mv of directories, sed -i and an editor\'s write-then-rename', async () => {
    fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'deep', 'm.js'), 'let a = 1;\n');
    const result = await sh(createMountSandbox({ root }),
      'tar cf /tmp/t.tar src && mkdir out && tar xf /tmp/t.tar -C out && mv src lib && sed -i s/1/2/ lib/deep/m.js && ' +
      'echo edited > .a.txt.swp && mv .a.txt.swp a.txt');
    expect(result.exitCode).toBe(0);
    expect(exists('src')).toBe(false);
    expect(read('lib', 'deep', 'm.js')).toBe('let a = 2;\n');
    expect(read('out', 'src', 'deep', 'm.js')).toBe('let a = 1;\n');
    expect(read('a.txt')).toBe('edited\n');
    expect(result.changes.refused).toEqual([]);
  });

  layered('npm install from a local tarball lands node_modules, package.json and the lockfile', async () => {
    const pkg = path.join(base, 'tiny');
    fs.mkdirSync(pkg);
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0', main: 'index.js' }));
    fs.writeFileSync(path.join(pkg, 'index.js'), 'module.exports = 42;\n');
    const packed = spawnSync('npm', ['pack', '--pack-destination', root], { cwd: pkg, encoding: 'utf8' });
    expect(packed.status).toBe(0);
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
    const result = await sh(createMountSandbox({ root }),
      'npm install --offline --no-audit --no-fund --ignore-scripts ./tiny-1.0.0.tgz', { env: { npm_config_cache: '/tmp/npm-cache' }, timeoutMs: 120_000 });
    expect(result.exitCode).toBe(0);
    expect(read('node_modules', 'tiny', 'index.js')).toBe('module.exports = 42;\n');
    expect(JSON.parse(read('package.json')).dependencies.tiny).toBe('file:tiny-1.0.0.tgz');
    expect(exists('package-lock.json')).toBe(true);
    expect(result.changes.refused).toEqual([]);
  });

  layered('a directory removed and made again holds only what the command put there', async () => {
    fs.mkdirSync(path.join(root, 'dist', 'old'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'stale.js'), 'stale');
    fs.writeFileSync(path.join(root, 'dist', 'old', 'x.js'), 'x');
    const result = await sh(createMountSandbox({ root }), 'rm -rf dist && mkdir dist && echo fresh > dist/app.js');
    expect(result.exitCode).toBe(0);
    expect(fs.readdirSync(path.join(root, 'dist'))).toEqual(['app.js']);
    expect(read('dist', 'app.js')).toBe('fresh\n');
  });

  layered('a build writing thousands of files lands them all, by rename', async () => {
    const result = await sh(createMountSandbox({ root }),
      'mkdir -p dist && i=0; while [ $i -lt 3000 ]; do echo $i > dist/f$i.js; i=$((i+1)); done');
    expect(result.exitCode).toBe(0);
    expect(fs.readdirSync(path.join(root, 'dist'))).toHaveLength(3000);
    expect(read('dist', 'f2999.js')).toBe('2999\n');
    expect(result.changes.applied).toHaveLength(3001);
  });

  layered('modes, symlinks and removals land as the command left them; no set-id bit is made', async () => {
    fs.writeFileSync(path.join(root, 'gone.txt'), 'x');
    const result = await sh(createMountSandbox({ root }),
      'echo "#!/bin/sh" > run.sh && ! chmod 4755 run.sh 2>/dev/null && chmod 755 run.sh && ln -s a.txt alias && rm gone.txt && mkdir -m 700 private');
    expect(result.exitCode).toBe(0);
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o7777).toBe(0o755);
    expect(fs.readlinkSync(path.join(root, 'alias'))).toBe('a.txt');
    expect(exists('gone.txt')).toBe(false);
    expect(fs.statSync(path.join(root, 'private')).mode & 0o777).toBe(0o700);
  });
});

describe('the mode a sandbox declares', () => {
  layered('createMountSandbox({ changes: "review" }) holds every command\'s changes; derived views keep it', async () => {
    const sb = createMountSandbox({ root, changes: 'review' });
    const result = await sh(sb.restrict({ restrict: '/' }), 'echo two > a.txt');
    expect(read('a.txt')).toBe('one\n');
    expect(result.changes.mode).toBe('review');
    expect(result.enforcement.changes).toBe('review');
    await result.changes.discard();
    // The call's own option wins.
    const applied = await sh(sb, 'echo three > a.txt', { changes: 'apply' });
    expect(applied.changes.mode).toBe('apply');
    expect(read('a.txt')).toBe('three\n');
  });

  layered('a program config\'s sandbox.changes is the default of the sandbox made from it', async () => {
    fs.writeFileSync(path.join(root, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n  changes: review\n');
    const sb = await createSandboxFromConfig(await findProgramConfig(root));
    const result = await sh(sb, 'echo two > a.txt');
    expect(result.changes.mode).toBe('review');
    expect(read('a.txt')).toBe('one\n');
    await result.changes.discard();
  });

  test('a mode that does not exist is a config error, in a file and in createMountSandbox', async () => {
    expect(() => createMountSandbox({ root, changes: 'later' })).toThrow(SandboxConfigError);
    fs.writeFileSync(path.join(root, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n  changes: later\n');
    await expect(findProgramConfig(root)).rejects.toThrow(/sandbox\.changes: expected one of apply, review, direct/);
  });
});

describe('the CLI', () => {
  const bin = path.join(__dirname, '..', 'bin', 'mount-sandbox.js');
  const cli = (args) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8' });

  layered('exec --changes review prints the changes and lands nothing; with --apply it lands them', () => {
    fs.writeFileSync(path.join(root, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    const held = cli(['exec', '--changes', 'review', '--', 'sh', '-c', 'echo two > a.txt; mkdir .vscode']);
    expect(held.status).toBe(0);
    expect(held.stderr).toContain('[mount-sandbox] held file /a.txt');
    expect(held.stderr).toContain('[mount-sandbox] refused directory /.vscode: Cannot change a file the host trusts');
    expect(read('a.txt')).toBe('one\n');
    const landed = cli(['exec', '--changes', 'review', '--apply', '--', 'sh', '-c', 'echo two > a.txt']);
    expect(landed.stderr).toContain('[mount-sandbox] applied: 1 change(s) landed');
    expect(read('a.txt')).toBe('two\n');
    const json = JSON.parse(cli(['exec', '--json', '--', 'sh', '-c', 'echo three > a.txt']).stdout);
    expect(json.changes).toMatchObject({ mode: 'apply', applied: [{ path: '/a.txt', kind: 'file' }], refused: [] });
    expect(cli(['exec', '--apply', '--', 'true']).status).toBe(2);
  });
});

describe('direct and fallback', () => {
  layered('changes: "direct" writes to the host while the command runs, as before', async () => {
    const result = await sh(createMountSandbox({ root }), 'echo direct > a.txt', { changes: 'direct' });
    expect(read('a.txt')).toBe('direct\n');
    expect(result.changes).toBe(null);
    expect(result.enforcement.changes).toBe('direct');
    expect(result.enforcement.layers).not.toContain('copy-on-write');
  });

  layered('an aborted command lands nothing', async () => {
    const controller = new AbortController();
    const running = sh(createMountSandbox({ root }), 'echo gone > a.txt; sleep 5', { signal: controller.signal });
    await sleep(500);
    controller.abort();
    await expect(running).rejects.toThrow(/cancelled/);
    expect(read('a.txt')).toBe('one\n');
  });

  layered('a sandbox with nothing writable runs with no layer and an empty change set', async () => {
    const result = await sh(createMountSandbox({ root, readonly: true }), 'cat a.txt; echo x > b.txt');
    expect(result.stdout).toBe('one\n');
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(result.changes).toMatchObject({ mode: 'apply', applied: [], refused: [], pending: [] });
    expect(result.enforcement.layers).not.toContain('copy-on-write');
  });

  test('an unknown changes mode is a TypeError before anything runs', async () => {
    await expect(sh(createMountSandbox({ root }), 'true', { changes: 'sometimes' })).rejects.toThrow(TypeError);
  });
});
