'use strict';

// Finds the compiled addon. MOUNT_SANDBOX_ADDON overrides (the sanitizer build uses it); a
// prebuilt binary under prebuilds/<platform>-<arch>/ is taken before a local build.
const path = require('path');
const fs = require('fs');

function candidates() {
  const root = path.join(__dirname, '..');
  const list = [];
  if (process.env.MOUNT_SANDBOX_ADDON) list.push(path.resolve(process.env.MOUNT_SANDBOX_ADDON));
  list.push(path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'mount_sandbox.node'));
  list.push(path.join(root, 'build', 'Release', 'mount_sandbox.node'));
  return list;
}

function load() {
  if (process.platform !== 'linux') {
    throw new Error(
      `mount-sandbox: enforcement is built on Linux descriptors (openat2, O_PATH); ${process.platform} is not supported`,
    );
  }
  const tried = candidates();
  for (const file of tried) {
    if (fs.existsSync(file)) return require(file);
  }
  throw new Error(
    'mount-sandbox: the native addon is not built. Run `npm rebuild mount-sandbox` ' +
      '(needs cmake >= 3.20 and a C++20 compiler; npm may skip install scripts under ' +
      `strict-allow-scripts). Looked in: ${tried.join(', ')}`,
  );
}

module.exports = load();
