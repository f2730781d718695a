'use strict';

// The mount-sandbox command, run as a user would run it: a real process over real config files.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { tempDirEach, write } = require('./helpers');

const BIN = path.join(__dirname, '..', 'bin', 'mount-sandbox.js');

let base;
tempDirEach('msb-cli-', (dir) => {
  base = dir;
});

function run(args, { cwd = base } = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 20000 });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// The project most tests use: a writable root, a read-only /src mount, a writable /out mount.
function project() {
  const dir = path.join(base, 'proj');
  write(path.join(dir, 'golem-forge.config.yaml'), [
    'sandbox:',
    '  root: work',
    '  approval: {write: preApproved, delete: blocked}',
    '  mounts:',
    '    - source: code',
    '      target: /src',
    '      readonly: true',
    '      allowedSuffixes: [".ts"]',
    '    - source: build/out',
    '      target: /out',
    '      maxFileBytes: 1000',
    'delegation:',
    '  maxDepth: 4',
    '',
  ].join('\n'));
  write(path.join(dir, 'code', 'a.ts'), 'export const a = 1;\n');
  write(path.join(dir, 'work', 'notes.md'), 'notes');
  return dir;
}

function lineWith(text, needle) {
  return text.split('\n').find((l) => l.includes(needle));
}

// explain's verdict lines start with the operation: "read:", "write:", "delete:".
function verdict(text, operation) {
  return text.split('\n').find((l) => l.startsWith(`${operation}:`));
}

describe('check', () => {
  test('prints the effective mount table and exits 0', () => {
    const dir = project();
    const { code, stdout, stderr } = run(['check', dir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`config: ${path.join(dir, 'golem-forge.config.yaml')}`);
    expect(stdout).toContain('maxDepth 4');
    const root = lineWith(stdout, ` ${path.join(dir, 'work')} `);
    expect(root).toMatch(/^\s+\/\s/);
    expect(root).toContain('rw');
    expect(root).toContain('write: preApproved');
    expect(root).toContain('delete: blocked');
    const src = lineWith(stdout, path.join(dir, 'code'));
    expect(src).toMatch(/^\s+\/src\s/);
    expect(src).toContain('[ro,');
    expect(src).toContain('write: ask');
    expect(src).toContain('.ts');
    const out = lineWith(stdout, path.join(dir, 'build', 'out'));
    expect(out).toMatch(/^\s+\/out\s/);
    expect(out).toContain('[rw,');
    expect(out).toContain('maxFileBytes: 1000');
    expect(out).toContain('missing');
    expect(stdout.trim().split('\n').pop()).toBe('ok');
  });

  test('finds the config from a nested directory, and from the cwd by default', () => {
    const dir = project();
    fs.mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
    const nested = run(['check', path.join(dir, 'a', 'b')]);
    expect(nested.code).toBe(0);
    expect(nested.stdout).toContain(`config: ${path.join(dir, 'golem-forge.config.yaml')}`);
    const fromCwd = run(['check'], { cwd: path.join(dir, 'a') });
    expect(fromCwd.code).toBe(0);
    expect(fromCwd.stdout).toBe(nested.stdout);
    const byFile = run(['check', path.join(dir, 'golem-forge.config.yaml')]);
    expect(byFile.code).toBe(0);
  });

  test('the zone form: the zones, and no root', () => {
    const dir = path.join(base, 'zoned');
    write(path.join(dir, 'golem-forge.config.json'), JSON.stringify({
      sandbox: { zones: { data: { path: 'data', mode: 'ro' }, work: { path: 'w', approval: { write: 'preApproved' } } } },
    }));
    const { code, stdout } = run(['check', dir]);
    expect(code).toBe(0);
    expect(stdout).toContain('zones, sandboxed mode');
    expect(lineWith(stdout, path.join(dir, '.sandbox', 'data'))).toMatch(/^\s+\/data\s.*\[ro,/);
    expect(lineWith(stdout, path.join(dir, '.sandbox', 'w'))).toMatch(/^\s+\/work\s.*\[rw, write: preApproved/);
    expect(stdout).not.toMatch(/^\s+\/\s/m);
  });

  test('a config without a sandbox section says there is no file access', () => {
    write(path.join(base, 'golem-forge.config.yml'), 'model: anthropic:claude-sonnet-4\n');
    const { code, stdout } = run(['check', base]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/sandbox: none/);
  });

  test.each([
    ['yaml', 'golem-forge.config.yaml', 'sandbox:\n  mounts:\n    - source: a\n      target: /a\n      readonly: "no"\n', 5, 17, 'sandbox.mounts[0].readonly'],
    ['json', 'golem-forge.config.json', '{\n  "sandbox": {"root": "r"},\n  "delegaton": {}\n}\n', 3, 3, 'delegaton'],
  ])('an invalid %s config exits 1 with file:line:column and the key', (_, name, text, line, column, keyPath) => {
    write(path.join(base, name), text);
    const { code, stdout, stderr } = run(['check', base]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${path.join(base, name)}:${line}:${column}`);
    expect(stderr).toContain(keyPath);
    expect(stderr).toContain('expected');
    expect(stderr).not.toMatch(/^\s+at /m); // no stack trace
  });

  test('no config anywhere up the tree exits 2 with a clear message', () => {
    fs.mkdirSync(path.join(base, 'empty', 'deeper'), { recursive: true });
    const { code, stdout, stderr } = run(['check', path.join(base, 'empty', 'deeper')]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('no golem-forge.config.yaml');
    expect(stderr).toContain(path.join(base, 'empty', 'deeper'));
  });

  test('a directory that does not exist exits 2', () => {
    const { code, stderr } = run(['check', path.join(base, 'nope')]);
    expect(code).toBe(2);
    expect(stderr).toContain('does not exist');
  });
});

describe('explain', () => {
  test('a path under a read-only mount: which mount, read allowed, write refused with the reason', () => {
    const dir = project();
    const { code, stdout, stderr } = run(['explain', '/src/a.ts', '--config', dir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('path: /src/a.ts');
    expect(stdout).toContain(`resolves to: ${path.join(dir, 'code', 'a.ts')}`);
    expect(lineWith(stdout, 'rules from:')).toMatch(/mount \/src \[ro,/);
    expect(verdict(stdout, 'read')).toMatch(/allowed \(file, 20 bytes\)/);
    const writeLine = verdict(stdout, 'write');
    expect(writeLine).toContain('refused (READ_ONLY)');
    expect(writeLine).toContain('read-only');
    expect(writeLine).toContain('/out');
    expect(verdict(stdout, 'delete')).toContain('refused');
  });

  test('a path on the root: approvals from the config', () => {
    const dir = project();
    const { code, stdout } = run(['explain', '/notes.md', '--config', path.join(dir, 'golem-forge.config.yaml')]);
    expect(code).toBe(0);
    expect(lineWith(stdout, 'rules from:')).toContain('root /');
    expect(verdict(stdout, 'read')).toContain('allowed (file, 5 bytes)');
    expect(verdict(stdout, 'write')).toBe('write:  allowed, approval: preApproved');
    expect(verdict(stdout, 'delete')).toContain('refused (DELETE_BLOCKED)');
  });

  test('suffix and size rules show up as refusals', () => {
    const dir = project();
    write(path.join(dir, 'code', 'b.js'), 'js');
    write(path.join(dir, 'build', 'out', 'big.bin'), 'x'.repeat(2000));
    const js = run(['explain', '/src/b.js', '--config', dir]);
    expect(verdict(js.stdout, 'read')).toContain('refused (SUFFIX_NOT_ALLOWED)');
    const big = run(['explain', '/out/big.bin', '--config', dir]);
    expect(verdict(big.stdout, 'read')).toContain('refused (TOO_LARGE)');
  });

  test('the sandbox a restricting worker gets', () => {
    const dir = project();
    const worker = path.join(base, 'reviewer.worker');
    write(worker, '---\nname: reviewer\nsandbox:\n  restrict: /src\n  readonly: true\n---\nReview.\n');
    const { code, stdout, stderr } = run(['explain', '/a.ts', '--config', dir, '--worker', worker]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('worker: reviewer (sandbox: restrict)');
    expect(stdout).toContain(`resolves to: ${path.join(dir, 'code', 'a.ts')}`);
    expect(verdict(stdout, 'read')).toContain('allowed (file, 20 bytes)');
    expect(verdict(stdout, 'write')).toContain('refused (READ_ONLY)');
    // A file of the root, of a suffix /src allows, is not in the worker's view.
    write(path.join(dir, 'work', 'root-only.ts'), 'root');
    expect(verdict(run(['explain', '/root-only.ts', '--config', dir]).stdout, 'read')).toContain('allowed');
    const outside = run(['explain', '/root-only.ts', '--config', dir, '--worker', worker]);
    expect(verdict(outside.stdout, 'read')).toContain('not found');
    // The name's rules come first: a refused suffix is refused whether or not the file exists.
    const notes = run(['explain', '/notes.md', '--config', dir, '--worker', worker]);
    expect(verdict(notes.stdout, 'read')).toContain('refused (SUFFIX_NOT_ALLOWED)');
  });

  test('a pure-function worker gets no file access', () => {
    const dir = project();
    const worker = path.join(base, 'pure.worker');
    write(worker, '---\nname: pure\nsandbox: false\n---\n');
    const { code, stdout } = run(['explain', '/src/a.ts', '--config', dir, '--worker', worker]);
    expect(code).toBe(0);
    expect(stdout).toContain('no sandbox');
    expect(stdout).not.toContain('read:');
  });

  test('a worker asking rw on a read-only zone exits nonzero with the message', () => {
    const dir = path.join(base, 'zoned');
    write(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  zones:\n    data: {path: data, mode: ro}\n    work: {path: w}\n');
    const worker = path.join(base, 'greedy.worker');
    write(worker, '---\nname: greedy\nsandbox:\n  zones:\n    - name: data\n      mode: rw\n---\n');
    const { code, stdout, stderr } = run(['explain', '/data/x.csv', '--config', dir, '--worker', worker]);
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain("Worker 'greedy' requests 'rw' on zone 'data' but its parent only has 'ro'");
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  test('a worker with zones the parent has', () => {
    const dir = path.join(base, 'zoned');
    write(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  zones:\n    data: {path: data, mode: ro}\n    work: {path: w}\n');
    write(path.join(dir, '.sandbox', 'data', 'x.csv'), 'a,b\n');
    const worker = path.join(base, 'reader.worker');
    write(worker, '---\nname: reader\nsandbox:\n  zones: [{name: data, mode: ro}]\n---\n');
    const inside = run(['explain', '/data/x.csv', '--config', dir, '--worker', worker]);
    expect(inside.code).toBe(0);
    expect(verdict(inside.stdout, 'read')).toContain('allowed (file, 4 bytes)');
    expect(verdict(inside.stdout, 'write')).toContain('refused (READ_ONLY)');
    const outside = run(['explain', '/work/y', '--config', dir, '--worker', worker]);
    expect(outside.code).toBe(0);
    expect(verdict(outside.stdout, 'read')).toContain('refused (OUTSIDE_SANDBOX)');
    expect(verdict(outside.stdout, 'read')).toContain('Readable paths: /data.');
  });

  test('a restricting worker under a config without a sandbox exits 1 naming the worker', () => {
    write(path.join(base, 'golem-forge.config.yaml'), 'model: x\n');
    const worker = path.join(base, 'reviewer.worker');
    write(worker, '---\nname: reviewer\nsandbox: {restrict: /src}\n---\n');
    const { code, stderr } = run(['explain', '/a.ts', '--config', base, '--worker', worker]);
    expect(code).toBe(1);
    expect(stderr).toContain("Worker 'reviewer' declares sandbox restrictions but parent has no sandbox");
  });

  test('an invalid worker file exits 1 with file:line:column', () => {
    const dir = project();
    const worker = path.join(base, 'bad.worker');
    write(worker, '---\nname: bad\nsandbox:\n  restrict: src\n---\n');
    const { code, stderr } = run(['explain', '/a.ts', '--config', dir, '--worker', worker]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${worker}:4:13`);
    expect(stderr).toContain('sandbox.restrict');
  });

  test('a missing or unreadable worker file is reported without a stack trace', () => {
    const dir = project();
    const missing = run(['explain', '/a.ts', '--config', dir, '--worker', path.join(base, 'nope.worker')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${path.join(base, 'nope.worker')} does not exist`);
    const directory = run(['explain', '/a.ts', '--config', dir, '--worker', base]);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toContain(`${base}: cannot be read as a config file: a directory, not a file`);
    expect(directory.stderr).not.toMatch(/^\s+at /m);
  });

  test('explain answers for the sandbox exec runs in: the files the next run trusts are protected', () => {
    const dir = path.join(base, 'self');
    write(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n  approval: {write: preApproved}\n');
    write(path.join(dir, 'workers', 'helper.worker'), '---\nname: helper\n---\n');
    write(path.join(dir, 'notes.md'), 'notes');
    const config = run(['explain', '/golem-forge.config.yaml', '--config', dir]);
    expect(config.code).toBe(0);
    expect(verdict(config.stdout, 'write')).toBe('write:  allowed, approval: preApproved');
    expect(verdict(config.stdout, 'protected')).toContain('read-only to commands run by exec');
    const worker = run(['explain', '/workers/helper.worker', '--config', dir]);
    expect(verdict(worker.stdout, 'protected')).toContain('read-only to commands run by exec (workers:');
    const notes = run(['explain', '/notes.md', '--config', dir]);
    expect(notes.code).toBe(0);
    expect(verdict(notes.stdout, 'protected')).toBeUndefined();
  });

  test('explain without a path exits 2 with usage', () => {
    project();
    const { code, stderr } = run(['explain', '--config', path.join(base, 'proj')]);
    expect(code).toBe(2);
    expect(stderr).toContain('explain needs a virtual path');
    expect(stderr).toContain('Usage:');
  });
});

describe('usage', () => {
  test('an unknown command exits 2 with usage', () => {
    const { code, stdout, stderr } = run(['frobnicate']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('unknown command frobnicate');
    expect(stderr).toContain('Usage:');
    expect(stderr).toContain('mount-sandbox check');
    expect(stderr).toContain('mount-sandbox explain');
  });

  test('an unknown option and a flag without its value exit 2', () => {
    expect(run(['check', '--verbose']).code).toBe(2);
    const r = run(['explain', '/a', '--worker']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--worker needs a value');
  });

  test('no command exits 2 with usage; --help exits 0 with usage on stdout', () => {
    const none = run([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage:');
    const help = run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage:');
    expect(help.stderr).toBe('');
    expect(run(['check', '-h']).code).toBe(0);
  });
});

describe('help and version', () => {
  const OPTIONS = {
    check: [],
    explain: ['--config', '--worker'],
    exec: ['--config', '--worker', '--cwd', '--network', '--timeout', '--allow-weaker', '--verbose'],
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

  test('the overall usage lists every command and points to per-command help', () => {
    const { code, stdout } = run(['--help']);
    expect(code).toBe(0);
    for (const command of Object.keys(OPTIONS)) expect(stdout).toContain(`mount-sandbox ${command} `);
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

  test('a write to the read-only mount fails on disk and gets the writable-paths note', () => {
    const dir = project();
    const { code, stderr } = run(['exec', '--config', dir, '--cwd', '/src', '--', 'sh', '-c', 'echo x > a.ts']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/the sandbox is at \/workspace, it can read only the sandbox and system directories, and write only to \/workspace \(/);
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
