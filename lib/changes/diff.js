'use strict';

// A unified diff of one change a command made to a text file: the host's file as the sandbox
// reads it now against the command's version in the run's layer (or nothing, for a removal).
// jsdiff writes the hunks. Each side is read up to MAX_SIDE bytes; a side holding a NUL byte is
// binary and gets one line saying so, as git prints it.
const { fs } = require('../common/builtins');
const { isWithin } = require('../common/paths');

const MAX_SIDE = 1 << 20;

// The layer that holds a virtual path: the one whose mount target is the longest prefix.
function layerOf(layers, vpath) {
  return layers.filter((l) => isWithin(vpath, l.target)).sort((a, b) => b.target.length - a.target.length)[0];
}

// The command's file, read only where it is a regular file inside the layer: what the command left
// in its layer is its own, and a link there must not lead the caller's read to a host file, so
// every directory on the way must be one (lstat), and the file is opened without following a
// link. The command has ended (its processes went with its PID namespace), so nothing swaps them
// meanwhile. Never realpath: a layer in the run's tmpfs is read through /proc/self/fd
// (lib/changes/layers.js), which realpath would turn into a host path.
async function layerText(layers, vpath) {
  const layer = layerOf(layers, vpath);
  if (!layer) return null;
  const parts = (layer.target === '/' ? vpath : vpath.slice(layer.target.length)).split('/').filter((p) => p !== '');
  let file = layer.dir ?? layer.upper;
  for (const [i, part] of parts.entries()) {
    file = `${file}/${part}`;
    if (i === parts.length - 1) break;
    const st = await fs.promises.lstat(file).catch(() => null);
    if (st === null || !st.isDirectory()) return null;
  }
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > MAX_SIDE) return st.isFile() ? tooLarge(st.size) : null;
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}

const tooLarge = (size) => ({ tooLarge: size });

async function hostText(sandbox, vpath) {
  const info = await sandbox.stat(vpath).catch(() => null);
  if (info === null || info.isDirectory) return '';
  if (info.size > MAX_SIDE) return tooLarge(info.size);
  return sandbox.read(vpath).catch(() => '');
}

/**
 * The unified diff of the held change at `change.path`, '' for a directory or a link.
 * @param {import('../index').MountSandbox} sandbox
 * @param {{ upper: string, dir?: string, target: string }[]} layers
 * @param {{ path: string, kind: string }} change
 */
async function changeDiff(sandbox, layers, change) {
  if (change.kind !== 'file' && change.kind !== 'delete') return '';
  const before = await hostText(sandbox, change.path);
  const after = change.kind === 'delete' ? '' : await layerText(layers, change.path);
  const sides = [before, after ?? ''];
  const name = `a${change.path}`;
  const other = `b${change.path}`;
  if (sides.some((s) => typeof s === 'object')) return `Files ${name} and ${other} differ (over ${MAX_SIDE} bytes)\n`;
  if (sides.some((s) => s.includes('\0'))) return `Binary files ${name} and ${other} differ\n`;
  // Loaded when a diff is asked for: nothing else of the package needs it at run time.
  const { createTwoFilesPatch } = require('diff');
  return createTwoFilesPatch(name, change.kind === 'delete' ? '/dev/null' : other, sides[0], sides[1], '', '', { context: 3 });
}

module.exports = { changeDiff, MAX_SIDE };
