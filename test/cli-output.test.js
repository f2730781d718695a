'use strict';

// The mount-sandbox command, run as a user would run it: bad input and refusals, --json, help and
// version, and exec.
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { tempDirEach, write } = require('./helpers');
const { BIN, useBase, run, project, lineWith } = require('./helpers/cli');

let base;
tempDirEach('msb-cli-', (dir) => {
  base = dir;
  useBase(dir);
});

describe('bad input and refusals', () => {
  const NO_STACK = /^\s+at /m;

  test.each(['-5', '0', '300001', '1e9', '99999999999999999999', 'abc', '1.5', '0x10', 'NaN', 'Infinity', '', ' 100'])(
    'exec --timeout %j is a usage error with no stack trace, and nothing runs', (value) => {
      const dir = project();
      const { code, stdout, stderr } = run(['exec', '--config', dir, '--timeout', value, '--', 'sh', '-c', 'echo ran > ran.txt']);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).not.toMatch(NO_STACK);
      expect(stderr.split('\n')[0]).toBe(
        `mount-sandbox: --timeout needs a whole number of milliseconds from 1 to 300000, got ${JSON.stringify(value)}`);
      expect(fs.existsSync(path.join(dir, 'work', 'ran.txt'))).toBe(false);
    });

  test('--timeout at its bounds is taken', () => {
    const dir = project();
    // 1 ms is too short for the launcher to start: a refusal (1), not a usage error.
    expect(run(['exec', '--config', dir, '--timeout', '1', '--', 'true']).stderr).not.toMatch(/--timeout needs/);
    expect(run(['exec', '--config', dir, '--timeout', '300000', '--', 'true']).code).toBe(0);
  });

  test.each([
    [['--cwd', 'src'], 2, '--cwd needs a virtual path starting with /, got "src"'],
    [['--cwd', '/nope'], 1, 'File or directory not found: /nope'],
    [['--cwd', '/src/a.ts'], 1, 'cwd must be a directory: /src/a.ts'],
  ])('exec %j exits %i with one line', (options, status, message) => {
    const dir = project();
    const { code, stdout, stderr } = run(['exec', '--config', dir, ...options, '--', 'sh', '-c', 'echo ran > ran.txt']);
    expect(code).toBe(status);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(`mount-sandbox: ${message}`);
    expect(stderr).not.toMatch(NO_STACK);
    expect(fs.existsSync(path.join(dir, 'work', 'ran.txt'))).toBe(false);
  });

  test('exec with an empty program name is a usage error', () => {
    const dir = project();
    const { code, stderr } = run(['exec', '--config', dir, '--', '']);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('mount-sandbox: exec needs a program to run after --, not an empty name');
    expect(stderr).not.toMatch(NO_STACK);
  });

  test('a --config that is a FIFO or a device is refused without reading it', () => {
    const dir = project();
    const fifo = path.join(base, 'golem-forge.config.yaml');
    spawnSync('mkfifo', [fifo]);
    for (const config of [fifo, '/dev/null']) {
      const { code, stdout, stderr } = run(['check', '--config', config], { cwd: dir });
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.split('\n')[0]).toBe(`mount-sandbox: ${config}: cannot be read as a config file: a FIFO, socket or device, not a regular file`);
    }
  });

  test('a --worker that is a FIFO is refused without blocking on it', () => {
    const dir = project();
    const fifo = path.join(base, 'w.worker');
    spawnSync('mkfifo', [fifo]);
    const { code, stdout, stderr } = run(['explain', '/a.ts', '--config', dir, '--worker', fifo]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`mount-sandbox: ${fifo} is not a regular file\n`);
  });

  test.each([
    [['check', '--config', '']],
    [['explain', '/a.ts', '--config', '']],
    [['explain', '/a.ts', '--worker', '']],
  ])('%j: an empty path is a usage error, not the current directory', (args) => {
    const dir = project();
    const { code, stdout, stderr } = run(args, { cwd: dir });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(`mount-sandbox: ${args[args.length - 2]} needs a value`);
  });

  test('a reader that goes away (| head) ends the output quietly, with no stack trace', async () => {
    const dir = project();
    for (const args of [['check', '--config', dir], ['apparmor']]) {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // before the process can have written
      let stderr = '';
      child.stderr.on('data', (d) => { stderr += d; });
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(stderr).not.toMatch(NO_STACK);
      expect(stderr).not.toMatch(/EPIPE/);
      if (args[0] === 'check') expect(code).toBe(0);
    }
  });

  test('an unexpected error is one line; MOUNT_SANDBOX_DEBUG=1 adds its stack trace', () => {
    const dir = project();
    const preload = path.join(base, 'break.js');
    fs.writeFileSync(preload, `require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'index.js'))}).createMountSandbox = () => { throw new Error('boom'); };\n`);
    const spawn = (env) => spawnSync(process.execPath, ['--require', preload, BIN, 'check', '--config', dir], {
      encoding: 'utf8', env: { ...process.env, ...env },
    });
    const plain = spawn({ MOUNT_SANDBOX_DEBUG: '' });
    expect(plain.status).toBe(1);
    expect(plain.stderr).toBe('mount-sandbox: internal error: boom (MOUNT_SANDBOX_DEBUG=1 prints its stack trace)\n');
    const debug = spawn({ MOUNT_SANDBOX_DEBUG: '1' });
    expect(debug.status).toBe(1);
    expect(debug.stderr).toMatch(/^mount-sandbox: internal error: Error: boom\n\s+at /);
  });

  test('what exec adds to the command\'s stderr ends with a newline', () => {
    const dir = project();
    const missing = run(['exec', '--config', dir, '--', 'no-such-command-msb']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe('Command not found: no-such-command-msb\n');
    const slow = run(['exec', '--config', dir, '--timeout', '200', '--', 'sleep', '30']);
    expect(slow.code).toBe(124);
    expect(slow.stderr).toMatch(/Command timed out after 200 ms; its processes were killed\.\n$/);
    // The command's own output is passed through as it is.
    const own = run(['exec', '--config', dir, '--', 'sh', '-c', 'printf out; printf err >&2']);
    expect([own.code, own.stdout, own.stderr]).toEqual([0, 'out', 'err']);
  });

  test('exec under a config with no sandbox section, or a pure-function worker, exits 1 as refused', () => {
    write(path.join(base, 'golem-forge.config.yaml'), 'model: x\n');
    const none = run(['exec', '--config', base, '--', 'true']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('mount-sandbox: this sandbox allows no file access (the config has no sandbox section), so there is nothing to run a command in\n');
    const dir = project();
    write(path.join(base, 'pure.worker'), '---\nname: pure\nsandbox: false\n---\n');
    const pure = run(['exec', '--config', dir, '--worker', path.join(base, 'pure.worker'), '--', 'true']);
    expect(pure.code).toBe(1);
    expect(pure.stderr).toBe('mount-sandbox: this sandbox allows no file access (the worker is a pure function), so there is nothing to run a command in\n');
  });

  // The package's JS with no binary: an install on a machine that has no prebuilt and built none.
  function binaryLessInstall() {
    const root = path.join(__dirname, '..');
    const copy = path.join(base, 'install', 'node_modules', 'mount-sandbox');
    for (const part of ['bin', 'lib', 'apparmor']) fs.cpSync(path.join(root, part), path.join(copy, part), { recursive: true });
    fs.copyFileSync(path.join(root, 'package.json'), path.join(copy, 'package.json'));
    return path.join(copy, 'bin', 'mount-sandbox.js');
  }

  test('on an install without binaries, apparmor and check say why once, with the way out', () => {
    const bin = binaryLessInstall();
    const dir = project();
    const env = { ...process.env };
    delete env.MOUNT_SANDBOX_ADDON;
    delete env.MOUNT_SANDBOX_LAUNCHER;
    const cli = (args) => spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', env });
    const apparmor = cli(['apparmor']);
    expect(apparmor.status).toBe(1);
    expect(apparmor.stdout).toBe('');
    expect(apparmor.stderr).toMatch(/^mount-sandbox: cannot run here: the exec launcher msb-launch was not found beside the addon\. What to do:\n- build from source on Linux: .*\n$/);
    const check = cli(['check']);
    expect(check.status).toBe(1);
    expect(check.stderr).toMatch(/^mount-sandbox: cannot run here: no binary for linux-(x64|arm64) was found, and the addon was not built from source\. What to do:\n(- .*\n){3}$/);
    for (const { stderr } of [apparmor, check]) {
      expect(stderr).not.toMatch(/mount-sandbox:? mount-sandbox cannot run here/);
      expect(stderr.match(/mount-sandbox:/g)).toHaveLength(1);
    }
  });
});

// --json: one JSON document on stdout, whatever happens, with the exit status of the text form.
describe('--json', () => {
  function runJson(args, options) {
    const result = run(args, options);
    expect(result.stderr).toBe('');
    return { code: result.code, stdout: result.stdout, doc: JSON.parse(result.stdout) };
  }

  const ASK = { write: 'ask', delete: 'ask' };
  const NO_POLICY = { allowedSuffixes: null, deniedSuffixes: [], maxFileBytes: null };

  test('check: the config, delegation and each mount as the table shows it', () => {
    const dir = project();
    const { code, doc } = runJson(['check', '--config', dir, '--json']);
    expect(code).toBe(0);
    expect(doc).toEqual({
      ok: true,
      config: path.join(dir, 'golem-forge.config.yaml'),
      delegation: { maxDepth: 4 },
      sandbox: {
        layout: 'mounts',
        mounts: [
          {
            target: '/', source: path.join(dir, 'work'), readonly: false,
            approval: { write: 'preApproved', delete: 'blocked' }, policy: NO_POLICY, missing: false,
          },
          {
            target: '/src', source: path.join(dir, 'code'), readonly: true, approval: ASK,
            policy: { allowedSuffixes: ['.ts'], deniedSuffixes: [], maxFileBytes: null }, missing: false,
          },
          {
            target: '/out', source: path.join(dir, 'build', 'out'), readonly: false, approval: ASK,
            policy: { allowedSuffixes: null, deniedSuffixes: [], maxFileBytes: 1000 }, missing: true,
          },
        ],
        trustedNames: { names: expect.arrayContaining([{ name: '.git/hooks', kind: 'git' }, { name: '.mcp.json', kind: 'client' }]), released: [], hookDirs: [] },
      },
    });
  });

  test('check: no sandbox section is sandbox null', () => {
    write(path.join(base, 'golem-forge.config.yml'), 'model: x\n');
    const { code, doc } = runJson(['check', '--json']);
    expect(code).toBe(0);
    expect(doc).toEqual({ ok: true, config: path.join(base, 'golem-forge.config.yml'), delegation: { maxDepth: 5 }, sandbox: null });
  });

  test('check: an invalid config exits 1 with where and what', () => {
    const file = path.join(base, 'golem-forge.config.yaml');
    write(file, 'sandbox:\n  mounts:\n    - source: a\n      target: /a\n      readonly: "no"\n');
    const { code, doc } = runJson(['check', '--json']);
    expect(code).toBe(1);
    expect(doc).toEqual({
      ok: false,
      error: {
        code: 'INVALID_CONFIG', name: 'ConfigFileError', message: expect.stringContaining(`${file}:5:17: sandbox.mounts[0].readonly: expected`),
        file, line: 5, column: 17, keyPath: 'sandbox.mounts[0].readonly', expected: expect.any(String),
      },
    });
  });

  test('check: values come back exactly, and nothing raw reaches a terminal that shows the document', () => {
    const dir = path.join(base, 'hostile');
    const source = 'evil\n\x1b[31m\u202e\u2028\x9b\\';
    write(path.join(dir, 'golem-forge.config.json'), JSON.stringify({ sandbox: { mounts: [{ source, target: '/evil' }] } }));
    const { stdout, doc } = runJson(['check', '--config', dir, '--json']);
    expect(doc.sandbox.mounts.find((m) => m.target === '/evil').source).toBe(path.join(dir, source));
    expect(stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
  });

  test('explain: the same answers as the text', () => {
    const dir = project();
    const { code, doc } = runJson(['explain', '/src/a.ts', '--config', dir, '--json']);
    expect(code).toBe(0);
    expect(doc).toEqual({
      ok: true,
      config: path.join(dir, 'golem-forge.config.yaml'),
      worker: null,
      path: '/src/a.ts',
      fileAccess: true,
      resolvesTo: path.join(dir, 'code', 'a.ts'),
      resolveError: null,
      rulesFrom: {
        kind: 'mount', target: '/src', readonly: true, approval: ASK,
        policy: { allowedSuffixes: ['.ts'], deniedSuffixes: [], maxFileBytes: null },
      },
      read: { result: 'allowed', type: 'file', size: 20 },
      write: { result: 'refused', code: 'READ_ONLY', message: 'Cannot write to /src/a.ts: this location is read-only. Writable locations: /, /out.' },
      delete: { result: 'refused', code: 'READ_ONLY', message: 'Cannot delete /src/a.ts: this location is read-only. Writable locations: /, /out.' },
      protected: null,
    });
    const root = runJson(['explain', '/', '--config', dir, '--json']).doc;
    expect(root.rulesFrom).toEqual({ kind: 'root', target: '/', readonly: false, approval: { write: 'preApproved', delete: 'blocked' }, policy: NO_POLICY });
    expect(root.read).toEqual({ result: 'allowed', type: 'directory', entries: 3 });
    expect(root.write).toEqual({ result: 'refused', code: 'IS_DIRECTORY', message: '/ is a directory. Use list to see its entries, or name a file inside it.' });
    const missing = runJson(['explain', '/none.txt', '--config', dir, '--json']).doc;
    expect(missing.read).toEqual({ result: 'not-found' });
    expect(missing.write).toEqual({ result: 'allowed', approval: 'preApproved' });
    const relative = runJson(['explain', 'rel', '--config', dir, '--json']).doc;
    expect(relative.resolvesTo).toBeNull();
    expect(relative.resolveError).toEqual({ code: 'INVALID_PATH', message: expect.stringContaining('must be absolute') });
  });

  test('explain: a worker, a protected file, no sandbox', () => {
    const dir = path.join(base, 'self');
    write(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    write(path.join(dir, 'workers', 'helper.worker'), '---\nname: helper\n---\n');
    const worker = path.join(dir, 'workers', 'helper.worker');
    const { doc } = runJson(['explain', '/golem-forge.config.yaml', '--config', dir, '--worker', worker, '--json']);
    expect(doc.worker).toEqual({ name: 'helper', file: worker, sandbox: 'inherit' });
    expect(doc.protected).toEqual({ trusted: 'sandbox', holder: path.join(dir, 'golem-forge.config.yaml') });
    write(path.join(base, 'pure.worker'), '---\nname: pure\nsandbox: false\n---\n');
    const pure = runJson(['explain', '/a', '--config', dir, '--worker', path.join(base, 'pure.worker'), '--json']);
    expect(pure.code).toBe(0);
    expect(pure.doc).toEqual({
      ok: true, config: path.join(dir, 'golem-forge.config.yaml'), worker: { name: 'pure', file: path.join(base, 'pure.worker'), sandbox: 'none' },
      path: '/a', fileAccess: false, reason: 'the worker is a pure function',
    });
  });

  test('exec: the result, not the command\'s raw output, and its exit status', () => {
    const dir = project();
    const { code, doc } = runJson(['exec', '--config', dir, '--json', '--verbose', '--', 'sh', '-c', 'cat notes.md; echo err >&2; exit 3']);
    expect(code).toBe(3);
    expect(doc).toEqual({
      ok: true, exitStatus: 3, exitCode: 3, signal: null, timedOut: false, truncated: false,
      stdout: 'notes', stderr: 'err\n', view: { workspace: '/workspace', cwd: '/workspace' },
      enforcement: expect.objectContaining({ layers: expect.arrayContaining(['landlock-fs']), missing: expect.any(Array), network: 'off' }),
      network: null,
      changes: doc.enforcement.changes === 'direct' ? null : { mode: 'apply', applied: [], refused: [], conflicts: [], pending: [], truncated: false },
    });
    const slow = runJson(['exec', '--config', dir, '--json', '--timeout', '200', '--', 'sleep', '30']);
    expect(slow.code).toBe(124);
    expect(slow.doc).toMatchObject({ ok: true, exitStatus: 124, timedOut: true, signal: 'SIGKILL' });
  });

  test.each([
    [['--json'], 2, 'USAGE', 'no command given'],
    [['check', '--json', '--bogus'], 2, 'USAGE', 'unknown option --bogus'],
    [['apparmor', '--json'], 2, 'USAGE', 'apparmor does not take --json'],
    [['explain', '--json'], 2, 'USAGE', 'explain needs a virtual path, such as /src/app.ts'],
    [['exec', '--json', '--timeout', '-5', '--', 'true'], 2, 'USAGE', '--timeout needs a whole number of milliseconds from 1 to 300000, got "-5"'],
    [['check', '--json', '--config', 'nope'], 2, 'USAGE', expect.stringContaining('nope does not exist')],
    [['exec', '--json', '--cwd', '/nope', '--', 'true'], 1, 'NOT_FOUND', 'File or directory not found: /nope'],
  ])('%j: an error is the document too, with the same exit status', (args, status, errorCode, message) => {
    project();
    const { code, doc } = runJson(args, { cwd: path.join(base, 'proj') });
    expect(code).toBe(status);
    expect(doc).toMatchObject({ ok: false, error: { code: errorCode, message } });
  });

  test('exec under no sandbox: a refusal document, exit 1', () => {
    write(path.join(base, 'golem-forge.config.yaml'), 'model: x\n');
    const { code, doc } = runJson(['exec', '--json', '--', 'true']);
    expect(code).toBe(1);
    expect(doc).toEqual({
      ok: false,
      error: { code: 'NO_SANDBOX', message: 'this sandbox allows no file access (the config has no sandbox section), so there is nothing to run a command in' },
    });
  });
});

describe('help and version', () => {
  const OPTIONS = {
    check: ['--config', '--json'],
    explain: ['--config', '--worker', '--json'],
    exec: ['--config', '--worker', '--cwd', '--network', '--allow', '--deny', '--timeout', '--tmp-bytes', '--changes', '--apply', '--namespaces', '--allow-weaker', '--verbose', '--json'],
    apparmor: [], doctor: ['--json'],
  };

  test.each(Object.keys(OPTIONS))('%s --help describes the command and every option it takes', (command) => {
    // In an empty directory: help needs no config file.
    const { code, stdout, stderr } = run([command, '--help']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.startsWith(`Usage: mount-sandbox ${command}`)).toBe(true);
    expect(stdout).toMatch(/Exit status: /);
    for (const option of OPTIONS[command]) expect(stdout).toMatch(new RegExp(`^  ${option} `, 'm'));
    const listed = stdout.match(/^ {2}--[a-z-]+/gm) || [];
    expect(listed.map((l) => l.trim()).sort()).toEqual([...OPTIONS[command]].sort());
    expect(run(['help', command]).stdout).toBe(stdout);
    expect(run([command, '-h']).stdout).toBe(stdout);
  });

  test('--worker is described as each command uses it', () => {
    expect(lineWith(run(['explain', '--help']).stdout, '  --worker')).toMatch(/answer for the narrower sandbox/);
    const execWorker = lineWith(run(['exec', '--help']).stdout, '  --worker');
    expect(execWorker).toMatch(/run the command in the narrower sandbox this \.worker file gets/);
    expect(execWorker).not.toMatch(/answer for/);
  });

  test('the overall usage lists every command and points to per-command help', () => {
    const { code, stdout } = run(['--help']);
    expect(code).toBe(0);
    for (const command of Object.keys(OPTIONS)) expect(stdout).toMatch(new RegExp(`mount-sandbox ${command}\\b`));
    expect(stdout).toContain('mount-sandbox <command> --help');
    expect(run(['help']).stdout).toBe(stdout);
  });

  test('--version prints the package version', () => {
    const { version } = require('../package.json');
    for (const flag of ['--version', '-V']) {
      const { code, stdout, stderr } = run([flag]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toBe(`${version}\n`);
    }
  });

  test('a usage error names the command\'s own usage', () => {
    const { code, stderr } = run(['exec', '--timeout']);
    expect(code).toBe(2);
    expect(stderr).toContain('--timeout needs a value');
    expect(stderr).toContain('Usage: mount-sandbox exec [options] -- command [args...]');
    expect(stderr).toContain('mount-sandbox exec --help');
    expect(stderr).not.toContain('mount-sandbox check');
  });

  test('--help and --version after -- belong to the command run by exec', () => {
    const dir = project();
    const { code, stdout } = run(['exec', '--config', dir, '--', 'echo', '--help', '--version']);
    expect(stdout).toBe('--help --version\n');
    expect(code).toBe(0);
  });
});

describe('exec', () => {
  test('runs a command under the config\'s sandbox and exits with its status', () => {
    const dir = project();
    const ok = run(['exec', '--config', dir, '--', 'sh', '-c', 'cat notes.md; echo made > new.txt']);
    expect(ok.stdout).toBe('notes');
    expect(ok.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'work', 'new.txt'), 'utf8')).toBe('made\n');
    const failing = run(['exec', '--config', dir, '--', 'sh', '-c', 'exit 3']);
    expect(failing.code).toBe(3);
  });

  test('a write to the read-only mount fails on disk and gets the note naming the read-only mount', () => {
    const dir = project();
    const { code, stderr } = run(['exec', '--config', dir, '--cwd', '/src', '--', 'sh', '-c', 'echo x > a.ts']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('Note: /workspace/src/a.ts is read-only in this sandbox: it lies under /workspace/src (. from the working directory), which commands cannot change. Write elsewhere: to /workspace (.. from the working directory), /workspace/out (../out from the working directory) or /tmp.');
    expect(fs.readFileSync(path.join(dir, 'code', 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
  });

  test('--worker confines the command to the worker\'s narrower view', () => {
    const dir = project();
    write(path.join(dir, 'reviewer.worker'), '---\nname: reviewer\nsandbox:\n  restrict: /src\n  readonly: true\n---\nReview.\n');
    const { code, stdout, stderr } = run([
      'exec', '--config', dir, '--worker', path.join(dir, 'reviewer.worker'), '--verbose', '--',
      'sh', '-c', 'ls; cat ../work/notes.md',
    ]);
    expect(stdout).toBe('a.ts\n');
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/No such file or directory/); // outside its view there is nothing
    expect(stderr).toMatch(/\[mount-sandbox\] Landlock ABI \d+; applied: no-new-privs, .*landlock-fs/);
  });

  test('a timeout exits 124; no command after -- exits 2 with usage', () => {
    const dir = project();
    expect(run(['exec', '--config', dir, '--timeout', '200', '--', 'sleep', '30']).code).toBe(124);
    const usage = run(['exec', '--config', dir]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/exec needs a command after --/);
  });
});
