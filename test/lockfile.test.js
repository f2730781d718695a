'use strict';

// `npm install` on a fresh clone must leave package-lock.json as committed. npm rewrites the
// lockfile's root entry from package.json on every install, so a change to package.json (a bin,
// a dependency moved, the install script removed) that was not followed by
// `npm install --package-lock-only --ignore-scripts` shows up as a modified lockfile for every
// user. This catches that without a network.
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

// What npm records for the root package, as it normalizes it.
function expectedRootEntry() {
  const entry = {};
  for (const key of ['name', 'version', 'license', 'os', 'cpu', 'engines', ...DEPENDENCY_FIELDS]) {
    if (pkg[key] !== undefined) entry[key] = pkg[key];
  }
  if (pkg.bin !== undefined) {
    const bins = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : pkg.bin;
    entry.bin = Object.fromEntries(Object.entries(bins).map(([name, file]) => [name, path.posix.normalize(file)]));
  }
  const scripts = pkg.scripts || {};
  if (scripts.preinstall || scripts.install || scripts.postinstall) entry.hasInstallScript = true;
  return entry;
}

test('the lockfile root entry is what npm install would write from package.json', () => {
  expect(lock.name).toBe(pkg.name);
  expect(lock.version).toBe(pkg.version);
  expect(lock.packages['']).toEqual(expectedRootEntry());
});

test('every direct dependency is locked', () => {
  for (const field of DEPENDENCY_FIELDS) {
    for (const name of Object.keys(pkg[field] || {})) {
      expect([field, name, lock.packages[`node_modules/${name}`] !== undefined]).toEqual([field, name, true]);
    }
  }
});

// npm locks only the optional packages it installed on the machine that wrote the lockfile; a
// fresh install elsewhere then adds the other platforms' (rollup's @rollup/rollup-<os>-<cpu>, 584
// lines once) and leaves the clone dirty. A complete lockfile names every optional dependency of
// every locked package, wherever npm would place it.
function lockedFrom(location, name) {
  let dir = location; // the package's own node_modules, then each enclosing package's, then the top
  for (;;) {
    if (lock.packages[dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`] !== undefined) return true;
    if (dir === '') return false;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent < 0 ? '' : dir.slice(0, parent);
  }
}

test('every optional dependency of every locked package is locked too, for every platform', () => {
  const missing = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies || {})) {
      if (!lockedFrom(location, name)) missing.push(`${location || '(root)'} -> ${name}`);
    }
  }
  expect(missing).toEqual([]);
});
