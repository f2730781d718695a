'use strict';

// edit_file's edits applied in turn, each oldText required to occur exactly once in the text as
// the edits before it left it. Each edit costs a scan and a copy of the text, so the work is
// counted (in characters scanned and copied, not in time) and held to a budget; a call whose
// work could hold the event loop runs on a worker thread, so other calls go on meanwhile.
const { Worker } = require('worker_threads');

// Work done on the server's own thread at most (about a millisecond or two).
const INLINE_WORK = 8 * 1024 * 1024;
// Work one call may do at all: past it the call is refused, naming how to split it.
const WORK_BUDGET = 2 * 1024 * 1024 * 1024;

// The first index at which `needle` occurs, and whether it occurs again after it.
function findOnce(haystack, needle) {
  const at = haystack.indexOf(needle);
  if (at === -1) return { count: 0, at };
  let count = 1;
  for (let i = haystack.indexOf(needle, at + 1); i !== -1 && count < 1000; i = haystack.indexOf(needle, i + 1)) count++;
  return { count, at };
}

/**
 * @param {string} original
 * @param {{ oldText: string, newText: string }[]} edits
 * @param {number} budget characters scanned and copied at most
 * @returns {{ text: string } | { failed: { index: number, count: number } } | { empty: number } | { over: true }}
 */
function applyEdits(original, edits, budget = WORK_BUDGET) {
  let current = original;
  let work = 0;
  for (const [index, edit] of edits.entries()) {
    if (edit.oldText === '') return { empty: index };
    work += 2 * current.length;
    if (work > budget) return { over: true };
    const { count, at } = findOnce(current, edit.oldText);
    if (count !== 1) return { failed: { index, count } };
    current = current.slice(0, at) + edit.newText + current.slice(at + edit.oldText.length);
  }
  return { text: current };
}

// The most work `edits` can take on `original`: every edit scans and copies the longest text.
function workBound(original, edits) {
  const growth = edits.reduce((n, e) => n + Math.max(0, e.newText.length - e.oldText.length), 0);
  return 2 * edits.length * (original.length + growth);
}

/**
 * applyEdits, on this thread when it is cheap, else on a worker thread; `signal` ends the worker.
 * @returns {Promise<ReturnType<typeof applyEdits>>}
 */
function applyEditsOffThread(original, edits, signal) {
  if (workBound(original, edits) <= INLINE_WORK) return Promise.resolve(applyEdits(original, edits));
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: { original, edits } });
    const abort = () => {
      worker.terminate();
      reject(signal.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    worker.once('message', (result) => {
      signal?.removeEventListener('abort', abort);
      worker.terminate();
      resolve(result);
    });
    worker.once('error', (error) => {
      signal?.removeEventListener('abort', abort);
      reject(error);
    });
  });
}

const { isMainThread, parentPort, workerData } = require('worker_threads');

if (!isMainThread && workerData && Array.isArray(workerData.edits)) {
  parentPort.postMessage(applyEdits(workerData.original, workerData.edits));
}

module.exports = { applyEdits, applyEditsOffThread, workBound, INLINE_WORK, WORK_BUDGET };
