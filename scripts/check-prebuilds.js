#!/usr/bin/env node
'use strict';

// Checks the prebuilt binaries before they ship: each must be for its architecture, need only
// glibc's own libraries, and no glibc symbol version newer than the documented floor (the README's
// "Prebuilt binaries"). Prints what it measured. Usage: node scripts/check-prebuilds.js [x64] [arm64]
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const GLIBC_FLOOR = '2.31'; // Debian 11, Ubuntu 20.04
const GLIBC_LIBRARIES = new Set([
  'libc.so.6',
  'libm.so.6',
  'libpthread.so.0',
  'libdl.so.2',
  'librt.so.1',
  'ld-linux-x86-64.so.2',
  'ld-linux-aarch64.so.1',
]);
const MACHINES = { x64: 'X86-64', arm64: 'AArch64' };
const BINARIES = ['mount_sandbox.node', 'msb-launch'];
// The addon's Node-API imports are resolved against the running node, unversioned.
const HOST_PROVIDED = /^(napi_|node_api_)/;

function readelf(args, file) {
  return execFileSync('readelf', ['-W', ...args, file], { encoding: 'utf8' });
}

function compareVersions(a, b) {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return 0;
}

function inspect(file) {
  const machine = /Machine:\s+(.*)/.exec(readelf(['-h'], file))[1];
  const needed = [...readelf(['-d'], file).matchAll(/\(NEEDED\).*\[(.*)\]/g)].map((m) => m[1]);
  const undefinedSymbols = readelf(['--dyn-syms'], file)
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols[6] === 'UND' && cols[7])
    .map((cols) => ({ bind: cols[4], name: cols[7] }));
  let newest = { version: '0', symbol: null };
  const unversioned = [];
  for (const { bind, name } of undefinedSymbols) {
    const match = /^(.*?)@+GLIBC_([\d.]+)/.exec(name);
    if (match) {
      if (compareVersions(match[2], newest.version) > 0) newest = { version: match[2], symbol: match[1] };
    } else if (!name.includes('@') && bind !== 'WEAK' && !HOST_PROVIDED.test(name)) {
      unversioned.push(name);
    }
  }
  return { machine, needed, newest, unversioned };
}

// The highest version of each library's symbol versions the file needs (its version needs
// section, what the dynamic loader checks): { GLIBC: '2.33', GLIBCXX: '3.4.30' }. A static
// program needs none.
function versionNeeds(file) {
  const highest = {};
  for (const [, name, version] of readelf(['-V'], file).matchAll(/Name: ([A-Z]+)_([\d.]+)\b/g)) {
    if (highest[name] === undefined || compareVersions(version, highest[name]) > 0) highest[name] = version;
  }
  return highest;
}

function check(arch) {
  const problems = [];
  for (const name of BINARIES) {
    const file = path.join(__dirname, '..', 'prebuilds', `linux-${arch}`, name);
    if (!fs.existsSync(file)) {
      problems.push(`${file} is missing (run npm run prebuilds -- ${arch})`);
      continue;
    }
    const { machine, needed, newest, unversioned } = inspect(file);
    const size = (fs.statSync(file).size / 1024 / 1024).toFixed(2);
    console.log(`linux-${arch}/${name}: ${machine}, ${size} MiB`);
    console.log(`  NEEDED: ${needed.join(' ')}`);
    console.log(`  newest glibc symbol: GLIBC_${newest.version} (${newest.symbol}); floor GLIBC_${GLIBC_FLOOR}`);
    if (!machine.includes(MACHINES[arch])) problems.push(`${name} (${arch}) is built for ${machine}`);
    const foreign = needed.filter((lib) => !GLIBC_LIBRARIES.has(lib));
    if (foreign.length) problems.push(`${name} (${arch}) needs non-glibc libraries: ${foreign.join(' ')}`);
    if (compareVersions(newest.version, GLIBC_FLOOR) > 0) {
      problems.push(`${name} (${arch}) needs GLIBC_${newest.version} (${newest.symbol}), above the floor ${GLIBC_FLOOR}`);
    }
    // An unversioned import nothing provides would only fail at load time, on the user's machine.
    if (unversioned.length) {
      problems.push(`${name} (${arch}) imports unversioned ${unversioned.slice(0, 10).join(' ')}`);
    }
  }
  return problems;
}

function main() {
  const arches = process.argv.slice(2);
  const problems = (arches.length ? arches : Object.keys(MACHINES)).flatMap((arch) => {
    if (!MACHINES[arch]) return [`unknown arch ${arch} (x64 or arm64)`];
    return check(arch);
  });
  for (const problem of problems) console.error(`check-prebuilds: ${problem}`);
  process.exit(problems.length ? 1 : 0);
}

module.exports = { GLIBC_LIBRARIES, compareVersions, versionNeeds };
if (require.main === module) main();
