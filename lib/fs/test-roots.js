'use strict';

// Fresh temp directories for createTestSandbox(), removed when the process or thread that made
// them ends, whichever test runner hosts it.
//
// An 'exit' listener alone is not enough: Jest hands each test file a copy of `process` whose
// 'exit' is never emitted; Vitest's threads and vmThreads pools end their worker threads with
// terminate(), which runs no JS; runners stop worker processes with SIGTERM, which skips 'exit'.
// A runner's afterAll cannot be used either: Jest refuses hooks added once tests run, and
// sandboxes are made in tests and beforeAll.
//
// So each directory is also handed to a small shell process that outlives us: it holds the read
// end of a pipe whose only write end is ours, and when that end closes (the thread or process
// ended, however), it removes what it was told about. The 'exit' listener stays, because it
// removes the directories before the process is gone where `process` is the real one.
const { childProcess: { spawn }, fs, os, path } = require('../common/builtins');

const PREFIX = 'mount-sandbox-test-';
const CLEANUP_NAME = 'mount-sandbox-test-cleanup';

// $1: the temp dir. Reads one directory name a line until EOF, then removes them. Only names
// mkdtemp can give are accepted, so nothing else under $1 can be removed, and a line cut short
// (no newline) is dropped by `read`. Signals sent to the runner's process group are ignored: the
// work is done when the runner is gone. No `exec rm`: the process keeps its name until done,
// which is how test/runners.test.js knows when to look.
const CLEANUP_SCRIPT = `
trap '' HUP INT TERM
dir=$1
set --
while IFS= read -r name; do
  case $name in
    ${PREFIX}[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]) set -- "$@" "$dir/$name" ;;
  esac
done
[ $# -eq 0 ] || rm -rf -- "$@"
`;

const roots = new Set();
const cleaners = new Map(); // temp dir -> stdin of its cleanup process

function cleanerFor(dir) {
  let stdin = cleaners.get(dir);
  if (stdin) return stdin;
  const child = spawn('/bin/sh', ['-c', CLEANUP_SCRIPT, CLEANUP_NAME, dir], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true, // its own process group: a Ctrl-C or a group kill of the runner spares it
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
  });
  // Without /bin/sh there is still the 'exit' listener.
  child.on('error', () => {});
  child.stdin.on('error', () => {});
  // Neither the process nor the pipe may keep the event loop (or a runner) waiting.
  child.unref();
  // A piped stdin is a net.Socket, which can be unref'd; its declared type (Writable) cannot say so.
  /** @type {import('net').Socket} */ (child.stdin).unref();
  cleaners.set(dir, child.stdin);
  return child.stdin;
}

function removeRoots() {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  roots.clear();
}

async function makeTestRoot() {
  const dir = path.resolve(os.tmpdir());
  // Spawned before the first await: the cleaner is up before the directory exists, and Jest's
  // --detectOpenHandles attributes the spawn to the calling test (so it would report a leak).
  const cleaner = cleanerFor(dir);
  const root = await fs.promises.mkdtemp(path.join(dir, PREFIX));
  if (roots.size === 0) process.once('exit', removeRoots);
  roots.add(root);
  // One line, far below PIPE_BUF, so it reaches the pipe whole in one write.
  cleaner.write(`${path.basename(root)}\n`);
  return root;
}

module.exports = { makeTestRoot, CLEANUP_NAME, CLEANUP_SCRIPT };
