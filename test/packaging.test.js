'use strict';

// The package as consumers load it: by name, from ESM and CommonJS, and typed for strict TS.
const path = require('path');
const { execFileSync } = require('child_process');

const ROOT = path.join(__dirname, '..');

// The declarations are checked in test/surface.test.js.

test('a source build takes the Node-API headers from node-api-headers, never from a Node download', () => {
  // cmake-js downloads Node's headers from nodejs.org unless the project declares itself a
  // Node-API addon; offline machines and CI then cannot build. Asked of cmake-js itself.
  const { BuildSystem } = require('cmake-js');
  const build = new BuildSystem({ directory: ROOT, logLevel: 'silent' });
  expect(build.options.isNodeApi).toBe(true);
});

test('ESM import and CommonJS require give the same classes', () => {
  const script = `
    import * as esm from 'mount-sandbox';
    import { createRequire } from 'node:module';
    const cjs = createRequire(import.meta.url)('mount-sandbox');
    const sandbox = await esm.createTestSandbox();
    const err = await sandbox.read('/missing').catch((e) => e);
    console.log(JSON.stringify([esm.NotFoundError === cjs.NotFoundError, err instanceof cjs.NotFoundError, err.code]));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(JSON.parse(out)).toEqual([true, true, 'NOT_FOUND']);
});

// `npm pack` runs scripts/check-pack.js first (prepack) and again after (postpack --clean). A copy
// of the package's manifest and scripts is enough to pack; prebuilds/ and build/Release/ hold what
// each case needs. (test/pack-install.test.js installs and runs what it packs.)
describe('npm pack', () => {
  const fs = require('fs');
  const os = require('os');
  const { spawnSync } = require('child_process');
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-pack-'));
    for (const file of ['package.json', 'CMakeLists.txt', 'README.md', 'scripts/check-pack.js', 'scripts/check-prebuilds.js', 'scripts/build.js']) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
    }
    for (const sub of ['src', 'binding', 'docs']) fs.cpSync(path.join(ROOT, sub), path.join(dir, sub), { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const pack = (env = {}) => spawnSync('npm', ['pack', '--dry-run', '--json'], {
    cwd: dir, encoding: 'utf8', env: { ...process.env, MSB_PACK_SOURCE_ONLY: '', ...env },
  });

  test('refuses without both prebuilt sets, naming what is missing and the override', () => {
    fs.mkdirSync(path.join(dir, 'prebuilds/linux-x64'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'build/Release/mount_sandbox.node'), path.join(dir, 'prebuilds/linux-x64/mount_sandbox.node'));
    const result = pack();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('prebuilds/linux-x64/msb-launch is missing');
    expect(result.stderr).toContain('prebuilds/linux-arm64/mount_sandbox.node is missing');
    expect(result.stderr).toContain('MSB_PACK_SOURCE_ONLY=1');
    expect(result.stdout).not.toMatch(/"filename"/);
  });

  test('without prebuilt binaries or a build: refuses, naming every route', () => {
    const result = pack();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('no build of this machine: build/Release/mount_sandbox.node, build/Release/msb-launch missing');
    for (const route of ['`npm run build`', '`npm run prebuilds`', 'MSB_PACK_SOURCE_ONLY=1']) expect(result.stderr).toContain(route);
  });

  const copyBuild = () => {
    fs.mkdirSync(path.join(dir, 'build/Release'), { recursive: true });
    for (const name of ['mount_sandbox.node', 'msb-launch']) fs.copyFileSync(path.join(ROOT, 'build/Release', name), path.join(dir, 'build/Release', name));
  };

  test('with a build and no prebuilt set: packs this machine\'s build, its libraries and needs, and says so', () => {
    copyBuild();
    const result = pack();
    expect(result.status).toBe(0);
    const target = `linux-${process.arch}`;
    expect(result.stderr).toContain(`prepack: packing this machine's build: ${target}, for glibc `);
    const files = JSON.parse(result.stdout)[0].files.map((f) => f.path);
    const packed = files.filter((f) => f.startsWith('prebuilds/')).sort();
    expect(packed).toEqual(expect.arrayContaining([`prebuilds/${target}/mount_sandbox.node`, `prebuilds/${target}/msb-launch`, `prebuilds/${target}/prebuild.json`]));
    expect(packed.filter((f) => !f.startsWith(`prebuilds/${target}/`))).toEqual([]);
    expect(files.filter((f) => f.startsWith('build/'))).toEqual([]);
    // postpack removed the copy; the clone is as it was.
    expect(fs.existsSync(path.join(dir, 'prebuilds'))).toBe(false);
  });

  test('refuses a build older than the sources', () => {
    copyBuild();
    const later = new Date(Date.now() + 60000);
    fs.utimesSync(path.join(dir, 'src/fs/sandbox.cc'), later, later);
    const result = pack();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/build\/Release\/(mount_sandbox\.node|msb-launch) is older than src\/fs\/sandbox\.cc/);
  });

  test('refuses binaries that are not the prebuilt ones (a local build in their place)', () => {
    for (const arch of ['x64', 'arm64']) {
      fs.mkdirSync(path.join(dir, `prebuilds/linux-${arch}`), { recursive: true });
      for (const name of ['mount_sandbox.node', 'msb-launch']) {
        fs.copyFileSync(path.join(ROOT, 'build/Release', name), path.join(dir, `prebuilds/linux-${arch}`, name));
      }
    }
    const result = pack();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/check-prebuilds: mount_sandbox\.node \(arm64\) is built for/);
  });

  test('packs a source-only tarball when asked to, saying what its users must do', () => {
    const result = pack({ MSB_PACK_SOURCE_ONLY: '1' });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('source-only tarball');
    const files = JSON.parse(result.stdout)[0].files.map((f) => f.path);
    expect(files).toContain('src/fs/sandbox.cc');
    expect(files.filter((f) => f.startsWith('prebuilds/'))).toEqual([]);
    // The README links into docs/, so the pages travel with it.
    const pages = fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`);
    expect(files.filter((f) => f.startsWith('docs/')).sort()).toEqual(pages.sort());
    expect(files).toContain('README.md');
  });
});
