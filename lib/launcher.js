'use strict';

// Finds msb-launch, the program that confines a command before exec'ing it. It is built next
// to the addon; MOUNT_SANDBOX_LAUNCHER overrides (the sanitizer build uses it).
const fs = require('fs');
const path = require('path');

function candidates() {
  const root = path.join(__dirname, '..');
  const list = [];
  if (process.env.MOUNT_SANDBOX_LAUNCHER) list.push(path.resolve(process.env.MOUNT_SANDBOX_LAUNCHER));
  list.push(path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'msb-launch'));
  list.push(path.join(root, 'build', 'Release', 'msb-launch'));
  return list;
}

let found;

function launcherPath() {
  if (found) return found;
  const tried = candidates();
  found = tried.find((file) => fs.existsSync(file));
  if (!found) {
    throw new Error(`mount-sandbox: the exec launcher is not built. Run \`npm rebuild mount-sandbox\`. Looked in: ${tried.join(', ')}`);
  }
  return found;
}

module.exports = { launcherPath };
