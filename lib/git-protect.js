'use strict';

// What in a writable repository decides which programs the host's git runs later: hooks run on
// commit and checkout, core.fsmonitor on every `git status` (shell prompts included), and
// config names pagers, editors, filters, credential helpers and more. A command that may write
// the repository must not change these, or the user's next git run executes its program
// unconfined. So for each writable directory holding a repository, the launcher binds the git
// control files read-only (`protect`) and the git directory onto itself (`pin`: a mountpoint
// cannot be renamed and replaced by a copy). Objects, refs, logs, the index and HEAD stay
// writable: `git add` and `git commit` keep working inside.
//
// Where it looks: `.git` at the top of each writable directory (or the directory itself when it
// is a bare repository), and the submodules its .gitmodules names (recursively); repositories nested elsewhere are not searched (a directory
// walk on every run costs too much). Never asks git itself: the host's git reading a repository
// the command wrote is the very danger.
//
// A name that does not exist cannot be bound. Of those git would follow, `commondir` (git then
// reads config and hooks from the directory it names) and `config.worktree` are listed in
// `absent`; removePlanted deletes them after the command has ended.
const { fs, path } = require('./builtins');
const { ExecError } = require('./errors');
const { isWithin } = require('./paths');

// Control entries of a git directory: read-only where they exist.
const CONTROL = ['config', 'info', 'config.worktree', 'commondir'];
// Names git reads when they appear: removed after the run when the command created them.
const PLANTABLE = ['commondir', 'config.worktree'];
// Git directories below a git directory (submodules, linked worktrees).
const NESTED_GIT_DIRS = ['modules', 'worktrees'];

// EACCES counts as absent: what we cannot see, the command (as us, without capabilities) cannot
// write either.
function lstatOrNull(file) {
  try {
    return fs.lstatSync(file);
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR' || err.code === 'EACCES') return null;
    throw err;
  }
}

// The start of a regular file, at most `limit` bytes: a planted .git file may be huge, or a FIFO
// that would block the open (hence O_NONBLOCK); anything but a regular file reads as empty.
function head(file, limit) {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  const fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) return '';
    const buf = Buffer.alloc(limit);
    return buf.subarray(0, fs.readSync(fd, buf, 0, limit, 0)).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function refuseSymlink(name) {
  return new ExecError(
    `Refusing to run: ${name} in a writable mount is a symbolic link, which cannot be kept read-only ` +
      '(the command could replace it, and the host\'s git would run what it points to). Replace it with ' +
      'the directory or file itself, or pass { protectGit: false }.',
    undefined,
    'git-protect',
  );
}

// What git itself checks (is_git_directory): a bare repository, or a git directory mounted alone.
function looksLikeGitDir(dir) {
  const headFile = lstatOrNull(path.join(dir, 'HEAD'));
  const objects = lstatOrNull(path.join(dir, 'objects'));
  const refs = lstatOrNull(path.join(dir, 'refs'));
  return headFile !== null && headFile.isFile() && objects !== null && objects.isDirectory() &&
    refs !== null && refs.isDirectory();
}

// The first line of a file git reads (a .git file's "gitdir: X", a commondir), or null.
function firstLine(file) {
  const line = head(file, 4096).split('\n')[0].replace(/\r$/, '');
  return line === '' ? null : line;
}

// Submodule paths from a .gitmodules: `path = x` lines, relative, without `..` or quoting tricks.
function submodulePaths(top) {
  const file = path.join(top, '.gitmodules');
  const st = lstatOrNull(file);
  if (!st || !st.isFile()) return [];
  const out = [];
  for (const line of head(file, 1 << 20).split('\n')) {
    const match = /^\s*path\s*=\s*(.+?)\s*$/i.exec(line);
    if (!match) continue;
    const rel = match[1].replace(/^"(.*)"$/, '$1');
    if (rel === '' || path.isAbsolute(rel) || rel.split('/').some((part) => part === '..' || part === '.git')) continue;
    out.push(rel);
  }
  return out;
}

class Plan {
  constructor(writableDirs) {
    this.writable = writableDirs.map((dir) => {
      try {
        return fs.realpathSync(dir);
      } catch {
        return path.resolve(dir);
      }
    });
    this.protect = new Set();
    this.pin = new Set();
    this.absent = new Set();
    this.gitDirs = new Set();
  }

  // The deepest writable directory holding `file`, or undefined.
  writableRootOf(file) {
    return this.writable.filter((dir) => isWithin(file, dir)).sort((a, b) => b.length - a.length)[0];
  }

  // Every directory from below the writable root down to `dir`: renaming any of them would let
  // the command put a planted copy where git looks.
  pinDown(dir) {
    const root = this.writableRootOf(dir);
    if (root === undefined) return;
    for (let at = dir; at !== root && isWithin(at, root); at = path.dirname(at)) this.pin.add(at);
  }

  // A worktree (or the top of a writable directory) that may hold `.git`.
  worktree(top, depth = 0) {
    const dotGit = path.join(top, '.git');
    const st = lstatOrNull(dotGit);
    if (st === null) return;
    if (st.isSymbolicLink()) throw refuseSymlink('.git');
    this.pinDown(top);
    if (st.isDirectory()) {
      this.gitDir(dotGit);
    } else if (st.isFile()) {
      this.protect.add(dotGit); // else the command points it at a git directory of its own
      const line = firstLine(dotGit);
      const named = line && /^gitdir: (.+)$/.exec(line);
      if (named) this.foreignGitDir(path.resolve(top, named[1]));
    }
    if (depth < 8) {
      for (const rel of submodulePaths(top)) this.submodule(top, rel, depth);
    }
  }

  // A submodule's worktree, reached without following a symlink on the way.
  submodule(top, rel, depth) {
    let at = top;
    for (const part of rel.split('/').filter(Boolean)) {
      at = path.join(at, part);
      const st = lstatOrNull(at);
      if (st === null || !st.isDirectory()) return;
    }
    this.worktree(at, depth + 1);
  }

  // A git directory named by a .git file or a commondir: protected only where the command can
  // write it; the real path decides that.
  foreignGitDir(named) {
    let real;
    try {
      real = fs.realpathSync(named);
    } catch {
      return; // git will find nothing there either
    }
    if (this.writableRootOf(real) !== undefined) this.gitDir(real);
  }

  gitDir(dir) {
    if (this.gitDirs.has(dir)) return;
    this.gitDirs.add(dir);
    this.pinDown(dir);
    for (const name of CONTROL) {
      const file = path.join(dir, name);
      const st = lstatOrNull(file);
      if (st === null) {
        if (PLANTABLE.includes(name)) this.absent.add(file);
      } else if (st.isSymbolicLink()) {
        throw refuseSymlink(`.git/${name}`);
      } else {
        this.protect.add(file);
      }
    }
    const commondir = path.join(dir, 'commondir');
    const shared = this.protect.has(commondir);
    if (shared) {
      const line = firstLine(commondir);
      if (line) this.foreignGitDir(path.resolve(dir, line));
    }
    this.hooks(dir, !shared); // git takes hooks from the common directory: only made there
    for (const name of NESTED_GIT_DIRS) this.nestedGitDirs(path.join(dir, name));
  }

  // Made when missing, as git init would have: otherwise the command could create it.
  hooks(dir, make) {
    const hooks = path.join(dir, 'hooks');
    let st = lstatOrNull(hooks);
    if (st === null && !make) return;
    if (st === null) {
      try {
        fs.mkdirSync(hooks, { mode: 0o755 });
      } catch (err) {
        if (err.code !== 'EEXIST') throw err;
      }
      st = fs.lstatSync(hooks);
    }
    if (st.isSymbolicLink()) throw refuseSymlink('.git/hooks');
    if (st.isDirectory()) this.protect.add(hooks);
  }

  // A submodule named "a/b" lives in modules/a/b: a directory without HEAD only holds others.
  nestedGitDirs(parent, depth = 0) {
    const st = lstatOrNull(parent);
    if (st === null || !st.isDirectory()) return;
    for (const entry of fs.readdirSync(parent, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(parent, entry.name);
      if (lstatOrNull(path.join(dir, 'HEAD')) !== null) this.gitDir(dir);
      else if (depth < 8) this.nestedGitDirs(dir, depth + 1);
    }
  }
}

/**
 * Host paths to bind read-only (`protect`) and onto themselves (`pin`) so that nothing a command
 * writes under `writableDirs` changes what the host's git runs; `absent`: names git would follow
 * that do not exist yet, for removePlanted after the run. Makes a missing `.git/hooks` (0755).
 * Throws ExecError (stage "git-protect") for a symlinked control entry.
 * @param {string[]} writableDirs real host paths of the writable mount sources
 * @returns {{ protect: string[], pin: string[], absent: string[] }}
 */
function gitProtection(writableDirs) {
  const plan = new Plan(writableDirs);
  try {
    for (const dir of plan.writable) {
      plan.worktree(dir);
      if (looksLikeGitDir(dir)) plan.gitDir(dir); // a push runs its hooks
    }
  } catch (err) {
    if (err instanceof ExecError) throw err;
    // fs errors name host paths: only the code goes out.
    throw new ExecError(`cannot inspect a repository in a writable mount (${err.code || 'error'}); refusing to run`, undefined, 'git-protect');
  }
  return { protect: [...plan.protect], pin: [...plan.pin], absent: [...plan.absent] };
}

/**
 * Deletes what the command created at the `absent` names, once it has ended. Only after a run in
 * a PID namespace (`enforced`: the launcher's report): then no process of the command is left to
 * swap a directory for a symlink while we delete, and the git directories were pinned. Returns
 * the names removed (".git/commondir"), no host paths.
 * @param {string[]} absent
 * @param {{ layers: string[] } | null} enforced
 * @returns {Promise<string[]>}
 */
async function removePlanted(absent, enforced) {
  if (!enforced || !enforced.layers.includes('pid-namespace')) return [];
  const removed = [];
  for (const file of absent) {
    const parent = path.dirname(file);
    // The git directory was pinned for the run; still, never delete through a swapped parent.
    const real = await fs.promises.realpath(parent).catch(() => null);
    if (real !== parent || lstatOrNull(file) === null) continue;
    await fs.promises.rm(file, { recursive: true, force: true });
    removed.push(`.git/${path.basename(file)}`);
  }
  return removed;
}

module.exports = { gitProtection, removePlanted };
