'use strict';

// sandbox.exec against the files outside what it grants: reading, writing, the read-only
// flag of mounts, restricted child sandboxes, and what the second review found.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { createMountSandbox } = require('../lib');
const { snapshotTree, write } = require('./helpers');
const {
  SECRET, PERL, q, sleep, VIEW, seen, EXEC_DEFAULTS, run, skipped, needs, needsPerl, NODE, sizeOf,
  useExecFixture,
} = require('./exec-helpers');

let base, root, home, outside, ro, data, sandbox; // set before each test
useExecFixture((fixture) => ({ base, root, home, outside, ro, data, sandbox } = fixture));

describe('[landlock-fs] reading outside the sandbox', () => {
  needs('landlock-fs')('[landlock-fs] cat of a secret in a home directory outside the mounts fails', async () => {
    const result = await run(sandbox, ['cat', path.join(home, 'secret.txt'), path.join(home, '.ssh', 'id_rsa')]);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stderr).toMatch(VIEW ? /No such file or directory/ : /Permission denied/);
    expect(result.stderr).not.toContain(SECRET);
  });

  needs('landlock-fs')('[landlock-fs] cat through symlinks in the writable root that point at the secret fails', async () => {
    fs.symlinkSync(path.join(home, 'secret.txt'), path.join(root, 'abs-link'));
    fs.symlinkSync('../home/secret.txt', path.join(root, 'rel-link'));
    fs.symlinkSync(home, path.join(root, 'home-link'));
    const result = await run(sandbox, ['sh', '-c', 'cat abs-link; cat rel-link; cat home-link/secret.txt; cat home-link/.ssh/id_rsa']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stderr).not.toContain(SECRET);
  });

  needs('landlock-fs')('[landlock-fs] a symlink the command makes itself, cp, and a hard link do not reach the secret', async () => {
    const result = await run(sandbox, [
      'sh', '-c',
      `ln -s ${q(path.join(home, 'secret.txt'))} mine; cat mine; cp ${q(path.join(home, 'secret.txt'))} copy.txt;` +
        ` ln ${q(path.join(home, 'secret.txt'))} hard; cat hard; mv ${q(path.join(home, 'secret.txt'))} moved.txt; cat moved.txt`,
    ]);
    expect(result.stdout).not.toContain(SECRET);
    expect(fs.existsSync(path.join(root, 'copy.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'hard'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'moved.txt'))).toBe(false);
  });

  needs('landlock-fs')('[landlock-fs / private-proc] the Jest process\'s open descriptor to the secret is not reachable through /proc', async () => {
    const fd = fs.openSync(path.join(home, 'secret.txt'), 'r');
    try {
      const result = await run(sandbox, [
        'sh', '-c',
        `cat /proc/${process.pid}/fd/${fd}; cat /proc/self/root${home}/secret.txt; cat /proc/1/root${home}/secret.txt`,
      ]);
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).not.toContain(SECRET);
    } finally {
      fs.closeSync(fd);
    }
  });
});

describe('writing outside the sandbox', () => {
  needs('landlock-fs')('[landlock-fs] creating, overwriting and deleting outside the mounts fails', async () => {
    const result = await run(sandbox, [
      'sh', '-c',
      `echo pwned > ${q(path.join(outside, 'new.txt'))}; echo pwned > ${q(path.join(outside, 'existing.txt'))};` +
        ` touch ${q(path.join(outside, 'touched'))}; mkdir ${q(path.join(outside, 'dir'))};` +
        ` rm -f ${q(path.join(home, 'secret.txt'))}; mv ${q(path.join(root, 'inside.txt'))} ${q(outside)}/`,
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'existing.txt'), 'utf8')).toBe('original');
    expect(fs.existsSync(path.join(outside, 'touched'))).toBe(false);
    expect(fs.readFileSync(path.join(home, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(fs.readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('inside');
  });

  needs('landlock-fs')('[landlock-fs] writing to a read-only mount fails and its content is unchanged', async () => {
    const result = await run(sandbox, [
      'sh', '-c', 'echo pwned > ro.txt; echo pwned >> ro.txt; echo new > new.txt; rm -f ro.txt; mkdir d; mv ro.txt ../data/',
    ], { cwd: '/ro' });
    expect(result.exitCode).not.toBe(0);
    expect(fs.readFileSync(path.join(ro, 'ro.txt'), 'utf8')).toBe('read-only content');
    expect(fs.existsSync(path.join(ro, 'new.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ro, 'd'))).toBe(false);
    // mv falls back to copy and unlink: the copy out is allowed, the unlink is not.
    expect(fs.readFileSync(path.join(data, 'ro.txt'), 'utf8')).toBe('read-only content');
  });

  needs('landlock-fs')('[landlock-fs] writing through symlinks in the writable root that point outside fails', async () => {
    fs.symlinkSync(path.join(outside, 'created.txt'), path.join(root, 'dangling'));
    fs.symlinkSync(path.join(outside, 'existing.txt'), path.join(root, 'existing-link'));
    fs.symlinkSync(outside, path.join(root, 'outdir'));
    fs.symlinkSync(path.join(ro, 'ro.txt'), path.join(root, 'ro-link'));
    const result = await run(sandbox, [
      'sh', '-c',
      'echo pwned > dangling; echo pwned > existing-link; echo pwned > outdir/via-dir.txt; echo pwned > ro-link; touch outdir/t',
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(fs.existsSync(path.join(outside, 'created.txt'))).toBe(false);
    expect(fs.existsSync(path.join(outside, 'via-dir.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'existing.txt'), 'utf8')).toBe('original');
    expect(fs.readFileSync(path.join(ro, 'ro.txt'), 'utf8')).toBe('read-only content');
  });

  needs('landlock-fs')('[landlock-fs] a backgrounded grandchild writing outside is confined too', async () => {
    const result = await run(sandbox, [
      'sh', '-c',
      `sh -c '( echo pwned > ${path.join(outside, 'grandchild.txt')} ) & wait'; ` +
        `sh -c 'sh -c "cat ${path.join(home, 'secret.txt')}"'`,
    ]);
    expect(result.stderr).toMatch(VIEW ? /No such file or directory/ : /Permission denied/); // the attempt was made
    expect(result.stdout).not.toContain(SECRET);
    expect(fs.existsSync(path.join(outside, 'grandchild.txt'))).toBe(false);
  });

  describe('a read-only mount whose source lies inside the writable root', () => {
    let inner;
    let nested;

    beforeEach(() => {
      inner = path.join(root, 'inner');
      write(path.join(inner, 'inner.txt'), 'inner content');
      nested = createMountSandbox({ root, mounts: [{ source: inner, target: '/inner', readonly: true }] });
    });

    needs('mount-namespace')('[mount-namespace] writing into it fails (Landlock alone would allow it)', async () => {
      const before = snapshotTree(inner);
      const result = await run(nested, [
        'sh', '-c',
        'echo pwned > inner/inner.txt; echo new > inner/new.txt; rm -f inner/inner.txt; chmod 777 inner/inner.txt; echo ok > top.txt',
      ]);
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(result.enforcement.layers).toContain('mount-namespace');
      expect(snapshotTree(inner)).toEqual(before);
      // The rest of the root stays writable.
      expect(fs.readFileSync(path.join(root, 'top.txt'), 'utf8')).toBe('ok\n');
    });

    // The command may hold capabilities in its user namespace: the read-only bind the launcher
    // made there must not be one it can make writable again.
    needsPerl('mount-namespace')('[mount-namespace, seccomp / no-capabilities] the command cannot clear the read-only flag of its bind (mount_setattr) and then write', async () => {
      const before = snapshotTree(inner);
      const result = await run(nested, [
        'sh', '-c', `${unlockMounts(inner)}; echo pwned > inner/inner.txt; chmod 777 inner/inner.txt; echo new > inner/new.txt`,
      ]);
      expect(snapshotTree(inner)).toEqual(before);
      expect(result.stdout).toMatch(/mount_setattr /);
      expect(result.stdout).not.toMatch(/^mount_setattr .*=0$/m);
    });
  });
});

// A perl one-liner that clears MOUNT_ATTR_RDONLY (recursively) on every mount holding `target`,
// as a command holding CAP_SYS_ADMIN in its user namespace could: mount_setattr(AT_FDCWD,
// mountpoint, AT_RECURSIVE, { attr_clr: MOUNT_ATTR_RDONLY }, 32), syscall 442 on x86_64 and
// aarch64 alike. Prints "mount_setattr <mountpoint>=<result>" for each.
function unlockMounts(target) {
  const script = `
    my $t = shift;
    open(my $mi, "<", "/proc/self/mountinfo") or die "mountinfo: $!";
    while (<$mi>) {
      my $mp = (split / /)[4];
      $mp =~ s/\\\\([0-7]{3})/chr(oct($1))/ge;
      next unless $t eq $mp || $mp eq "/" || index($t, "$mp/") == 0;
      my $attr = pack("QQQQ", 0, 1, 0, 0);
      my $r = syscall(442, -100, $mp, 0x8000, $attr, 32);
      print "mount_setattr $mp=$r\\n";
    }`;
  return `${PERL} -e ${q(script)} ${q(target)}`;
}

describe('[mount-namespace] metadata of read-only mounts', () => {
  needs('mount-namespace')('[mount-namespace] chmod and touch -d on a read-only mount fail and leave mode and mtime unchanged', async () => {
    const file = path.join(ro, 'ro.txt');
    const dir = path.join(ro, 'sub');
    const before = [fs.statSync(file), fs.statSync(dir)].map((s) => [s.mode, s.mtimeMs]);
    // Control: the same commands work on the writable root.
    const result = await run(sandbox, [
      'sh', '-c',
      `chmod 600 inside.txt && touch -d '2001-02-03 04:05:06' inside.txt && echo control-ok; ` +
        `chmod 777 ${q(seen('/ro/ro.txt', file))}; chmod 700 ${q(seen('/ro/sub', dir))}; ` +
        `touch -d '2001-02-03 04:05:06' ${q(seen('/ro/ro.txt', file))}; touch -m -d '2001-02-03' ${q(seen('/ro/sub', dir))}`,
    ]);
    expect(result.stdout).toContain('control-ok');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/Read-only file system|Permission denied|Operation not permitted/);
    expect(fs.statSync(path.join(root, 'inside.txt')).mode & 0o777).toBe(0o600);
    const after = [fs.statSync(file), fs.statSync(dir)].map((s) => [s.mode, s.mtimeMs]);
    expect(after).toEqual(before);
  });

  needsPerl('mount-namespace')('[mount-namespace, seccomp / no-capabilities] the command cannot clear the read-only flag of the mounts above a read-only mount (mount_setattr), then chmod', async () => {
    const file = path.join(ro, 'ro.txt');
    const before = fs.statSync(file);
    const result = await run(sandbox, [
      'sh', '-c', `${unlockMounts(seen('/ro', ro))}; chmod 777 ${q(seen('/ro/ro.txt', file))}; touch -d '2001-02-03 04:05:06' ${q(seen('/ro/ro.txt', file))}`,
    ]);
    expect(result.stdout).toMatch(/mount_setattr /);
    expect(result.stdout).not.toMatch(/^mount_setattr .*=0$/m);
    const after = fs.statSync(file);
    expect([after.mode, after.mtimeMs]).toEqual([before.mode, before.mtimeMs]);
  });
});

describe('[landlock-fs] restricted child sandboxes', () => {
  needs('landlock-fs')('[landlock-fs] exec in restrict({ restrict: "/src", readonly: true }) can neither write in /src nor read the parent\'s other files', async () => {
    const src = path.join(root, 'src');
    write(path.join(src, 'a.txt'), 'A');
    write(path.join(root, 'other.txt'), 'OTHER-SECRET');
    const srcBefore = snapshotTree(src);
    // Control: the parent can do both.
    const parent = await run(sandbox, ['sh', '-c', 'cat ../other.txt'], { cwd: '/src' });
    expect(parent.stdout).toBe('OTHER-SECRET');

    const child = sandbox.restrict({ restrict: '/src', readonly: true });
    const result = await run(child, [
      'sh', '-c',
      `pwd; cat a.txt; echo; cat ../other.txt; cat ${q(path.join(root, 'other.txt'))}; echo pwned > a.txt; echo new > new.txt;` +
        ` echo pwned > ../other.txt; echo pwned > ../new-in-parent.txt; rm -f a.txt; ls ${q(data)}`,
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toContain(`${seen('/', src)}\nA\n`); // it runs in /src (its own /) and can read it
    expect(result.stdout).not.toContain('OTHER-SECRET');
    expect(result.stdout).not.toContain('data.txt');
    expect(snapshotTree(src)).toEqual(srcBefore);
    expect(fs.readFileSync(path.join(root, 'other.txt'), 'utf8')).toBe('OTHER-SECRET');
    expect(fs.existsSync(path.join(root, 'new-in-parent.txt'))).toBe(false);
  });
});

describe('[mount-namespace] what the second review found', () => {
  needs('mount-namespace')('[mount-namespace] a directory mounted both read-only and writable stays read-only, whichever target names it', async () => {
    const shared = path.join(base, 'shared');
    write(path.join(shared, 'f.txt'), 'shared');
    // Mount targets exist in the read-only root (the view cannot create them there).
    for (const dir of ['a', 'b']) fs.mkdirSync(path.join(root, dir));
    const before = snapshotTree(shared);
    for (const order of [[true, false], [false, true]]) {
      const twice = createMountSandbox({
        root,
        readonly: true,
        mounts: [
          { source: shared, target: '/a', readonly: order[0] },
          { source: shared, target: '/b', readonly: order[1] },
        ],
      });
      const cwd = order[0] ? '/b' : '/a'; // the writable one
      const result = await run(twice, ['sh', '-c', 'echo pwned > f.txt; chmod 600 f.txt; echo new > g.txt'], { cwd });
      expect(result.exitCode).not.toBe(0);
      expect(snapshotTree(shared)).toEqual(before);
    }
  });

  needs('mount-namespace')('[mount-namespace] the program config and the worker file cannot be rewritten by the commands they confine', async () => {
    const { findProgramConfig, createSandboxFromConfig, loadWorkerFile, sandboxForWorker } = require('../lib');
    const project = path.join(base, 'project');
    write(path.join(project, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    write(path.join(project, 'work', 'w.txt'), 'w');
    write(path.join(project, 'w.worker'), '---\nname: w\nsandbox:\n  restrict: /work\n---\nWork.\n');
    const before = snapshotTree(project, { contents: true });
    const main = await createSandboxFromConfig(await findProgramConfig(project));
    // The main worker may write the project (worker files included: a child never gets more than
    // its parent), but not the config its own sandbox comes from.
    const widen = 'printf "sandbox:\\n  root: /\\n" > golem-forge.config.yaml || ' +
      'rm -f golem-forge.config.yaml || mv golem-forge.config.yaml moved.yaml';
    const result = await run(main, ['sh', '-c', widen]);
    expect(result.exitCode).not.toBe(0);
    const child = sandboxForWorker(main, await loadWorkerFile(path.join(project, 'w.worker')));
    const fromChild = await run(child, ['sh', '-c', 'echo > ../w.worker; failed=$?; echo ok > w.txt; exit $failed']);
    expect(fromChild.exitCode).not.toBe(0);
    expect(fs.readFileSync(path.join(project, 'work', 'w.txt'), 'utf8')).toBe('ok\n'); // it did run
    write(path.join(project, 'work', 'w.txt'), 'w');
    expect(snapshotTree(project, { contents: true })).toEqual(before);
  });

  needs('user-namespace')('[user-namespace] the command cannot create user namespaces of its own', async () => {
    const result = await run(sandbox, ['unshare', '--user', '--map-root-user', 'true']);
    expect(result.exitCode).not.toBe(0);
    expect(result.enforcement.layers).toContain('no-nested-user-namespaces');
  });

  (process.arch === 'x64' ? needsPerl('seccomp') : skipped('the keyctl number below is x86_64\'s'))(
    '[seccomp] the caller\'s session keyring is out of reach (keyctl is refused)', async () => {
      // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) is syscall 250 on x86_64.
      const result = await run(sandbox, [PERL, '-e', 'my $r = syscall(250, 0, -3, 0); print "$r $!"']);
      expect(result.stdout).toMatch(/^-1 Operation not permitted/);
    });

  needs('pid-namespace')('[pid-namespace] when the caller dies, the command dies with it', async () => {
    const marker = path.join(root, 'marker');
    const script = `
      const { createMountSandbox } = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
      createMountSandbox({ root: ${JSON.stringify(root)} })
        .exec(['sh', '-c', 'while :; do echo x >> marker; sleep 0.05; done'], ${JSON.stringify({ ...EXEC_DEFAULTS, changes: 'direct', timeoutMs: 300000 })});`;
    // Its temp directory outlives it (nobody is left to remove it): keep it inside `base`.
    const tmp = path.join(base, 'caller-tmp');
    fs.mkdirSync(tmp);
    const caller = spawn(NODE, ['-e', script], { stdio: 'ignore', env: { ...process.env, TMPDIR: tmp } });
    try {
      for (let i = 0; i < 200 && sizeOf(marker) <= 0; i++) await sleep(25);
      expect(sizeOf(marker)).toBeGreaterThan(0);
    } finally {
      caller.kill('SIGKILL');
    }
    await new Promise((resolve) => caller.on('exit', resolve));
    await sleep(300);
    const settled = sizeOf(marker);
    await sleep(500);
    expect(sizeOf(marker)).toBe(settled);
  });
});
