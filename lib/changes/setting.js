'use strict';

// What a sandbox's commands get when a call names none, from its config (a program config's
// sandbox section, or createMountSandbox's config), carried to every view derived from it:
// - `changes`: what becomes of their changes. Left unset, 'apply' where this machine can make
//   copy-on-write layers and direct writes elsewhere (lib/exec/exec.js).
// - `tmpBytes`: the size of their /tmp (limits.tmpBytes; lib/exec/options.js has the default).
const DECLARED = Symbol('commandDefaults');
const MODES = ['apply', 'review', 'direct'];

function checkTmpBytes(value) {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`expected a size in bytes (0 for the host's disk, unbounded) for tmpBytes, got ${String(value)}`);
  }
  return value;
}

/** The config without its `changes` and `tmpBytes` keys, and what they name (undefined: none). */
function splitCommandDefaults(config) {
  const declares = (key) => config !== null && typeof config === 'object' && Object.hasOwn(config, key);
  if (!declares('changes') && !declares('tmpBytes')) return { changes: undefined, tmpBytes: undefined, rest: config };
  const { changes, tmpBytes, ...rest } = config;
  if (declares('changes') && !MODES.includes(changes)) throw new TypeError(`expected one of ${MODES.join(', ')} for changes`);
  return { changes, tmpBytes: declares('tmpBytes') ? checkTmpBytes(tmpBytes) : undefined, rest };
}

function setCommandDefaults(sandbox, { changes, tmpBytes }) {
  if (sandbox !== null && (changes !== undefined || tmpBytes !== undefined)) sandbox[DECLARED] = { changes, tmpBytes };
  return sandbox;
}

function changesOf(sandbox) {
  return sandbox[DECLARED]?.changes;
}

function tmpBytesOf(sandbox) {
  return sandbox[DECLARED]?.tmpBytes;
}

// The sandbox's own `changes` and `tmpBytes` (its config's) where the call names none; changes
// named in either place, a machine without copy-on-write layers refuses rather than writing
// directly.
function withSandboxDefaults(opts, sandbox) {
  const changes = changesOf(sandbox);
  const tmpBytes = tmpBytesOf(sandbox);
  const out = { ...opts };
  if (!opts.changesAsked && changes !== undefined) Object.assign(out, { changes, changesAsked: true });
  if (!opts.tmpAsked && tmpBytes !== undefined) out.limits = { ...opts.limits, tmpBytes };
  return out;
}

// A view derived from `from` keeps what it declared.
function carryCommandDefaults(from, view) {
  return setCommandDefaults(view, from[DECLARED] ?? {});
}

module.exports = { splitCommandDefaults, setCommandDefaults, withSandboxDefaults, carryCommandDefaults };
