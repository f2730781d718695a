'use strict';

// What becomes of a sandbox's commands' changes when a call names no `changes`: its config's
// `changes:` (a program config's sandbox section, or createMountSandbox's config), carried to
// every view derived from it. Left unset, 'apply' where this machine can make copy-on-write
// layers and direct writes elsewhere (lib/exec/exec.js).
const CHANGES = Symbol('changes');
const MODES = ['apply', 'review', 'direct'];

/** The config without its `changes` key, and the mode it names (undefined: none). */
function splitChanges(config) {
  if (config === null || typeof config !== 'object' || !Object.hasOwn(config, 'changes')) return { changes: undefined, rest: config };
  const { changes, ...rest } = config;
  if (!MODES.includes(changes)) throw new TypeError(`expected one of ${MODES.join(', ')} for changes`);
  return { changes, rest };
}

function declareChanges(sandbox, changes) {
  if (sandbox !== null && changes !== undefined) sandbox[CHANGES] = changes;
  return sandbox;
}

function changesOf(sandbox) {
  return sandbox[CHANGES];
}

// A view derived from `from` keeps its mode.
function carryChanges(from, view) {
  return declareChanges(view, changesOf(from));
}

module.exports = { splitChanges, declareChanges, changesOf, carryChanges };
