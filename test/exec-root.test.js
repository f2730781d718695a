'use strict';

// sandbox.exec's own root for the command, and what the command can plant there for the
// next run.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { createMountSandbox, SandboxError, ExecError } = require('../lib');
const { snapshotTree, write } = require('./helpers');
const {
  PERL, q, SYSTEM_READ, launcherPolicy, launchSync, run, needs, needsPerl, NODE_OPTIONS, nodeScript,
  useExecFixture,
} = require('./exec-helpers');

let base, root, outside, data, sandbox; // set before each test
useExecFixture((fixture) => ({ base, root, outside, data, sandbox } = fixture));

describe('what the command can plant for later', () => {
  // A set-id bit lives on disk: nosuid mounts only stop it working inside. As root (or as you,
  // for your own uid), a command could leave a program that a later host user runs with its
  // owner's privileges, so no call may set the bits at all.
  needs('seccomp')('[seccomp] no call leaves a set-user-id or set-group-id file behind', async () => {
    const script = `
      const fs = require('fs');
      const attempt = (name, f) => { try { f(); console.log(name + ': done'); } catch (e) { console.log(name + ': ' + e.code); } };
      fs.writeFileSync('chmod-suid', 'x');
      attempt('chmod', () => fs.chmodSync('chmod-suid', 0o4755));
      fs.writeFileSync('chmod-sgid', 'x');
      attempt('fchmod', () => { const fd = fs.openSync('chmod-sgid', 'r'); try { fs.fchmodSync(fd, 0o2755); } finally { fs.closeSync(fd); } });
      attempt('create', () => fs.closeSync(fs.openSync('created', 'wx', 0o6755)));
      fs.writeFileSync('plain', 'x');
      attempt('plain chmod', () => fs.chmodSync('plain', 0o700));`;
    const result = await run(sandbox, nodeScript(script), NODE_OPTIONS);
    const shell = await run(sandbox, ['sh', '-c', 'echo x > by-sh; chmod u+s,g+s by-sh']);
    expect(result.stdout).toBe('chmod: EPERM\nfchmod: EPERM\ncreate: EPERM\nplain chmod: done\n');
    expect(shell.exitCode).not.toBe(0);
    for (const name of ['chmod-suid', 'chmod-sgid', 'created', 'by-sh']) {
      const file = path.join(root, name);
      if (fs.existsSync(file)) expect(fs.statSync(file).mode & 0o6000).toBe(0);
    }
    expect(fs.statSync(path.join(root, 'plain')).mode & 0o777).toBe(0o700);
    expect(fs.existsSync(path.join(root, 'created'))).toBe(false);
  });

  needsPerl('seccomp')('[seccomp] perl sysopen with a set-id mode and perl chmod are refused too', async () => {
    const script = 'use Fcntl; my $ok = sysopen(my $f, "p-created", O_CREAT | O_WRONLY, 04755); print $ok ? "created\\n" : "refused: $!\\n"; ' +
      'open(my $g, ">", "p-plain") or die; close $g; print chmod(02755, "p-plain") ? "chmod\\n" : "chmod refused\\n"';
    const result = await run(sandbox, [PERL, '-e', script]);
    expect(result.stdout).toBe('refused: Operation not permitted\nchmod refused\n');
    expect(fs.statSync(path.join(root, 'p-plain')).mode & 0o6000).toBe(0);
  });
});

describe('what the command can plant for later: moving what the next run trusts', () => {
  // A read-only source inside the writable root: the command renames a directory above it and
  // recreates the source with its own content, which the next run would mount read-only as if it
  // were the original (and a later child sandbox would trust).
  for (const changes of ['direct', 'apply']) {
    needs('private-root')(`[private-root] a directory between the writable root and a nested read-only source cannot be renamed and replaced (changes: ${changes})`, async () => {
      const lib = path.join(root, 'vendor', 'pkg', 'lib');
      write(path.join(lib, 'trusted.js'), 'original');
      const config = { root, mounts: [{ source: lib, target: '/lib', readonly: true }] };
      const before = snapshotTree(lib, { contents: true });
      const result = await run(createMountSandbox(config), ['sh', '-c',
        'mv vendor moved; mv vendor/pkg vendor/pkg2; mv vendor/pkg/lib vendor/pkg/lib2; ' +
          'mkdir -p vendor/pkg/lib && echo planted > vendor/pkg/lib/trusted.js; echo done'], { changes });
      expect(result.stdout).toBe('done\n');
      if (changes === 'direct') {
        expect(result.stderr).toMatch(/busy/i);
        expect(fs.existsSync(path.join(root, 'moved'))).toBe(false);
      } else {
        // On a layer a directory from the project does not rename (EXDEV): mv copies it and cannot
        // remove the read-only source (bound read-only there too); nothing under it lands.
        expect(result.changes.applied.filter((c) => c.path.startsWith('/vendor/pkg/lib'))).toEqual([]);
      }
      expect(snapshotTree(lib, { contents: true })).toEqual(before);
      // The next run reads what the first one had.
      const next = await run(createMountSandbox(config), ['cat', '/workspace/lib/trusted.js']);
      expect(next.stdout).toBe('original');
    });
  }
});

describe('[private-root] the command\'s own root', () => {
  needs('private-root')('[private-root] a system path that is a symlink stays one where it lands in the root, else its file is bound (/etc/resolv.conf -> /run/...)', () => {
    const toUsr = path.join(base, 'to-usr');
    const resolv = path.join(base, 'resolv.conf');
    fs.symlinkSync('/usr/bin/env', toUsr);
    write(path.join(base, 'run', 'stub-resolv.conf'), 'nameserver 192.0.2.1\n');
    fs.symlinkSync(path.join(base, 'run', 'stub-resolv.conf'), resolv);
    const placed = (p) => ({ path: p, access: 'read', target: p });
    const script = `readlink ${q(toUsr)}; cat ${q(resolv)}; readlink ${q(resolv)} || echo not-a-link; ls ${q(path.join(base, 'run'))}`;
    const run = launchSync(launcherPolicy(['sh', '-c', script], { paths: [...SYSTEM_READ, placed(toUsr), placed(resolv)] }));
    expect(run.stdout).toBe('/usr/bin/env\nnameserver 192.0.2.1\nnot-a-link\n');
    expect(run.stderr).toMatch(/No such file or directory/); // the link's directory is not there
  });

  needs('private-root')('[private-root] the sandbox is at /workspace: absolute and relative paths work, pwd shows no host path', async () => {
    write(path.join(root, 'src', 'app.ts'), 'app');
    const result = await run(sandbox, ['sh', '-c', 'pwd; cat /workspace/src/app.ts; echo; cat app.ts; echo; cat /workspace/ro/ro.txt; echo; ls -la /workspace; echo made > /workspace/data/made.txt'], { cwd: '/src' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').slice(0, 4)).toEqual(['/workspace/src', 'app', 'app', 'read-only content']);
    expect(result.stdout).not.toContain(base);
    expect(result.view).toEqual({ workspace: '/workspace', cwd: '/workspace/src' });
    expect(fs.readFileSync(path.join(data, 'made.txt'), 'utf8')).toBe('made\n');
  });

  needs('private-root')('[private-root] workspace moves the sandbox elsewhere; a workspace over the root\'s own places is refused', async () => {
    const result = await run(sandbox, ['sh', '-c', 'pwd; cat /project/inside.txt'], { workspace: '/project' });
    expect(result.stdout).toBe('/project\ninside');
    expect(result.view).toEqual({ workspace: '/project', cwd: '/project' });
    for (const workspace of ['/', '/usr/src', '/tmp', '/proc/x', 'relative', '/a/../b', '/w/']) {
      const err = await run(sandbox, ['true'], { workspace }).catch((e) => e);
      expect([workspace, err.constructor]).toEqual([workspace, TypeError]);
    }
    const clash = await run(sandbox, ['true'], { hostReadPaths: ['/workspace/x'] }).catch((e) => e);
    expect(clash).toBeInstanceOf(TypeError);
  });

  needs('private-root')('[private-root] the guiding note names the paths the command sees, never host paths', async () => {
    const result = await run(sandbox, ['sh', '-c', 'echo x > /workspace/ro/ro.txt'], { cwd: '/data' });
    const note = result.stderr.split('\n').find((line) => line.startsWith('Note:'));
    expect(note).toBe('Note: /workspace/ro/ro.txt is read-only in this sandbox: it lies under /workspace/ro (../ro from the working directory), which commands cannot change. Write elsewhere: to /workspace (.. from the working directory), /workspace/data (. from the working directory) or /tmp.');
    expect(result.stderr).not.toContain(base);
  });

  needs('private-root')('[private-root] a mount target missing from the writable root is created there; from a read-only root the mount is refused with the virtual path', async () => {
    const extra = path.join(base, 'extra');
    write(path.join(extra, 'e.txt'), 'extra');
    const made = createMountSandbox({ root, mounts: [{ source: extra, target: '/deep/er/extra', readonly: true }] });
    // Made on the host with direct writes, as Docker makes bind targets; on a copy-on-write layer
    // it is the layer's, and nothing of it lands (a mount point is no change).
    const result = await run(made, ['cat', '/workspace/deep/er/extra/e.txt'], { changes: 'direct' });
    expect(result.stdout).toBe('extra');
    expect(fs.statSync(path.join(root, 'deep', 'er', 'extra')).isDirectory()).toBe(true);
    fs.rmSync(path.join(root, 'deep'), { recursive: true });
    const layered = await run(made, ['cat', '/workspace/deep/er/extra/e.txt']);
    expect(layered.stdout).toBe('extra');
    expect(fs.existsSync(path.join(root, 'deep'))).toBe(layered.changes === null);
    const rootBefore = snapshotTree(root);
    const refused = createMountSandbox({ root, readonly: true, mounts: [{ source: extra, target: '/elsewhere', readonly: true }] });
    const err = await run(refused, ['true']).catch((e) => e);
    expect(err).toBeInstanceOf(ExecError);
    expect(err.message).toContain('/elsewhere');
    expect(err.message).not.toContain(base);
    expect(snapshotTree(root)).toEqual(rootBefore);
  });

  needs('private-root')('[private-root] a planted symlink where a mount target will be made is not followed', async () => {
    const extra = path.join(base, 'extra');
    write(path.join(extra, 'e.txt'), 'extra');
    fs.symlinkSync(outside, path.join(root, 'deep')); // what an earlier command could leave
    const made = createMountSandbox({ root, mounts: [{ source: extra, target: '/deep/extra', readonly: true }] });
    const err = await run(made, ['true']).catch((e) => e);
    expect(err).toBeInstanceOf(ExecError);
    expect(err.message).not.toContain(base);
    expect(fs.existsSync(path.join(outside, 'extra'))).toBe(false);
  });

  // Another command of the same sandbox swaps the working directory for a symlink to the outside
  // while this one starts: a launcher entering it by name would land there.
  needs('private-root')('[private-root] a working directory swapped for a symlink while the command starts is never entered', async () => {
    const dir = path.join(root, 'dir');
    const swapper = spawn('sh', ['-c', `cd ${q(root)}; mkdir -p real; i=0; while [ $i -lt 4000 ]; do ` +
      `rm -rf dir; mkdir dir; rm -rf dir; ln -s ${q(outside)} dir; i=$((i+1)); done`], { stdio: 'ignore' });
    const outcomes = new Set();
    try {
      for (let i = 0; i < 30; i++) {
        const result = await run(sandbox, ['sh', '-c', 'pwd -P; ls'], { cwd: '/dir' }).then((r) => r, (e) => e);
        if (result instanceof Error) {
          outcomes.add(result.constructor.name);
          expect(result).toBeInstanceOf(SandboxError);
          continue;
        }
        outcomes.add('ran');
        expect(result.stdout).not.toContain('existing.txt');
        expect(result.stdout).not.toContain(base);
      }
    } finally {
      swapper.kill('SIGKILL');
      await new Promise((resolve) => swapper.on('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});
