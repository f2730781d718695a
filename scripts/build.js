#!/usr/bin/env node
'use strict';

// `npm run build`: compiles the addon and msb-launch into build/Release/ with cmake-js. In a
// dependent (no devDependencies installed): `npm run build --prefix node_modules/mount-sandbox`.
// It first checks what the build needs, so a missing tool or library is one line naming the
// packages to install instead of CMake's pages. Extra arguments go to `cmake-js compile`.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.join(__dirname, '..');

// What each missing piece is called in Debian/Ubuntu.
const APT_PACKAGES = {
  cmake: 'cmake',
  make: 'make',
  compiler: 'g++',
  'yaml-cpp': 'libyaml-cpp-dev',
  re2: 'libre2-dev',
  pcre2: 'libpcre2-dev',
};

function onPath(program) {
  return spawnSync(program, ['--version'], { stdio: 'ignore' }).status === 0;
}

// One small CMake project finds the C++20 compiler, yaml-cpp, RE2 and PCRE2 the way the real build
// will (same search paths, same CMAKE_PREFIX_PATH), in a few seconds.
const PROBE = `cmake_minimum_required(VERSION 3.20)
project(msb_probe LANGUAGES CXX)
if(NOT "cxx_std_20" IN_LIST CMAKE_CXX_COMPILE_FEATURES)
  message(STATUS "MSB_MISSING compiler")
endif()
find_package(yaml-cpp QUIET)
if(NOT yaml-cpp_FOUND)
  message(STATUS "MSB_MISSING yaml-cpp")
endif()
find_path(RE2_INCLUDE_DIR re2/re2.h)
find_library(RE2_LIBRARY NAMES re2)
if(NOT RE2_INCLUDE_DIR OR NOT RE2_LIBRARY)
  message(STATUS "MSB_MISSING re2")
endif()
find_path(PCRE2_INCLUDE_DIR pcre2.h)
find_library(PCRE2_LIBRARY NAMES pcre2-8)
if(NOT PCRE2_INCLUDE_DIR OR NOT PCRE2_LIBRARY)
  message(STATUS "MSB_MISSING pcre2")
endif()
`;

function probeWithCmake() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-probe-'));
  try {
    fs.writeFileSync(path.join(dir, 'CMakeLists.txt'), PROBE);
    const run = spawnSync('cmake', ['-S', dir, '-B', path.join(dir, 'out')], { encoding: 'utf8' });
    const output = `${run.stdout}\n${run.stderr}`;
    const missing = [...output.matchAll(/MSB_MISSING (\S+)/g)].map((m) => m[1]);
    // No working compiler at all stops CMake before the checks above.
    if (run.status !== 0 && !missing.includes('compiler')) missing.unshift('compiler');
    return missing;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// simdjson comes from the exact-pinned npm package @nozbe/simdjson (a dependency, so a clone's
// and a dependent's `npm install` both bring it; CMakeLists.txt checks its files' sha256).
function simdjsonInstalled() {
  try {
    require.resolve('@nozbe/simdjson/package.json', { paths: [ROOT] });
    return true;
  } catch {
    return false;
  }
}

function missingPrerequisites() {
  const missing = [];
  if (!onPath('make') && !onPath('ninja')) missing.push('make');
  if (!onPath('cmake')) return ['cmake', ...missing, 'compiler', 'yaml-cpp', 're2', 'pcre2'];
  return [...missing, ...probeWithCmake()];
}

function installHint(missing) {
  const packages = [...new Set(missing.map((m) => APT_PACKAGES[m]))].join(' ');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = isRoot ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y ${packages}`;
}

// cmake-js is a devDependency: present in a clone, fetched on demand in a dependent.
function cmakeJsCommand() {
  try {
    return [process.execPath, require.resolve('cmake-js/bin/cmake-js', { paths: [ROOT] })];
  } catch {
    const range = require(path.join(ROOT, 'package.json')).devDependencies['cmake-js'];
    return ['npx', '--yes', `cmake-js@${range}`];
  }
}

function main(args) {
  if (process.platform !== 'linux') {
    console.error(`mount-sandbox builds on Linux only (it enforces with Linux descriptors), not ${process.platform}.`);
    return 1;
  }
  if (!simdjsonInstalled()) {
    console.error('mount-sandbox: cannot build, missing simdjson (the npm package @nozbe/simdjson). ' +
      'Install the package\'s dependencies first: `npm install`.');
    return 1;
  }
  const missing = missingPrerequisites();
  if (missing.length > 0) {
    console.error(`mount-sandbox: cannot build, missing ${missing.join(', ')}. On Debian/Ubuntu install them with:\n` +
      `  ${installHint(missing)}`);
    return 1;
  }
  const [command, ...prefix] = cmakeJsCommand();
  const run = spawnSync(command, [...prefix, 'compile', ...args], { cwd: ROOT, stdio: 'inherit' });
  return run.status ?? 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { missingPrerequisites, installHint, simdjsonInstalled };
