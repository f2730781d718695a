'use strict';

const { skipWith, testIf, describeIf } = require('./helpers/skips');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { openat2Supported, SandboxError } = require('../lib');

// Both resolvers run every security test; openat2 only where the kernel has it.
const RESOLVERS = openat2Supported() ? ['openat2', 'walk'] : ['walk'];

function makeTempDir(prefix = 'msb-test-') {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

// A fresh temp dir as `base`, and beside it the path of each named entry in it (not created):
// makeTempLayout(['root', 'outside']) is { base, root: `${base}/root`, outside: `${base}/outside` }.
function makeTempLayout(names, prefix) {
  const base = makeTempDir(prefix);
  return Object.fromEntries([['base', base], ...names.map((name) => [name, path.join(base, name)])]);
}

// A fresh temp dir for every test in the enclosing block, handed to `use`, removed after the test.
function tempDirEach(prefix, use) {
  let dir;
  beforeEach(() => {
    dir = makeTempDir(prefix);
    use(dir);
  });
  afterEach(() => removeDir(dir));
}

// For every test in the enclosing block: a fresh temp layout with `root` and `outside`, filled by
// `seed(layout)`; after the test, the check that nothing under `outside` changed (contents
// included), then the removal of it all.
function outsideUntouchedEach(seed, prefix) {
  let layout;
  let outsideBefore;
  beforeEach(() => {
    layout = makeTempLayout(['root', 'outside'], prefix);
    seed(layout);
    outsideBefore = snapshotTree(layout.outside);
  });
  afterEach(() => {
    expect(snapshotTree(layout.outside)).toEqual(outsideBefore);
    removeDir(layout.base);
  });
}

function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

// Every entry under `dir` with its mode and contents (link text for symlinks, "fifo" for FIFOs),
// so a refusal that changed a single byte anywhere is caught. `contents: false` records sizes
// instead, for trees holding huge sparse files.
function snapshotTree(dir, { contents = true } = {}) {
  const out = [];
  const walk = (rel) => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      const child = path.join(rel, name);
      const full = path.join(dir, child);
      const st = fs.lstatSync(full);
      let detail = '';
      if (st.isSymbolicLink()) detail = `-> ${fs.readlinkSync(full)}`;
      else if (st.isFile()) detail = contents ? fs.readFileSync(full).toString('hex') : `${st.size}`;
      else if (st.isFIFO()) detail = 'fifo';
      out.push(`${child} ${st.mode.toString(8)} ${detail}`);
      if (st.isDirectory()) walk(child);
    }
  };
  walk('');
  return out;
}

// Fails (instead of hanging the suite) when an operation does not settle in time.
function settleWithin(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// A reader stuck opening a FIFO is released when a writer opens it.
function releaseFifo(file) {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch {
    // no reader waiting
  }
}

// The text before the n-th occurrence of `needle`, for placing an expected error by what it points
// at rather than by counted lines and columns.
function textBefore(text, needle, n = 1) {
  let index = -1;
  for (let i = 0; i < n; i++) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`test bug: ${JSON.stringify(needle)} occurs fewer than ${n} times`);
  }
  return text.slice(0, index);
}

function write(file, content = '') {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

// Fails when `err` names anything under `dir` in its message, LLM message, stack or own fields.
function expectNoPathUnder(err, dir) {
  const own = JSON.stringify(Object.fromEntries(Object.entries(err)));
  for (const text of [err.message, err.toLLMMessage(), err.stack, own]) {
    expect(text).not.toContain(dir);
  }
}

// Runs `fn`, expects it to fail with ErrorClass (a SandboxError) that names no path under `dir`,
// and checks that nothing under `dir` changed. `settle: { ms, what }` fails a call that does not
// settle in time (a FIFO may be among the paths); `contents: false` as for snapshotTree.
async function expectRefusal(dir, fn, ErrorClass, { contents = true, settle } = {}) {
  const before = snapshotTree(dir, { contents });
  let err;
  try {
    await (settle ? settleWithin(fn(), settle.ms, settle.what) : fn());
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ErrorClass);
  expect(err).toBeInstanceOf(SandboxError);
  expectNoPathUnder(err, dir);
  expect(snapshotTree(dir, { contents })).toEqual(before);
  return err;
}

// For checks that need a tool the README's set-up does not install (an AppArmor 4 parser, git):
// `test` where `missing` is null; otherwise a skip that says why, or, with MSB_REQUIRE_TOOLS=1 (as
// CI sets it), a failing test, so that CI cannot pass by skipping what it is meant to prove.
function testNeeding(missing) {
  if (missing === null) return test;
  if (process.env.MSB_REQUIRE_TOOLS === '1') {
    return (name) => test(name, () => {
      throw new Error(`${missing}, and MSB_REQUIRE_TOOLS=1 makes that a failure instead of a skip`);
    });
  }
  return skipWith(missing);
}

module.exports = {
  RESOLVERS,
  testNeeding,
  testIf, // test/helpers/skips.js: skips that carry their reason
  describeIf,
  skipWith,
  makeTempDir,
  makeTempLayout,
  tempDirEach,
  outsideUntouchedEach,
  removeDir,
  snapshotTree,
  settleWithin,
  releaseFifo,
  textBefore,
  write,
  expectNoPathUnder,
  expectRefusal,
};
