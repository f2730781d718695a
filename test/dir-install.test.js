'use strict';

// `npm install /path/to/clone` by a user who does not own the clone (issue 41), as
// docs/install.md ("Installing from a clone or from git") states it:
//  - plain, npm links the clone and then chmods the bin files through the link, which only their
//    owner may do (bin-links chmods every bin, executable or not, so git's mode 100755 changes
//    nothing): it stops with EPERM;
//  - with --no-bin-links it links the clone without touching it: the library runs on the clone's
//    build, and the CLI by its path;
//  - with --install-links npm copies the files a tarball would hold (the installer owns the copy,
//    so the bin is linked), but not the clone's build/: no binary came with it.
// Here the clone is a copy of this repository after its set-up (files, build, dependencies),
// owned by root in a directory anyone may enter, and the user is nobody.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { testNeeding } = require('./helpers');
const { copyClone } = require('./helpers/clone');

const ROOT = path.join(__dirname, '..');
const nobodyRun = (args) => spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...args], { encoding: 'utf8' });
const MISSING = process.getuid() !== 0 ? 'needs root (it installs as nobody from a clone root owns)'
  : spawnSync('sh', ['-c', 'command -v setpriv'], { stdio: 'ignore' }).status !== 0 ? 'setpriv is not installed (util-linux)'
    : !fs.existsSync(path.join(ROOT, 'build', 'Release', 'mount_sandbox.node')) ? 'no build in build/Release (npm run build)' : null;
const withNobody = testNeeding(MISSING);

let work;
let clone;
beforeAll(() => {
  if (MISSING) return;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-dir-install-'));
  fs.chmodSync(work, 0o755);
  clone = copyClone(path.join(work, 'clone'), { dependencies: true });
  fs.mkdirSync(path.join(work, 'home'));
  execFileSync('chown', ['nobody:nogroup', path.join(work, 'home')]);
}, 120000);
afterAll(() => work && fs.rmSync(work, { recursive: true, force: true }));

// A fresh project of nobody's, and npm install run there as nobody.
function installAsNobody(name, args) {
  const dir = path.join(work, 'home', name);
  const run = (cmd, cmdArgs) => nobodyRun(['env', '-i', `PATH=${process.env.PATH}`, `HOME=${path.join(work, 'home')}`, 'sh', '-c', 'cd "$0" && exec "$@"', dir, cmd, ...cmdArgs]);
  const made = nobodyRun(['sh', '-c', 'mkdir "$0" && echo \'{ "name": "app", "version": "1.0.0", "private": true }\' > "$0/package.json"', dir]);
  if (made.status !== 0) throw new Error(made.stderr);
  return { dir, run, install: run('npm', ['install', '--no-audit', '--no-fund', ...args, clone]) };
}

withNobody('plain: npm stops with EPERM chmod on the clone\'s bin file, as the docs say', () => {
  const { install } = installAsNobody('plain', []);
  expect(install.status).not.toBe(0);
  expect(install.stderr).toMatch(/code EPERM/);
  expect(install.stderr).toMatch(/syscall: 'chmod'/);
  expect(install.stderr).toMatch(/node_modules\/mount-sandbox\/bin\/mount-sandbox\.js/);
}, 120000);

withNobody('--no-bin-links: the library runs on the clone\'s build, the CLI by its path', () => {
  const { dir, run, install } = installAsNobody('no-bin-links', ['--no-bin-links']);
  expect([install.status, install.stderr]).toEqual([0, expect.any(String)]);
  expect(fs.readlinkSync(path.join(dir, 'node_modules', 'mount-sandbox'))).toBeTruthy();
  const script = "const ms = require('mount-sandbox'); (async () => { const s = await ms.createTestSandbox();" +
    " await s.write('/a.txt', 'hi\\n'); console.log(JSON.stringify([ms.isSupported().supported, await s.read('/a.txt')])); })()";
  const lib = run('node', ['-e', script]);
  expect([lib.status, lib.stderr]).toEqual([0, '']);
  expect(JSON.parse(lib.stdout)).toEqual([true, 'hi\n']);
  const cli = run('node', ['node_modules/mount-sandbox/bin/mount-sandbox.js', '--help']);
  expect(cli.status).toBe(0);
  expect(cli.stdout).toContain('Usage:');
}, 120000);

withNobody('--install-links: a copy nobody owns, bin linked, without the clone\'s build', () => {
  const { dir, run, install } = installAsNobody('install-links', ['--install-links']);
  expect([install.status, install.stderr]).toEqual([0, expect.any(String)]);
  const pkg = path.join(dir, 'node_modules', 'mount-sandbox');
  expect(fs.lstatSync(pkg).isSymbolicLink()).toBe(false);
  expect(fs.existsSync(path.join(pkg, 'build'))).toBe(false);
  expect(fs.existsSync(path.join(dir, 'node_modules', '.bin', 'mount-sandbox'))).toBe(true);
  const help = run('node_modules/.bin/mount-sandbox', ['--help']);
  expect(help.status).toBe(0);
}, 300000);
