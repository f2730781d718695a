#!/usr/bin/env node
'use strict';

// npm's prepack: decides which binaries the tarball carries, since installed it has no build tools
// and runs no install script. Two sets are accepted, and the one packed is said on stderr:
//  - the full prebuilt set (`npm run prebuilds`, as root on Debian): prebuilds/linux-x64 and
//    linux-arm64, which must pass scripts/check-prebuilds.js and be newer than every C++ source;
//  - this machine's set, when prebuilds/ holds no full set: the clone's own build (`npm run
//    build`, build/Release/), copied to prebuilds/<platform>-<arch>/ with the shared libraries it
//    needs beyond glibc and the C++ runtime (yaml-cpp, RE2). It runs where this machine's does:
//    the same architecture, a glibc at least as new as the one its binaries need.
// Either way prebuild.json beside the binaries names what they need (the highest GLIBC_ and
// GLIBCXX_ symbol versions, from their version needs); lib/common/native.js checks it at load.
// npm's postpack runs this again with --clean, which removes the copied set (not the full one).
// MSB_PACK_SOURCE_ONLY=1 packs a source-only tarball on purpose (its users then build it:
// `npm run build --prefix node_modules/mount-sandbox`).
const fs = require('fs');
const path = require('path');
const { spawnSync, execFileSync } = require('child_process');
const { GLIBC_LIBRARIES, compareVersions, versionNeeds } = require('./check-prebuilds');

const ROOT = path.join(__dirname, '..');
const ARCHES = ['x64', 'arm64'];
const BINARIES = ['mount_sandbox.node', 'msb-launch'];
const SOURCE_DIRS = ['src', 'binding'];
const SOURCE_FILES = ['CMakeLists.txt'];
const META = 'prebuild.json';
const THIS_MACHINE = 'this-machine';
// Loaded by Node itself before any addon, so a copy beside the addon would never be used.
const RUNTIME_LIBRARIES = new Set(['libstdc++.so.6', 'libgcc_s.so.1']);
const ROUTES = 'Build first (`npm run build`: a tarball for machines like this one), or make the full ' +
  'prebuilt set (as root on Debian: `npm run prebuilds`), or set MSB_PACK_SOURCE_ONLY=1 for a tarball ' +
  'without binaries, which its users must build after installing.';

function fail(lines) {
  for (const line of lines) console.error(`prepack: ${line}`);
  console.error(`prepack: ${ROUTES}`);
  process.exit(1);
}

const prebuildDir = (target) => path.join(ROOT, 'prebuilds', target);

function readMeta(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, META), 'utf8'));
  } catch {
    return null;
  }
}

const isCopiedSet = (dir) => readMeta(dir)?.set === THIS_MACHINE;

function sourceFiles() {
  const files = SOURCE_FILES.map((f) => path.join(ROOT, f));
  for (const dir of SOURCE_DIRS) {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(path.join(entry.parentPath ?? entry.path, entry.name));
    }
  }
  return files;
}

function newestSource() {
  let newest = { file: null, mtimeMs: 0 };
  for (const file of sourceFiles()) {
    const { mtimeMs } = fs.statSync(file);
    if (mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

function failIfStale(files) {
  const newest = newestSource();
  const stale = files.filter((file) => fs.statSync(path.join(ROOT, file)).mtimeMs < newest.mtimeMs);
  if (stale.length) {
    fail(stale.map((file) => `${file} is older than ${path.relative(ROOT, newest.file)}: it may not be built from these sources.`));
  }
}

// The highest GLIBC_ and GLIBCXX_ versions any of the files needs.
function needs(files) {
  const highest = { glibc: null, glibcxx: null };
  for (const file of files) {
    const found = versionNeeds(file);
    for (const [key, name] of [['glibc', 'GLIBC'], ['glibcxx', 'GLIBCXX']]) {
      if (found[name] && (highest[key] === null || compareVersions(found[name], highest[key]) > 0)) highest[key] = found[name];
    }
  }
  return highest;
}

function writeMeta(dir, meta) {
  fs.writeFileSync(path.join(dir, META), `${JSON.stringify(meta, null, 2)}\n`);
}

function packFullSet() {
  const checked = spawnSync(process.execPath, [path.join(__dirname, 'check-prebuilds.js'), ...ARCHES], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (checked.status !== 0) fail(['the prebuilt binaries do not pass scripts/check-prebuilds.js (above).']);
  failIfStale(ARCHES.flatMap((arch) => BINARIES.map((name) => path.join('prebuilds', `linux-${arch}`, name))));
  const said = [];
  for (const arch of ARCHES) {
    const dir = prebuildDir(`linux-${arch}`);
    const meta = { set: 'full', target: `linux-${arch}`, ...needs(BINARIES.map((name) => path.join(dir, name))), libraries: [] };
    writeMeta(dir, meta);
    said.push(`linux-${arch} (glibc ${meta.glibc} or newer)`);
  }
  console.error(`prepack: packing the full prebuilt set: ${said.join(', ')}.`);
}

// The shared libraries the addon loads beyond glibc and the C++ runtime, as ldd resolves them here.
function bundledLibraries(addon) {
  const out = execFileSync('ldd', [addon], { encoding: 'utf8' });
  const found = [];
  for (const [, name, file] of out.matchAll(/^\s*(\S+) => (\/\S+)/gm)) {
    if (!GLIBC_LIBRARIES.has(name) && !RUNTIME_LIBRARIES.has(name)) found.push({ name, file });
  }
  const missing = [...out.matchAll(/^\s*(\S+) => not found/gm)].map((m) => m[1]);
  if (missing.length) fail([`build/Release/mount_sandbox.node needs ${missing.join(', ')}, which this machine does not have.`]);
  return found;
}

function packThisMachine() {
  const target = `${process.platform}-${process.arch}`;
  const built = BINARIES.map((name) => path.join('build', 'Release', name));
  const absent = built.filter((file) => !fs.existsSync(path.join(ROOT, file)));
  if (process.platform !== 'linux') fail([`no full prebuilt set in prebuilds/, and this is ${process.platform}: only Linux builds can be packed.`]);
  if (absent.length) {
    fail([`no full prebuilt set in prebuilds/ (linux-x64 and linux-arm64) and no build of this machine: ${absent.join(', ')} missing.`]);
  }
  // A rebuild relinks only what a change touched (a launcher source, msb-launch alone): the build
  // is as new as its newest binary.
  const newestBuilt = built.reduce((a, b) => (fs.statSync(path.join(ROOT, a)).mtimeMs >= fs.statSync(path.join(ROOT, b)).mtimeMs ? a : b));
  failIfStale([newestBuilt]);
  const addon = path.join(ROOT, built[0]);
  const libraries = bundledLibraries(addon);
  if (libraries.length && !/\(RPATH\).*\$ORIGIN/.test(execFileSync('readelf', ['-d', addon], { encoding: 'utf8' }))) {
    fail([`build/Release/mount_sandbox.node needs ${libraries.map((l) => l.name).join(', ')} but would not find copies beside it ` +
      '(it was built before its RPATH was $ORIGIN): run `npm run build` again.']);
  }
  const dir = prebuildDir(target);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const name of BINARIES) {
    fs.copyFileSync(path.join(ROOT, 'build', 'Release', name), path.join(dir, name));
    fs.chmodSync(path.join(dir, name), 0o755);
  }
  for (const { name, file } of libraries) fs.copyFileSync(file, path.join(dir, name));
  const files = [...BINARIES, ...libraries.map((l) => l.name)].map((name) => path.join(dir, name));
  const meta = { set: THIS_MACHINE, target, ...needs(files), libraries: libraries.map((l) => l.name) };
  writeMeta(dir, meta);
  console.error(`prepack: packing this machine's build: ${target}, for glibc ${meta.glibc} or newer` +
    `${meta.glibcxx ? ` and libstdc++ with GLIBCXX_${meta.glibcxx}` : ''}` +
    `${libraries.length ? `, with ${meta.libraries.join(', ')}` : ''}. It runs on machines like this one; ` +
    'for linux-x64 and linux-arm64 from glibc 2.31, pack the full prebuilt set (as root on Debian: `npm run prebuilds`).');
}

function clean() {
  const base = path.join(ROOT, 'prebuilds');
  if (!fs.existsSync(base)) return;
  for (const target of fs.readdirSync(base)) {
    if (isCopiedSet(path.join(base, target))) fs.rmSync(path.join(base, target), { recursive: true, force: true });
  }
  if (fs.readdirSync(base).length === 0) fs.rmdirSync(base);
}

function main() {
  if (process.argv[2] === '--clean') return clean();
  if (process.env.MSB_PACK_SOURCE_ONLY === '1') {
    clean();
    console.error('prepack: MSB_PACK_SOURCE_ONLY=1: packing a source-only tarball; installed, it needs ' +
      '`npm run build --prefix node_modules/mount-sandbox` before a sandbox can be created.');
    return;
  }
  clean(); // a set copied by an earlier pack that stopped before its postpack
  const present = ARCHES.map((arch) => ({ arch, missing: BINARIES.filter((name) => !fs.existsSync(path.join(prebuildDir(`linux-${arch}`), name))) }));
  if (present.every((p) => p.missing.length === 0)) return packFullSet();
  const partial = present.filter((p) => p.missing.length < BINARIES.length);
  if (partial.length) {
    fail([...present.flatMap((p) => p.missing.map((name) => `prebuilds/linux-${p.arch}/${name} is missing`)),
      'prebuilds/ holds part of the full prebuilt set: make the rest (`npm run prebuilds`), or remove prebuilds/ to pack this machine\'s build.']);
  }
  return packThisMachine();
}

main();
