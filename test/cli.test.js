'use strict';

// The mount-sandbox command, run as a user would run it: a real process over real config files.
// check, explain, usage, escaping and each command's options; test/cli-output.test.js has the rest.
const fs = require('fs');
const path = require('path');
const { tempDirEach, write } = require('./helpers');
const { useBase, run, project, lineWith, verdict } = require('./helpers/cli');

let base;
tempDirEach('msb-cli-', (dir) => {
  base = dir;
  useBase(dir);
});

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
