'use strict';

// The mount-sandbox package this server runs on. Installed from the registry it is a dependency
// like any other (require('mount-sandbox')); in the repository, where mcp/ sits inside the
// mount-sandbox package itself and nothing links it into a node_modules, the package two levels up
// is used instead, but only when it is mount-sandbox, so that a missing dependency of an installed
// copy is reported as missing rather than replaced by whatever package encloses it.
const fs = require('fs');
const path = require('path');

function enclosingMountSandbox() {
  const dir = path.join(__dirname, '..', '..');
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  } catch {
    return null;
  }
  return manifest.name === 'mount-sandbox' ? dir : null;
}

function load() {
  try {
    return require('mount-sandbox');
  } catch (error) {
    const missing = error.code === 'MODULE_NOT_FOUND' && String(error.message).startsWith("Cannot find module 'mount-sandbox'");
    const repo = missing ? enclosingMountSandbox() : null;
    if (repo === null) throw error;
    return require(repo);
  }
}

module.exports = load();
