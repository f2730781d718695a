#!/usr/bin/env node
'use strict';

// npm's prepack: refuses to pack a tarball without both prebuilt sets, since installed it would
// only throw UnsupportedPlatformError (its users have no build tools, and no install script runs).
// Each set must be there, pass scripts/check-prebuilds.js, and be newer than every C++ source it
// was built from. MSB_PACK_SOURCE_ONLY=1 packs a source-only tarball on purpose (its users then
// build it: `npm run build --prefix node_modules/mount-sandbox`).
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..');
const ARCHES = ['x64', 'arm64'];
const BINARIES = ['mount_sandbox.node', 'msb-launch'];
const SOURCE_DIRS = ['src', 'binding'];
const SOURCE_FILES = ['CMakeLists.txt'];

function fail(lines) {
  for (const line of lines) console.error(`prepack: ${line}`);
  console.error('prepack: make them first (as root on Debian: `npm run prebuilds`), or set ' +
    'MSB_PACK_SOURCE_ONLY=1 for a tarball without binaries, which its users must build after installing.');
  process.exit(1);
}

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

function main() {
  if (process.env.MSB_PACK_SOURCE_ONLY === '1') {
    console.error('prepack: MSB_PACK_SOURCE_ONLY=1: packing a source-only tarball; installed, it needs ' +
      '`npm run build --prefix node_modules/mount-sandbox` before a sandbox can be created.');
    return;
  }
  const missing = [];
  for (const arch of ARCHES) {
    for (const name of BINARIES) {
      const file = path.join('prebuilds', `linux-${arch}`, name);
      if (!fs.existsSync(path.join(ROOT, file))) missing.push(`${file} is missing`);
    }
  }
  if (missing.length) fail([...missing, 'the tarball would carry no prebuilt binaries for them.']);

  const checked = spawnSync(process.execPath, [path.join(__dirname, 'check-prebuilds.js'), ...ARCHES], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (checked.status !== 0) fail(['the prebuilt binaries do not pass scripts/check-prebuilds.js (above).']);

  const newest = newestSource();
  const stale = ARCHES.flatMap((arch) => BINARIES.map((name) => path.join('prebuilds', `linux-${arch}`, name)))
    .filter((file) => fs.statSync(path.join(ROOT, file)).mtimeMs < newest.mtimeMs);
  if (stale.length) {
    fail(stale.map((file) => `${file} is older than ${path.relative(ROOT, newest.file)}: it may not be built from these sources.`));
  }
}

main();
