'use strict';

// Issue 11, point 4 (configs): nothing a command writes may change which config, or which worker
// file, the next run trusts. Each attack is made as an attacker would: a first run of a real
// command plants or rewrites a file where its sandbox lets it write; a second run (or the host's
// own discovery) must not be widened by it.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const ms = require('../lib');
const { makeTempDir, removeDir, write } = require('./helpers');

const BIN = path.join(__dirname, '..', 'bin', 'mount-sandbox.js');
const SECRET = 'TOP-SECRET-4711';

let base;
beforeEach(() => {
  base = makeTempDir('msb-next-run-');
  write(path.join(base, 'secret.txt'), SECRET);
  fs.mkdirSync(path.join(base, 'outside'));
});
afterEach(() => removeDir(base));

function cli(args, { cwd = base } = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 30000 });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// A project whose sandbox may write its whole directory, the config's own directory included.
function writableProject(name = 'golem-forge.config.json') {
  const dir = path.join(base, 'proj');
  const text = name.endsWith('.json') ? '{"sandbox": {"root": "."}}\n' : 'sandbox:\n  root: .\n';
  write(path.join(dir, name), text);
  write(path.join(dir, 'app.ts'), 'export {};\n');
  return dir;
}

// What a widened second run would do: read the secret and write next to it, wherever "/" is.
const STEAL = 'cat secret.txt ../secret.txt ../../secret.txt 2>/dev/null; ' +
  'for d in outside ../outside ../../outside; do echo pwned > $d/x 2>/dev/null; done; true';

function expectNotWidened(run) {
  expect(run.stdout).not.toContain(SECRET);
  expect(fs.existsSync(path.join(base, 'outside', 'x'))).toBe(false);
}

describe('a config planted by one run is refused by the next', () => {
  test('a sibling of another extension (yaml wins over json) is removed when the command ends', () => {
    const proj = writableProject('golem-forge.config.json');
    const plant = cli(['exec', '--config', proj, '--', 'sh', '-c',
      'printf "sandbox:\\n  root: ..\\n" > golem-forge.config.yaml']);
    expect(plant.code).toBe(0);
    expect(plant.stderr).toContain('/workspace/golem-forge.config.yaml (Cannot change a file the host trusts to run things');
    expect(fs.existsSync(path.join(proj, 'golem-forge.config.yaml'))).toBe(false);

    const next = cli(['exec', '--config', proj, '--', 'sh', '-c', STEAL]);
    expectNotWidened(next);
    expect(next.code).toBe(0);
  });

  test('a sibling of another extension is refused by discovery, not used', () => {
    // What the removal above keeps from happening, planted by hand (or by a run without a PID
    // namespace, where nothing is removed).
    const proj = writableProject('golem-forge.config.json');
    write(path.join(proj, 'golem-forge.config.yaml'), 'sandbox:\n  root: ..\n');
    const next = cli(['exec', '--config', proj, '--', 'sh', '-c', STEAL]);
    expectNotWidened(next);
    expect(next.code).toBe(1);
    expect(next.stderr).toMatch(/golem-forge\.config\.yaml/);
    expect(next.stderr).toMatch(/golem-forge\.config\.json/);
    expect(next.stderr).toMatch(/keep one/i);

    // check and explain discover the same way: they refuse too.
    const check = cli(['check', proj]);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/keep one/i);
  });

  test('a config planted in a subdirectory is refused when the next run starts there', () => {
    const proj = writableProject();
    const plant = cli(['exec', '--config', proj, '--', 'sh', '-c',
      'mkdir -p sub && printf "sandbox:\\n  root: ../..\\n" > sub/golem-forge.config.yaml']);
    expect(plant.code).toBe(0);
    const sub = path.join(proj, 'sub');
    expect(fs.existsSync(path.join(sub, 'golem-forge.config.yaml'))).toBe(true);

    for (const next of [
      cli(['exec', '--config', sub, '--', 'sh', '-c', STEAL]),
      cli(['exec', '--', 'sh', '-c', STEAL], { cwd: sub }), // default: the current directory
      // A script naming the file, run from the directory the command made, is refused too.
      cli(['exec', '--config', 'golem-forge.config.yaml', '--', 'sh', '-c', STEAL], { cwd: sub }),
    ]) {
      expectNotWidened(next);
      expect(next.code).toBe(1);
      expect(next.stderr).toContain('../golem-forge.config.json');
      expect(next.stderr).toMatch(/cannot be trusted/);
    }
  });

  test('findProgramConfig refuses both plantings with a typed error', async () => {
    const proj = writableProject();
    write(path.join(proj, 'golem-forge.config.yaml'), 'sandbox:\n  root: /\n');
    const twice = await ms.findProgramConfig(proj).catch((e) => e);
    expect(twice).toBeInstanceOf(ms.UntrustedConfigError);
    expect(twice).toBeInstanceOf(ms.SandboxConfigError);
    expect(twice.code).toBe('UNTRUSTED_CONFIG');
    expect(twice.reason).toBe('SEVERAL_CANDIDATES');
    expect(twice.names).toEqual(['golem-forge.config.yaml', 'golem-forge.config.json']);

    fs.unlinkSync(path.join(proj, 'golem-forge.config.yaml'));
    write(path.join(proj, 'deep', 'er', 'golem-forge.config.yml'), 'sandbox:\n  root: /\n');
    const below = await ms.findProgramConfig(path.join(proj, 'deep', 'er')).catch((e) => e);
    expect(below).toBeInstanceOf(ms.UntrustedConfigError);
    expect(below.reason).toBe('WRITABLE_FROM_ABOVE');
    expect(below.above).toBe('../../golem-forge.config.json');
    // Names the config above relative to the one found, whose own path it gives.
    expect(below.file).toBe(path.join(proj, 'deep', 'er', 'golem-forge.config.yml'));
    expect(below.message).not.toContain(path.join(proj, 'golem-forge.config.json'));
  });

  test('a config planted in a writable mount of a config above is refused too', async () => {
    const top = path.join(base, 'top');
    write(path.join(top, 'golem-forge.config.yaml'),
      'sandbox:\n  root: docs\n  readonly: true\n  mounts:\n    - {source: scratch, target: /scratch}\n');
    write(path.join(top, 'scratch', 'golem-forge.config.yaml'), 'sandbox:\n  root: /\n');
    const refused = await ms.findProgramConfig(path.join(top, 'scratch')).catch((e) => e);
    expect(refused).toBeInstanceOf(ms.UntrustedConfigError);
    expect(refused.reason).toBe('WRITABLE_FROM_ABOVE');

    // A read-only root above, or writable areas elsewhere, do not make a config below untrusted.
    write(path.join(top, 'docs', 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    const found = await ms.findProgramConfig(path.join(top, 'docs'));
    expect(found.file).toBe(path.join(top, 'docs', 'golem-forge.config.yaml'));
  });

  test('a config above that does not parse makes discovery below refuse, naming it', async () => {
    const top = path.join(base, 'top');
    write(path.join(top, 'golem-forge.config.yaml'), 'sandbox: [broken\n');
    write(path.join(top, 'app', 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    const refused = await ms.findProgramConfig(path.join(top, 'app')).catch((e) => e);
    expect(refused).toBeInstanceOf(ms.UntrustedConfigError);
    expect(refused.reason).toBe('UNREADABLE_ABOVE');
    expect(refused.message).toContain('../golem-forge.config.yaml');
    expect(refused.cause).toBeInstanceOf(ms.ConfigFileError);
  });
});

describe('existing candidates and worker files are read-only for commands', () => {
  function projectWithWorkers() {
    const proj = writableProject();
    write(path.join(proj, 'workers', 'reviewer.worker'), '---\nname: reviewer\nsandbox:\n  restrict: /src\n  readonly: true\n---\nReview.\n');
    write(path.join(proj, 'workers', 'nested', 'fixer.worker'), '---\nname: fixer\n---\nFix.\n');
    write(path.join(proj, '.workers', 'hidden.worker'), '---\nname: hidden\nsandbox: false\n---\nHi.\n');
    fs.mkdirSync(path.join(proj, 'src'));
    return proj;
  }
  const WORKER_FILES = ['workers/reviewer.worker', 'workers/nested/fixer.worker', '.workers/hidden.worker'];
  const OVERWRITE_WORKERS = WORKER_FILES.map((f) => `echo 'sandbox: {}' > ${f}; rm -f ${f}; mv ${f} ${f}.x`).join('; ');

  function snapshot(proj, files) {
    return files.map((f) => fs.readFileSync(path.join(proj, f), 'utf8'));
  }

  test('the CLI: a command cannot rewrite, delete or rename any .worker file of the config', () => {
    const proj = projectWithWorkers();
    const before = snapshot(proj, WORKER_FILES);
    cli(['exec', '--config', proj, '--', 'sh', '-c', OVERWRITE_WORKERS]);
    expect(snapshot(proj, WORKER_FILES)).toEqual(before);
    // Nor when the command runs as one of those workers.
    cli(['exec', '--config', proj, '--worker', path.join(proj, 'workers', 'nested', 'fixer.worker'), '--',
      'sh', '-c', OVERWRITE_WORKERS]);
    expect(snapshot(proj, WORKER_FILES)).toEqual(before);
  });

  test('the CLI: an existing sibling candidate next to the file named by --config stays as it is', () => {
    const proj = writableProject('golem-forge.config.json');
    const stale = 'sandbox:\n  root: .\n  readonly: true\n';
    write(path.join(proj, 'golem-forge.config.yml'), stale);
    cli(['exec', '--config', path.join(proj, 'golem-forge.config.json'), '--', 'sh', '-c',
      'printf "sandbox:\\n  root: /\\n" > golem-forge.config.yml; rm -f golem-forge.config.yml']);
    expect(fs.readFileSync(path.join(proj, 'golem-forge.config.yml'), 'utf8')).toBe(stale);
  });

  test('a config above the one in use, inside the sandbox, cannot be rewritten', () => {
    // The config above makes only data/ visible, so the project below is trusted; the project's
    // own sandbox reaches up to that config and must not be able to change it.
    write(path.join(base, 'golem-forge.config.yaml'), 'sandbox:\n  root: data\n  readonly: true\n');
    const proj = path.join(base, 'proj');
    write(path.join(proj, 'golem-forge.config.yaml'), 'sandbox:\n  root: ..\n');
    const aboveBefore = fs.readFileSync(path.join(base, 'golem-forge.config.yaml'), 'utf8');
    cli(['exec', '--config', proj, '--', 'sh', '-c',
      'printf "sandbox:\\n  root: /\\n" > golem-forge.config.yaml; rm -f golem-forge.config.yaml']);
    expect(fs.readFileSync(path.join(base, 'golem-forge.config.yaml'), 'utf8')).toBe(aboveBefore);
  });

  test('the CLI: a command cannot rename a worker directory away and recreate it, nor add a worker', () => {
    const proj = projectWithWorkers();
    const before = snapshot(proj, WORKER_FILES);
    cli(['exec', '--config', proj, '--', 'sh', '-c',
      'mv workers w2; mkdir -p workers/nested; echo evil > workers/nested/fixer.worker; ' +
      'mv workers/nested workers/n2; mkdir workers/nested; echo evil > workers/nested/fixer.worker; ' +
      'echo evil > workers/planted.worker; mv .workers .w2; mkdir .workers; echo evil > .workers/hidden.worker']);
    expect(snapshot(proj, WORKER_FILES)).toEqual(before);
    expect(fs.existsSync(path.join(proj, 'workers', 'planted.worker'))).toBe(false);
  });

  test('workerPaths holding the writable root: its .worker files are protected, the rest stays writable', () => {
    const proj = path.join(base, 'proj');
    write(path.join(proj, 'golem-forge.config.yaml'), 'workerPaths: ["."]\nsandbox:\n  root: .\n');
    const worker = '---\nname: a\n---\nA.\n';
    write(path.join(proj, 'agents', 'a.worker'), worker);
    const run = cli(['exec', '--config', proj, '--', 'sh', '-c',
      'echo evil > agents/a.worker; mv agents a2; mkdir -p agents; echo evil > agents/a.worker; echo ok > made.txt']);
    expect(fs.readFileSync(path.join(proj, 'agents', 'a.worker'), 'utf8')).toBe(worker);
    expect(fs.readFileSync(path.join(proj, 'made.txt'), 'utf8')).toBe('ok\n');
    expect(run.code).toBe(0);
  });

  // The launcher pins every directory between a writable source and a protected path.
  test('a command cannot rename the config\'s directory away and plant a config in its place', () => {
    const app = path.join(base, 'proj', 'app');
    const text = '{"sandbox": {"root": ".."}}\n';
    write(path.join(app, 'golem-forge.config.json'), text);
    cli(['exec', '--config', app, '--', 'sh', '-c',
      'mv app app2 && mkdir app && printf \'{"sandbox": {"root": "../.."}}\' > app/golem-forge.config.json']);
    expect(fs.readFileSync(path.join(app, 'golem-forge.config.json'), 'utf8')).toBe(text);
    const next = cli(['exec', '--config', app, '--', 'sh', '-c', STEAL]);
    expectNotWidened(next);
  });

  test('a worker whose view is the worker directory itself cannot rewrite the workers in it', () => {
    const proj = projectWithWorkers();
    write(path.join(proj, 'workers', 'keeper.worker'), '---\nname: keeper\nsandbox:\n  restrict: /workers\n---\nK.\n');
    const before = snapshot(proj, WORKER_FILES);
    const run = cli(['exec', '--config', proj, '--worker', path.join(proj, 'workers', 'keeper.worker'), '--', 'sh', '-c',
      "echo ran; echo 'sandbox: {}' > reviewer.worker; echo 'sandbox: {}' > nested/fixer.worker; mv nested n2"]);
    expect(run.stdout).toBe('ran\n');
    expect(snapshot(proj, WORKER_FILES)).toEqual(before);
  });

  test('sandbox.exec on a sandbox from findProgramConfig + createSandboxFromConfig', async () => {
    const proj = projectWithWorkers();
    const config = await ms.findProgramConfig(proj);
    const sandbox = await ms.createSandboxFromConfig(config);
    const before = snapshot(proj, [...WORKER_FILES, 'golem-forge.config.json']);
    const result = await sandbox.exec(['sh', '-c',
      `${OVERWRITE_WORKERS}; echo '{}' > golem-forge.config.json; echo planted > made.txt`]);
    expect(result.exitCode).toBe(0); // the command ran, and could write elsewhere
    expect(fs.readFileSync(path.join(proj, 'made.txt'), 'utf8')).toBe('planted\n');
    expect(snapshot(proj, [...WORKER_FILES, 'golem-forge.config.json'])).toEqual(before);
  });

  test('a --worker file in a writable area that is not one of the protected ones is refused', () => {
    const proj = projectWithWorkers();
    // A command could have written this one: it lies in the writable root, outside workers/.
    write(path.join(proj, 'tmp', 'planted.worker'), '---\nname: planted\n---\nAnything.\n');
    const refused = cli(['exec', '--config', proj, '--worker', path.join(proj, 'tmp', 'planted.worker'), '--',
      'sh', '-c', 'echo ran']);
    expect(refused.stdout).not.toContain('ran');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/planted\.worker/);
    expect(refused.stderr).toMatch(/workers/);
    // One of the protected worker files is fine.
    const ok = cli(['exec', '--config', proj, '--worker', path.join(proj, 'workers', 'nested', 'fixer.worker'), '--',
      'sh', '-c', 'echo ran']);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toBe('ran\n');
  });
});

describe('symbolic links do not hide where a config lies', () => {
  test('a config that is a symlink into a writable area of a config above is refused', async () => {
    const top = path.join(base, 'top');
    write(path.join(top, 'golem-forge.config.yaml'), 'sandbox:\n  root: scratch\n');
    write(path.join(top, 'scratch', 'real.yaml'), 'sandbox:\n  root: /\n');
    fs.mkdirSync(path.join(top, 'app'));
    fs.symlinkSync(path.join(top, 'scratch', 'real.yaml'), path.join(top, 'app', 'golem-forge.config.yaml'));
    const refused = await ms.findProgramConfig(path.join(top, 'app')).catch((e) => e);
    expect(refused).toBeInstanceOf(ms.UntrustedConfigError);
    expect(refused.reason).toBe('WRITABLE_FROM_ABOVE');
  });
});
