'use strict';

// excludePatterns for directory_tree and search_files, matched like .gitignore lines: a pattern
// without "/" is matched against each entry's name at any depth ("node_modules", "*.log"), one
// with "/" against the path relative to the directory walked ("build/**", "src/*.gen.ts"), and an
// excluded directory is not entered. Supported: *, ?, **, [abc], [!abc], {a,b}. Each pattern
// becomes one regular expression without nested quantifiers, so matching costs time linear in
// the name times the pattern.
const MAX_PATTERN_LENGTH = 1024;
const MAX_PATTERNS = 100;

function escapeRegExp(c) {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function classToRegExp(pattern, i) {
  const close = pattern.indexOf(']', i + 2);
  if (close === -1) return null;
  let body = pattern.slice(i + 1, close);
  const negate = body[0] === '!' || body[0] === '^';
  if (negate) body = body.slice(1);
  const chars = body.replace(/[\\\]^]/g, (c) => `\\${c}`);
  return { source: `[${negate ? '^' : ''}${chars}${negate ? '/' : ''}]`, end: close + 1 };
}

function globToRegExp(pattern) {
  let source = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        const slashAfter = pattern[i + 2] === '/';
        source += slashAfter ? '(?:[^/]*/)*' : '.*';
        i += slashAfter ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (c === '?') {
      source += '[^/]';
    } else if (c === '[') {
      const cls = classToRegExp(pattern, i);
      if (cls === null) source += '\\[';
      else {
        source += cls.source;
        i = cls.end - 1;
      }
    } else if (c === '{') {
      braces++;
      source += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (c === ',' && braces > 0) {
      source += '|';
    } else {
      source += escapeRegExp(c);
    }
  }
  source += ')'.repeat(braces);
  return new RegExp(`^${source}$`, 's');
}

// A predicate (relativePath, name) -> excluded?, from a list of patterns.
function excluder(patterns) {
  const list = (patterns ?? []).slice(0, MAX_PATTERNS).filter((p) => typeof p === 'string' && p.length > 0);
  const matchers = list.map((raw) => {
    const p = raw.slice(0, MAX_PATTERN_LENGTH).replace(/^\.?\/+/, '').replace(/\/+$/, '');
    const re = globToRegExp(p);
    return p.includes('/') ? (rel) => re.test(rel) : (rel, name) => re.test(name);
  });
  return (rel, name) => matchers.some((m) => m(rel, name));
}

module.exports = { excluder, globToRegExp, MAX_PATTERNS };
