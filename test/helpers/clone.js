'use strict';

// A copy of this repository as a clone after the README's set-up would be: its files (tracked and
// untracked, not ignored) with their modification times, then the build in build/Release/ (newer
// than every source, as a build leaves it), and, with `dependencies: true`, the package's own
// dependencies in node_modules (what a linked clone loads; the development ones are left out).
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const ROOT = path.join(__dirname, '..', '..');

function copyClone(dir, { dependencies = false } = {}) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter((f) => f && f !== 'node_modules' && fs.existsSync(path.join(ROOT, f)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.cpSync(path.join(ROOT, file), path.join(dir, file), { preserveTimestamps: true, verbatimSymlinks: true });
  }
  fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
  for (const name of ['mount_sandbox.node', 'msb-launch']) {
    fs.cpSync(path.join(ROOT, 'build', 'Release', name), path.join(dir, 'build', 'Release', name), { preserveTimestamps: true });
  }
  if (dependencies) {
    for (const name of Object.keys(require(path.join(ROOT, 'package.json')).dependencies)) {
      fs.cpSync(path.join(ROOT, 'node_modules', name), path.join(dir, 'node_modules', name), { recursive: true, dereference: true });
    }
  }
  return dir;
}

module.exports = { copyClone };
