'use strict';

// Files a command could change through a name outside its view: hard links that were in a
// writable source before the run, whose other names lie in a read-only mount's source or anywhere
// else on the host (src/fs/link_scan.h finds them). A command cannot make such a link, since
// link() does not cross the mounts its view is made of, but it writes through one already there.
// sandbox.exec() binds them read-only; more than it will bind, or a tree too large to walk, is
// refused, and { protectSharedLinks: false } runs without the walk.
const { path } = require('../common/builtins');
const { ExecError } = require('../errors/from-codes');
const { isWithin } = require('../common/paths');

const WRITABLE = new Set(['write', 'writeKeep']);
// Each is one bind mount in the command's view.
const MAX_BOUND = 4096;

/**
 * The host paths to bind read-only for a run, from realMounts() (lib/next-run/watch.js): each
 * writable source is walked but for what another mount covers in the view.
 * @param {import('../binding.d.ts').NativeSandbox} handle
 * @param {{ access: string, target: string, real: string }[]} mounts
 */
async function sharedLinksToBind(handle, mounts) {
  const sources = mounts.filter((m) => WRITABLE.has(m.access)).map((m) => ({
    host: m.real,
    skip: mounts.filter((o) => o.target !== m.target && isWithin(o.target, m.target)).map((o) => path.posix.relative(m.target, o.target)),
  }));
  if (sources.length === 0) return [];
  const scan = await handle.findSharedLinks(sources);
  if (scan.truncated || scan.found.length > MAX_BOUND) {
    const why = scan.truncated
      ? 'the writable mounts hold too many entries to check for hard links to files outside them'
      : `${scan.found.length} files in the writable mounts are hard links to files outside them (at most ${MAX_BOUND} are bound read-only)`;
    throw new ExecError(`Refusing to run: ${why}. Pass { protectSharedLinks: false } to run without this protection.`,
      undefined, 'shared-links');
  }
  return scan.found;
}

module.exports = { sharedLinksToBind, MAX_BOUND };
