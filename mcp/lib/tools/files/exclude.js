'use strict';

// excludePatterns for directory_tree and search_files, matched like .gitignore lines: a pattern
// without "/" is matched against each entry's name at any depth ("node_modules", "*.log"), one
// with "/" against the path relative to the directory walked ("build/**", "src/*.gen.ts"), and an
// excluded directory is not entered. The patterns are the library's globs (globMatcher: *, ?, **,
// [abc], [!abc], {a,b}), matched by the core in time bounded by the pattern's size times the
// name's, so no pattern can hold the server's event loop.
const { globMatcher } = require('../../mount-sandbox');

const MAX_PATTERN_LENGTH = 1024;
const MAX_PATTERNS = 100;

// A predicate (relativePath, name) -> excluded?, from a list of patterns. A pattern that is not a
// glob throws the library's INVALID_PATTERN error, for the model to fix.
function excluder(patterns) {
  const list = (patterns ?? []).slice(0, MAX_PATTERNS).filter((p) => typeof p === 'string' && p.length > 0);
  const matchers = list.map((raw) => {
    const p = raw.slice(0, MAX_PATTERN_LENGTH).replace(/^\.?\/+/, '').replace(/\/+$/, '');
    const matches = globMatcher(`/${p}`);
    if (!p.includes('/')) return (rel, name) => matches(`/${name}`);
    // As in .gitignore, "dir/**" is what lies inside dir, not dir itself (the glob's "**" may
    // also stand for no directory at all).
    if (!p.endsWith('/**')) return (rel) => matches(`/${rel}`);
    const itself = globMatcher(`/${p.slice(0, -3)}`);
    return (rel) => matches(`/${rel}`) && !itself(`/${rel}`);
  });
  return (rel, name) => matchers.some((m) => m(rel, name));
}

module.exports = { excluder, MAX_PATTERNS };
