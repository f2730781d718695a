'use strict';

// Where the addon cannot run (another OS, CPU or libc, no binary, a binary that fails to load, a
// bundled copy), importing still works, isSupported() says why, and whatever needs the addon
// throws UnsupportedPlatformError with the ways out. Each case runs in its own Node process.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..');

// Without the overrides the sanitizer run sets, so only the copied package's files count.
const ENV = { ...process.env };
delete ENV.MOUNT_SANDBOX_ADDON;
delete ENV.MOUNT_SANDBOX_LAUNCHER;

let scratch;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-fail-soft-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

// The package's JS without any binary, as an install on a machine with no prebuilt would be.
function packageWithoutBinaries(name) {
  const dir = path.join(scratch, name, 'node_modules', 'mount-sandbox');
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(path.join(ROOT, 'lib'), path.join(dir, 'lib'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  return dir;
}

// A preload that makes this process look like another machine.
function preload(name, source) {
  const file = path.join(scratch, `${name}.js`);
  fs.writeFileSync(file, source);
  return ['--require', file];
}

const FAKE_DARWIN = "Object.defineProperty(process, 'platform', { value: 'darwin' });";
const FAKE_MUSL = `const real = process.report.getReport.bind(process.report);
process.report.getReport = () => { const r = real(); delete r.header.glibcVersionRuntime; return r; };`;
const FAKE_RISCV = "Object.defineProperty(process, 'arch', { value: 'riscv64' });";

// What a consumer sees: import, isSupported(), then each call that needs the addon.
const PROBE = `
const ms = require('mount-sandbox');
const attempt = (f) => { try { f(); return null; } catch (e) { return e; } };
const errors = [
  attempt(() => ms.createMountSandbox({ root: '/tmp' })),
  attempt(() => ms.parseWorkerFile('---\\nname: w\\n---\\n')),
  attempt(() => ms.openat2Supported()),
];
const e = errors[0];
console.log(JSON.stringify({
  supported: ms.isSupported(),
  allTyped: errors.every((x) => x instanceof ms.UnsupportedPlatformError && x instanceof ms.SandboxError),
  sameError: errors.every((x) => x === e),
  code: e.code,
  name: e.name,
  message: e.message,
  reason: e.reason,
  cause: e.cause ? String(e.cause.message) : null,
  llm: e.toLLMMessage(),
  errorsUsable: new ms.NotFoundError('/a').toLLMMessage(),
}));
`;

function probe(cwd, nodeArgs = [], script = PROBE) {
  const out = execFileSync(process.execPath, [...nodeArgs, '-e', script], { cwd, encoding: 'utf8', env: ENV });
  return JSON.parse(out);
}

function expectUnsupported(result) {
  expect(result.allTyped).toBe(true);
  expect(result.sameError).toBe(true);
  expect(result.code).toBe('UNSUPPORTED_PLATFORM');
  expect(result.name).toBe('UnsupportedPlatformError');
  expect(result.supported.supported).toBe(false);
  expect(result.supported.reason).toBe(result.reason);
  expect(result.supported.exec.supported).toBe(false);
  expect(result.errorsUsable).toBe('File not found: /a. Please check the path and try again.');
  expect(result.message).toContain('isSupported()');
  // Never where the package lives on this host.
  expect(result.message).not.toContain(scratch);
  expect(result.message).not.toContain(ROOT);
}

test('no binary for this machine: import works, creating a sandbox says how to build', () => {
  const dir = packageWithoutBinaries('no-binary');
  const result = probe(path.dirname(dir));
  expectUnsupported(result);
  expect(result.reason).toMatch(/no binary for linux-(x64|arm64) was found/);
  expect(result.message).toContain('npm run build --prefix node_modules/mount-sandbox');
  expect(result.message).toContain('apt-get update && apt-get install -y cmake g++ make libyaml-cpp-dev libre2-dev libpcre2-dev');
  // A plain `npm pack` in a clone carries no binaries (prepack refuses it): the way to one that does.
  expect(result.message).toContain('`npm run prebuilds && npm pack` in a clone');
  expect(result.message).not.toContain('a packed tarball (`npm pack`)');
  // Only routes that exist: the package is on no registry.
  expect(result.message).not.toMatch(/registry/);
  expect(result.message).toContain('`npm pack` in a clone where `npm run build` ran');
});

test('a packed binary needing a newer glibc than this system has: both versions named, nothing loaded', () => {
  const dir = packageWithoutBinaries('old-glibc');
  const target = path.join(dir, 'prebuilds', `linux-${process.arch}`);
  fs.mkdirSync(target, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'build/Release/mount_sandbox.node'), path.join(target, 'mount_sandbox.node'));
  fs.writeFileSync(path.join(target, 'prebuild.json'), JSON.stringify({ set: 'this-machine', glibc: '2.99' }));
  const result = probe(path.dirname(dir));
  expectUnsupported(result);
  const runtime = process.report.getReport().header.glibcVersionRuntime;
  expect(result.reason).toBe(`its binary for linux-${process.arch} (packed from a build on another machine) ` +
    `needs glibc 2.99 or newer, and this system has glibc ${runtime}`);
  expect(result.cause).toBeNull();
  expect(result.message).toContain('`npm run prebuilds && npm pack` in a clone');
});

test('musl: the reason says the prebuilt binaries need glibc', () => {
  const dir = packageWithoutBinaries('musl');
  const result = probe(path.dirname(dir), preload('musl', FAKE_MUSL));
  expectUnsupported(result);
  expect(result.reason).toContain('musl');
  expect(result.message).toContain('Linux x64 or arm64 with glibc');
});

test('a CPU without prebuilt binaries is named', () => {
  const dir = packageWithoutBinaries('riscv');
  const result = probe(path.dirname(dir), preload('riscv', FAKE_RISCV));
  expectUnsupported(result);
  expect(result.reason).toContain('no prebuilt binary for linux-riscv64');
});

test('macOS: even with a binary present nothing loads, and building is not offered', () => {
  const result = probe(ROOT, preload('darwin', FAKE_DARWIN));
  expectUnsupported(result);
  expect(result.reason).toContain('darwin');
  expect(result.message).not.toContain('npm run build');
  expect(result.message).toContain('Linux container or VM');
});

test('a binary that fails to load keeps the loader error as cause', () => {
  const dir = packageWithoutBinaries('broken');
  fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'build', 'Release', 'mount_sandbox.node'), 'not an ELF file');
  const result = probe(path.dirname(dir));
  expectUnsupported(result);
  expect(result.reason).toContain('failed to load');
  expect(result.cause).toMatch(/ELF|invalid|too short/i);
});

test('ESM import works without a binary, with the same classes as require', () => {
  const dir = packageWithoutBinaries('esm');
  const script = `
    import * as ms from 'mount-sandbox';
    import * as errors from 'mount-sandbox/errors';
    import { createRequire } from 'node:module';
    const cjs = createRequire(import.meta.url)('mount-sandbox');
    let error;
    try { ms.createMountSandbox({ root: '/tmp' }); } catch (e) { error = e; }
    console.log(JSON.stringify([ms.isSupported().supported, error instanceof errors.UnsupportedPlatformError,
      ms.UnsupportedPlatformError === cjs.UnsupportedPlatformError, error.code]));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.dirname(dir),
    encoding: 'utf8',
    env: ENV,
  });
  expect(JSON.parse(out)).toEqual([false, true, true, 'UNSUPPORTED_PLATFORM']);
});

test('createTestSandbox rejects without leaving a temp directory', () => {
  const dir = packageWithoutBinaries('test-sandbox');
  const tmp = fs.mkdtempSync(path.join(scratch, 'tmpdir-'));
  const script = `require('mount-sandbox').createTestSandbox().then(() => console.log('created'),
    (e) => console.log(e.code));`;
  const out = execFileSync(process.execPath, ['-e', script], {
    cwd: path.dirname(dir),
    encoding: 'utf8',
    env: { ...ENV, TMPDIR: tmp },
  });
  expect(out.trim()).toBe('UNSUPPORTED_PLATFORM');
  expect(fs.readdirSync(tmp)).toEqual([]);
});

// A consumer bundled whole with esbuild for Node, in each output format. The ESM output turns the
// package's require() calls into a shim that throws 'Dynamic require of "fs" is not supported', so
// the bundle runs as a file (`node -e` would lend it a global require).
const CJS_CONSUMER = "const ms = require('mount-sandbox');";
const ESM_CONSUMER = "import * as ms from 'mount-sandbox';";
// Node 20 before 20.16 (and 22 before 22.3) has no process.getBuiltinModule().
const FAKE_OLD_NODE = 'delete process.getBuiltinModule;';

function bundle(name, format, consumer) {
  const outfile = path.join(scratch, 'bundled', `${name}.${format === 'esm' ? 'mjs' : 'cjs'}`);
  require('esbuild').buildSync({
    stdin: { contents: PROBE.replace(CJS_CONSUMER, consumer), resolveDir: ROOT },
    bundle: true,
    platform: 'node',
    format,
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

test.each([
  ['cjs', 'CommonJS', CJS_CONSUMER],
  ['cjs', 'ESM', ESM_CONSUMER],
  ['esm', 'CommonJS', CJS_CONSUMER],
  ['esm', 'ESM', ESM_CONSUMER],
])('a bundled copy (--format=%s, %s consumer) imports and says to mark mount-sandbox as external', (format, kind, consumer) => {
  const outfile = bundle(`${format}-${kind}`, format, consumer);
  const result = JSON.parse(execFileSync(process.execPath, [outfile], { cwd: scratch, encoding: 'utf8', env: ENV }));
  expectUnsupported(result);
  expect(result.reason).toBe('it was bundled, so its native binaries are not beside it');
  expect(result.message).toContain('mark mount-sandbox as external');
});

test('without process.getBuiltinModule an ESM bundle fails at import; the CommonJS one still fails soft', () => {
  const old = preload('old-node', FAKE_OLD_NODE);
  const esm = spawnSync(process.execPath, [...old, bundle('old-esm', 'esm', ESM_CONSUMER)], { cwd: scratch, encoding: 'utf8', env: ENV });
  expect(esm.status).toBe(1);
  expect(esm.stdout).toBe('');
  expect(esm.stderr).toContain('Error: Dynamic require of "child_process" is not supported');
  const cjs = execFileSync(process.execPath, [...old, bundle('old-cjs', 'cjs', ESM_CONSUMER)], { cwd: scratch, encoding: 'utf8', env: ENV });
  expect(JSON.parse(cjs).reason).toBe('it was bundled, so its native binaries are not beside it');
});

test('without process.getBuiltinModule the package itself takes the built-ins from require()', () => {
  const script = `const ms = require('mount-sandbox');
    ms.createTestSandbox().then(async (s) => { await s.write('/a', 'x'); console.log(typeof process.getBuiltinModule, await s.read('/a')); });`;
  const out = execFileSync(process.execPath, [...preload('old-node', FAKE_OLD_NODE), '-e', script], { cwd: ROOT, encoding: 'utf8', env: ENV });
  expect(out).toBe('undefined x\n');
});

test('an addon without its exec launcher: files work, exec says what is missing', () => {
  const dir = packageWithoutBinaries('no-launcher');
  fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'build', 'Release', 'mount_sandbox.node'),
    path.join(dir, 'build', 'Release', 'mount_sandbox.node'));
  const script = `
    const ms = require('mount-sandbox');
    ms.createTestSandbox().then(async (s) => {
      await s.write('/a.txt', 'x');
      const error = await s.exec(['true']).catch((e) => e);
      console.log(JSON.stringify({ support: ms.isSupported(), read: await s.read('/a.txt'),
        typed: error instanceof ms.UnsupportedPlatformError, message: error.message }));
    });`;
  const result = JSON.parse(execFileSync(process.execPath, ['-e', script], {
    cwd: path.dirname(dir),
    encoding: 'utf8',
    env: ENV,
  }));
  expect(result.support.supported).toBe(true);
  expect(result.support.exec.supported).toBe(false);
  expect(result.support.exec.reason).toContain('msb-launch');
  expect(result.read).toBe('x');
  expect(result.typed).toBe(true);
  expect(result.message).toContain('msb-launch');
  expect(result.message).not.toContain(scratch);
});

test('where the addon loads, isSupported() says so', () => {
  const out = execFileSync(process.execPath, ['-p', "JSON.stringify(require('mount-sandbox').isSupported())"], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(JSON.parse(out)).toEqual({ supported: true, exec: { supported: true } });
});
