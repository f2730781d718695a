'use strict';

// Issue 19, point 3: config and .worker files are read the way the file API reads files. Opening
// a FIFO for reading waits for a writer, /proc/kmsg waits for kernel messages, /dev/zero never
// ends: a loader that trusts stat().isFile() and then reads hangs or fills the memory, and since
// a confined command can plant a symlink where discovery looks, a hang would also defeat
// discovery's refusal of planted configs. Every call that could hang runs in a child process with
// a deadline, so a hang fails the test instead of the suite.
const { testIf } = require('./helpers/skips');
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync, execFileSync } = require('child_process');
const { makeTempDir, removeDir, write } = require('./helpers');

const LIB = JSON.stringify(path.join(__dirname, '..', 'lib'));
const BIN = path.join(__dirname, '..', 'bin', 'mount-sandbox.js');
const DEADLINE_MS = 15000;
const SECRET = 'ENV-SECRET-sk-4711';
const isRoot = process.getuid && process.getuid() === 0;

let base;
beforeEach(() => {
  base = makeTempDir('msb-configs-');
});
afterEach(() => removeDir(base));

// Runs `body` (the text of an async function of `ms`, the package) in a fresh Node process and
// returns what it settled with, the error's own fields, and how far the call raised the child's
// peak memory (relative: a sanitizer build starts far higher).
function inChild(body, { env = {} } = {}) {
  const script = `
    const ms = require(${LIB});
    ms.isSupported();
    const peakBefore = process.resourceUsage().maxRSS;
    const fields = (e) => e && typeof e === 'object'
      ? { ...Object.fromEntries(Object.entries(e)), name: e.name, message: e.message, stack: e.stack,
          isSandboxError: ms.isSandboxError(e), isConfigFileError: e instanceof ms.SandboxConfigError }
      : { thrown: String(e) };
    (async (ms) => { ${body} })(ms).then(
      (value) => ({ value: value === undefined ? null : value }),
      (e) => ({ error: fields(e) }),
    ).then((outcome) => {
      const rssGrowthKiB = process.resourceUsage().maxRSS - peakBefore;
      process.stdout.write(JSON.stringify({ ...outcome, rssGrowthKiB }));
      process.exit(0);
    });
  `;
  const result = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    timeout: DEADLINE_MS,
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status === null) return { hung: true, stderr: result.stderr };
  if (result.status !== 0 || result.stdout === '') return { crashed: result.status, stderr: result.stderr };
  return JSON.parse(result.stdout);
}

function cli(args, { cwd = base, env = {} } = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd, encoding: 'utf8', timeout: DEADLINE_MS, env: { ...process.env, ...env },
  });
  return { hung: result.status === null, code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// The refusal a loader must give: settled in time, a typed config error with `code`, naming the
// file as given and no other host path.
function expectUnreadable(outcome, code, { file, notContaining = [] } = {}) {
  expect(outcome.hung).toBeUndefined();
  expect(outcome.crashed).toBeUndefined();
  expect(outcome.error).toBeDefined();
  const e = outcome.error;
  expect(e.name).toBe('UnreadableConfigError');
  expect(e.isSandboxError).toBe(true);
  expect(e.isConfigFileError).toBe(true);
  expect(e.code).toBe(code);
  if (file !== undefined) {
    expect(e.file).toBe(file);
    expect(e.message).toContain(file);
  }
  for (const text of notContaining) {
    expect(e.message).not.toContain(text);
    expect(JSON.stringify(e)).not.toContain(text);
  }
  return e;
}

// One line on stderr, exit status 1, no stack trace, no hang.
function expectOneLineFailure(run) {
  expect(run.hung).toBe(false);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(/^mount-sandbox: /);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  return run.stderr;
}

const CONFIG = 'sandbox:\n  root: .\n';
const WORKER = '---\nname: helper\n---\nHelps.\n';

function wchanOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/wchan`, 'utf8');
  } catch {
    return '';
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

// A writer blocked in open(2) on `fifo` until a reader appears: if a loader opened the FIFO for
// reading, the writer would be released.
async function blockedWriter(fifo) {
  const child = spawn('sh', ['-c', 'echo x > "$1"', 'sh', fifo], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  while (wchanOf(child.pid) !== 'wait_for_partner') await tick();
  return { child, exited };
}

async function writerWasStillBlocked(fifo, writer) {
  const stillWaiting = wchanOf(writer.child.pid) === 'wait_for_partner';
  const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  await writer.exited;
  fs.closeSync(reader);
  return stillWaiting;
}

// A regular file of sysfs (stat says regular; its contents are the kernel's).
const SYSFS_FILE = ['/sys/kernel/uevent_seqnum', '/sys/kernel/profiling', '/sys/power/state']
  .find((f) => fs.existsSync(f));

describe('a FIFO at a config or worker name', () => {
  test('loadProgramConfig, loadWorkerFile and findProgramConfig refuse it at once, never opening it', async () => {
    const dir = path.join(base, 'proj');
    fs.mkdirSync(dir);
    const config = path.join(dir, 'golem-forge.config.yaml');
    const worker = path.join(base, 'helper.worker');
    execFileSync('mkfifo', [config, worker]);
    const writer = await blockedWriter(config);
    expectUnreadable(inChild(`return ms.loadProgramConfig(${JSON.stringify(config)});`), 'NOT_REGULAR_FILE', { file: config });
    expectUnreadable(inChild(`return ms.loadWorkerFile(${JSON.stringify(worker)});`), 'NOT_REGULAR_FILE', { file: worker });
    // Discovery does not walk past it to some other config above: it is refused where found.
    expectUnreadable(inChild(`return ms.findProgramConfig(${JSON.stringify(dir)});`), 'NOT_REGULAR_FILE', { file: config });
    expect(await writerWasStillBlocked(config, writer)).toBe(true);
  });

  test('the CLI refuses it in one line: check <file>, explain --config <file>, explain --worker', () => {
    const dir = path.join(base, 'proj');
    write(path.join(dir, 'golem-forge.config.yaml'), CONFIG);
    const fifo = path.join(base, 'fifo.yaml');
    const worker = path.join(base, 'helper.worker');
    execFileSync('mkfifo', [fifo, worker]);
    expect(expectOneLineFailure(cli(['check', fifo]))).toContain(fifo);
    expect(expectOneLineFailure(cli(['explain', '/x', '--config', fifo]))).toContain(fifo);
    expect(expectOneLineFailure(cli(['explain', '/x', '--config', dir, '--worker', worker]))).toContain(worker);
  });
});

describe('a symlink to /proc/kmsg (a regular file to stat, whose read waits for kernel messages)', () => {
  test('loadProgramConfig, loadWorkerFile and findProgramConfig refuse it as a pseudo-filesystem', () => {
    const dir = path.join(base, 'proj');
    fs.mkdirSync(dir);
    const config = path.join(dir, 'golem-forge.config.yaml');
    const worker = path.join(base, 'helper.worker');
    fs.symlinkSync('/proc/kmsg', config);
    fs.symlinkSync('/proc/kmsg', worker);
    for (const [call, file] of [
      [`ms.loadProgramConfig(${JSON.stringify(config)})`, config],
      [`ms.loadWorkerFile(${JSON.stringify(worker)})`, worker],
      [`ms.findProgramConfig(${JSON.stringify(dir)})`, config],
    ]) {
      const e = expectUnreadable(inChild(`return ${call};`), 'PSEUDO_FILESYSTEM', { file, notContaining: ['/proc/kmsg'] });
      expect(e.filesystem).toBe('proc');
    }
  });

  test('planted where a config above lets a sandbox write, it is refused as a planted file is', () => {
    // What a command confined to the top project's writable root can do: write a config below,
    // or link one to /proc/kmsg. Both must get the same refusal, not a hang.
    const top = path.join(base, 'top');
    write(path.join(top, 'golem-forge.config.yaml'), CONFIG);
    write(path.join(top, 'planted-file', 'golem-forge.config.yaml'), 'sandbox:\n  root: /\n');
    fs.mkdirSync(path.join(top, 'planted-link'));
    fs.symlinkSync('/proc/kmsg', path.join(top, 'planted-link', 'golem-forge.config.yaml'));
    for (const sub of ['planted-file', 'planted-link']) {
      const outcome = inChild(`return ms.findProgramConfig(${JSON.stringify(path.join(top, sub))});`);
      expect(outcome.hung).toBeUndefined();
      expect(outcome.error.name).toBe('UntrustedConfigError');
      expect(outcome.error.reason).toBe('WRITABLE_FROM_ABOVE');
    }
  });

  test('check and explain --worker exit 1 with one line naming the file, not the link target', () => {
    const dir = path.join(base, 'proj');
    fs.mkdirSync(dir);
    const config = path.join(dir, 'golem-forge.config.yaml');
    fs.symlinkSync('/proc/kmsg', config);
    for (const args of [['check', dir], ['check', config]]) {
      const line = expectOneLineFailure(cli(args));
      expect(line).toContain(config);
      expect(line).not.toContain('/proc/kmsg');
    }
    const good = path.join(base, 'good');
    write(path.join(good, 'golem-forge.config.yaml'), CONFIG);
    const worker = path.join(base, 'kmsg.worker');
    fs.symlinkSync('/proc/kmsg', worker);
    const line = expectOneLineFailure(cli(['explain', '/x', '--config', good, '--worker', worker]));
    expect(line).toContain(worker);
    expect(line).not.toContain('/proc/kmsg');
  });
});

describe('other files that are not config files', () => {
  test('a link to /dev/zero is refused without reading: no memory spent, no RangeError', () => {
    const config = path.join(base, 'golem-forge.config.yaml');
    fs.symlinkSync('/dev/zero', config);
    const outcome = inChild(`return ms.loadProgramConfig(${JSON.stringify(config)});`);
    expectUnreadable(outcome, 'NOT_REGULAR_FILE', { file: config, notContaining: ['/dev/zero'] });
    expect(outcome.rssGrowthKiB).toBeLessThan(64 * 1024);
    expectOneLineFailure(cli(['check', config]));
  });

  test('a file over 1 MiB is TOO_LARGE with its size and the limit, decided before reading', () => {
    const config = path.join(base, 'golem-forge.config.yaml');
    const fd = fs.openSync(config, 'w');
    fs.ftruncateSync(fd, 2 ** 40);
    fs.closeSync(fd);
    const outcome = inChild(`return ms.loadProgramConfig(${JSON.stringify(config)});`);
    const e = expectUnreadable(outcome, 'TOO_LARGE', { file: config });
    expect([e.size, e.limit]).toEqual([2 ** 40, 1024 * 1024]);
    expect(outcome.rssGrowthKiB).toBeLessThan(64 * 1024);
    const worker = path.join(base, 'big.worker');
    fs.writeFileSync(worker, `---\nname: big\n---\n${'x'.repeat(1024 * 1024)}`);
    expectUnreadable(inChild(`return ms.loadWorkerFile(${JSON.stringify(worker)});`), 'TOO_LARGE', { file: worker });
  });

  test('a regular file on procfs (a link to /proc/self/environ) is refused, and none of it is shown', () => {
    const config = path.join(base, 'golem-forge.config.json');
    fs.symlinkSync('/proc/self/environ', config);
    const outcome = inChild(`return ms.loadProgramConfig(${JSON.stringify(config)});`, { env: { MSB_TEST_KEY: SECRET } });
    const e = expectUnreadable(outcome, 'PSEUDO_FILESYSTEM', { file: config, notContaining: [SECRET, '/proc/self'] });
    expect(e.filesystem).toBe('proc');
  });

  testIf(SYSFS_FILE, 'no readable regular file on sysfs here')('a regular file on sysfs is refused', () => {
    const config = path.join(base, 'golem-forge.config.yaml');
    fs.symlinkSync(SYSFS_FILE, config);
    const e = expectUnreadable(inChild(`return ms.loadProgramConfig(${JSON.stringify(config)});`),
      'PSEUDO_FILESYSTEM', { file: config, notContaining: [SYSFS_FILE] });
    expect(e.filesystem).toBe('sysfs');
  });

  test('a directory, a missing file, a dangling link and a link loop are typed refusals', () => {
    const dir = path.join(base, 'golem-forge.config.yaml');
    fs.mkdirSync(dir);
    expectUnreadable(inChild(`return ms.loadProgramConfig(${JSON.stringify(dir)});`), 'IS_DIRECTORY', { file: dir });
    const missing = path.join(base, 'nope.yaml');
    expectUnreadable(inChild(`return ms.loadProgramConfig(${JSON.stringify(missing)});`), 'NOT_FOUND', { file: missing });
    const dangling = path.join(base, 'dangling.worker');
    fs.symlinkSync(path.join(base, 'absent.worker'), dangling);
    expectUnreadable(inChild(`return ms.loadWorkerFile(${JSON.stringify(dangling)});`), 'NOT_FOUND',
      { file: dangling, notContaining: ['absent.worker'] });
    const loop = path.join(base, 'loop.yaml');
    fs.symlinkSync('loop.yaml', loop);
    expectUnreadable(inChild(`return ms.loadProgramConfig(${JSON.stringify(loop)});`), 'SYMLINK_LOOP', { file: loop });
    // The CLI: a directory given as the worker is one line, without EISDIR.
    const good = path.join(base, 'good');
    write(path.join(good, 'golem-forge.config.yaml'), CONFIG);
    const line = expectOneLineFailure(cli(['explain', '/x', '--config', good, '--worker', good]));
    expect(line).not.toContain('EISDIR');
  });

  testIf(isRoot, 'opening the device filesystem\'s files needs root')('a regular file on the device filesystem (/dev) is refused (as root)', () => {
    const devIsMount = fs.statSync('/dev').dev !== fs.statSync('/').dev;
    if (!devIsMount) return;
    const file = `/dev/msb-test-${process.pid}.yaml`;
    fs.writeFileSync(file, CONFIG);
    try {
      const e = expectUnreadable(inChild(`return ms.loadProgramConfig(${JSON.stringify(file)});`), 'PSEUDO_FILESYSTEM', { file });
      expect(e.filesystem).toBe('devtmpfs');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

describe('trust is judged on where the file read really lies', () => {
  test('a worker linked from the protected workers into a writable area is refused before it is read', () => {
    // The operator's link, but its target lies where the sandbox's commands write: what the next
    // run would read is whatever a command left there.
    const proj = path.join(base, 'proj');
    write(path.join(proj, 'golem-forge.config.yaml'), CONFIG);
    write(path.join(proj, 'tmp', 'planted.worker'), '---\nname: planted\n---\n');
    fs.mkdirSync(path.join(proj, 'workers'));
    fs.symlinkSync('../tmp/planted.worker', path.join(proj, 'workers', 'linked.worker'));
    const run = cli(['explain', '/x', '--config', proj, '--worker', path.join(proj, 'workers', 'linked.worker')]);
    const line = expectOneLineFailure(run);
    expect(line).toContain('linked.worker');
    expect(line).toMatch(/cannot be trusted/);
    // A link to a worker outside every writable area is the operator's own and still works.
    write(path.join(base, 'shared', 'helper.worker'), WORKER);
    fs.symlinkSync(path.join(base, 'shared', 'helper.worker'), path.join(proj, 'workers', 'helper.worker'));
    const ok = cli(['explain', '/x', '--config', proj, '--worker', path.join(proj, 'workers', 'helper.worker')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('worker: helper');
  });
});

describe('what stays working', () => {
  test('a config or worker symlinked from a place no sandbox writes still loads and is found', async () => {
    const ms = require('../lib');
    const shared = path.join(base, 'shared');
    write(path.join(shared, 'real.yaml'), 'sandbox:\n  root: app\n');
    write(path.join(shared, 'real.worker'), WORKER);
    const app = path.join(base, 'app');
    fs.mkdirSync(app);
    fs.symlinkSync(path.join(shared, 'real.yaml'), path.join(app, 'golem-forge.config.yaml'));
    fs.symlinkSync(path.join(shared, 'real.worker'), path.join(app, 'helper.worker'));
    const found = await ms.findProgramConfig(app);
    expect(found.file).toBe(path.join(app, 'golem-forge.config.yaml'));
    expect(found.sandbox.root).toBe(path.join(app, 'app'));
    expect((await ms.loadProgramConfig(path.join(app, 'golem-forge.config.yaml'))).sandbox.root).toBe(path.join(app, 'app'));
    expect((await ms.loadWorkerFile(path.join(app, 'helper.worker'))).name).toBe('helper');
  });

  test('an empty config and a config of exactly 1 MiB load', async () => {
    const ms = require('../lib');
    const empty = path.join(base, 'empty', 'golem-forge.config.yaml');
    write(empty, '');
    expect((await ms.loadProgramConfig(empty)).sandbox).toBeNull();
    const exact = path.join(base, 'exact', 'golem-forge.config.yaml');
    const head = 'model: x\n# ';
    write(exact, `${head}${'x'.repeat(1024 * 1024 - head.length - 1)}\n`);
    expect(fs.statSync(exact).size).toBe(1024 * 1024);
    expect((await ms.loadProgramConfig(exact)).sandbox).toBeNull();
  });
});
