'use strict';

// Glob patterns matched by the core (src/fs/glob.h, the matcher sandbox.glob() walks with), for
// callers that match paths they already have, such as the MCP server's excludePatterns. Matching
// costs at most the pattern's size times the path's, whatever the pattern: no backtracking.
const { addon } = require('../common/native');
const { SandboxError } = require('../errors/from-codes');
const { excerpt } = require('../common/display');

/**
 * @param {string} pattern "*", "?", "**", "[abc]", "{a,b}", as sandbox.glob() takes them
 * @returns {(virtualPath: string) => boolean}
 */
function globMatcher(pattern) {
  if (typeof pattern !== 'string') throw new TypeError('expected a string for pattern');
  const matches = addon().compileGlob(pattern);
  if (matches === null) throw new SandboxError('INVALID_PATTERN', `Invalid glob pattern: ${excerpt(pattern)}`, pattern);
  return (virtualPath) => {
    if (typeof virtualPath !== 'string') throw new TypeError('expected a string for virtualPath');
    return matches(virtualPath);
  };
}

module.exports = { globMatcher };
