'use strict';

// msb-launch starts once per command, so the source build links it statically (-static-pie,
// CMakeLists.txt): no dynamic loader runs and no shared library is mapped, neither the C++
// runtime nor a JSON library (simdjson is compiled into it). Where the C library has no static
// archive (glibc-static is a package of its own on some systems) the build falls back to a
// dynamic launcher; this says so as a skip, and fails under MSB_REQUIRE_TOOLS=1 (CI).
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { testNeeding } = require('./helpers');

const BUILD = path.join(__dirname, '..', 'build');
const LAUNCHER = path.join(BUILD, 'Release', 'msb-launch');

function staticPieMissing() {
  if (!fs.existsSync(LAUNCHER)) return 'build/Release/msb-launch is not built (npm run build)';
  const cache = path.join(BUILD, 'CMakeCache.txt');
  const text = fs.existsSync(cache) ? fs.readFileSync(cache, 'utf8') : '';
  if (!/^MSB_HAVE_STATIC_PIE:INTERNAL=1$/m.test(text)) {
    return 'the linker cannot make a static PIE here (no static C library)';
  }
  if (spawnSync('ldd', ['--version']).status !== 0) return 'ldd is not installed';
  return null;
}

testNeeding(staticPieMissing())('msb-launch maps no shared library: ldd says so, and ELF lists none', () => {
  const ldd = spawnSync('ldd', [LAUNCHER], { encoding: 'utf8' });
  expect(`${ldd.stdout}${ldd.stderr}`.trim()).toMatch(/^(statically linked|not a dynamic executable)$/);
  const dynamic = spawnSync('readelf', ['-W', '-d', '-l', LAUNCHER], { encoding: 'utf8' });
  expect(dynamic.status).toBe(0);
  expect(dynamic.stdout).not.toMatch(/\(NEEDED\)/);
  expect(dynamic.stdout).not.toMatch(/Requesting program interpreter/);
});
