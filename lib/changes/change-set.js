'use strict';

// What a command changed, as sandbox.exec() hands it back: read from the run's copy-on-write
// layers and landed (or judged) by the core, with the file API's rules (src/changes/). Applied at
// once ('apply'), or held for the caller ('review': on disk, or in /tmp's tmpfs) until apply() or
// discard().
const { errorFromCode, ExecError } = require('../errors/from-codes');
const { releaseLayers, releaseLayersNow, clearScratchTmp } = require('./layers');
const { changeDiff } = require('./diff');

// Change sets held for review and not yet settled (their runs: stage and scratch): their layers
// are removed when the process exits. At most this many are held at once; a run past it is
// refused before it starts.
const MAX_HELD = 16;
const held = new Set();
let exitHook = false;

function holdStage(run) {
  held.add(run);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => held.forEach(releaseLayersNow));
}

function checkRoomToHold() {
  if (held.size < MAX_HELD) return;
  throw new ExecError(`${MAX_HELD} change sets are held for review already: apply() or discard() one first`, undefined, 'changes');
}

// One change as the caller sees it: its refusal as the error the file API would have thrown.
function changeOf(handle, item) {
  const out = { path: item.path, kind: item.kind, size: item.size, approval: item.approval, replaces: item.replaces };
  if (item.code !== undefined) {
    const error = errorFromCode(item.code, item.path, item.details, handle);
    out.code = error.code;
    out.reason = error.message;
  }
  return out;
}

function sortReport(handle, report) {
  const sorted = { applied: [], refused: [], conflicts: [], pending: [] };
  for (const item of report.changes) {
    const change = changeOf(handle, item);
    if (item.outcome === 'applied') sorted.applied.push(change);
    else if (item.outcome === 'conflict') sorted.conflicts.push(change);
    else if (item.outcome === 'pending') sorted.pending.push(change);
    else sorted.refused.push(change);
  }
  return { ...sorted, truncated: report.truncated };
}

// The paths a filter keeps: a list of virtual paths, or a predicate over the pending changes.
function selectedPaths(filter, pending) {
  if (filter === undefined) return undefined;
  if (typeof filter === 'function') return pending.filter((c) => filter(c)).map((c) => c.path);
  if (Array.isArray(filter) && filter.every((p) => typeof p === 'string')) return filter;
  throw new TypeError('expected an array of virtual paths or a function (change) => boolean for apply()');
}

/**
 * Lands (mode 'apply') or judges (mode 'review') the run's changes. With 'review', or pending
 * changes under 'apply' (holdAsk), the stage stays and the result can apply() or discard() them.
 */
async function settleChanges(sandbox, handle, run, mode, holdAsk) {
  if (run.layers.length === 0) return { mode, ...await settled(), apply: settled, discard: async () => {}, diff: gone };
  const dryRun = mode === 'review';
  const report = sortReport(handle, await handle.landChanges(run.layers, { sinceMs: run.sinceMs, dryRun, holdAsk }));
  const waiting = dryRun ? [...report.applied, ...report.pending] : report.pending;
  const result = {
    mode,
    applied: dryRun ? [] : report.applied,
    refused: report.refused,
    conflicts: report.conflicts,
    pending: waiting,
    truncated: report.truncated,
  };
  if (waiting.length === 0 && !report.truncated) {
    await releaseLayers(run);
    return { ...result, apply: settled, discard: async () => {}, diff: gone };
  }
  await clearScratchTmp(run);
  holdStage(run);
  return { ...result, ...reviewActions(sandbox, handle, run, result) };
}

const settled = async () => ({ applied: [], refused: [], conflicts: [], pending: [], truncated: false });
const gone = async () => {
  throw new ExecError('nothing of this change set is held any more: diff() reads held changes', undefined, 'changes');
};

// apply(filter?) lands the held changes (or those the filter keeps), judged again by the rules
// as they are now; discard() drops what is left. Either ends the hold once nothing waits.
function reviewActions(sandbox, handle, run, result) {
  let open = true;
  const release = async () => {
    open = false;
    held.delete(run);
    await releaseLayers(run);
  };
  return {
    apply: async (filter) => {
      if (!open) throw new ExecError('this change set was applied or discarded already', undefined, 'changes');
      const only = selectedPaths(filter, result.pending);
      const landed = sortReport(handle, await handle.landChanges(run.layers, { sinceMs: run.sinceMs, dryRun: false, holdAsk: false, only }));
      if (landed.pending.length === 0 && !landed.truncated) await release();
      result.pending = landed.pending; // what diff() may still show
      return landed;
    },
    discard: async () => {
      if (open) await release();
    },
    // The unified diff of a held change to a text file (lib/changes/diff.js).
    diff: async (p) => {
      if (!open) return gone();
      const change = result.pending.find((c) => c.path === p);
      if (change === undefined) throw new TypeError(`${p} is not among the held changes`);
      return changeDiff(sandbox, run.layers, change);
    },
  };
}

module.exports = { settleChanges, checkRoomToHold, MAX_HELD };
