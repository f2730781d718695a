'use strict';

// sandbox.exec(): runs a program confined by the kernel to what the sandbox allows. The policy
// is built here from the sandbox's mount table and applied by msb-launch (src/launcher/launcher_main.cc)
// to itself before it execs the program: Landlock, seccomp and, where the kernel allows, user,
// mount and PID namespaces. Node's own threads are never restricted.
const { childProcess: { spawn }, fs, os, path } = require('../common/builtins');
const { launcherPath } = require('./launcher');
const { ExecError, UnsupportedPlatformError } = require('../errors/from-codes');
const { protectedFiles, absentNames } = require('../next-run/protected');
const {
  realMounts, namesToWatch, removeAppeared, removalReport, virtualPathOf, virtualEntries, trustedBefore, trustedAdded,
} = require('../next-run/watch');
const { makeRemovable } = require('./cleanup');
const { refusedIdMaps } = require('./apparmor');
const { launchError, layerRefusal } = require('./refusal');
const { gitProtection, afterRun, mountPointExcludes, settleRepositories } = require('../next-run/git');
const { sharedLinksToBind } = require('./shared-links');
const { plainData } = require('../common/plain');
const { addon } = require('../common/native');
const { parseOptions, checkArgv, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES } = require('./options');
const { DEFAULT_PATH, workingDirectory, checkMountTargets, readable, systemPaths, launchPolicy } = require('./view');
const { guidingNotes, uncheckedNote, newRepositoryNote, takenOutNote } = require('./notes');
const { changesNote } = require('../changes/notes');
const { commandNetwork } = require('../network/scope');
const { describeNetwork } = require('../network/policy');
const { networkLaunch, startJudge, enforcedMode, refusedNote } = require('./network');
const { Capture } = require('./capture');
const { prepareLayers, takeScratch, releaseLayers } = require('../changes/layers');
const { handoverChannel, receiveHandover, closeQuietly } = require('./handover');
const { settleChanges, checkRoomToHold } = require('../changes/change-set');
const { withSandboxDefaults } = require('../changes/setting');
const { errnoName, parseStatus, outcome } = require('./status');
const { launchFailure } = require('./launch-failure');

const typeError = (message) => new TypeError(message);

// How a call whose `signal` aborted ends: before the command started, or once all of it is gone.
function abortedError() {
  return new ExecError('the command was cancelled; its processes were killed', undefined, 'aborted');
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

// The listeners received (lib/exec/handover.js) go to `opts.onListeners(promise)`,
// synchronously, before the command can have started. The promise
// resolves to [{ label, fd }] (labels 'http', 'socks', 'dns', 'capture <port>'; none when the
// launcher failed before making them or the command has no network namespace, which allowWeaker
// permits) or rejects with an Error (malformed message, no end within 10 s). The descriptors are
// the callback's to close, however the run ends; without a callback they are closed here.
// runAllowingFallback may start a second launcher: the callback is then called once for each.
function receiveListeners(listeners, opts) {
  if (listeners === null) return;
  if (typeof opts.onListeners === 'function') {
    opts.onListeners(listeners);
    return;
  }
  listeners.then((received) => received.forEach(({ fd }) => fs.closeSync(fd)), () => {});
}

// With `network` ({ policy, onRequest }), the judge serves the listeners while the command runs
// (lib/exec/network.js); without it, `opts.onListeners` gets them. Resolves the judge, or null
// where the launcher made none (no network namespace). A judge that cannot start kills the
// command: it would otherwise wait on connections nobody answers.
function serveNetwork(listeners, opts, network, kill) {
  if (listeners === null || network === null) {
    receiveListeners(listeners, opts);
    return Promise.resolve(null);
  }
  const judge = startJudge(network.policy, listeners, network.onRequest)
    .catch((error) => {
      kill();
      throw new ExecError(`cannot serve the command's network: ${error.message}`, undefined, 'network');
    });
  judge.catch(() => {}); // reported when the command has ended
  return judge;
}

// Spawns the launcher (policy on fd 4, status back on fd 3: never in argv, which every process
// can read; with `listen` or `scratchLayers`, the handover channel on fd 5) and collects what the
// command produced. With `network`, the judge that served the command comes back as `judge`; the
// tmpfs holding the layers, where the launcher made one, as `scratch` (a descriptor, or null).
function run(policy, opts, network = null) {
  return new Promise((resolve, reject) => {
    if (opts.signal && opts.signal.aborted) {
      reject(abortedError());
      return;
    }
    let child;
    let channel = null;
    try {
      channel = handoverChannel(policy);
      child = spawn(launcherPath(), [], {
        // Its argv[0] is what the command reads in /proc/1/cmdline: not where the package is
        // installed (the user's project or home).
        argv0: 'msb-launch',
        stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', ...(channel === null ? [] : [channel.childFd])],
        env: {}, // nothing from our environment reaches the launcher (LD_PRELOAD and the like)
        cwd: '/',
        detached: true, // its own process group, killed as a whole
      });
    } catch (err) {
      if (channel !== null) [channel.parentFd, channel.childFd].forEach((fd) => fs.closeSync(fd));
      if (err instanceof UnsupportedPlatformError) {
        reject(err);
        return;
      }
      reject(new ExecError(`cannot start the exec launcher: ${err.code || err.message}`, undefined, 'spawn'));
      return;
    }
    const handed = receiveHandover(channel, policy);
    const judge = serveNetwork(handed.listeners, opts, network, () => killGroup(child.pid));
    const policyPipe = /** @type {import('stream').Writable} */ (child.stdio[4]);
    policyPipe.on('error', () => {}); // a launcher that died early reports on fd 3 or its status
    policyPipe.end(JSON.stringify(policy));
    const stdout = new Capture(opts.maxOutputBytes);
    const stderr = new Capture(opts.maxOutputBytes);
    let statusText = '';
    let timedOut = false;
    let aborted = false;
    const stop = () => {
      killGroup(child.pid);
      // A process that left the group may still hold the pipes open.
      for (const stream of [child.stdout, child.stderr, child.stdio[3]]) stream.destroy();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    // The caller's cancellation: the same kill as a timeout's, then the call rejects.
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (opts.signal) opts.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      if (opts.signal) opts.signal.removeEventListener('abort', onAbort);
    };
    child.stdout.on('data', (d) => stdout.add(d));
    child.stderr.on('data', (d) => stderr.add(d));
    const statusPipe = /** @type {import('stream').Readable} */ (child.stdio[3]);
    statusPipe.setEncoding('utf8');
    statusPipe.on('data', (d) => {
      if (statusText.length < 4096) statusText += d;
    });
    child.stdin.on('error', () => {}); // the command need not read its input
    child.stdin.end(opts.stdin === undefined ? undefined : Buffer.from(opts.stdin));
    // When the command ends, so does whatever it left running in its group.
    child.on('exit', () => killGroup(child.pid));
    child.on('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      settle();
      reject(new ExecError(`cannot start the exec launcher: ${err.code || err.message}`, undefined, 'spawn'));
    });
    child.on('close', (code, signal) => {
      settle();
      const status = parseStatus(statusText);
      // The judge's connections end with the command's namespace; its listeners end here.
      const served = judge.then(async (j) => {
        if (j !== null) await j.close();
        return j;
      });
      const done = () => handed.scratch.then((scratch) => served.then(
        (j) => resolve({ status, code, signal, stdout, stderr, timedOut, aborted, judge: j, scratch }),
        (error) => {
          if (scratch !== null) closeQuietly(scratch);
          reject(error);
        },
      ));
      if (status.cgroup === null) done();
      else removeCgroup(status.cgroup).then(done);
    });
  });
}

// The limits in force: each only when its layer was applied. memoryBound says what memoryBytes
// holds: all the command's memory (a memory cgroup) or each process's private memory only.
function enforcedLimits(limits, layers) {
  const memoryBytes = layers.includes('memory-limit') ? limits.memoryBytes : null;
  let memoryBound = null;
  if (memoryBytes !== null) memoryBound = layers.includes('memory-cgroup') ? 'cgroup' : 'private-memory';
  return {
    processes: layers.includes('process-limit') ? limits.processes : null,
    memoryBytes,
    memoryBound,
    cpuSeconds: layers.includes('cpu-limit') ? limits.cpuSeconds : null,
    tmpBytes: layers.includes('tmp-limit') ? tmpSize(limits) : null,
  };
}

// The size of the command's /tmp, as the launcher gives it (src/common/exec_path.h).
function tmpSize({ tmpBytes = 0, memoryBytes = 0 }) {
  return addon().tmpSize(tmpBytes, memoryBytes);
}

// The launcher's memory cgroup, removed once the launcher has exited (it stays in it to the end:
// moving out would cost it an RCU grace period). After a timeout or a kill, the command's
// processes may still be dying with its PID namespace: wait for them (cgroup v2 kills what is
// left).
async function removeCgroup(dir) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      await fs.promises.rmdir(dir);
      return;
    } catch (err) {
      if (err.code !== 'EBUSY') return; // gone already (ENOENT), or not ours to remove
    }
    if (attempt === 0) await fs.promises.writeFile(path.join(dir, 'cgroup.kill'), '1').catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Ubuntu's AppArmor restriction lets the launcher unshare, then refuses it the id maps: too late
// for that launcher to go without namespaces. Where the caller allows that ("prefer", or
// allowWeakerEnforcement), a second launcher runs with namespaces "off" (the command had not
// started); it still refuses where the layer is indispensable, as the first would have.
async function runAllowingFallback(policy, opts, network) {
  const ran = await run(policy, opts, network);
  const { error } = ran.status;
  const allowed = policy.namespaces === 'prefer' || policy.allowWeaker;
  if (ran.aborted || !error || !allowed || !refusedIdMaps(error.stage, error.errno)) return ran;
  if (ran.scratch !== null) closeQuietly(ran.scratch);
  return run({ ...policy, namespaces: 'off' }, opts, network);
}

// `handle` is the sandbox's native object (for its pinned mount sources).
async function exec(sandbox, handle, givenArgv, options = {}) {
  const argv = Array.isArray(givenArgv) ? plainData(givenArgv, typeError, 'argv') : givenArgv;
  checkArgv(argv);
  const opts = withSandboxDefaults(parseOptions(options), sandbox);
  if (opts.signal && opts.signal.aborted) throw abortedError();
  // A network wider than the sandbox's is refused before anything is made.
  const network = commandNetwork(sandbox, opts);
  const cwd = await workingDirectory(sandbox, opts.cwd, opts.workspace);
  const sandboxPaths = handle.execPaths();
  checkMountTargets(sandboxPaths);
  if (opts.changes === 'review') checkRoomToHold();
  const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mount-sandbox-exec-'));
  // What the run needs cleaned up after it: filled in as it starts.
  const state = {
    tmp, enforced: null, view: null, git: { protect: [], pin: [], handle: null, roots: [] }, watch: [], mounts: [],
    trusted: { handle, sources: [], before: new Map(), bind: [] }, layers: null, fellBack: null,
  };
  let result = null;
  let failure = null;
  const attempt = (changes) => runCommand(state, { sandbox, handle }, sandboxPaths.map((e) => ({ ...e })), argv,
    { ...opts, network, changes }, cwd);
  try {
    result = await attempt(opts.changes);
  } catch (error) {
    failure = error;
  }
  // No copy-on-write layer here and none asked for by name: the command runs with direct writes,
  // and the result says so (enforcement.changes).
  if (failure instanceof LayerUnavailable && !opts.changesAsked) {
    state.fellBack = failure.reason;
    failure = null;
    if (state.layers !== null) await releaseLayers(state.layers);
    state.layers = null;
    await attempt('direct').then((r) => { result = r; }, (error) => { failure = error; });
  }
  if (failure instanceof LayerUnavailable) failure = layerRefusal(failure.reason, opts.changes);
  // Before the result goes out (or the error): cleaning up never throws, and never loses either.
  const cleanup = await cleanUp(state);
  if (failure !== null) throw failure;
  const removed = removalReport(cleanup.removed, state.mounts, state.view);
  result.removedAfterRun = removed.removedAfterRun;
  result.cleanupFailed = cleanup.failed;
  result.gitTakenOut = [...cleanup.takenOut, ...cleanup.restored];
  if (state.fellBack !== null) result.enforcement.missing = [...result.enforcement.missing, 'copy-on-write'];
  const notes = [removed.note, newRepositoryNote(cleanup.repositories), takenOutNote(cleanup.takenOut, cleanup.restored, state.view),
    uncheckedNote(cleanup.failed, state.view), changesNote(result.changes, state.view)].filter((n) => n !== null);
  if (notes.length > 0) result.stderr = `${result.stderr.replace(/\n$/, '')}${result.stderr === '' ? '' : '\n\n'}${notes.join('\n')}\n`;
  return result;
}

async function runCommand(state, { sandbox, handle }, sandboxPaths, argv, opts, cwd) {
  state.mounts = await realMounts(sandboxPaths);
  const protectedPaths = opts.changes === 'direct'
    ? await directProtections(state, { sandbox, handle }, sandboxPaths, opts)
    : await layered(state, sandbox, sandboxPaths, opts.hostReadPaths);
  const launch = networkLaunch(opts.network);
  const env = await mountPointExcludes(state.mounts, state.tmp, opts.env); // untracked in git status otherwise
  // With layers and a bounded /tmp, the launcher may put them in its tmpfs (bounded with it).
  const scratchLayers = state.layers !== null && tmpSize(opts.limits) > 0;
  const policy = { ...launchPolicy(sandboxPaths, protectedPaths, { ...opts, env }, argv, cwd, state.tmp, launch), ...(scratchLayers ? { scratchLayers } : {}) };
  const sinceMs = Date.now(); // a host file changed after this changed during the run: a conflict
  const ran = await runAllowingFallback(policy, opts, { policy: opts.network, onRequest: opts.onRequest });
  const { status } = ran;
  state.enforced = status.ok;
  if (state.layers === null) {
    if (ran.scratch !== null) closeQuietly(ran.scratch);
  } else {
    takeScratch(state.layers, ran.scratch, status.ok !== null && status.ok.layers.includes('copy-on-write-limit'));
  }
  if (ran.aborted) throw abortedError();
  if (status.error && status.error.stage === 'copy-on-write-unavailable') {
    const why = status.error.errno ? `overlayfs refused it (${errnoName(status.error.errno)})` : 'this machine cannot give the command its own namespaces';
    throw new LayerUnavailable(why);
  }
  if (status.error) {
    const error = launchError(status.error.stage, status.error.errno, opts.cwd);
    if (status.error.syscall) error.syscall = status.error.syscall;
    throw error;
  }
  if (!status.ok) {
    if (ran.timedOut) throw new ExecError('the exec launcher did not start in time', undefined, 'start');
    throw new ExecError('the exec launcher ended without confining the command', undefined, 'start');
  }
  const view = status.ok.layers.includes('private-root') ? { workspace: opts.workspace, cwd: cwd.view } : null;
  state.view = view;
  const result = {
    stdout: ran.stdout.text(),
    stderr: ran.stderr.text(),
    ...outcome(status, ran.code, ran.signal),
    truncated: ran.stdout.truncated || ran.stderr.truncated,
    timedOut: ran.timedOut,
    view,
    enforcement: {
      ...status.ok,
      limits: enforcedLimits(opts.limits, status.ok.layers),
      network: enforcedMode(opts.network, status.ok.layers, ran.judge !== null),
      changes: opts.changes,
    },
    network: ran.judge === null ? null : ran.judge.report(),
    changes: null, // filled in below where the command ran on copy-on-write layers
    removedAfterRun: [], // filled in by exec() once the command's leftovers are removed
    gitTakenOut: [],
    cleanupFailed: [],
  };
  if (status.execErrno !== null) Object.assign(result, launchFailure(status.execErrno, argv, policy.env));
  if (ran.timedOut) {
    result.exitCode = -1;
    result.signal = 'SIGKILL';
    result.stderr += `\nCommand timed out after ${opts.timeoutMs} ms; its processes were killed.`;
  }
  if (state.layers !== null) {
    result.changes = await settleChanges(sandbox, handle, { ...state.layers, sinceMs }, opts.changes, opts.holdAsk);
    state.layers = null; // settled: held for review, or gone
  }
  const readOnly = [...protectedPaths, ...state.git.protect]
    .map((p) => virtualPathOf(p, state.mounts))
    .filter((p) => p !== null);
  result.stderr = await guidingNotes(result, sandbox, cwd, view, {
    network: result.enforcement.network,
    allowed: [...describeNetwork(opts.network).allow],
    refusals: result.network === null ? 0 : result.network.denied.length,
    readOnly, mounts: state.mounts, hostReadPaths: opts.hostReadPaths,
  });
  // Whatever the exit status: a client may swallow the refusal, and the model should still know.
  const refused = refusedNote(result.network, opts.network);
  if (refused !== null) result.stderr = `${result.stderr.replace(/\n$/, '')}${result.stderr === '' ? '' : '\n\n'}${refused}\n`;
  return result;
}
// Today's direct writes: what the host trusts next bound read-only where it exists, watched where
// it does not, git's files protected and checked after the run, hard links out bound read-only.
async function directProtections(state, { sandbox, handle }, sandboxPaths, opts) {
  // What the core says the host trusts next, at any depth (src/fs/trusted_scan.h): the files its
  // names cover, bound read-only, what a command adds at them removed after it; every repository,
  // protected below and settled after the run (lib/next-run/watch.js).
  state.trusted = await trustedBefore(handle, state.mounts);
  // What the host's git runs later stays as it is (lib/next-run/git.js), in every repository.
  if (opts.protectGit) {
    const writable = sandboxPaths.filter((p) => p.access === 'write' || p.access === 'writeKeep');
    state.git = await gitProtection([...writable.map((p) => p.path), ...state.trusted.nested]);
    const released = (p) => handle.releasedHostPath(p);
    state.git.protect = state.git.protect.filter((p) => !released(p));
    sandboxPaths.push(
      ...state.git.protect.map((p) => ({ path: p, access: 'protect' })),
      ...state.git.pin.map((p) => ({ path: p, access: 'pin' })),
    );
  }
  // Names the next run trusts: bound where they exist now, else watched (lib/next-run/watch.js).
  const names = await namesToWatch(absentNames(sandbox), state.mounts);
  state.watch = names.watch;
  const linked = opts.protectSharedLinks ? await sharedLinksToBind(handle, state.mounts) : []; // hard links out
  return [
    ...protectedFiles(sandbox).filter((file) => fs.existsSync(file)), ...names.bind, ...state.trusted.bind, ...linked,
  ];
}

// Copy-on-write: every writable mount gets a layer, and nothing of the host changes while the
// command runs; what it changed is judged after it (lib/changes/), so no scan is needed.
// The config's own files stay bound read-only too: known without a walk, and a command that writes
// them learns at once (EROFS) rather than after the run.
async function layered(state, sandbox, sandboxPaths, hostReadPaths) {
  state.layers = await prepareLayers(sandboxPaths, hostReadPaths);
  if (state.layers === null) throw new LayerUnavailable('no directory outside the writable mounts can hold the layers');
  return protectedFiles(sandbox).filter((file) => fs.existsSync(file));
}

class LayerUnavailable extends Error {
  constructor(reason) {
    super(reason);
    this.reason = reason;
  }
}

const withPidNamespace = (enforced) => enforced !== null && enforced.layers.includes('pid-namespace');

// After the run: the temp directory, git's planted names, the names watched for the next run.
// Only with a PID namespace are names in the sandbox removed: then no process of the command is
// left to swap a directory for a link while we walk. Returns host paths removed, and the
// virtual paths ("/tmp" for the temp directory) of what could not be removed.
async function cleanUp(state) {
  const failed = [];
  if (!(await removeTempDir(state.tmp, state.enforced))) failed.push('/tmp');
  // A run that ended before its changes were settled (refused, aborted): nothing of it lands.
  if (state.layers !== null) await releaseLayers(state.layers);
  const removed = [];
  // git's planted names (lib/next-run/git.js): removed by the core, which also says what it could
  // not check or remove.
  const planted = await afterRun(state.git, state.enforced);
  removed.push(...planted.removed);
  const repositories = planted.repositories || [];
  failed.push(...planted.unchecked, ...planted.failed);
  let settled = { takenOut: [], restored: [], failed: [] };
  if (withPidNamespace(state.enforced)) {
    const now = await trustedAdded(state.trusted);
    const names = await removeAppeared([...state.watch, ...now.added], removeConfined);
    removed.push(...names.removed);
    failed.push(...names.failed, ...now.truncated);
    if (state.git.handle !== null) {
      settled = await settleRepositories(state.trusted.repositories, now.repositories, state.trusted.sources, state.enforced);
    }
    failed.push(...settled.failed);
  }
  const virtual = (p) => (p === '/tmp' ? p : virtualPathOf(p, state.mounts));
  return {
    removed, repositories, takenOut: virtualEntries(settled.takenOut, state.mounts), restored: virtualEntries(settled.restored, state.mounts),
    failed: [...new Set(failed.map(virtual).filter((p) => p !== null))],
  };
}

// Deletes `target` with an `rm -rf` confined by Landlock to `area` (a directory holding it): a
// process still running (or a concurrent command of the same sandbox) that swaps a directory on
// the way for a symlink can then redirect the deletion nowhere outside `area`, where it may
// write anyway. Resolves whether `target` is gone.
async function removeConfined(target, area) {
  const policy = {
    argv: ['/bin/rm', '-rf', '--', target],
    env: [`PATH=${DEFAULT_PATH}`],
    cwd: '/',
    paths: [...systemPaths(false), readable(path.dirname(area)), { path: area, access: 'write' }],
    namespaces: 'off', // on the host's paths, as it names them
    allowWeaker: true,
  };
  await run(policy, { timeoutMs: MAX_TIMEOUT_MS, maxOutputBytes: 1024 }).catch(() => {});
  return fs.promises.lstat(target).then(() => false, () => true);
}

// Whether the temp directory is gone. A command may leave directories it cannot be emptied
// through (mode 000): when a first removal leaves something, they are made removable (never
// following a link) and it is tried again. Without the PID namespace a process of the command may
// still run and swap directories for symlinks while we delete: then the deletion itself runs
// confined to the temp directory.
async function removeTempDir(tmp, enforced) {
  const remove = async () => {
    if (withPidNamespace(enforced)) {
      // Most commands leave /tmp empty: one rmdir, before the walk a recursive rm makes.
      if (await fs.promises.rmdir(tmp).then(() => true, () => false)) return true;
      await fs.promises.rm(tmp, { recursive: true, force: true, maxRetries: 2 }).catch(() => {});
    } else {
      await removeConfined(tmp, tmp);
      await fs.promises.rmdir(tmp).catch(() => {}); // its parent is not the command's to swap
    }
    return fs.promises.lstat(tmp).then(() => false, () => true);
  };
  if (await remove()) return true;
  await makeRemovable(tmp).catch(() => {});
  return remove();
}

module.exports = {
  exec, removeConfined, parseOptions, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES,
  // Internal, for tests only: one launcher run of a policy as built by launchPolicy().
  _runLauncher: run,
};
