'use strict';

// The mount-sandbox command as test/cli*.test.js run it: a real process over real config files in
// the test's temp directory (useBase sets it for each test).
const path = require('path');
const { spawnSync } = require('child_process');
const { write } = require('../helpers');

const BIN = path.join(__dirname, '..', '..', 'bin', 'mount-sandbox.js');

let base;
function useBase(dir) {
  base = dir;
}

function run(args, { cwd = base } = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 20000 });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// The project most tests use: a writable root, a read-only /src mount, a writable /out mount.
function project() {
  const dir = path.join(base, 'proj');
  write(path.join(dir, 'golem-forge.config.yaml'), [
    'sandbox:',
    '  root: work',
    '  approval: {write: preApproved, delete: blocked}',
    '  mounts:',
    '    - source: code',
    '      target: /src',
    '      readonly: true',
    '      allowedSuffixes: [".ts"]',
    '    - source: build/out',
    '      target: /out',
    '      maxFileBytes: 1000',
    'delegation:',
    '  maxDepth: 4',
    '',
  ].join('\n'));
  write(path.join(dir, 'code', 'a.ts'), 'export const a = 1;\n');
  write(path.join(dir, 'work', 'notes.md'), 'notes');
  return dir;
}

function lineWith(text, needle) {
  return text.split('\n').find((l) => l.includes(needle));
}

// explain's verdict lines start with the operation: "read:", "write:", "delete:".
function verdict(text, operation) {
  return text.split('\n').find((l) => l.startsWith(`${operation}:`));
}

module.exports = { BIN, useBase, run, project, lineWith, verdict };
