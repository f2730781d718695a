'use strict';

// A Jest reporter that prints each skipped test as one line with its reason, after the run
// (test/helpers/skips.js). Under `npm test`, scripts/run-tests.js prints them once, at its very end,
// and sets MSB_SKIPS_AT_END so that this one stays quiet.
const { skipLines } = require('./skips');

class SkipReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir;
    this.filtered = Boolean(globalConfig.testNamePattern);
  }

  onRunComplete(contexts, results) {
    if (process.env.MSB_SKIPS_AT_END === '1') return;
    const lines = skipLines(results.testResults, this.root, { givenOnly: this.filtered });
    if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
  }
}

module.exports = SkipReporter;
