'use strict';

// Host paths a sandbox's commands must not change although they may lie inside a writable
// mount, because the next run trusts them: the program config it was made from and the worker
// file that narrowed it (a command that rewrote them would widen the next run). sandbox.exec()
// binds them read-only. Beside them, the names the next run would trust that did not exist when
// the sandbox was made (a worker directory, a config name): those cannot be bound, so exec binds
// the ones that exist by the time it runs and removes what a command created at the others
// (lib/next-run/watch.js). Both are carried from a sandbox to the views derived from it.
const PROTECTED_FILES = Symbol('protectedFiles');
const ABSENT_NAMES = Symbol('absentNames');

function protectedFiles(sandbox) {
  return sandbox[PROTECTED_FILES] || [];
}

function absentNames(sandbox) {
  return sandbox[ABSENT_NAMES] || [];
}

function addProtectedFiles(sandbox, files, absent = []) {
  if (sandbox === null) return sandbox;
  sandbox[PROTECTED_FILES] = [...new Set([...protectedFiles(sandbox), ...files])];
  sandbox[ABSENT_NAMES] = [...new Set([...absentNames(sandbox), ...absent])];
  return sandbox;
}

// A view derived from `from` keeps what `from` protects.
function carryProtection(from, view) {
  return addProtectedFiles(view, protectedFiles(from), absentNames(from));
}

module.exports = { protectedFiles, absentNames, addProtectedFiles, carryProtection };
