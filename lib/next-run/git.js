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
const { fs, path } = require('../common/builtins');
const { ExecError } = require('../errors/from-codes');
const { addon } = require('../common/native');
const { isWithin } = require('../common/paths');

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
 * @returns {Promise<{ protect: string[], pin: string[], handle: import('../binding.d.ts').GitAfterRunHandle | null, roots: string[] }>}
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
 * @param {{ handle: import('../binding.d.ts').GitAfterRunHandle | null, roots?: string[] }} git from gitProtection
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

// Where a mount lies inside another mount's source, the command's view has a directory there
// that its repository does not track, and `git status` would list it as untracked: a file of
// exclude patterns in the command's /tmp names each such mount point relative to its repository,
// given to git by GIT_CONFIG_* (which the caller's own GIT_CONFIG_COUNT entries keep). It
// replaces a repository's own core.excludesFile for the run; .gitignore and info/exclude apply.
const EXCLUDE_FILE = '.mount-sandbox-git-exclude';

async function repositoryTop(dir, top) {
  for (let at = dir; isWithin(at, top); at = path.dirname(at)) {
    if (await fs.promises.lstat(path.join(at, '.git')).then(() => true, () => false)) return at;
    if (at === top) break;
  }
  return null;
}

/**
 * The command's environment with the exclude file added when some mount point needs it.
 * @param {{ target: string, real: string }[]} mounts from realMounts() (lib/next-run/watch.js)
 * @param {string} tmp the host directory that is the command's /tmp
 * @param {Record<string, string>} env the caller's
 */
async function mountPointExcludes(mounts, tmp, env) {
  const patterns = new Set();
  for (const inner of mounts) {
    const outer = mounts.filter((m) => m !== inner && isWithin(inner.target, m.target) && inner.target !== m.target)
      .sort((a, b) => b.target.length - a.target.length)[0];
    if (outer === undefined) continue;
    const host = path.join(outer.real, path.posix.relative(outer.target, inner.target));
    const top = await repositoryTop(path.dirname(host), outer.real);
    if (top !== null) patterns.add(`/${path.relative(top, host)}/`);
  }
  if (patterns.size === 0) return env;
  await fs.promises.writeFile(path.join(tmp, EXCLUDE_FILE), [...patterns].join('\n') + '\n');
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10) || 0;
  return {
    ...env, GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: 'core.excludesFile', [`GIT_CONFIG_VALUE_${count}`]: `/tmp/${EXCLUDE_FILE}`,
  };
}

/**
 * Settles the repositories of the writable sources once a command has ended (src/git/
 * repo_settle.h): each one it made keeps only config that runs nothing and git's sample hooks;
 * each one that was there gets back a HEAD the command took away or voided. Host paths in the
 * report; with no PID namespace nothing is touched (a process of the command could still race).
 * @param {{ gitDir: string, id: string, head: string }[]} before
 * @param {{ gitDir: string, id: string, head: string }[]} after
 * @param {string[]} roots the writable sources' real paths
 * @param {{ layers: string[] } | null} enforced
 * @returns {Promise<{ takenOut: string[], restored: string[], failed: string[] }>}
 */
async function settleRepositories(before, after, roots, enforced) {
  if (!enforced || !enforced.layers.includes('pid-namespace')) return { takenOut: [], restored: [], failed: [] };
  return addon().settleRepositories(before, after, roots);
}

module.exports = { gitProtection, afterRun, mountPointExcludes, settleRepositories };
