'use strict';

// sandbox.exec's report of the layers applied, its options and its guiding notes.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const os = require('os');
const path = require('path');
const {
  createMountSandbox, SandboxError, InvalidPathError, NotFoundError, SymlinkError, ExecEnforcementError,
  ExecError,
} = require('../lib');
const { makeTempDir, removeDir, snapshotTree, write } = require('./helpers');
const {
  q, IS_ROOT, PROBE, VIEW, seen, run, needs, NODE_OPTIONS, nodeScript, connectScript, countingServer,
  listen, closeServer, useExecFixture,
} = require('./exec-helpers');

let base, root, home, outside, ro, data, sandbox; // set before each test
useExecFixture((fixture) => ({ base, root, home, outside, ro, data, sandbox } = fixture));

describe('[all] enforcement report', () => {
  needs([])('[all] the result reports the layers applied, as the launcher probe found them', async () => {
    const result = await run(sandbox, ['true'], { allowWeakerEnforcement: true });
    expect(result.exitCode).toBe(0);
    expect(result.enforcement.layers).toEqual(PROBE.layers);
    expect(result.enforcement.missing).toEqual(PROBE.missing);
    expect(result.enforcement.landlockAbi).toBe(PROBE.landlockAbi);
  });

  needs(['landlock-fs', 'seccomp'])('[landlock-fs, seccomp] a plain exec reports at least no-new-privs, landlock-fs and seccomp', async () => {
    const result = await run(sandbox, ['true']);
    expect(result.enforcement.landlockAbi).toBeGreaterThanOrEqual(1);
    expect(result.enforcement.layers).toEqual(expect.arrayContaining(['no-new-privs', 'landlock-fs', 'seccomp']));
    expect(result.enforcement.layers).toEqual(PROBE.layers);
    expect(Array.isArray(result.enforcement.missing)).toBe(true);
    for (const layer of result.enforcement.layers) expect(result.enforcement.missing).not.toContain(layer);
  });

  needs('no-capabilities')('[no-capabilities] the command holds no capabilities; no_new_privs and seccomp are set', async () => {
    const result = await run(sandbox, ['sh', '-c', 'grep -E "^(Cap[A-Za-z]+|NoNewPrivs|Seccomp):" /proc/self/status']);
    const status = Object.fromEntries(result.stdout.trim().split('\n').map((line) => line.split(/:\s+/)));
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapAmb']) expect([set, status[set]]).toEqual([set, '0000000000000000']);
    // In the user namespace the launcher could drop the bounding set too.
    if (result.enforcement.layers.includes('user-namespace')) expect(status.CapBnd).toBe('0000000000000000');
    expect(status.NoNewPrivs).toBe('1');
    expect(status.Seccomp).toBe('2');
  });

  test('[namespaces] namespaces: "off" where the namespace layer is required is refused unless weaker enforcement is allowed', async () => {
    // A read-only mount inside the writable root needs the namespace layer, as does root.
    const nested = path.join(root, 'nested');
    write(path.join(nested, 'n.txt'), 'nested');
    const strict = createMountSandbox({ root, mounts: [{ source: nested, target: '/nested', readonly: true }] });
    const err = await run(strict, ['sh', '-c', `echo ran > ${q(path.join(data, 'ran'))}`], { namespaces: 'off' }).catch((e) => e);
    expect(err).toBeInstanceOf(ExecEnforcementError);
    expect(err.code).toBe('ENFORCEMENT_UNAVAILABLE');
    expect(err.missing).toEqual(['namespaces']);
    expect(fs.existsSync(path.join(data, 'ran'))).toBe(false);

    if (IS_ROOT) {
      // As root the plain sandbox needs them too.
      const plain = await run(sandbox, ['true'], { namespaces: 'off' }).catch((e) => e);
      expect(plain).toBeInstanceOf(ExecEnforcementError);
      expect(plain.missing).toEqual(['namespaces']);
    } else {
      const plain = await run(sandbox, ['true'], { namespaces: 'off' });
      expect(plain.exitCode).toBe(0);
      expect(plain.enforcement.missing).toContain('namespaces');
      expect(plain.enforcement.layers).not.toContain('mount-namespace');
    }
    const weaker = await run(sandbox, ['true'], { namespaces: 'off', allowWeakerEnforcement: true });
    expect(weaker.exitCode).toBe(0);
    expect(weaker.enforcement.missing).toContain('namespaces');
    expect(weaker.enforcement.layers).not.toContain('mount-namespace');
  });
});

describe('options', () => {
  needs([])('[options] cwd is a virtual path: the command runs in the mount\'s source and writes there', async () => {
    const result = await run(sandbox, ['sh', '-c', 'pwd; ls; echo made > made.txt'], { cwd: '/data' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${seen('/data', data)}\ndata.txt\n`);
    expect(fs.readFileSync(path.join(data, 'made.txt'), 'utf8')).toBe('made\n');
    const top = await run(sandbox, ['pwd']);
    expect(top.stdout).toBe(`${seen('/', root)}\n`);
  });

  needs([])('[options] bad argv and options reject with TypeError or RangeError and create nothing', async () => {
    const privateTmp = makeTempDir('msb-exec-tmpdir-');
    const rootBefore = snapshotTree(root);
    const cases = [
      [[], {}, TypeError],
      ['ls', {}, TypeError],
      [['ls', 1], {}, TypeError],
      [[''], {}, TypeError],
      [['ls\0x'], {}, TypeError],
      [['sh', '-c', 'touch made'], null, TypeError],
      [['sh', '-c', 'touch made'], { bogus: true }, TypeError],
      [['sh', '-c', 'touch made'], { cwd: 5 }, TypeError],
      [['sh', '-c', 'touch made'], { env: { A: 1 } }, TypeError],
      [['sh', '-c', 'touch made'], { env: { 'A=B': 'x' } }, TypeError],
      [['sh', '-c', 'touch made'], { env: [] }, TypeError],
      [['sh', '-c', 'touch made'], { stdin: 5 }, TypeError],
      [['sh', '-c', 'touch made'], { network: 'yes' }, TypeError],
      [['sh', '-c', 'touch made'], { namespaces: 'maybe' }, TypeError],
      [['sh', '-c', 'touch made'], { allowWeakerEnforcement: 1 }, TypeError],
      [['sh', '-c', 'touch made'], { hostReadPaths: ['relative'] }, TypeError],
      [['sh', '-c', 'touch made'], { hostReadPaths: '/usr' }, TypeError],
      [['sh', '-c', 'touch made'], { timeoutMs: 0 }, RangeError],
      [['sh', '-c', 'touch made'], { timeoutMs: 300_001 }, RangeError],
      [['sh', '-c', 'touch made'], { timeoutMs: 1.5 }, RangeError],
      [['sh', '-c', 'touch made'], { maxOutputBytes: -1 }, RangeError],
      [['sh', '-c', 'touch made'], { maxOutputBytes: Infinity }, RangeError],
    ];
    try {
      // Where exec makes the command's temp directory. (Jest's process.env does not reach
      // os.tmpdir(), so it is stubbed.)
      jest.spyOn(os, 'tmpdir').mockReturnValue(privateTmp);
      for (const [argv, options, ErrorClass] of cases) {
        let promise;
        expect(() => { promise = sandbox.exec(argv, options); }).not.toThrow(); // async: rejects
        const err = await promise.then(() => null, (e) => e);
        expect([argv, options, err && err.constructor]).toEqual([argv, options, ErrorClass]);
      }
      expect(fs.readdirSync(privateTmp)).toEqual([]);
      expect(snapshotTree(root)).toEqual(rootBefore);
      // Control: a valid call does make its temp directory there (and removes it).
      const ok = await run(sandbox, ['sh', '-c', 'echo "$TMPDIR"; touch made']);
      // In its root the command finds its temp directory at /tmp.
      if (VIEW) expect(ok.stdout).toBe('/tmp\n');
      else expect(ok.stdout.startsWith(`${privateTmp}${path.sep}`)).toBe(true);
      expect(fs.existsSync(path.join(root, 'made'))).toBe(true);
      expect(fs.readdirSync(privateTmp)).toEqual([]);
    } finally {
      jest.restoreAllMocks();
      removeDir(privateTmp);
    }
  });

  needs([])('[options] a cwd outside the sandbox rejects with the sandbox\'s typed error and runs nothing', async () => {
    fs.symlinkSync(outside, path.join(root, 'escape'));
    const ran = path.join(data, 'ran');
    const argv = ['sh', '-c', `echo ran > ${q(seen('/data/ran', ran))}`];
    const cases = [
      ['/..', InvalidPathError],
      ['/../outside', InvalidPathError],
      ['relative', InvalidPathError],
      ['/escape', SymlinkError],
      ['/missing', NotFoundError],
      ['/inside.txt', ExecError],
    ];
    for (const [cwd, ErrorClass] of cases) {
      const err = await run(sandbox, argv, { cwd }).catch((e) => e);
      expect([cwd, err.constructor]).toEqual([cwd, ErrorClass]);
      expect(err).toBeInstanceOf(SandboxError);
      expect(err.message).not.toContain(base);
    }
    expect(fs.existsSync(ran)).toBe(false);
    // Control: the same command from a valid cwd runs.
    await run(sandbox, argv, { cwd: '/data' });
    expect(fs.readFileSync(ran, 'utf8')).toBe('ran\n');
  });

  needs([])('[options] the default environment carries nothing from process.env; env adds to it', async () => {
    const saved = process.env.SECRET_TOKEN;
    process.env.SECRET_TOKEN = 'tok-4f1c9a-should-not-leak';
    try {
      const result = await run(sandbox, ['env']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toContain('SECRET_TOKEN');
      expect(result.stdout).not.toContain('tok-4f1c9a');
      const names = result.stdout.trim().split('\n').map((line) => line.split('=')[0]).sort();
      for (const name of names) expect(['HOME', 'LANG', 'PATH', 'PWD', 'SHLVL', 'TMPDIR', '_']).toContain(name);
      const vars = Object.fromEntries(result.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expect(vars.HOME).toBe(vars.TMPDIR);
      expect(vars.HOME).not.toBe(process.env.HOME);

      const added = await run(sandbox, ['sh', '-c', 'echo "$GREETING/$PATH"'], { env: { GREETING: 'hello', PATH: '/bin:/usr/bin' } });
      expect(added.stdout).toBe('hello//bin:/usr/bin\n');
    } finally {
      if (saved === undefined) delete process.env.SECRET_TOKEN;
      else process.env.SECRET_TOKEN = saved;
    }
  });

  needs([])('[options] stdin is delivered, as a string and as bytes', async () => {
    const text = await run(sandbox, ['cat'], { stdin: 'hello from stdin\n' });
    expect(text.stdout).toBe('hello from stdin\n');
    const bytes = Uint8Array.from([0, 1, 2, 254, 255]);
    const result = await run(sandbox, ['sh', '-c', 'cat > bytes.bin'], { stdin: bytes, cwd: '/data' });
    expect(result.exitCode).toBe(0);
    expect([...fs.readFileSync(path.join(data, 'bytes.bin'))]).toEqual([0, 1, 2, 254, 255]);
    const none = await run(sandbox, ['cat']);
    expect(none).toMatchObject({ stdout: '', exitCode: 0 });
  });

  needs([])('[options] a command that does not exist gives exit code 127', async () => {
    const result = await run(sandbox, ['no-such-command-msb-test', '--flag']);
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain('Command not found: no-such-command-msb-test');
    expect(result.stdout).toBe('');
  });
});

describe('[guiding notes]', () => {
  needs('landlock-fs')('[landlock-fs] a permission failure gets the note naming the writable paths', async () => {
    const result = await run(sandbox, ['sh', '-c', `echo pwned > ${q(seen('/ro/ro.txt', path.join(ro, 'ro.txt')))}`]);
    expect(result.exitCode).not.toBe(0);
    const note = result.stderr.split('\n').filter((line) => line.startsWith('Note:'));
    expect(note).toHaveLength(1);
    // It names the read-only mount the refused file lies under, then where to write instead.
    expect(note[0]).toMatch(new RegExp(`^Note: ${VIEW ? '/workspace' : ''}/ro/ro\\.txt is read-only in this sandbox: it lies under ${VIEW ? '/workspace' : ''}/ro \\(`));
    for (const p of sandbox.writablePaths()) expect(note[0]).toContain(VIEW ? seen(p) : p);
    expect(note[0]).toContain(VIEW ? '/tmp' : '$TMPDIR');
    expect(result.stderr).not.toContain('Network access is disabled');
    expect(fs.readFileSync(path.join(ro, 'ro.txt'), 'utf8')).toBe('read-only content');
  });

  needs(['seccomp', 'landlock-net'], { any: true })('[seccomp / landlock-net] a refused connect gets the network note', async () => {
    const server = countingServer();
    await listen(server, 0, '127.0.0.1');
    try {
      const { port } = server.address();
      const result = await run(sandbox, nodeScript(connectScript({ host: '127.0.0.1', port })), NODE_OPTIONS);
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toContain('Note: Network access is disabled for this worker.');
      expect(result.stderr).not.toMatch(/Note: this command runs in a sandbox/);
      expect(server.connections).toBe(0);
    } finally {
      await closeServer(server);
    }
  });

  needs([])('[guiding notes] success, and a failure that is not about permissions, get no note', async () => {
    const ok = await run(sandbox, ['sh', '-c', 'echo fine >&2']);
    expect(ok).toMatchObject({ exitCode: 0, stderr: 'fine\n' });
    const failed = await run(sandbox, ['sh', '-c', 'echo boom >&2; exit 3']);
    expect(failed).toMatchObject({ exitCode: 3, stderr: 'boom\n' });
    // Permission words on a successful command's stderr do not add one either.
    const quiet = await run(sandbox, ['sh', '-c', `cat ${q(path.join(home, 'secret.txt'))} 2>&1 >/dev/null | cat >&2; true`]);
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).not.toContain('Note:');
  });
});
