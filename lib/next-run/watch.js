'use strict';

// Names the next run would trust that do not exist (a worker directory, a config name; git's own,
// lib/next-run/git.js): a mount cannot be bound at a name that does not exist, so sandbox.exec()
// watches them instead. Those that exist by the time a command starts are bound read-only with
// the other protected files; what a command creates at the others is removed when it has ended,
// and reported in the sandbox's virtual paths (result.removedAfterRun and a note to the model).
const { fs, path } = require('../common/builtins');
const { makeRemovable } = require('../exec/cleanup');
const { viewPath } = require('../exec/view');
const { isWithin } = require('../common/paths');
const { ExecError } = require('../errors/from-codes');

const WRITABLE = new Set(['write', 'writeKeep']);

/**
 * The sandbox's mounts (its execPaths() entries with a target), each with `real`, its source's
 * real path: names and git's paths are real host paths, a source may be named through a link.
 * @param {{ path: string, access: string, target?: string }[]} sandboxPaths
 * @returns {Promise<{ path: string, real: string, access: string, target: string }[]>}
 */
async function realMounts(sandboxPaths) {
  const mounts = sandboxPaths.filter((e) => e.target !== undefined);
  const reals = await Promise.all(mounts.map((e) => fs.promises.realpath(e.path).catch(() => e.path)));
  return mounts.map((e, i) => ({ path: e.path, access: e.access, target: /** @type {string} */ (e.target), real: reals[i] }));
}

// The mount whose source holds `host` most closely, by its real path or as it was named, with
// the source's path as matched.
function mountOf(host, mounts) {
  const held = [];
  for (const mount of mounts) {
    for (const source of new Set([mount.real, mount.path])) {
      if (isWithin(host, source)) held.push({ mount, source });
    }
  }
  return held.sort((a, b) => b.source.length - a.source.length)[0];
}

/**
 * The sandbox's virtual path of a host path (real, or through the source as named), or null when
 * no mount of this view holds it.
 * @param {string} host
 * @param {{ path: string, real: string, target: string }[]} mounts from realMounts()
 */
function virtualPathOf(host, mounts) {
  const held = mountOf(host, mounts);
  if (held === undefined) return null;
  const rel = path.relative(held.source, host);
  return rel === '' ? held.mount.target : path.posix.join(held.mount.target, rel);
}

/**
 * Report entries ("<host path>" or "<host path>: <config key>") in virtual paths; one no mount of
 * this view holds is left out.
 * @param {string[]} entries
 * @param {{ path: string, real: string, target: string }[]} mounts from realMounts()
 */
function virtualEntries(entries, mounts) {
  return entries.map((entry) => {
    const [file, key] = entry.split(': ');
    const at = virtualPathOf(file, mounts);
    return at === null || key === undefined ? at : `${at}: ${key}`;
  }).filter((p) => p !== null);
}

const MAX_LINK_HOPS = 8;

// Where a missing name really is missing: the name itself, or, when it is a symbolic link that
// leads nowhere (yet), the path it leads to, followed link by link (a command that creates that
// path makes the name resolve). null for a loop or too many links.
async function danglingEnd(name) {
  let at = name;
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    const text = await fs.promises.readlink(at).catch(() => null);
    if (text === null) return at; // missing (readlink of a non-link fails too, but then it exists)
    at = path.resolve(path.dirname(at), text);
    const real = await fs.promises.realpath(path.dirname(at)).catch(() => null);
    if (real !== null) at = path.join(real, path.basename(at));
  }
  return null;
}

/**
 * Splits the names the next run trusts, as they are when a command starts: `bind`, those that
 * exist now (host paths, bound read-only like the protected files); `watch`, those that do not
 * and lie in a writable mount of this view ({ host, root }: the mount's source, which the command
 * cannot rename, is where the removal walks down from). Names no writable mount holds cannot be
 * created by the command and are left alone.
 * @param {string[]} names real host paths
 * @param {{ path: string, real: string, access: string }[]} mounts from realMounts()
 */
async function namesToWatch(names, mounts) {
  const bind = [];
  const watch = [];
  for (const name of names) {
    if (fs.existsSync(name)) {
      bind.push(name);
      continue;
    }
    const host = await danglingEnd(name);
    if (host === null) continue;
    const held = mountOf(host, mounts);
    if (held !== undefined && WRITABLE.has(held.mount.access)) watch.push({ host, root: held.source });
  }
  return { bind, watch };
}

// Removes what is at `file` (a link or a file itself, a directory with all it holds) through
// `remove(file, area)`, which deletes confined to `area`, the mount's source: a concurrent command
// of the same sandbox that swaps a directory on the way for a link cannot redirect it outside.
async function removeEntry(file, root, remove) {
  if (await remove(file, root)) return;
  // Directories left without permissions (mode 000) stop the first try: made removable, again.
  if ((await fs.promises.lstat(file)).isDirectory()) await makeRemovable(file);
  if (!(await remove(file, root))) throw new Error('not removed');
}

// (Not `instanceof Error`: under a test runner's realm fs errors are not.)
const lstatOrError = (file) => fs.promises.lstat(file).then((stat) => ({ stat, error: null }), (error) => ({ stat: null, error }));

// The entry to remove on the way from the mount's source to `host`: `host` when it appeared, a
// symbolic link planted on the way (the link itself: what it leads to is not the command's), or
// null when nothing appeared. A directory on the way that we may not search (mode 000) is made
// removable first: the command made it so.
async function appearedOnTheWay(host, root) {
  const parts = path.relative(root, host).split(path.sep);
  let at = root;
  for (let i = 0; i < parts.length; i++) {
    const parent = at;
    at = path.join(at, parts[i]);
    let got = await lstatOrError(at);
    if (got.error && got.error.code === 'EACCES') {
      await makeRemovable(parent);
      got = await lstatOrError(at);
    }
    if (got.error) {
      if (got.error.code === 'ENOENT' || got.error.code === 'ENOTDIR') return null;
      throw got.error;
    }
    const st = got.stat;
    if (i === parts.length - 1 || st.isSymbolicLink()) return at;
    if (!st.isDirectory()) return null; // a file where a directory would be: the name cannot exist
  }
  return null;
}

/**
 * Removes what appeared at the watched names, never following a symbolic link. Call it only once
 * no process of the command is left (a PID namespace): then nothing of it swaps a directory for a
 * link while we walk (and `remove`, confined to the mount's source, bounds what a concurrent
 * command could do). Returns host paths: `removed`, and `failed` (what could not be removed).
 * @param {{ host: string, root: string }[]} watch
 * @param {(file: string, area: string) => Promise<boolean>} remove deletes file confined to area
 * @returns {Promise<{ removed: string[], failed: string[] }>}
 */
async function removeAppeared(watch, remove) {
  const removed = [];
  const failed = [];
  for (const { host, root } of watch) {
    let entry = null;
    try {
      entry = await appearedOnTheWay(host, root);
      if (entry === null || removed.includes(entry)) continue;
      await removeEntry(entry, root, remove);
      removed.push(entry);
    } catch {
      failed.push(entry ?? host);
    }
  }
  return { removed, failed };
}

/**
 * What to tell the caller and the model about names removed after a run, given as host paths
 * (from removeAppeared, or git protection's own removal): their virtual paths, in order and once
 * each, and the note (null when nothing was removed). Never a host path: one no mount of this
 * view holds is left out.
 * @param {string[]} hostPaths real host paths
 * @param {{ path: string, real: string, target: string }[]} mounts from realMounts()
 * @param {{ workspace: string } | null} view the command's root, where it had one
 */
function removalReport(hostPaths, mounts, view) {
  const virtual = [...new Set(hostPaths.map((p) => virtualPathOf(p, mounts)).filter((p) => p !== null))];
  if (virtual.length === 0) return { removedAfterRun: [], note: null };
  const shown = virtual.map((p) => (view ? viewPath(view.workspace, p) : p));
  const list = shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  const one = shown.length === 1;
  return {
    removedAfterRun: virtual,
    note: `Note: the command created ${list}, which the next run would trust; ${one ? 'it was' : 'they were'} removed after it ended.`,
  };
}

const linkText = (file) => fs.promises.readlink(file).catch(() => null);

/**
 * What the core says the host trusts next under the writable mounts before a command (src/fs/
 * trusted_scan.h), found at any depth: `bind`, the entries the names cover (not links: a bind
 * follows them), to bind read-only; `before`, every such entry with its link text (null for a
 * file or directory), to tell what the command added; `repositories`, every repository by git's
 * layout, to settle after the run; `nested`, the work trees and bare repositories below the
 * sources' tops, for the git scan to protect as it protects the tops. Rejects with ExecError
 * (stage "trusted-names") where a source holds more entries than the walk reads: the rest would
 * go unprotected.
 * @param {import('../binding.d.ts').NativeSandbox} handle
 * @param {{ real: string, access: string }[]} mounts from realMounts()
 */
async function trustedBefore(handle, mounts) {
  const sources = [...new Set(mounts.filter((m) => WRITABLE.has(m.access)).map((m) => m.real))];
  const scans = await handle.findTrusted(sources);
  if (scans.some((scan) => scan.truncated)) {
    throw new ExecError('Refusing to run: a writable mount holds more entries than the sandbox walks to find the files ' +
      'the host trusts next (500,000); mount large trees such as dependencies read-only, or narrow the sandbox with restrict()',
    undefined, 'trusted-names');
  }
  const before = new Map();
  const bind = [];
  for (const file of scans.flatMap((scan) => scan.found)) {
    const text = await linkText(file);
    before.set(file, text);
    if (text === null) bind.push(file);
  }
  const repositories = scans.flatMap((scan) => scan.repositories);
  const tops = new Set(sources);
  const bare = repositories.map((r) => r.gitDir).filter((dir) => path.basename(dir) !== '.git');
  const nested = [...scans.flatMap((scan) => scan.workTrees), ...bare].filter((dir) => !tops.has(dir));
  return { handle, sources, before, bind, repositories, nested };
}

/**
 * What a command added at those names: found now and not before, or a link whose text changed,
 * as removeAppeared's { host, root } (the writable source it lies in); and the repositories
 * found now. `truncated` when the walk could not read everything (the rest was not checked).
 * @param {{ handle: import('../binding.d.ts').NativeSandbox, sources: string[], before: Map<string, string | null> }} trusted
 */
async function trustedAdded({ handle, sources, before }) {
  if (sources.length === 0) return { added: [], repositories: [], truncated: [] };
  const scans = await handle.findTrusted(sources);
  const added = [];
  for (const [i, scan] of scans.entries()) {
    for (const host of scan.found) {
      if (before.has(host) && before.get(host) === (await linkText(host))) continue;
      added.push({ host, root: sources[i] });
    }
  }
  const truncated = sources.filter((_, i) => scans[i].truncated);
  return { added, repositories: scans.flatMap((scan) => scan.repositories), truncated };
}

module.exports = {
  realMounts, virtualPathOf, virtualEntries, namesToWatch, removeAppeared, removalReport, trustedBefore, trustedAdded,
};
