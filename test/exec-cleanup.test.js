'use strict';

// Issue 20, points 3 and 7: what a command leaves behind.
// (3) Names the next run trusts that do not exist yet (a worker directory, a config name) cannot
// be bound read-only: what a command creates there is removed when it ends, and reported
// (result.removedAfterRun, a note to the model), never following a link it planted.
// (7) Cleanup as an unprivileged user: modes of 000 left in the private /tmp (or at a removed
// name) never lose the result nor leave the temp directory on disk. These fail only
// unprivileged (root ignores modes): CI runs this suite as root and as nobody.
const fs = require('fs');
const os = require('os');
const path = require('path');
const ms = require('../lib');
const { makeTempDir, removeDir, snapshotTree, write } = require('./helpers');
const { runDirect: run, needs } = require('./exec-helpers');

let base;
beforeEach(() => {
  base = makeTempDir('msb-cleanup-');
});
afterEach(() => {
  // What a failed test left with mode 000 must not fail the removal.
  chmodTree(base);
  removeDir(base);
});

function chmodTree(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (!entry.isDirectory()) continue;
    fs.chmodSync(full, 0o700);
    chmodTree(full);
  }
}

const notes = (stderr) => stderr.split('\n').filter((line) => line.startsWith('Note:'));
const exists = (p) => fs.promises.lstat(p).then(() => true, () => false);

// A project whose sandbox may write its whole directory; no worker directory exists yet.
async function project(name = 'golem-forge.config.json', text = '{"sandbox": {"root": "."}}\n') {
  const proj = path.join(base, 'proj');
  write(path.join(proj, name), text);
  write(path.join(proj, 'src', 'app.ts'), 'export {};\n');
  const config = await ms.findProgramConfig(proj);
  return { proj, config, sandbox: await ms.createSandboxFromConfig(config) };
}

// What a planted worker holds does not matter here: that it stays is the attack.
const EVIL_WORKER = 'name: evil';

describe('[cleanup] names the next run trusts that did not exist', () => {
  needs('pid-namespace')('a worker directory created by a command is removed and reported', async () => {
    const { proj, sandbox } = await project();
    const result = await run(sandbox, ['sh', '-c',
      `mkdir -p .workers workers/deep && echo '${EVIL_WORKER}' > .workers/evil.worker && ` +
        `echo '${EVIL_WORKER}' > workers/deep/evil.worker && echo kept > src/made.txt`]);
    expect(result.exitCode).toBe(0);
    expect(await exists(path.join(proj, '.workers'))).toBe(false);
    expect(await exists(path.join(proj, 'workers'))).toBe(false);
    expect(fs.readFileSync(path.join(proj, 'src', 'made.txt'), 'utf8')).toBe('kept\n');
    expect(result.removedAfterRun).toEqual(['/workers', '/.workers']);
    expect(notes(result.stderr)).toEqual([
      'Note: the command created /workspace/workers and /workspace/.workers, which the next run would trust; they were removed after it ended.',
    ]);
    expect(result.stderr).not.toContain(base);
  });

  needs('pid-namespace')('a symlink planted as the worker directory is removed itself, not what it leads to', async () => {
    const { proj, sandbox } = await project();
    write(path.join(proj, 'elsewhere', 'evil.worker'), 'x');
    const result = await run(sandbox, ['sh', '-c', 'ln -s elsewhere workers && ln -s /workspace/elsewhere .workers']);
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual(['/workers', '/.workers']);
    expect(await exists(path.join(proj, 'workers'))).toBe(false);
    expect(fs.readFileSync(path.join(proj, 'elsewhere', 'evil.worker'), 'utf8')).toBe('x');
  });

  needs('pid-namespace')('a symlink on the way to a deeper worker directory is removed itself', async () => {
    const { proj, sandbox } = await project('golem-forge.config.yaml', 'workerPaths: ["agents/workers"]\nsandbox:\n  root: .\n');
    write(path.join(proj, 'elsewhere', 'workers', 'evil.worker'), 'x');
    const result = await run(sandbox, ['sh', '-c', 'ln -s elsewhere agents']);
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual(['/agents']);
    expect(await exists(path.join(proj, 'agents'))).toBe(false);
    expect(fs.readFileSync(path.join(proj, 'elsewhere', 'workers', 'evil.worker'), 'utf8')).toBe('x');
  });

  needs('pid-namespace')('a worker directory that is a dangling link: what the command creates where it leads is removed', async () => {
    const { proj, sandbox } = await project();
    fs.symlinkSync('gen/workers', path.join(proj, '.workers')); // the user's, leading nowhere yet
    const result = await run(sandbox, ['sh', '-c', 'mkdir -p gen/workers && echo x > gen/workers/evil.worker && echo kept > gen/out.txt']);
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual(['/gen/workers']);
    expect(fs.readlinkSync(path.join(proj, '.workers'))).toBe('gen/workers');
    expect(fs.existsSync(path.join(proj, '.workers'))).toBe(false);
    expect(fs.readFileSync(path.join(proj, 'gen', 'out.txt'), 'utf8')).toBe('kept\n');
  });

  needs('pid-namespace')('a mode-000 worker directory holding a mode-000 directory with files is removed', async () => {
    const { proj, sandbox } = await project();
    const result = await run(sandbox, ['sh', '-c',
      `mkdir -p .workers/d/e && echo '${EVIL_WORKER}' > .workers/d/evil.worker && mkfifo .workers/d/fifo && ` +
        'chmod 000 .workers/d/evil.worker .workers/d/e .workers/d .workers']);
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual(['/.workers']);
    expect(result.cleanupFailed).toEqual([]);
    expect(await exists(path.join(proj, '.workers'))).toBe(false);
  });

  needs('pid-namespace')('config names created in the config\'s directory and above are removed', async () => {
    // The config lies in app/, its sandbox's root one level up: a config planted at the root is
    // what discovery finds first from anywhere else in the project.
    const proj = path.join(base, 'proj');
    write(path.join(proj, 'app', 'golem-forge.config.json'), '{"sandbox": {"root": ".."}}\n');
    fs.mkdirSync(path.join(proj, 'src'));
    const sandbox = await ms.createSandboxFromConfig(await ms.findProgramConfig(path.join(proj, 'app')));
    const result = await run(sandbox, ['sh', '-c',
      'printf "sandbox:\\n  root: /\\n" > golem-forge.config.yaml && printf "{}" > app/golem-forge.config.yml && ' +
        'mkdir src/golem-forge.config.yml']);
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual(['/app/golem-forge.config.yml', '/golem-forge.config.yaml']);
    expect(await exists(path.join(proj, 'golem-forge.config.yaml'))).toBe(false);
    expect(await exists(path.join(proj, 'app', 'golem-forge.config.yml'))).toBe(false);
    // The next discovery from elsewhere in the project finds no planted config.
    expect(await ms.findProgramConfig(path.join(proj, 'src'))).toBe(null);
    expect((await ms.findProgramConfig(path.join(proj, 'app'))).file).toBe(path.join(proj, 'app', 'golem-forge.config.json'));
  });

  needs('pid-namespace')('a project reached through a symbolic link: names are matched by real path', async () => {
    const { proj } = await project();
    const link = path.join(base, 'link');
    fs.symlinkSync(proj, link);
    const sandbox = await ms.createSandboxFromConfig(await ms.findProgramConfig(link));
    const result = await run(sandbox, ['sh', '-c', 'mkdir .workers && echo x > .workers/evil.worker']);
    expect(result.removedAfterRun).toEqual(['/.workers']);
    expect(await exists(path.join(proj, '.workers'))).toBe(false);
  });

  needs('pid-namespace')('narrowed views (restrict, a worker) keep the names', async () => {
    const { proj, sandbox } = await project();
    const narrowed = ms.sandboxForWorker(sandbox.restrict({ approval: { write: 'preApproved' } }),
      ms.parseWorkerFile('---\nname: w\n---\nW.\n', path.join(base, 'w.worker')));
    const result = await run(narrowed, ['sh', '-c', `mkdir .workers && echo '${EVIL_WORKER}' > .workers/evil.worker`]);
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual(['/.workers']);
    expect(await exists(path.join(proj, '.workers'))).toBe(false);
  });

  needs('pid-namespace')('controls: a worker directory made before the run stays, read-only to the command', async () => {
    const { proj, sandbox } = await project();
    write(path.join(proj, '.workers', 'mine.worker'), '---\nname: mine\n---\nMine.\n');
    const result = await run(sandbox, ['sh', '-c', 'echo evil > .workers/evil.worker; echo ok']);
    expect(result.stdout).toBe('ok\n');
    expect(result.removedAfterRun).toEqual([]);
    expect(fs.readdirSync(path.join(proj, '.workers'))).toEqual(['mine.worker']);
    const quiet = await run(sandbox, ['true']);
    expect(quiet).toMatchObject({ exitCode: 0, stderr: '', removedAfterRun: [], cleanupFailed: [] });
  });

  needs('pid-namespace')('a plain sandbox reports nothing removed', async () => {
    const dir = path.join(base, 'plain');
    fs.mkdirSync(dir);
    const sandbox = ms.createMountSandbox({ root: dir });
    const result = await run(sandbox, ['sh', '-c', 'mkdir .workers && echo x > .workers/a.worker']);
    expect(result.removedAfterRun).toEqual([]);
    expect(await exists(path.join(dir, '.workers', 'a.worker'))).toBe(true);
  });
});

describe('[cleanup] the removal is confined to the mount\'s source', () => {
  // What a concurrent command of the same sandbox could do while a name is removed: swap a
  // directory on the way for a link to the user's files. The deletion must not reach them.
  needs('landlock-fs')('a link swapped in on the way never leads the deletion outside', async () => {
    const { removeConfined } = require('../lib/exec/exec');
    const area = path.join(base, 'area');
    const outside = path.join(base, 'outside');
    write(path.join(outside, 'workers', 'mine.worker'), 'mine');
    fs.mkdirSync(area);
    fs.symlinkSync(outside, path.join(area, 'agents'));
    const gone = await removeConfined(path.join(area, 'agents', 'workers'), area);
    expect(gone).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'workers', 'mine.worker'), 'utf8')).toBe('mine');
    // Inside the area it removes.
    write(path.join(area, 'real', 'workers', 'x.worker'), 'x');
    expect(await removeConfined(path.join(area, 'real', 'workers'), area)).toBe(true);
  });
});

describe('[cleanup] git names planted by a command', () => {
  needs('pid-namespace')('a planted commondir is reported in the sandbox\'s virtual paths', async () => {
    const dir = path.join(base, 'repo');
    fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
    const sandbox = ms.createMountSandbox({ root: dir });
    const result = await run(sandbox, ['sh', '-c', 'echo /elsewhere > .git/commondir']);
    expect(result.exitCode).toBe(0);
    expect(result.removedAfterRun).toEqual(['/.git/commondir']);
    expect(notes(result.stderr)).toEqual([
      'Note: the command created /workspace/.git/commondir, which the next run would trust; it was removed after it ended.',
    ]);
    expect(await exists(path.join(dir, '.git', 'commondir'))).toBe(false);
  });

  needs('pid-namespace')('a mode-000 directory planted as config.worktree never makes exec reject', async () => {
    const dir = path.join(base, 'repo');
    fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
    const sandbox = ms.createMountSandbox({ root: dir });
    const result = await run(sandbox, ['sh', '-c',
      'mkdir -p .git/config.worktree/d && echo x > .git/config.worktree/d/f && chmod 000 .git/config.worktree/d .git/config.worktree && echo done']);
    expect(result.stdout).toBe('done\n');
    // Removed where we may (root, or once git protection makes it removable), else reported.
    const gone = !(await exists(path.join(dir, '.git', 'config.worktree')));
    expect(gone ? result.removedAfterRun : result.cleanupFailed).toEqual(['/.git/config.worktree']);
    expect(JSON.stringify(result)).not.toContain(base);
  });
});

describe('[cleanup] the private /tmp as an unprivileged user', () => {
  let tmpRoot;
  beforeEach(() => {
    tmpRoot = path.join(base, 'tmproot');
    fs.mkdirSync(tmpRoot);
    jest.spyOn(os, 'tmpdir').mockReturnValue(tmpRoot); // where exec makes its temp directory
  });
  afterEach(() => jest.restoreAllMocks());

  const LEFTOVERS = {
    'nested mode-000 directories': 'mkdir -p /tmp/a/b/c && chmod 000 /tmp/a/b/c /tmp/a/b /tmp/a',
    'a mode-000 directory holding files': 'mkdir /tmp/d && echo 1 > /tmp/d/f && echo 2 > /tmp/d/g && chmod 000 /tmp/d/f /tmp/d',
    'a FIFO, in a mode-000 directory too': 'mkfifo /tmp/fifo && mkdir /tmp/e && mkfifo /tmp/e/fifo && chmod 000 /tmp/e',
    'a mode-000 directory under a mode-500 one': 'mkdir -p /tmp/r/z && chmod 000 /tmp/r/z && chmod 500 /tmp/r',
  };
  for (const [name, script] of Object.entries(LEFTOVERS)) {
    needs([])(`${name}: the result comes back and the temp directory is gone`, async () => {
      const dir = path.join(base, 'plain');
      fs.mkdirSync(dir);
      const sandbox = ms.createMountSandbox({ root: dir });
      const result = await run(sandbox, ['sh', '-c', `${script} && echo done`]);
      expect(result).toMatchObject({ stdout: 'done\n', exitCode: 0, cleanupFailed: [] });
      expect(fs.readdirSync(tmpRoot)).toEqual([]);
    });
  }

  // Without the namespace layer the temp directory is removed by a confined rm (a process of the
  // command may still run), after the same walk; names the next run trusts are left as they are.
  needs('landlock-fs')('without namespaces: mode-000 directories in $TMPDIR are removed, trusted names are not', async () => {
    const { proj, sandbox } = await project();
    const result = await sandbox.exec(['sh', '-c',
      'mkdir -p "$TMPDIR/a/b" && chmod 000 "$TMPDIR/a/b" "$TMPDIR/a" && mkdir .workers && echo x > .workers/evil.worker && echo done'],
    { namespaces: 'off', allowWeakerEnforcement: true });
    expect(result).toMatchObject({ stdout: 'done\n', removedAfterRun: [], cleanupFailed: [] });
    expect(result.enforcement.layers).not.toContain('pid-namespace');
    expect(fs.readdirSync(tmpRoot)).toEqual([]);
    expect(await exists(path.join(proj, '.workers', 'evil.worker'))).toBe(true);
  });

  needs([])('a link in /tmp to a directory outside is never followed when making things removable', async () => {
    const dir = path.join(base, 'plain');
    const keep = path.join(base, 'keep');
    write(path.join(keep, 'inner', 'file.txt'), 'kept');
    fs.chmodSync(path.join(keep, 'inner'), 0o500);
    fs.chmodSync(keep, 0o500);
    const before = snapshotTree(keep);
    fs.mkdirSync(dir);
    const sandbox = ms.createMountSandbox({ root: dir });
    // Relative, so that on the host it leads from the temp directory to `keep`.
    const result = await run(sandbox, ['sh', '-c', 'ln -s ../../keep /tmp/up && ln -s ../../keep/inner /tmp/in && mkdir /tmp/x && chmod 000 /tmp/x && echo done']);
    expect(result.stdout).toBe('done\n');
    expect(fs.statSync(keep).mode & 0o777).toBe(0o500);
    expect(fs.statSync(path.join(keep, 'inner')).mode & 0o777).toBe(0o500);
    expect(snapshotTree(keep)).toEqual(before);
    expect(fs.readdirSync(tmpRoot)).toEqual([]);
  });
});
