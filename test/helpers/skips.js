'use strict';

// Skipped tests, each with its reason, and how they are printed. A test that cannot run here is
// registered with test.skip under a title ending in "(skipped: reason)" (a suite: its describe
// title does), so that the reason travels with the test into Jest's results; nothing is logged
// when it is registered. What was skipped is printed afterwards, one line a test:
//   skipped: test/demo.test.js › its commands see the sandbox at /workspace: exec is not supported here
// by test/helpers/skip-reporter.js at the end of a Jest run, or by scripts/run-tests.js at the end
// of `npm test`. Test files skip through these helpers only (test/skips.test.js checks).
const path = require('path');

const REASON = / \(skipped: (.*)\)$/s;
// A reason is shown on one line (one taken from a command's output may hold several).
const titled = (name, reason) => `${name} (skipped: ${String(reason).replace(/\s+/g, ' ').trim()})`;

// `test`, or where `ok` is false a skipped test that carries `reason`.
function testIf(ok, reason) {
  return ok ? test : skipWith(reason);
}

function skipWith(reason) {
  return (name, fn, timeout) => test.skip(titled(name, reason), fn, timeout);
}

// `describe` (and its .each), or where `ok` is false a skipped suite whose title carries `reason`.
function describeIf(ok, reason) {
  if (ok) return describe;
  const skipped = (name, fn) => describe.skip(titled(name, reason), fn);
  skipped.each = (table) => (name, fn) => describe.skip.each(table)(titled(name, reason), fn);
  return skipped;
}

// One skipped test's name (its suites' and its own titles, without the reasons) and the reason
// given by the innermost title that gives one.
function skipOf(ancestorTitles, title) {
  const titles = [...ancestorTitles, title];
  const reason = titles.map((t) => REASON.exec(t)).reverse().find(Boolean);
  const name = titles.map((t) => t.replace(REASON, '')).join(' › ');
  return reason ? { name, reason: reason[1], given: true } : { name, reason: 'no reason given', given: false };
}

// The lines for the skipped tests of Jest's results: its --json report's testResults (name,
// assertionResults) or a reporter's (testFilePath, testResults), with paths shown from `root`.
// `givenOnly`: only the skips that give a reason (under -t, Jest marks every test the pattern
// leaves out as skipped too).
function skipLines(results, root, { givenOnly = false } = {}) {
  const lines = [];
  for (const file of results) {
    const suite = path.relative(root, file.testFilePath ?? file.name);
    for (const t of file.assertionResults ?? file.testResults ?? []) {
      if (t.status !== 'pending') continue;
      const { name, reason, given } = skipOf(t.ancestorTitles ?? [], t.title);
      if (givenOnly && !given) continue;
      lines.push(`skipped: ${suite} › ${name}: ${reason}`);
    }
  }
  return lines;
}

module.exports = { testIf, skipWith, describeIf, skipOf, skipLines };
