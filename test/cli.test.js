'use strict';

// The mount-sandbox command, run as a user would run it: a real process over real config files.
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
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

  test('a delete refused by a read-only worker says delete, not write', () => {
    const dir = project();
    const worker = path.join(base, 'reviewer.worker');
    write(worker, '---\nname: reviewer\nsandbox:\n  restrict: /src\n  readonly: true\n---\n');
    const { code, stdout } = run(['explain', '/a.ts', '--config', dir, '--worker', worker]);
    expect(code).toBe(0);
    expect(verdict(stdout, 'write')).toContain('refused (READ_ONLY): Cannot write to /a.ts: this location is read-only.');
    expect(verdict(stdout, 'delete')).toContain('refused (READ_ONLY): Cannot delete /a.ts: this location is read-only.');
    expect(verdict(stdout, 'delete')).not.toContain('write');
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
    expect(verdict(config.stdout, 'write')).toMatch(/^write: {2}refused \(HOST_TRUSTED\): Cannot change \/golem-forge.config.yaml/);
    expect(verdict(config.stdout, 'protected')).toContain('the file tools refuse every change, and it is read-only to commands run by exec');
    const client = run(['explain', '/.vscode/tasks.json', '--config', dir]);
    expect(verdict(client.stdout, 'write')).toMatch(/^write: {2}refused \(HOST_TRUSTED\)/);
    expect(verdict(client.stdout, 'protected')).toContain('the host trusts it (client)');
    const checked = run(['check', dir]);
    expect(checked.stdout).toContain('trusted names (never changed by the file tools');
    expect(checked.stdout).toMatch(/^trusted \(client\): \.mcp\.json \.vscode/m);
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

// check is how an operator reviews a config they do not trust: nothing in it may forge a line of
// the output or reach the terminal as a control sequence.
describe('values from a config or the filesystem are escaped', () => {
  // What must never reach the terminal raw: C0 and C1 controls, DEL, bidi controls, separators.
  const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

  test('check: a newline in a source forges no row, ESC and bidi controls are shown, a backslash is doubled', () => {
    const dir = path.join(base, 'hostile');
    write(path.join(dir, 'golem-forge.config.json'), JSON.stringify({
      sandbox: {
        root: 'work',
        mounts: [
          { source: 'evil\n  /fake  /etc  [ro, write: blocked, delete: blocked]', target: '/evil' },
          { source: 'esc\x1b[31mred\u202egnp.exe', target: '/t\x1b[2Jx', allowedSuffixes: ['.t\x1bs', '.a\u2066b'] },
          { source: 'back\\nslash\ttab\u2028', target: '/b', deniedSuffixes: ['.\x9b1m'] },
        ],
      },
    }));
    const { code, stdout, stderr } = run(['check', '--config', dir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    const rows = stdout.split('\n').filter((l) => l.startsWith('  '));
    expect(rows.map((l) => l.trim().split(' ')[0])).toEqual(['/', '/t\\x1b[2Jx', '/evil', '/b']);
    const evil = lineWith(stdout, '/evil');
    expect(evil).toContain(`${path.join(dir, 'evil')}\\n  /fake  /etc  [ro, write: blocked, delete: blocked]  [rw, write: ask, delete: ask]`);
    const esc = lineWith(stdout, '/t\\x1b');
    expect(esc).toContain(`${path.join(dir, 'esc')}\\x1b[31mred\\u202egnp.exe  [rw,`);
    expect(esc).toContain('allowed: .t\\x1bs .a\\u2066b');
    const back = lineWith(stdout, '  /b ');
    expect(back).toContain(`${path.join(dir, 'back')}\\\\nslash\\ttab\\u2028  [rw,`);
    expect(back).toContain('denied: .\\x9b1m');
  });

  test('check: a config in a directory whose name holds a newline is named on one line', () => {
    const dir = path.join(base, 'a\nconfig: /etc/golem-forge.config.yaml');
    write(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: w\n');
    const { code, stdout } = run(['check', '--config', dir]);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe(`config: ${base}/a\\nconfig: /etc/golem-forge.config.yaml/golem-forge.config.yaml`);
    expect(stdout.match(/^config: /gm)).toHaveLength(1);
  });

  test('explain: the path asked, the host path it resolves to, the worker\'s name and the refusals are escaped', () => {
    const dir = path.join(base, 'proj');
    write(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: work\n  mounts:\n    - {source: code, target: /src, readonly: true, allowedSuffixes: [".ts"]}\n');
    const worker = path.join(base, 'w.worker');
    write(worker, '---\nname: "rev\\e[31mx\\nworker: fake"\n---\n');
    const asked = '/src/a\x1b]0;title\x07b\u202e\nread:   allowed';
    const { code, stdout, stderr } = run(['explain', asked, '--config', dir, '--worker', worker]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain('worker: rev\\x1b[31mx\\nworker: fake (sandbox: inherit)\n');
    const shown = '/src/a\\x1b]0;title\\x07b\\u202e\\nread:   allowed';
    expect(stdout).toContain(`path: ${shown}\n`);
    expect(stdout).toContain(`resolves to: ${path.join(dir, 'code')}/a\\x1b]0;title\\x07b\\u202e\\nread:   allowed\n`);
    expect(verdict(stdout, 'read')).toBe(`read:   refused (SUFFIX_NOT_ALLOWED): Cannot use ${shown}: its file suffix is not allowed here. Allowed suffixes: .ts.`);
    expect(stdout.match(/^read:/gm)).toHaveLength(1);
  });

  test('an error message that quotes the config is one escaped line', () => {
    write(path.join(base, 'golem-forge.config.json'), '{"sandbox": {"root": "w"}, "evil\\nok\\u001b[2J": 1}');
    const { code, stdout, stderr } = run(['check']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`mount-sandbox: ${path.join(base, 'golem-forge.config.json')}:1:28: evil\\nok\\x1b[2J: expected a known key (allowed: sandbox, delegation, model, approval, workerPaths)\n`);
  });
});

describe('the options each command takes', () => {
  // Another project beside the current directory's: which one a command read shows in its output.
  function twoProjects() {
    const here = project();
    const other = path.join(base, 'other');
    write(path.join(other, 'golem-forge.config.yaml'), 'sandbox:\n  root: elsewhere\n  readonly: true\n');
    write(path.join(other, 'elsewhere', 'only-here.txt'), 'x');
    return { here, other };
  }

  test('check --config reads the config named, not the current directory\'s', () => {
    const { here, other } = twoProjects();
    for (const given of [other, path.join(other, 'golem-forge.config.yaml')]) {
      const { code, stdout, stderr } = run(['check', '--config', given], { cwd: here });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain(`config: ${path.join(other, 'golem-forge.config.yaml')}`);
      expect(lineWith(stdout, path.join(other, 'elsewhere'))).toMatch(/^\s+\/\s.*\[ro,/);
      expect(stdout).not.toContain(path.join(here, 'code'));
    }
    // The directory argument stays, for scripts that use it.
    expect(run(['check', other], { cwd: here }).stdout).toContain(`config: ${path.join(other, 'golem-forge.config.yaml')}`);
  });

  test('check with both a directory and --config is a usage error', () => {
    const { here, other } = twoProjects();
    const { code, stdout, stderr } = run(['check', here, '--config', other]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^mount-sandbox: check takes the config as a directory argument or as --config, not both\n/);
    expect(stderr).toContain('Usage: mount-sandbox check');
  });

  test.each([
    [['check', '--worker', 'w.worker']],
    [['check', '--cwd', '/']],
    [['check', '--timeout', '1000']],
    [['check', '--network']],
    [['check', '--allow-weaker']],
    [['check', '--verbose']],
    [['explain', '/a.ts', '--cwd', '/']],
    [['explain', '/a.ts', '--timeout', '1000']],
    [['explain', '/a.ts', '--network']],
    [['explain', '/a.ts', '--verbose']],
    [['apparmor', '--config', '.']],
  ])('%j: an option the command does not take is a usage error naming it', (args) => {
    const dir = project();
    const option = args.find((a) => a.startsWith('--'));
    const { code, stdout, stderr } = run(args, { cwd: dir });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^mount-sandbox: ${args[0]} does not take ${option}\n`));
    expect(stderr).toContain(`Usage: mount-sandbox ${args[0]}`);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  test.each([
    [['check', '--bogus'], /unknown option --bogus/],
    [['explain', '/a.ts', '--config=.'], /unknown option --config=\./],
    [['exec', '--bogus', '--', 'sh', '-c', 'echo ran > ran.txt'], /unknown option --bogus/],
    [['explain', '/a.ts', '--config', '.', '--config', '.'], /--config given twice/],
    [['exec', '--timeout', '100', '--timeout', '200', '--', 'sh', '-c', 'echo ran > ran.txt'], /--timeout given twice/],
    [['explain', '/a.ts', '/b.ts'], /explain takes one virtual path, got 2/],
    [['check', '.', 'code'], /check takes at most one directory, got 2/],
    [['apparmor', 'extra'], /apparmor takes no arguments/],
    [['exec', 'sh', '-c', 'echo ran > ran.txt'], /exec takes its command after --/],
    [['check', '--', 'ls'], /check runs no command: -- is for exec/],
    [['explain', '/a.ts', '--config', '--verbose'], /--config needs a value/],
  ])('%j is a usage error, and nothing runs', (args, message) => {
    const dir = project();
    const { code, stderr } = run(args, { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^mount-sandbox: ${message.source}`));
    expect(stderr).toContain('Usage: mount-sandbox');
    expect(fs.existsSync(path.join(dir, 'work', 'ran.txt'))).toBe(false);
  });
});

// Bad input gets one line saying what is wrong, never a stack trace; what exec prints ends its lines.
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
