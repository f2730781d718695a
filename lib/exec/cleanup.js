'use strict';

// Making what a command left removable. A command may leave directories of mode 000 (or 500)
// in its private /tmp or at a name exec removes after it: as an unprivileged user we can then
// neither list nor empty them (root ignores modes). Their owner can always chmod them, and they
// are ours (the command runs with only our own ids mapped), so each directory gets u+rwx on the
// way down. Nothing here follows a symbolic link: every directory is opened with O_PATH and
// O_NOFOLLOW relative to its parent's descriptor (through /proc/self/fd), so a link planted, or
// swapped in by a process that is still running, is never entered and its target never chmod-ed.
const { fs } = require('../common/builtins');

// O_PATH is not among Node's constants; its value is the same on x86_64 and aarch64.
const O_PATH = 0o10000000;
const OPEN_DIR = O_PATH | fs.constants.O_NOFOLLOW | fs.constants.O_DIRECTORY;
// Deeper than this, directories are left as they are (the removal then says what failed).
const MAX_DEPTH = 512;

const viaDescriptor = (fd) => `/proc/self/fd/${fd}`;

async function openDirectory(file) {
  return fs.promises.open(file, OPEN_DIR).catch(() => null);
}

// u+rwx on the directory open as `fd`, then on each directory below it.
async function openedRemovable(fd, depth) {
  const self = viaDescriptor(fd);
  const st = await fs.promises.stat(self);
  if ((st.mode & 0o700) !== 0o700) await fs.promises.chmod(self, (st.mode & 0o7777) | 0o700);
  if (depth >= MAX_DEPTH) return;
  for (const entry of await fs.promises.readdir(self, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const child = await openDirectory(`${self}/${entry.name}`);
    if (child === null) continue; // gone, or swapped for something that is not a directory
    try {
      await openedRemovable(child.fd, depth + 1);
    } finally {
      await child.close();
    }
  }
}

/**
 * Gives `dir` and every directory below it u+rwx, never following a symbolic link (`dir` itself
 * included: a link is left as it is). Throws the fs error when a directory cannot be changed.
 * @param {string} dir
 */
async function makeRemovable(dir) {
  const handle = await openDirectory(dir);
  if (handle === null) return;
  try {
    await openedRemovable(handle.fd, 0);
  } finally {
    await handle.close();
  }
}

module.exports = { makeRemovable };
