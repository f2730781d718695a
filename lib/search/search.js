'use strict';

// sandbox.grep(): the options checked here, the search itself in the core (src/search/grep.h):
// a walk through the sandbox, RE2 (linear time), files shared among threads, bounded by
// results, bytes and CPU time. Cancelling with `signal` stops the walk and the threads between
// files; the promise then rejects with the signal's reason.
const { optionsOf } = require('../common/plain');
const { SandboxError } = require('../errors/from-codes');
const { excerpt } = require('../common/display');
const { addon } = require('../common/native');

const OPTION_KEYS = ['path', 'literal', 'ignoreCase', 'word', 'invert', 'type', 'output', 'spans', 'include', 'exclude',
  'context', 'before', 'after', 'maxCount', 'maxResults', 'maxLineBytes', 'gitignore', 'hidden', 'maxBytes', 'maxCpuMs', 'threads'];
// A line longer than this ends its file's search (src/search/file_search.h).
const GREP_LINE_BOUND = 16 * 1024 * 1024;
// What one search thread holds of a file at most: a chunk and the line it cut.
const GREP_BYTES_PER_THREAD = 256 * 1024 + GREP_LINE_BOUND;
const OUTPUTS = ['lines', 'files', 'count'];
const MAX_GREP_THREADS = 16;
const LIMITS = Object.freeze({ maxResults: 100000, context: 20, maxLineBytes: 65536, maxBytes: 2 ** 40, maxCpuMs: 10 * 60 * 1000, threads: MAX_GREP_THREADS,
  before: 20, after: 20, maxCount: 100000 });
const DEFAULTS = Object.freeze({ maxResults: 1000, context: 0, maxLineBytes: 400, maxBytes: 2 ** 30, maxCpuMs: 30000 });

function integer(options, key) {
  const value = options[key] ?? DEFAULTS[key];
  if ((key === 'threads' || key === 'maxCount') && value === undefined) return 0; // the machine's cores; no bound
  const least = ['context', 'before', 'after'].includes(key) ? 0 : 1;
  if (!Number.isSafeInteger(value) || value < least || value > LIMITS[key]) {
    throw new RangeError(`expected an integer from ${least} to ${LIMITS[key]} for ${key}`);
  }
  return value;
}

function globs(value, key) {
  if (value === undefined) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((g) => typeof g !== 'string' || g.length === 0 || g.length > 4096)) {
    throw new TypeError(`expected a glob or a list of globs (non-empty strings) for ${key}`);
  }
  return list;
}

function flag(options, key, byDefault = false) {
  const value = options[key] ?? byDefault;
  if (typeof value !== 'boolean') throw new TypeError(`expected a boolean for ${key}`);
  return value;
}

// ripgrep's type names (-t), as the core's table has them (src/search/file_types.h).
function fileTypes(value) {
  if (value === undefined) return [];
  const names = typeof value === 'string' ? [value] : value;
  const known = addon().limits.fileTypes;
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || !Object.hasOwn(known, n))) {
    throw new RangeError(`expected a file type or a list of them for type, among: ${Object.keys(known).join(', ')}`);
  }
  return names;
}

function output(value = 'lines') {
  if (!OUTPUTS.includes(value)) throw new RangeError(`expected one of ${OUTPUTS.map((o) => `'${o}'`).join(', ')} for output`);
  return value;
}

// What only a search for lines gives: context and spans.
function checkLinesOnly(native) {
  if (native.output !== 'lines' && (native.before > 0 || native.after > 0 || native.columns)) {
    throw new RangeError(`context, before, after and spans apply to output 'lines' only, not '${native.output}'`);
  }
  if (native.invert && native.columns) throw new RangeError('spans apply to matches: an inverted search has none');
}

// `given` without its `signal` (an AbortSignal is no plain data), which is checked apart.
function withoutSignal(given) {
  if (given === null || typeof given !== 'object' || Array.isArray(given) || !Object.hasOwn(given, 'signal')) {
    return { signal: undefined, rest: given };
  }
  const rest = {};
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(given))) {
    if (!('value' in descriptor)) throw new TypeError(`expected a plain value for ${key}, not a getter`);
    if (key !== 'signal') rest[key] = descriptor.value;
  }
  const signal = given.signal;
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
    throw new TypeError('expected an AbortSignal for signal');
  }
  return { signal, rest };
}

/**
 * The native options and the path and signal, or throws TypeError / RangeError.
 * @param {unknown} pattern
 * @param {unknown} given
 */
function grepRequest(pattern, given) {
  if (typeof pattern !== 'string' || pattern.length === 0 || !pattern.isWellFormed()) {
    throw new TypeError('expected a non-empty pattern string (a regular expression, or text with literal: true)');
  }
  const { signal, rest } = withoutSignal(given);
  const options = optionsOf(rest, OPTION_KEYS);
  if (options instanceof Error) throw options;
  const context = integer(options, 'context');
  const native = {
    pattern,
    literal: flag(options, 'literal'),
    ignoreCase: flag(options, 'ignoreCase'),
    word: flag(options, 'word'),
    invert: flag(options, 'invert'),
    columns: flag(options, 'spans'),
    output: output(options.output),
    types: fileTypes(options.type),
    include: globs(options.include, 'include'),
    exclude: globs(options.exclude, 'exclude'),
    // ripgrep's -C, and -B and -A, which win over it
    before: options.before === undefined ? context : integer(options, 'before'),
    after: options.after === undefined ? context : integer(options, 'after'),
    maxCount: integer(options, 'maxCount'),
    maxResults: integer(options, 'maxResults'),
    maxLineBytes: integer(options, 'maxLineBytes'),
    ignoreFiles: flag(options, 'gitignore', true), // ripgrep's default
    hidden: flag(options, 'hidden'),
    maxBytes: integer(options, 'maxBytes'),
    maxCpuMs: integer(options, 'maxCpuMs'),
    threads: integer(options, 'threads'),
  };
  checkLinesOnly(native);
  return { path: options.path ?? '/', native, signal };
}

// Why the core refused a pattern (src/search/line_matcher.h), worded as ripgrep words it: what,
// where, and what to do instead.
const ENGINE = 'the engine is RE2 (ripgrep\'s default engine is alike), which runs in time linear in the text and has none';
const PATTERN_PROBLEMS = {
  'line-break': ['it holds a line break', 'each line is searched on its own, so no match can span lines; search for the text of one line at a time'],
  backreference: ['a backreference is not supported', `${ENGINE}. Pass literal: true to search for the text as it is`],
  lookaround: ['look-around (look-ahead, look-behind) is not supported', ENGINE],
  'too-large': ['it compiles to more than the engine\'s memory bound', 'make it smaller (fewer alternatives or repetitions)'],
  'negated-class-in-set': ['\\W or \\S inside [...] is not supported', 'a set cannot hold the complement of a Unicode class ' +
    'here; write [^\\w...] for "neither a word character nor ...", or (?-u) for ASCII classes'],
  syntax: ['RE2 cannot parse it', 'the syntax is ripgrep\'s, without backreferences or look-around. Pass literal: true to search for the text as it is'],
};

// ", at character N ("...")": where in the pattern, counted in characters from 1, and what is there.
function wherePattern(pattern, offset) {
  if (!Number.isSafeInteger(offset)) return '';
  const before = Buffer.from(pattern).subarray(0, offset).toString('utf8');
  return `, at character ${[...before].length + 1} (${JSON.stringify(excerpt(pattern.slice(before.length), 20))})`;
}

// The core says which was refused: the pattern (index 0) or a glob (index 1).
function invalidPattern(error, pattern) {
  const [what, instead] = PATTERN_PROBLEMS[error.patternProblem] ?? PATTERN_PROBLEMS.syntax;
  const message = error.index === 1
    ? 'Invalid glob in include or exclude (globs as glob() takes them: *, ?, **, [abc], {a,b})'
    : `Invalid ${error.patternProblem === 'line-break' ? 'pattern' : 'regular expression'} ${JSON.stringify(excerpt(pattern))}: ` +
      `${what}${wherePattern(pattern, error.offset)}; ${instead}`;
  const refusal = new SandboxError('INVALID_PATTERN', error.index === 2 ? 'Unknown file type in type' : message);
  refusal.index = error.index;
  return refusal;
}

// Byte offsets in a line's UTF-8 as offsets in its string, so that text.slice(start, end) is the
// match.
function stringSpans(text, pairs = []) {
  const bytes = Buffer.from(text);
  const at = (offset) => bytes.subarray(0, offset).toString('utf8').length;
  const spans = [];
  for (let i = 0; i < pairs.length; i += 2) spans.push({ start: at(pairs[i]), end: at(pairs[i + 1]) });
  return spans;
}

// The core's answer as the types say: spans in string offsets where asked, files without a count
// where only their names were asked.
function shaped(result, native) {
  if (native.columns) for (const match of result.matches) match.spans = stringSpans(match.text, match.spans);
  if (native.output === 'files') result.files = result.files.map(({ path }) => ({ path }));
  return result;
}

/**
 * Runs the search on `handle` (the native sandbox). A cancel flag in shared memory is set when
 * `signal` aborts; the core polls it.
 */
async function grep(handle, checkPath, pattern, given) {
  const { path, native, signal } = grepRequest(pattern, given);
  checkPath(path);
  if (signal?.aborted) throw signal.reason;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const abort = () => Atomics.store(flag, 0, 1);
  signal?.addEventListener('abort', abort, { once: true });
  try {
    const result = await handle.grep(path, native, flag);
    if (signal?.aborted) throw signal.reason;
    return shaped(result, native);
  } catch (error) {
    throw error?.code === 'INVALID_PATTERN' ? invalidPattern(error, pattern) : error;
  } finally {
    signal?.removeEventListener('abort', abort);
  }
}

module.exports = { grep, grepRequest, GREP_BYTES_PER_THREAD, GREP_LINE_BOUND, MAX_GREP_THREADS };
