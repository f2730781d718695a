'use strict';

// --roots narrow: the client's roots (file:// URIs of host directories) may narrow the view, never
// widen it. A root is mapped to the virtual path the sandbox resolves to that same host directory;
// a root holding the whole sandbox (the host's "/", say) maps to "/" and narrows nothing; a root
// the sandbox cannot reach is ignored. The view is the smallest virtual directory holding every
// mapped root, made with sandbox.restrict(), so it can only be narrower than the sandbox given.
const fs = require('fs');
const path = require('path');
const { fileURLToPath } = require('url');

function realDir(hostPath) {
  try {
    const real = fs.realpathSync(hostPath);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

function hostPathOfRoot(root) {
  if (!root || typeof root.uri !== 'string' || !root.uri.startsWith('file:')) return null;
  try {
    return realDir(fileURLToPath(root.uri));
  } catch {
    return null;
  }
}

const within = (inner, outer) => inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);

// The (source, target) pairs the sandbox shows, sources as real host directories.
function entries(sandbox) {
  const described = sandbox.describe();
  const list = [];
  if (described.root !== null && described.root !== undefined) list.push({ source: realDir(described.root), target: '/' });
  for (const mount of described.mounts) list.push({ source: realDir(mount.source), target: mount.target });
  return list.filter((entry) => entry.source !== null);
}

function resolvesTo(sandbox, virtual, hostPath) {
  try {
    return realDir(sandbox.resolve(virtual)) === hostPath;
  } catch {
    return false;
  }
}

// The virtual path of a host directory, or null when the sandbox does not show it.
function virtualPathOf(sandbox, hostPath) {
  const shown = entries(sandbox);
  if (shown.length > 0 && shown.every((entry) => within(entry.source, hostPath))) return '/';
  const candidates = shown.filter((entry) => within(hostPath, entry.source))
    .map((entry) => path.posix.join(entry.target, path.relative(entry.source, hostPath).split(path.sep).join('/')))
    .sort((a, b) => b.length - a.length);
  return candidates.find((virtual) => resolvesTo(sandbox, virtual, hostPath)) ?? null;
}

function commonAncestor(paths) {
  let common = paths[0].split('/').filter(Boolean);
  for (const p of paths.slice(1)) {
    const parts = p.split('/').filter(Boolean);
    let n = 0;
    while (n < common.length && n < parts.length && common[n] === parts[n]) n++;
    common = common.slice(0, n);
  }
  return `/${common.join('/')}`;
}

// The view for these roots: the sandbox itself when no root narrows it.
function narrowToRoots(sandbox, roots) {
  const virtuals = (roots || []).map(hostPathOfRoot).filter((p) => p !== null)
    .map((p) => virtualPathOf(sandbox, p)).filter((p) => p !== null);
  if (virtuals.length === 0) return { sandbox, view: '/' };
  const view = commonAncestor(virtuals);
  if (view === '/') return { sandbox, view };
  return { sandbox: sandbox.restrict({ restrict: view }), view };
}

module.exports = { narrowToRoots, virtualPathOf };
