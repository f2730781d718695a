'use strict';

// grep_files on the library's search (sandbox.grep: the walk, the ignore files and RE2 in the
// core, src/search/grep.h): bounded by matches, bytes and CPU time rather than by a count of
// files, and cancelled with the call. This file only maps the tool's arguments and words the
// reply.
const { z } = require('zod');
const { displayText, GREP_BYTES_PER_THREAD, GREP_LINE_BOUND } = require('../mount-sandbox');

// The reply's cap where the server gives none (its --max-output-bytes).
const DEFAULT_MAX_REPLY_BYTES = 50 * 1024;

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
  results: (found) => `it stopped at ${found.maxResults} ${found.output === 'lines' ? 'match' : 'file'}${found.maxResults === 1 ? '' : (found.output === 'lines' ? 'es' : 's')} (maxResults)`,
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
  const output = args.output ?? 'lines';
  const context = args.contextLines ?? 0;
  const before = args.before ?? context;
  const after = args.after ?? context;
  const include = args.include ? [args.include.replace(/^\/+/, '')] : [];
  const held = heldBytes(limits, maxResults, Math.max(before, after));
  const result = await memory.holding(held, () => sandbox.grep(args.pattern, {
    path: args.path,
    literal: args.literal === true,
    ignoreCase: args.ignoreCase === true,
    word: args.word === true,
    invert: args.invert === true,
    ...(args.type === undefined ? {} : { type: args.type }),
    output,
    include,
    exclude: (args.exclude ?? []).map((glob) => glob.replace(/^\/+/, '')),
    before,
    after,
    ...(args.maxCount === undefined ? {} : { maxCount: args.maxCount }),
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
  return {
    maxResults,
    output,
    matches: result.matches.map((m) => ({ path: m.path, line: m.line, text: cut(m), before: m.before.map(cut), after: m.after.map(cut) })),
    files: result.files,
    filesSearched: result.filesSearched,
    skipped: { binary: result.skippedBinary, unreadable: result.skippedRefused, longLines: result.skippedLongLines, undecided: result.undecidedLines },
    stopped: result.truncated === null ? null : STOPS[result.truncated](/** @type {any} */ ({ maxResults, output }), limits),
  };
}

// One block of the reply per result: a match with its context lines in grep's format (path:line:
// text, context as path-line- text), or a file's name, with its count where asked.
function blocksOf(found) {
  if (found.output !== 'lines') {
    return found.files.map((f) => [found.output === 'count' ? `${displayText(f.path)}:${f.count}` : displayText(f.path)]);
  }
  return found.matches.map((m) => {
    // Names and lines shown escaped (displayText): neither can forge a line of the reply.
    const at = displayText(m.path);
    return [
      ...m.before.map((text, i) => `${at}-${m.line - m.before.length + i}- ${displayText(text)}`),
      `${at}:${m.line}: ${displayText(m.text)}`,
      ...m.after.map((text, i) => `${at}-${m.line + 1 + i}- ${displayText(text)}`),
      ...(m.before.length > 0 || m.after.length > 0 ? ['--'] : []),
    ];
  });
}

// The reply: grep's own format (path:line: text, context lines with "-"), then what was skipped
// and why the search stopped, if it did.
function formatResult(found, { maxReplyBytes = Infinity } = {}) {
  const lines = [];
  let size = 0;
  let shown = 0;
  const blocks = blocksOf(found);
  for (const block of blocks) {
    const bytes = block.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);
    if (size + bytes > maxReplyBytes) {
      const what = found.output === 'lines' ? 'matches' : 'files';
      found.stopped = `${blocks.length - shown} more ${what} not shown: the reply is held to ${maxReplyBytes} bytes; narrow the search`;
      break;
    }
    size += bytes;
    shown += 1;
    lines.push(...block);
  }
  found.shown = shown; // the structured reply holds the same results
  if (blocks.length === 0) lines.push(`No matches in ${found.filesSearched} file${found.filesSearched === 1 ? '' : 's'}.`);
  const files = (n) => `${n} file${n === 1 ? '' : 's'}`;
  const notes = [];
  const longest = `${GREP_LINE_BOUND / (1024 * 1024)} MiB`;
  if (found.skipped.binary > 0) notes.push(`${files(found.skipped.binary)} not searched past binary data (a NUL byte)`);
  if (found.skipped.longLines > 0) notes.push(`${files(found.skipped.longLines)} not searched past a line longer than ${longest}`);
  if (found.skipped.unreadable > 0) notes.push(`${files(found.skipped.unreadable)} not readable here (refused by the sandbox: a suffix or size rule, a symlink out of it, no permission)`);
  if (found.skipped.undecided > 0) {
    notes.push(`${found.skipped.undecided} line${found.skipped.undecided === 1 ? '' : 's'} of non-ASCII text taken as not matching: ` +
      'deciding its word boundaries (\\b, \\B) took the pattern too many steps; simplify the repetition around them');
  }
  if (notes.length > 0) lines.push(`(${notes.join('; ')})`);
  if (found.stopped !== null) lines.push(`[truncated: ${found.stopped}]`);
  return lines.join('\n');
}

// The tool as the server registers it.
const grepTool = {
  name: 'grep_files',
  title: 'Search file contents',
  description: 'Search the contents of files under a virtual directory (/ is the sandbox root) for a ' +
    'regular expression (ripgrep\'s syntax, Unicode classes and word boundaries included; no backreferences or lookaround) ' +
    'or, with literal: true, a plain text; each line is matched on its own. Replies with path:line: text for each match ' +
    '(context lines as path-line- text), or with output "files" the paths with a match, or with output "count" path:count. ' +
    'As ripgrep: a file is not searched past binary data (a NUL byte), symlinks are skipped, .gitignore and .ignore ' +
    'files are honoured (gitignore: false searches ignored files too), files whose names start with a dot are searched only when include ' +
    'names the dot; exclude passes globs over; type keeps files of ripgrep\'s types (js, ts, py, rust, md, ...). ' +
    'Bounded by results, bytes read and CPU time: a [truncated: ...] note says where it stopped.',
  inputSchema: {
    path: z.string().describe('Virtual directory to search under (or one file)'),
    pattern: z.string().min(1).describe('Regular expression, or the text itself with literal: true'),
    literal: z.boolean().optional().describe('Match pattern as plain text'),
    ignoreCase: z.boolean().optional().describe('Match upper and lower case alike (Unicode case folding)'),
    word: z.boolean().optional().describe('Only whole words: no letter, digit or _ just before or after the match (ripgrep -w)'),
    invert: z.boolean().optional().describe('The lines without a match instead (ripgrep -v)'),
    output: z.enum(['lines', 'files', 'count']).optional()
      .describe('lines: the matching lines; files: only the paths of files with a match (ripgrep -l); count: matching lines per file (ripgrep -c) (default lines)'),
    type: z.union([z.string().min(1), z.array(z.string().min(1)).max(16)]).optional()
      .describe('Only files of these ripgrep types, like "ts" or ["js", "json"] (ripgrep -t)'),
    include: z.string().optional().describe('Glob for the files to search, like "*.ts" (any depth) or "src/**/*.{js,ts}" (relative to path)'),
    exclude: z.array(z.string().min(1)).max(64).optional()
      .describe('Globs of files and directories to pass over, like ["*.min.js", "vendor"] (any depth without a "/", else relative to path)'),
    gitignore: z.boolean().optional().describe('Honour .gitignore, .git/info/exclude and .ignore files as ripgrep does (default true); false searches ignored files too'),
    maxResults: z.number().int().min(1).max(1000).optional().describe('Matching lines, or with output files or count files, returned at most (default 100)'),
    maxCount: z.number().int().min(1).max(1000).optional().describe('Matching lines taken from each file at most (ripgrep -m)'),
    contextLines: z.number().int().min(0).max(10).optional().describe('Lines shown before and after each match (default 0)'),
    before: z.number().int().min(0).max(10).optional().describe('Lines shown before each match (ripgrep -B); unset, contextLines'),
    after: z.number().int().min(0).max(10).optional().describe('Lines shown after each match (ripgrep -A); unset, contextLines'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: false,
  handler: async (args, ctx) => {
    // The search's bounds are this file's own (the server's maxEntries bounds a listing's reply,
    // not the work of a search); the reply is held to the server's output cap.
    const maxReplyBytes = (ctx.limits && ctx.limits.maxOutputBytes) || DEFAULT_MAX_REPLY_BYTES;
    const found = await grepFiles(ctx.sandbox, args, { signal: ctx.signal, memory: ctx.memory });
    const text = formatResult(found, { maxReplyBytes }); // may add a note that it cut the reply
    const results = found.output === 'lines'
      ? { matches: found.matches.slice(0, found.shown).map(({ path, line, text: t }) => ({ path, line, text: t })) }
      : { files: found.files.slice(0, found.shown) };
    return {
      content: [{ type: 'text', text }],
      structuredContent: { ...results, filesSearched: found.filesSearched, truncated: found.stopped !== null },
    };
  },
};

module.exports = { grepFiles, formatResult, grepTool, DEFAULTS };
