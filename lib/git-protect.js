'use strict';

// What in a writable repository decides which programs the host's git runs later: hooks run on
// commit and checkout, core.fsmonitor on every `git status` (shell prompts included), and
// config names pagers, editors, filters, credential helpers and more. A command that may write
// the repository must not change these, or the user's next git run executes its program
// unconfined. The scan is the core's (src/git), on the threadpool, bounded and never following a
// symlink: before the run it names the git control entries to bind read-only (`protect`) and the
// directories to bind onto themselves (`pin`: a mountpoint cannot be renamed and replaced by a
// copy); after the run it removes what the command planted at names git would follow that did
// not exist yet (afterRun). Objects, refs, logs, the index and HEAD stay writable: `git add` and
// `git commit` keep working inside.
const { fs, path } = require('./builtins');
const { ExecError } = require('./errors');
const { addon } = require('./native');

const REASONS = {
  symlink: (what) => `${what} in a writable mount is a symbolic link, which cannot be kept read-only ` +
    '(the command could replace it, and the host\'s git would run what it points to). Replace it with ' +
    'the directory or file itself',
  'too-large': (what) => `the repository's ${what} in a writable mount is larger than the git check reads`,
  'too-many': (what) => `the repository's ${what} in a writable mount names more entries than the git check follows`,
  malformed: (what) => `the repository's ${what} in a writable mount is not one git wrote`,
  io: (what) => `cannot inspect ${what} of a repository in a writable mount`,
};

/** @param {{ kind: string, what: string, errno?: number }} details */
function refusal({ kind, what, errno }) {
  const reason = (REASONS[kind] || REASONS.io)(what);
  const code = errno ? ` (errno ${errno})` : '';
  return new ExecError(`Refusing to run: ${reason}${code}. Pass { protectGit: false } to run without git protection.`, undefined, 'git-protect');
}

/**
 * Host paths to bind read-only (`protect`) and onto themselves (`pin`) so that nothing a command
 * writes under `writableDirs` changes what the host's git runs; `handle` for afterRun. Makes a
 * missing `.git/hooks`, `.git/info` and `.git/modules` (0755, empty). Rejects with ExecError
 * (stage "git-protect"), naming no host path, for a symlinked control entry or a repository over
 * the scan's bounds.
 * @param {string[]} writableDirs host paths of the writable mount sources
 * @returns {Promise<{ protect: string[], pin: string[], handle: import('./binding').GitAfterRunHandle | null, roots: string[] }>}
 */
async function gitProtection(writableDirs) {
  const real = await Promise.all(writableDirs.map((dir) => fs.promises.realpath(dir).catch(() => path.resolve(dir))));
  const scan = await addon().gitScan(real);
  if (!('protect' in scan)) throw refusal(scan.error);
  return { protect: scan.protect, pin: scan.pin, handle: scan.handle, roots: real };
}

/**
 * Removes what the command created at names git would follow, once it has ended. Only after a
 * run in a PID namespace (`enforced`: the launcher's report): then no process of the command is
 * left to swap a directory for a symlink while we delete, and the git directories were pinned.
 * @param {{ handle: import('./binding').GitAfterRunHandle | null, roots?: string[] }} git from gitProtection
 * @param {{ layers: string[] } | null} enforced
 * @returns {Promise<{ removed: string[], unchecked: string[], failed: string[], repositories: string[] }>}
 *   host paths; `repositories` are those of `removed` that were new repositories judged unsafe
 */
async function afterRun({ handle, roots = [] }, enforced) {
  const none = { removed: [], unchecked: [], failed: [], repositories: [] };
  if (!handle || !enforced || !enforced.layers.includes('pid-namespace')) return none;
  // The result is kept whatever happens here; a check that could not run leaves every
  // repository unchecked, and says so.
  try {
    return await addon().gitAfterRun(handle);
  } catch {
    return { ...none, unchecked: roots.map((root) => path.join(root, '.git')) };
  }
}

module.exports = { gitProtection, afterRun };
