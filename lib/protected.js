'use strict';

// Host files a sandbox's commands must not change although they may lie inside a writable
// mount: the program config it was made from and the worker file that narrowed it (a command
// that rewrote them would widen the next run). sandbox.exec() binds them read-only. Carried
// from a sandbox to the views derived from it.
const PROTECTED_FILES = Symbol('protectedFiles');

function protectedFiles(sandbox) {
  return sandbox[PROTECTED_FILES] || [];
}

function addProtectedFiles(sandbox, files) {
  if (sandbox !== null) sandbox[PROTECTED_FILES] = [...new Set([...protectedFiles(sandbox), ...files])];
  return sandbox;
}

module.exports = { protectedFiles, addProtectedFiles };
