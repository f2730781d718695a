'use strict';

// grep_files: a content search over the sandbox, bounded in every dimension a model could make
// large: files walked (the glob's entry bound), files read, bytes read per file and in all,
// matches returned, and the time a pattern may take. Files are read through the sandbox like any
// other read (virtual paths, no symlink followed out). The pattern runs in a worker thread: a
// regular expression that backtracks without end (/(a+)+$/ on a long line) is stopped by ending
// that thread, never by waiting on the server's own.
const { Worker } = require('worker_threads');
const { SandboxError, displayText } = require('./mount-sandbox');

const DEFAULTS = {
  maxFiles: 5_000, // files read at most
  maxFileBytes: 1024 * 1024, // bytes read of each file (the rest is not searched; said so)
  maxTotalBytes: 32 * 1024 * 1024, // bytes read in all
  maxEntries: 100_000, // directory entries the walk may read
  maxLineChars: 400, // a matching line is cut to this many characters in the reply
  patternBudgetMs: 2_000, // time the pattern may take on one file
  callBudgetMs: 10_000, // time the pattern may take on all the files of one call
};
const BINARY_PROBE = 8192; // a NUL within the first bytes marks a binary file, as grep does
// Files skipped with a count in the reply (a symlink out, no permission, a pseudo-filesystem).
const UNREADABLE = ['SYMLINK_ESCAPE', 'SYMLINK_LOOP', 'ACCESS_DENIED', 'TOO_LARGE', 'UNTRUSTED_SOURCE', 'PSEUDO_FILESYSTEM'];
// The directory searched is a path, not a pattern: "a[1]" or "{x}" is matched as written.
const escapeGlob = (p) => p.replace(/[\\*?[\]{}]/g, '\\$&');

// The worker: { id, text } in, { id, hits: [{ line, text, before, after }] } out. The pattern is
// compiled once, when the worker starts.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
const { source, flags, context, maxLineChars, maxHits } = workerData;
const regex = new RegExp(source, flags);
const cut = (s) => (s.length > maxLineChars ? s.slice(0, maxLineChars) + ' [line cut]' : s);
parentPort.on('message', ({ id, text }) => {
  const lines = text.split(/\\r?\\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const hits = [];
  for (let i = 0; i < lines.length && hits.length < maxHits; i++) {
    if (!regex.test(lines[i])) continue;
    hits.push({
      line: i + 1,
      text: cut(lines[i]),
      before: lines.slice(Math.max(0, i - context), i).map(cut),
      after: lines.slice(i + 1, i + 1 + context).map(cut),
    });
  }
  parentPort.postMessage({ id, hits });
});
`;

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function compile(pattern, { literal, ignoreCase }) {
  const source = literal ? escapeRegExp(pattern) : pattern;
  const flags = ignoreCase ? 'iu' : 'u';
  try {
    new RegExp(source, flags); // eslint-disable-line no-new -- only checked here; run in the worker
  } catch (error) {
    throw new SandboxError('INVALID_PATTERN', `invalid regular expression ${JSON.stringify(pattern)}: ${error.message.replace(/^Invalid regular expression: /, '')}. Pass literal: true to search for the text as it is.`);
  }
  return { source, flags };
}

// The pattern's thread. match(text) resolves the hits, or null when the pattern took longer than
// the budget (the thread is then ended; no later match is made).
class Matcher {
  constructor(compiled, { context, maxLineChars, maxHits, budgetMs }) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...compiled, context, maxLineChars, maxHits },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    this.worker.unref();
    this.budgetMs = budgetMs;
    this.nextId = 0;
    this.pending = new Map();
    this.failed = null;
    this.worker.on('message', ({ id, hits }) => this.settle(id, hits));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('the matcher ended')));
  }

  settle(id, value) {
    const entry = this.pending.get(id);
    if (entry === undefined) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(value);
  }

  fail(error) {
    if (this.failed === null) this.failed = error;
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      clearTimeout(entry.timer);
      entry.reject(error);
    }
  }

  match(text) {
    if (this.failed !== null) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id, null);
        this.close();
      }, this.budgetMs);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, text });
    });
  }

  close() {
    this.worker.terminate().catch(() => {});
  }
}

// The files to search under `dir` (a virtual directory or one file), sorted, at most maxFiles.
async function filesUnder(sandbox, dir, include, limits) {
  const info = await sandbox.stat(dir);
  if (!info.isDirectory) return { paths: [dir], truncated: false };
  const base = dir === '/' ? '' : escapeGlob(dir.replace(/\/+$/, ''));
  const name = include || '*';
  const pattern = name.includes('/') ? `${base}/${name.replace(/^\/+/, '')}` : `${base}/**/${name}`;
  return sandbox.glob(pattern, { limit: limits.maxFiles, maxEntries: limits.maxEntries });
}

const isBinary = (bytes) => bytes.subarray(0, BINARY_PROBE).includes(0);

// The search itself. `progress(done, total)` as files are searched; `signal` checked between files.
async function grepFiles(sandbox, args, { signal, progress = () => {}, limits: given = {} } = {}) {
  const limits = { ...DEFAULTS, ...given };
  const compiled = compile(args.pattern, args);
  const maxResults = args.maxResults ?? 100;
  const listed = await filesUnder(sandbox, args.path, args.include, limits);
  const found = {
    matches: [], filesSearched: 0, bytesRead: 0, patternMs: 0, skipped: { binary: 0, unreadable: 0, cut: 0 }, stopped: null,
  };
  if (listed.truncated) found.stopped = `the walk stopped after ${listed.paths.length} files (bounds: ${limits.maxFiles} files, ${limits.maxEntries} directory entries); narrow path or include`;
  const matcher = new Matcher(compiled, {
    context: args.contextLines ?? 0, maxLineChars: limits.maxLineChars, maxHits: maxResults + 1, budgetMs: limits.patternBudgetMs,
  });
  const step = Math.max(1, Math.floor(listed.paths.length / 100));
  let done = 0;
  try {
    for (const file of listed.paths) {
      if (signal && signal.aborted) {
        found.stopped = 'the search was cancelled';
        break;
      }
      if (found.stopped !== null && found.matches.length >= maxResults) break;
      if (found.patternMs >= limits.callBudgetMs) {
        found.stopped = `it stopped after ${done} files: the pattern took ${limits.callBudgetMs} ms in all, this call's bound; narrow path or include, or simplify the pattern`;
        break;
      }
      const room = limits.maxTotalBytes - found.bytesRead;
      if (room <= 0) {
        found.stopped = `it stopped after reading ${limits.maxTotalBytes} bytes in all; narrow path or include`;
        break;
      }
      await searchFile(sandbox, file, matcher, Math.min(room, limits.maxFileBytes), found, maxResults);
      done += 1;
      // At most about a hundred notifications, whatever the number of files.
      if (done % step === 0) progress(done, listed.paths.length);
    }
  } finally {
    matcher.close();
  }
  return found;
}

async function searchFile(sandbox, file, matcher, cap, found, maxResults) {
  let bytes;
  try {
    bytes = await sandbox.readBinary(file, { length: cap + 1 });
  } catch (error) {
    // A directory the glob matched by name, a FIFO, a file removed meanwhile: passed over. A
    // symlink out, a file this process may not read: counted and passed over. Anything else (a
    // sandbox whose mount went away) ends the search as the sandbox's error.
    if (error instanceof SandboxError && ['IS_DIRECTORY', 'NOT_FOUND', 'NOT_REGULAR_FILE'].includes(error.code)) return;
    if (error instanceof SandboxError && UNREADABLE.includes(error.code)) {
      found.skipped.unreadable += 1;
      return;
    }
    throw error;
  }
  found.filesSearched += 1;
  found.bytesRead += Math.min(bytes.length, cap);
  if (isBinary(bytes)) {
    found.skipped.binary += 1;
    return;
  }
  if (bytes.length > cap) {
    found.skipped.cut += 1;
    bytes = bytes.subarray(0, cap);
  }
  const started = Date.now();
  const hits = await matcher.match(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
  found.patternMs += Date.now() - started;
  if (hits === null) {
    throw new SandboxError('INVALID_PATTERN', `the pattern took more than ${matcher.budgetMs} ms on ${file} and was stopped (it backtracks too much); simplify it or pass literal: true`, file);
  }
  const room = maxResults - found.matches.length;
  for (const hit of hits.slice(0, room)) found.matches.push({ path: file, ...hit });
  if (hits.length > room) found.stopped = `it stopped at ${maxResults} matches (maxResults)`;
}

// The reply: grep's own format (path:line: text, context lines with "-"), then what was skipped
// and why the search stopped, if it did.
function formatResult(found, { maxFileBytes = DEFAULTS.maxFileBytes, maxReplyBytes = Infinity } = {}) {
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
  if (found.skipped.binary > 0) notes.push(`${files(found.skipped.binary)} skipped as binary`);
  if (found.skipped.unreadable > 0) notes.push(`${files(found.skipped.unreadable)} not readable here (a symlink out of the sandbox, or no permission)`);
  if (found.skipped.cut > 0) notes.push(`${files(found.skipped.cut)} searched only in the first ${maxFileBytes} bytes`);
  if (notes.length > 0) lines.push(`(${notes.join('; ')})`);
  if (found.stopped !== null) lines.push(`[truncated: ${found.stopped}]`);
  return lines.join('\n');
}

module.exports = { grepFiles, formatResult, compile, DEFAULTS };
