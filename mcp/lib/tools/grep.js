'use strict';

// grep_files on the library's search (sandbox.grep: the walk, the ignore files and RE2 in the
// core, src/search/grep.h): bounded by matches, bytes and CPU time rather than by a count of
// files, and cancelled with the call. This file only maps the tool's arguments and words the
// reply.
const { displayText, GREP_BYTES_PER_THREAD } = require('../mount-sandbox');

const DEFAULTS = {
  maxLineChars: 400, // a line is cut to this many bytes in the reply
  maxBytes: 256 * 1024 * 1024, // bytes read in all by one call
  maxCpuMs: 10_000, // CPU time one call may take
  threads: 2, // each holds at most GREP_BYTES_PER_THREAD of a file (read in chunks, never whole)
};

const NO_BUDGET = { holding: (bytes, work) => work() };

// What a call holds at most while it runs, reserved in the server's memory budget before it
// starts: each thread's chunk of a file, and the matches it returns (each line and its context
// lines, as bytes in the core and as JS strings).
function heldBytes(limits, maxResults, context) {
  return limits.threads * GREP_BYTES_PER_THREAD + 3 * maxResults * limits.maxLineChars * (1 + 2 * context);
}

const STOPS = {
  results: (found, limits) => `it stopped at ${found.maxResults} matches (maxResults)`,
  bytes: (found, limits) => `it stopped after reading ${limits.maxBytes} bytes in all; narrow path or include`,
  cpu: (found, limits) => `it stopped after ${limits.maxCpuMs} ms of CPU time, this call's bound; narrow path or include`,
  entries: () => 'the walk reached its bound of directory entries; narrow path or include',
  cancelled: () => 'the search was cancelled',
};

// The search itself: ignore files honoured as ripgrep honours them, hidden files searched only
// where include names the dot.
async function grepFiles(sandbox, args, { signal, limits: given = {}, memory = NO_BUDGET } = {}) {
  const limits = { ...DEFAULTS, ...given };
  const maxResults = args.maxResults ?? 100;
  const context = args.contextLines ?? 0;
  const include = args.include ? [args.include.replace(/^\/+/, '')] : [];
  const result = await memory.holding(heldBytes(limits, maxResults, context), () => sandbox.grep(args.pattern, {
    path: args.path,
    literal: args.literal === true,
    ignoreCase: args.ignoreCase === true,
    include,
    exclude: (args.exclude ?? []).map((glob) => glob.replace(/^\/+/, '')),
    context,
    maxResults,
    maxLineBytes: limits.maxLineChars,
    gitignore: args.gitignore !== false,
    hidden: include.some((glob) => /(^|\/)\./.test(glob)),
    maxBytes: limits.maxBytes,
    maxCpuMs: limits.maxCpuMs,
    threads: limits.threads,
    signal,
  }));
  const cut = (l) => (l.cut ? `${l.text} [line cut]` : l.text);
  const found = {
    maxResults,
    matches: result.matches.map((m) => ({ path: m.path, line: m.line, text: cut(m), before: m.before.map(cut), after: m.after.map(cut) })),
    filesSearched: result.filesSearched,
    skipped: { binary: result.skippedBinary, unreadable: result.skippedRefused, longLines: result.skippedLongLines },
    stopped: result.truncated === null ? null : STOPS[result.truncated](/** @type {any} */ ({ maxResults }), limits),
  };
  return found;
}

// The reply: grep's own format (path:line: text, context lines with "-"), then what was skipped
// and why the search stopped, if it did.
function formatResult(found, { maxReplyBytes = Infinity } = {}) {
  const lines = [];
  let size = 0;
  let shown = 0;
  for (const m of found.matches) {
    // Names and lines shown escaped (displayText): neither can forge a line of the reply.
    const at = displayText(m.path);
    const block = [
      ...m.before.map((text, i) => `${at}-${m.line - m.before.length + i}- ${displayText(text)}`),
      `${at}:${m.line}: ${displayText(m.text)}`,
      ...m.after.map((text, i) => `${at}-${m.line + 1 + i}- ${displayText(text)}`),
      ...(m.before.length > 0 || m.after.length > 0 ? ['--'] : []),
    ];
    const bytes = block.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);
    if (size + bytes > maxReplyBytes) {
      found.stopped = `${found.matches.length - shown} more matches not shown: the reply is held to ${maxReplyBytes} bytes; narrow the search`;
      break;
    }
    size += bytes;
    shown += 1;
    lines.push(...block);
  }
  found.shown = shown; // the structured reply holds the same matches
  if (found.matches.length === 0) lines.push(`No matches in ${found.filesSearched} file${found.filesSearched === 1 ? '' : 's'}.`);
  const files = (n) => `${n} file${n === 1 ? '' : 's'}`;
  const notes = [];
  if (found.skipped.binary > 0) notes.push(`${files(found.skipped.binary)} not searched past binary data (a NUL byte)`);
  if (found.skipped.longLines > 0) notes.push(`${files(found.skipped.longLines)} not searched past a line longer than 16 MiB`);
  if (found.skipped.unreadable > 0) notes.push(`${files(found.skipped.unreadable)} not readable here (refused by the sandbox: a suffix or size rule, a symlink out of it, no permission)`);
  if (notes.length > 0) lines.push(`(${notes.join('; ')})`);
  if (found.stopped !== null) lines.push(`[truncated: ${found.stopped}]`);
  return lines.join('\n');
}

module.exports = { grepFiles, formatResult, DEFAULTS };
