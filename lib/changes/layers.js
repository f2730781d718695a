'use strict';

// The copy-on-write layers of one run (src/launcher/change_layer.h): a private directory per run
// holding, for each writable mount, the upper directory overlayfs keeps the command's changes in
// and its work directory. Made where the mount's source lies on the same filesystem when we can
// (then a change lands by a rename, never a copy), and never inside a source (overlayfs refuses
// layers inside one another, and the command would see its own layer). Where the command's /tmp
// is a tmpfs, the launcher makes the upper and work directories in it instead (bounded with /tmp:
// src/launcher/run_scratch.h) and hands the tmpfs back as a descriptor: the run's "scratch",
// which keeps it alive until closed. Its layers are then read beneath that descriptor, never by
// a host path (a path through /proc/self/fd names the dead namespace's mount point to realpath).
const { fs, os, path } = require('../common/builtins');
const { isWithin } = require('../common/paths');
const { makeRemovable } = require('../exec/cleanup');
const { ExecError } = require('../errors/from-codes');

const STAGE_PREFIX = 'mount-sandbox-changes-';

// Where a run's layers may go, best first: the user's cache (on the home's filesystem, where
// projects usually are), then the temporary directory.
function candidateBases() {
  const out = [];
  const cache = process.env.XDG_CACHE_HOME || (os.homedir() ? path.join(os.homedir(), '.cache') : null);
  if (cache) out.push(path.join(cache, 'mount-sandbox'));
  out.push(os.tmpdir());
  return out;
}

// Stages are named after the process that made them: one whose process is gone (killed before it
// could remove its stage) is removed by the next process that makes one there.
let swept = false;

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function sweepOrphans(base) {
  const names = await fs.promises.readdir(base).catch(() => []);
  for (const name of names) {
    const match = new RegExp(`^${STAGE_PREFIX}(\\d+)-`).exec(name);
    if (match && Number(match[1]) !== process.pid && !processAlive(Number(match[1]))) {
      await removeStage(path.join(base, name));
    }
  }
}

async function deviceOf(p) {
  return fs.promises.stat(p).then((st) => st.dev, () => null);
}

// The candidate bases as they really are, with their devices: looked up once per process.
let bases = null;

function candidatesOnce() {
  if (bases !== null) return bases;
  bases = [];
  for (const base of candidateBases()) {
    try {
      fs.mkdirSync(base, { recursive: true, mode: 0o700 });
      const real = fs.realpathSync(base);
      bases.push({ real, dev: fs.statSync(real).dev });
    } catch {
      // not ours to use here: the next candidate
    }
  }
  return bases;
}

// The base for these sources: one on the first source's filesystem that lies inside none of them.
async function chooseBase(sources) {
  const usable = candidatesOnce().filter((b) => !sources.some((s) => isWithin(b.real, s)));
  if (usable.length === 0) return null;
  const wanted = sources.length > 0 ? await deviceOf(sources[0]) : null;
  return (usable.find((b) => b.dev === wanted) || usable[0]).real;
}

/**
 * Gives each writable entry of `sandboxPaths` its layer (entry.upper, entry.work) and returns the
 * run's stage, or null (entries left as they are) where no base outside every source exists.
 * `alsoVisible`: other host paths the command reads (hostReadPaths).
 * @param {Array<{path: string, access: string, target?: string, upper?: string, work?: string}>} sandboxPaths
 * @param {string[]} [alsoVisible]
 */
async function prepareLayers(sandboxPaths, alsoVisible = []) {
  const writable = sandboxPaths.filter((e) => (e.access === 'write' || e.access === 'writeKeep') && e.target !== undefined);
  if (writable.length === 0) return { stage: null, layers: [], scratch: null }; // nothing the command could change
  // Never where the command could see it: inside any of the sandbox's sources, read-only ones too
  // (it would read other runs' held changes there). The first writable source's filesystem first.
  const real = (e) => fs.promises.realpath(e.path).catch(() => e.path);
  const others = [...sandboxPaths.filter((e) => !writable.includes(e)), ...alsoVisible.map((p) => ({ path: p }))];
  const sources = [...await Promise.all(writable.map(real)), ...await Promise.all(others.map(real))];
  const base = await chooseBase(sources);
  if (base === null) return null;
  if (!swept) {
    swept = true;
    await sweepOrphans(base);
  }
  // Our own private directories, a few calls: made at once rather than each through the pool.
  const stage = fs.mkdtempSync(path.join(base, `${STAGE_PREFIX}${process.pid}-`));
  const layers = [];
  for (const [i, entry] of writable.entries()) {
    const upper = path.join(stage, `${i}u`);
    const work = path.join(stage, `${i}w`);
    fs.mkdirSync(upper, { mode: 0o700 });
    fs.mkdirSync(work, { mode: 0o700 });
    entry.upper = upper;
    entry.work = work;
    layers.push({ upper, target: entry.target });
  }
  return { stage, layers, scratch: null };
}

const scratchPath = (scratch, name) => `/proc/self/fd/${scratch.fd}/${name}`;

/**
 * The launcher put the run's layers in /tmp's tmpfs and handed it over as `fd` (null: it did
 * not): from now on `run.layers` name their upper directories beneath it, for the core (`base`)
 * and for reading (`dir`). Throws where the launcher said it did (`applied`) and nothing came.
 * @param {{ stage: string|null, layers: object[], scratch: object|null }} run
 * @param {number|null} fd
 * @param {boolean} applied 'copy-on-write-limit' among the layers the launcher applied
 */
function takeScratch(run, fd, applied) {
  if (fd === null) {
    if (applied) throw new ExecError('the command\'s changes could not be taken back from its namespace; nothing of them landed', undefined, 'changes');
    return;
  }
  const scratch = { fd };
  run.scratch = scratch;
  run.layers = run.layers.map(({ upper, target }) => {
    const name = path.basename(upper);
    return { upper: name, base: fd, dir: scratchPath(scratch, name), target };
  });
}

// The command's /tmp in the scratch: nothing of it is needed once the command ended, and a
// change set held for review would keep it in memory.
async function clearScratchTmp(run) {
  if (run.scratch === null || run.scratch.fd === null) return;
  const tmp = scratchPath(run.scratch, 'tmp');
  const rm = () => fs.promises.rm(tmp, { recursive: true, force: true, maxRetries: 2 }).catch(() => {});
  await rm();
  if (await fs.promises.lstat(tmp).then(() => true, () => false)) {
    await makeRemovable(tmp).catch(() => {});
    await rm();
  }
}

function closeScratch(run) {
  if (run.scratch === null || run.scratch.fd === null) return;
  const { fd } = run.scratch;
  run.scratch.fd = null; // shared by every copy of the run: closed once
  try {
    fs.closeSync(fd);
  } catch {
    // closed already
  }
}

/** Releases a run's layers: its scratch (the tmpfs goes with the last descriptor) and its stage. */
async function releaseLayers(run) {
  closeScratch(run);
  return removeStage(run.stage);
}

/** The same, at process exit (synchronous). */
function releaseLayersNow(run) {
  closeScratch(run);
  removeStageNow(run.stage);
}

// The stage of a run whose changes all landed: each upper directory empty of files, each work
// directory holding only overlayfs's own empty `work` (mode 000, which rmdir does not mind).
function removeEmptyStage(stage) {
  try {
    for (const name of fs.readdirSync(stage)) {
      const dir = path.join(stage, name);
      if (name.endsWith('w') && fs.existsSync(path.join(dir, 'work'))) fs.rmdirSync(path.join(dir, 'work'));
      fs.rmdirSync(dir);
    }
    fs.rmdirSync(stage);
    return true;
  } catch {
    return false;
  }
}

/** Removes a run's stage; true when it is gone. overlayfs leaves its work directory mode 000. */
async function removeStage(stage) {
  if (stage === null || removeEmptyStage(stage)) return true;
  const rm = () => fs.promises.rm(stage, { recursive: true, force: true, maxRetries: 2 }).catch(() => {});
  await rm();
  if (await fs.promises.lstat(stage).then(() => false, () => true)) return true;
  await makeRemovable(stage).catch(() => {});
  await rm();
  return fs.promises.lstat(stage).then(() => false, () => true);
}

/** The same, at process exit (synchronous): for change sets held for review and never settled. */
function removeStageNow(stage) {
  if (stage === null) return;
  try {
    fs.rmSync(stage, { recursive: true, force: true });
  } catch {
    // left for the operator: named in nothing the model sees
  }
}

module.exports = { prepareLayers, takeScratch, clearScratchTmp, releaseLayers, releaseLayersNow, removeStage };
