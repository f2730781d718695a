'use strict';

// The file tools: the official filesystem server's fourteen, with its names and parameters, plus
// delete_file, copy_file and explain_path. Every path is virtual ("/" is the sandbox's root) and
// every operation goes through the sandbox, which resolves it on descriptors beneath the pinned
// mounts; nothing here touches the host filesystem by name, and no reply names a host path.
// Handlers throw sandbox errors as they come (server.js makes them tool results); a reply cut at
// a bound says so and how to get the rest.
const { z } = require('zod');
const { SandboxError, EditError, FileTooLargeError, displayText } = require('../mount-sandbox');
const { randomBytes } = require('crypto');
const { unifiedDiff } = require('../edit-diff');
const { applyEditsOffThread } = require('../edit-apply');
const { excluder } = require('../glob-match');
const { readRange, readHead, readTail } = require('../bounded-read');

const PATHS = 'Paths are virtual: "/" is the sandbox\'s root (a relative path is taken from "/"); ' +
  'list_allowed_directories shows what is mounted where.';

// A tool argument the schema cannot express as wrong (head with tail, an empty oldText): the
// model's to fix, so a sandbox error with its own code rather than an internal failure.
class ToolArgumentError extends SandboxError {
  constructor(message) {
    super('INVALID_ARGUMENT', message);
    this.name = 'ToolArgumentError';
  }

  toLLMMessage() {
    return `Invalid arguments: ${this.message}.`;
  }
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const path = z.string().describe('Virtual path, such as /src/app.ts');

// "a/b" -> "/a/b": the official server takes relative paths from its first directory; here they
// are taken from the root. Everything else (.., //, escapes) is the sandbox's to judge.
function virtual(p) {
  return typeof p === 'string' && !p.startsWith('/') ? `/${p}` : p;
}

function join(dir, name) {
  return dir === '/' ? `/${name}` : `${dir.replace(/\/+$/, '')}/${name}`;
}

function text(body, structured) {
  const result = { content: [{ type: 'text', text: body }] };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

function llmMessage(error) {
  return error instanceof SandboxError ? error.toLLMMessage() : 'could not be read (an unexpected error).';
}

function formatSize(bytes) {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let n = bytes;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return i === 0 ? `${bytes} B` : `${n.toFixed(2)} ${units[i]}`;
}

// Cuts a reply to the output bound, saying so.
function bounded(body, limit, hint) {
  if (Buffer.byteLength(body) <= limit) return body;
  let cut = Buffer.from(body).subarray(0, limit).toString('utf8').replace(/\uFFFD$/, '');
  const lastLine = cut.lastIndexOf('\n');
  if (lastLine > cut.length / 2) cut = cut.slice(0, lastLine);
  return `${cut}\n[Truncated at ${Buffer.byteLength(cut)} bytes, the reply's bound. ${hint}]`;
}

// ---- reading ----

const readTextSchema = {
  path,
  head: z.number().int().positive().optional().describe('If provided, returns only the first N lines of the file'),
  tail: z.number().int().positive().optional().describe('If provided, returns only the last N lines of the file'),
  offset: z.number().int().nonnegative().optional().describe('Byte offset to start reading at (not with head or tail)'),
  length: z.number().int().positive().optional().describe('Most bytes to read from offset (not with head or tail)'),
};

function capNote(p, shown, from, size, cap) {
  const next = from + shown;
  return `\n[Truncated: this is bytes ${from}-${next} of ${size}; replies are capped at ${cap} bytes. ` +
    `Read the rest with read_text_file path "${p}" offset ${next} (and length up to ${cap}), or use head/tail.]`;
}

async function readTextFile(args, ctx) {
  const p = virtual(args.path);
  const cap = ctx.limits.maxReadBytes;
  const { head, tail, offset, length } = args;
  if (head !== undefined && tail !== undefined) throw new ToolArgumentError('head and tail cannot be used together; give one');
  if ((head !== undefined || tail !== undefined) && (offset !== undefined || length !== undefined)) {
    throw new ToolArgumentError('offset and length cannot be combined with head or tail');
  }
  if (head !== undefined) {
    const r = await readHead(ctx.sandbox, p, head, cap, ctx.signal);
    const note = r.truncated ? `\n[Truncated: the first ${head} lines exceed ${cap} bytes. Read on with offset ${r.bytes}.]` : '';
    return text(r.text + note, { content: r.text, truncated: r.truncated });
  }
  const { size } = await ctx.sandbox.stat(p);
  if (tail !== undefined) {
    const r = await readTail(ctx.sandbox, p, tail, size, cap, ctx.signal);
    const note = r.truncated ? `\n[Truncated: the last ${tail} lines exceed ${cap} bytes; this is from byte ${r.start}. Read earlier parts with offset and length.]` : '';
    return text(r.text + note, { content: r.text, truncated: r.truncated });
  }
  const from = offset ?? 0;
  const r = await readRange(ctx.sandbox, p, from, length ?? Number.MAX_SAFE_INTEGER, cap);
  const note = r.truncated ? capNote(p, r.bytes, from, size, cap) : '';
  return text(r.text + note, { content: r.text, truncated: r.truncated, nextOffset: r.truncated || r.more ? from + r.bytes : null });
}

const readTextFileTool = {
  name: 'read_text_file',
  title: 'Read a text file',
  description: 'Read a file as UTF-8 text (invalid bytes become U+FFFD). Use head or tail for the first or last N lines ' +
    '(only those are read), or offset and length for a byte range. A reply is capped in size; past the cap it ends with ' +
    `a note giving the offset to read on from. ${PATHS}`,
  inputSchema: readTextSchema,
  annotations: READ,
  writes: false,
  handler: readTextFile,
};

const readFileTool = {
  ...readTextFileTool,
  name: 'read_file',
  title: 'Read a text file (deprecated)',
  description: `Deprecated: the same as read_text_file, kept for clients that know this name. ${PATHS}`,
};

const MEDIA_TYPES = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.bmp': 'image/bmp', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.avif': 'image/avif',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.ogg': 'audio/ogg', '.flac': 'audio/flac', '.m4a': 'audio/mp4',
  '.pdf': 'application/pdf',
};

// Images and audio come back whole or not at all: a part of one is of no use. 5 MiB is about the
// largest image model APIs take.
const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

function mediaTypeOf(p) {
  const dot = p.lastIndexOf('.');
  return (dot > p.lastIndexOf('/') && MEDIA_TYPES[p.slice(dot).toLowerCase()]) || 'application/octet-stream';
}

async function readMediaFile(args, ctx) {
  const p = virtual(args.path);
  const cap = ctx.limits.maxMediaBytes ?? MAX_MEDIA_BYTES;
  const { size, isDirectory } = await ctx.sandbox.stat(p);
  if (!isDirectory && size > cap) {
    throw new FileTooLargeError(p, size, cap);
  }
  // The bytes, their base64 and the reply's JSON of it, held until the reply is made. (The SDK
  // serializes the reply after the handler returns; that copy is the one not counted.)
  return (ctx.memory ?? NO_BUDGET).holding(4 * Math.min(size, cap + 1), async () => {
    const data = Buffer.from(await ctx.sandbox.readBinary(p, { offset: 0, length: cap + 1 }));
    if (data.length > cap) throw new FileTooLargeError(p, data.length, cap);
    const mimeType = mediaTypeOf(p);
    const base64 = data.toString('base64');
    if (mimeType.startsWith('image/')) return { content: [{ type: 'image', data: base64, mimeType }] };
    if (mimeType.startsWith('audio/')) return { content: [{ type: 'audio', data: base64, mimeType }] };
    return { content: [{ type: 'resource', resource: { uri: `sandbox://${encodeURI(p)}`, mimeType, blob: base64 } }] };
  });
}

// Each file's block starts with a line holding a boundary drawn at random for this reply, so no
// file's content (which cannot know it) can forge another file's block. The whole reply is held to
// the read cap plus the blocks' headers and notes.
async function readMultipleFiles(args, ctx) {
  let budget = ctx.limits.maxReadBytes;
  const boundary = randomBytes(6).toString('hex');
  const parts = [`Each file below starts with a line "==== ${boundary} <path> ====" (the same random mark throughout); ` +
    'nothing else in this reply contains that mark.'];
  let replyBytes = Buffer.byteLength(parts[0]);
  const replyCap = ctx.limits.maxReadBytes + ctx.limits.maxOutputBytes;
  const listed = args.paths.slice(0, ctx.limits.maxEntries);
  let skipped = args.paths.length - listed.length;
  for (const [i, raw] of listed.entries()) {
    ctx.signal?.throwIfAborted();
    if (replyBytes >= replyCap) {
      skipped += listed.length - i;
      break;
    }
    const p = virtual(raw);
    let block;
    try {
      if (budget <= 0) block = `not read: the reply reached its ${ctx.limits.maxReadBytes}-byte cap. Read it with read_text_file.`;
      else {
        const r = await readRange(ctx.sandbox, p, 0, Number.MAX_SAFE_INTEGER, budget);
        budget -= r.bytes;
        const note = r.truncated ? `\n[Truncated after ${r.bytes} bytes (the reply's cap). Read the rest with read_text_file offset ${r.bytes}.]` : '';
        block = `${r.text}${note}`;
      }
    } catch (error) {
      block = `Error: ${llmMessage(error)}`;
    }
    const part = `==== ${boundary} ${displayText(p)} ====\n${block}`;
    replyBytes += Buffer.byteLength(part) + 1;
    parts.push(part);
  }
  if (skipped > 0) parts.push(`[${skipped} more paths not read: the reply holds at most ${ctx.limits.maxEntries} paths and ${replyCap} bytes; read them in another call.]`);
  return text(parts.join('\n'));
}

// ---- changing ----

async function writeFile(args, ctx) {
  const p = virtual(args.path);
  await ctx.sandbox.write(p, args.content);
  return text(`Successfully wrote ${Buffer.byteLength(args.content)} bytes to ${p}`);
}

// An edit whose oldText does not occur exactly once, naming which edit (1-based) it was.
class EditFileError extends EditError {
  constructor(code, p, occurrences, index, count) {
    super(code, p, occurrences);
    this.edit = index + 1;
    this.edits = count;
  }

  toLLMMessage() {
    const which = this.edits > 1 ? `edit ${this.edit} of ${this.edits}` : 'the edit';
    const why = this.code === 'NO_MATCH'
      ? 'its oldText does not occur in the file (matching is exact, whitespace and line endings included; no fuzzy matching is done)'
      : `its oldText occurs ${this.occurrences} times; include more surrounding lines so that it occurs exactly once`;
    const after = this.edit > 1 ? ' (after the edits before it were applied)' : '';
    return `Cannot edit ${this.path}: ${which} failed: ${why}${after}. Nothing was changed.`;
  }
}

// Fails on bytes that are not UTF-8 (rather than turning them into U+FFFD, which the edited file
// would then carry), and keeps a byte order mark as text so that it is written back.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Edits of one virtual path take turns within the server (a client may send several at once); an
// edit whose file changed between its read and its write anyway (another spelling of the path, a
// write_file, another process) is made again on the new contents, up to EDIT_ATTEMPTS times.
const EDIT_ATTEMPTS = 3;
const editTurns = new Map();

function inTurn(key, work) {
  const before = editTurns.get(key) ?? Promise.resolve();
  const run = before.then(work, work);
  const settled = run.then(() => {}, () => {});
  editTurns.set(key, settled);
  settled.then(() => {
    if (editTurns.get(key) === settled) editTurns.delete(key);
  });
  return run;
}

// The edited text (edit-apply.js, off the server's thread when it is much work), or the error
// naming the first edit that does not match exactly once.
async function editedText(p, original, edits, signal) {
  const result = await applyEditsOffThread(original, edits, signal);
  if ('text' in result) return result.text;
  if ('empty' in result) throw new ToolArgumentError(`edit ${result.empty + 1} of ${edits.length} has an empty oldText; copy the exact text to replace`);
  if ('over' in result) {
    throw new ToolArgumentError(`${edits.length} edits on a file of ${original.length} characters are more work than one call may do ` +
      '(each edit scans and rewrites the whole file); send them in several calls of fewer edits, or write the file with write_file');
  }
  const { index, count } = result.failed;
  throw new EditFileError(count === 0 ? 'NO_MATCH' : 'AMBIGUOUS_MATCH', p, count, index, edits.length);
}

async function readUtf8(sandbox, p) {
  try {
    return strictUtf8.decode(await sandbox.readBinary(p));
  } catch (error) {
    if (error instanceof SandboxError) throw error;
    throw new ToolArgumentError(`${p} is not UTF-8 text, and edit_file would change the bytes it cannot show; use write_file to replace it`);
  }
}

// One attempt: read (after taking the version), edit in memory, write only over that version.
// What an edit holds at once, reserved before it reads: the bytes read, the text made of them,
// the edited text and its bytes written, each up to twice the file as UTF-16, and the edits.
async function editOnce(p, args, ctx) {
  const { version, size } = await ctx.sandbox.stat(p);
  const editBytes = args.edits.reduce((n, e) => n + 2 * (e.oldText.length + e.newText.length), 0);
  return (ctx.memory ?? NO_BUDGET).holding(6 * size + 2 * editBytes, async () => {
    const original = await readUtf8(ctx.sandbox, p);
    const edited = await editedText(p, original, args.edits, ctx.signal);
    if (!args.dryRun) await ctx.sandbox.write(p, edited, { ifVersion: version });
    return { original, edited };
  });
}

// Handlers called without a server (the tests' in-process calls) hold no budget.
const NO_BUDGET = { holding: (bytes, work) => work() };

async function editFile(args, ctx) {
  const p = virtual(args.path);
  if (args.edits.length === 0) throw new ToolArgumentError('no edits given; give at least one { oldText, newText }');
  const { original, edited } = await inTurn(normalise(p) ?? p, async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await editOnce(p, args, ctx);
      } catch (error) {
        if (error?.code !== 'CONFLICT' || attempt === EDIT_ATTEMPTS) throw error;
      }
    }
  });
  const diff = bounded(unifiedDiff(original, edited, p), ctx.limits.maxOutputBytes, 'The diff is longer; read the file to see the result.');
  let fence = '```';
  while (diff.includes(fence)) fence += '`';
  const head = args.dryRun ? 'Dry run: nothing was written. The edits would change:\n' : '';
  return text(`${head}${fence}diff\n${diff}${fence}\n`, { diff, applied: !args.dryRun });
}

async function createDirectory(args, ctx) {
  const p = virtual(args.path);
  await ctx.sandbox.mkdir(p);
  return text(`Successfully created directory ${p}`);
}

async function moveFile(args, ctx) {
  const from = virtual(args.source);
  const to = virtual(args.destination);
  await ctx.sandbox.move(from, to);
  return text(`Successfully moved ${from} to ${to}`);
}

async function copyFile(args, ctx) {
  const from = virtual(args.source);
  const to = virtual(args.destination);
  await ctx.sandbox.copy(from, to, { overwrite: args.overwrite === true });
  return text(`Successfully copied ${from} to ${to}`);
}

async function deleteFile(args, ctx) {
  const p = virtual(args.path);
  await ctx.sandbox.delete(p);
  return text(`Successfully deleted ${p}`);
}

// ---- listing and walking ----

// [{ name, isDirectory, size }] of a directory's first maxEntries entries; an entry that cannot
// be followed (a symlink leading out, gone meanwhile) is kept with isDirectory null.
// The directory's entries, typed as the directory records them: only a link, an entry of unknown
// type, or (with `sizes`) a file is stat-ed, through the sandbox (a link is followed only where it
// stays inside; else it is [OTHER]).
async function entriesOf(sandbox, dir, maxEntries, { sizes = false } = {}) {
  const listed = await sandbox.list(dir, { withTypes: true });
  const shown = listed.slice(0, maxEntries);
  const entries = await Promise.all(shown.map(async ({ name, type }) => {
    if (type === 'directory') return { name, isDirectory: true, size: 0 };
    if (type === 'other') return { name, isDirectory: null, size: 0 };
    if (type === 'file' && !sizes) return { name, isDirectory: false, size: 0 };
    try {
      const s = await sandbox.stat(join(dir, name));
      return { name, isDirectory: s.isDirectory, size: s.size };
    } catch {
      return { name, isDirectory: null, size: 0 };
    }
  }));
  return { entries, more: listed.length - shown.length };
}

function tag(e) {
  if (e.isDirectory === null) return '[OTHER]';
  return e.isDirectory ? '[DIR]' : '[FILE]';
}

async function listDirectory(args, ctx) {
  const p = virtual(args.path);
  const { entries, more } = await entriesOf(ctx.sandbox, p, ctx.limits.maxEntries);
  const lines = entries.map((e) => `${tag(e)} ${displayText(e.name)}`);
  if (more > 0) lines.push(`[Truncated: ${more} more entries not shown; list a subdirectory or use search_files.]`);
  return text(lines.length ? bounded(lines.join('\n'), ctx.limits.maxOutputBytes, 'Use search_files to find entries by name.') : '(empty directory)');
}

async function listDirectoryWithSizes(args, ctx) {
  const p = virtual(args.path);
  const { entries, more } = await entriesOf(ctx.sandbox, p, ctx.limits.maxEntries, { sizes: true });
  const sorted = [...entries].sort(args.sortBy === 'size' ? (a, b) => b.size - a.size : (a, b) => (a.name < b.name ? -1 : 1));
  const lines = sorted.map((e) => `${tag(e)} ${displayText(e.name).padEnd(30)} ${e.isDirectory === false ? formatSize(e.size).padStart(10) : ''}`.trimEnd());
  const files = entries.filter((e) => e.isDirectory === false);
  const dirs = entries.filter((e) => e.isDirectory === true);
  const total = files.reduce((sum, e) => sum + e.size, 0);
  lines.push('', `Total: ${files.length} files, ${dirs.length} directories`, `Combined size: ${formatSize(total)}`);
  if (more > 0) lines.push(`[Truncated: ${more} more entries not shown or counted.]`);
  return text(bounded(lines.join('\n'), ctx.limits.maxOutputBytes, 'Use search_files to find entries by name.'));
}

async function directoryTree(args, ctx) {
  const rootPath = virtual(args.path);
  const excluded = excluder(args.excludePatterns);
  const { maxEntries, maxDepth } = ctx.limits;
  let seen = 0;
  let bytes = 2;
  const cut = { entries: false, depth: false, size: false };
  async function walk(dir, rel, depth) {
    ctx.signal?.throwIfAborted();
    const { entries, more } = await entriesOf(ctx.sandbox, dir, maxEntries - seen);
    if (more > 0) cut.entries = true;
    const out = [];
    for (const e of entries) {
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      if (excluded(relPath, e.name)) continue;
      if (seen >= maxEntries) {
        cut.entries = true;
        break;
      }
      // What the node adds to the indented JSON, over-estimated: stop before the reply's bound
      // so that what is returned is always whole JSON.
      bytes += JSON.stringify(e.name).length + 80 + 8 * depth;
      if (bytes > ctx.limits.maxOutputBytes) {
        cut.size = true;
        break;
      }
      seen++;
      if (seen % 200 === 0) ctx.progress(seen, undefined, `${seen} entries`);
      const node = { name: e.name, type: e.isDirectory ? 'directory' : 'file' };
      if (e.isDirectory) {
        if (depth + 1 >= maxDepth) {
          node.children = [];
          node.truncated = true;
          cut.depth = true;
        } else {
          node.children = await walk(join(dir, e.name), relPath, depth + 1);
        }
      }
      out.push(node);
    }
    return out;
  }
  const tree = await walk(rootPath, '', 0);
  const notes = [];
  if (cut.entries) notes.push(`stopped after ${maxEntries} entries`);
  if (cut.size) notes.push(`stopped after ${seen} entries, at the reply's size bound`);
  if (cut.depth) notes.push(`directories ${maxDepth} levels down are not expanded (marked "truncated": true)`);
  const body = JSON.stringify(tree, null, 2);
  const note = notes.length ? `\n[Truncated: ${notes.join('; ')}. Call directory_tree on a subdirectory, or use excludePatterns.]` : '';
  return text(bounded(body, ctx.limits.maxOutputBytes, 'Call directory_tree on a subdirectory.') + note);
}

// The directory searched is a path, not a pattern: a name such as "a[1]" or "{x}" is matched as
// written.
function escapeGlob(p) {
  return p.replace(/[\\*?[\]{}]/g, '\\$&');
}

async function searchFiles(args, ctx) {
  const base = virtual(args.path).replace(/\/+$/, '');
  const pattern = args.pattern.replace(/^\.?\/+/, '');
  const excluded = excluder(args.excludePatterns);
  const limit = ctx.limits.maxEntries;
  ctx.signal?.throwIfAborted();
  await ctx.sandbox.stat(base || '/'); // a missing or escaping base is the sandbox's error
  const { paths, truncated } = await ctx.sandbox.glob(`${escapeGlob(base)}/${pattern}`, { limit, maxEntries: Math.min(1000000, limit * 1000) });
  ctx.signal?.throwIfAborted();
  const prefix = `${base}/`;
  const kept = paths.filter((full) => {
    const rel = full.startsWith(prefix) ? full.slice(prefix.length) : full;
    const parts = rel.split('/');
    return !parts.some((name, i) => excluded(parts.slice(0, i + 1).join('/'), name));
  });
  // The structured list holds what the text shows, within the same bound.
  const shown = [];
  let bytes = 0;
  for (const full of kept) {
    bytes += Buffer.byteLength(displayText(full)) + 1;
    if (bytes > ctx.limits.maxOutputBytes) break;
    shown.push(full);
  }
  const cut = truncated || shown.length < kept.length;
  let body = shown.length ? shown.map(displayText).join('\n') : 'No matches found';
  if (cut) body += `\n[Truncated: more may match; ${shown.length} results are shown. Narrow the path or the pattern.]`;
  return text(body, { paths: shown, truncated: cut });
}

async function getFileInfo(args, ctx) {
  const p = virtual(args.path);
  const s = await ctx.sandbox.stat(p);
  const info = {
    size: s.size,
    created: s.createdAt.toISOString(),
    modified: s.modifiedAt.toISOString(),
    isDirectory: s.isDirectory,
    isFile: !s.isDirectory,
    writable: ctx.sandbox.checkChange(p, 'write') === null,
    version: s.version,
  };
  const lines = Object.entries(info).map(([k, v]) => `${k}: ${v}`);
  lines.push('accessed, permissions: not reported (the sandbox does not expose them)');
  return text(lines.join('\n'), info);
}

// ---- the mount table ----

function mountTable(sandbox) {
  const { root, readonly, mounts } = sandbox.getConfig();
  const rows = [];
  if (root !== null) rows.push({ path: '/', readOnly: readonly, what: 'the sandbox root' });
  const sorted = [...mounts].sort((a, b) => (a.target < b.target ? -1 : 1));
  for (const m of sorted) rows.push({ path: m.target, readOnly: readonly || m.readonly, what: 'a mount' });
  return rows;
}

async function listAllowedDirectories(args, ctx) {
  const rows = mountTable(ctx.sandbox);
  const lines = rows.map((r) => `${r.path} (${r.readOnly ? 'read-only' : 'read-write'}${r.path === '/' ? ', the sandbox root' : ', mounted'})`);
  const body = `Allowed directories (virtual paths; everything below each is reachable):\n${lines.join('\n')}`;
  return text(body, { directories: rows.map(({ path: p, readOnly }) => ({ path: p, readOnly })) });
}

function mountOf(rows, p) {
  let best = null;
  for (const r of rows) {
    const inside = r.path === '/' || p === r.path || p.startsWith(`${r.path}/`);
    if (inside && (best === null || r.path.length > best.path.length)) best = r;
  }
  return best;
}

function normalise(p) {
  const out = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else {
      out.push(seg);
    }
  }
  return `/${out.join('/')}`;
}

async function explainPath(args, ctx) {
  const { sandbox } = ctx;
  const p = virtual(args.path);
  const lines = [];
  const norm = normalise(p);
  if (norm === null || !sandbox.isValidPath(p)) {
    const why = sandbox.checkChange(p, 'write');
    lines.push(`${args.path}: not a path inside the sandbox.`, `Every operation would be refused: ${why ? why.toLLMMessage() : 'the path is invalid.'}`);
    return text(lines.join('\n'), { inside: false });
  }
  const rows = mountTable(sandbox);
  const mount = mountOf(rows, norm);
  const facts = { path: norm, inside: mount !== null, mount: mount?.path ?? null, readOnly: mount?.readOnly ?? true };
  lines.push(`${args.path} is the virtual path ${norm}.`);
  lines.push(mount === null
    ? 'No mount holds it: this sandbox has no root, only the mounts that list_allowed_directories shows.'
    : `It lies in ${mount.path === '/' ? 'the sandbox root "/"' : `the mount at ${mount.path}`}, which is ${mount.readOnly ? 'read-only' : 'read-write'}.`);
  try {
    const s = await sandbox.stat(norm);
    facts.exists = true;
    facts.isDirectory = s.isDirectory;
    lines.push(`Read: allowed. It exists: a ${s.isDirectory ? 'directory' : `file of ${s.size} bytes`}.`);
  } catch (error) {
    facts.exists = false;
    lines.push(`Read: ${error.code === 'NOT_FOUND' ? 'nothing is there yet.' : `refused: ${llmMessage(error)}`}`);
  }
  for (const op of ['write', 'delete']) {
    const refusal = sandbox.checkChange(norm, op);
    facts[op] = refusal === null ? sandbox.approvalFor(norm, op) : 'refused';
    if (refusal !== null) lines.push(`${op === 'write' ? 'Write' : 'Delete'}: refused: ${refusal.toLLMMessage()}`);
    else {
      const approval = facts[op];
      const how = approval === 'preApproved' ? 'allowed without asking' : approval === 'ask' ? 'allowed (configured as needing approval)' : approval;
      lines.push(`${op === 'write' ? 'Write' : 'Delete'}: ${how}${op === 'write' ? ' (replaced atomically; a symlink at the name is replaced, never written through)' : ' (files and symlinks only, never a directory)'}.`);
    }
  }
  lines.push('The sandbox checks every operation again on disk: a symlink or directory leading out of the sandbox is refused when used.');
  return text(lines.join('\n'), facts);
}

// ---- the table ----

const CHANGE = { readOnlyHint: false, openWorldHint: false };

module.exports = [
  readFileTool,
  readTextFileTool,
  {
    name: 'read_media_file',
    title: 'Read an image or audio file',
    description: 'Read a file and return it base64-encoded with its MIME type: images as image content, audio as audio ' +
      `content, anything else as an embedded resource. Files above the size cap are refused. ${PATHS}`,
    inputSchema: { path },
    annotations: READ,
    writes: false,
    handler: readMediaFile,
  },
  {
    name: 'read_multiple_files',
    title: 'Read several files',
    description: 'Read several text files in one call, each under its path, separated by "---". A file that cannot be ' +
      `read gets its error inline and the others are still read. All together are capped in size. ${PATHS}`,
    inputSchema: { paths: z.array(z.string()).min(1).describe('Virtual paths of the files to read') },
    annotations: READ,
    writes: false,
    handler: readMultipleFiles,
  },
  {
    name: 'write_file',
    title: 'Write a file',
    description: 'Create a file or replace an existing one with new content (atomically; missing parent directories are ' +
      `created). Overwrites without asking. ${PATHS}`,
    inputSchema: { path, content: z.string() },
    annotations: { ...CHANGE, destructiveHint: true, idempotentHint: true },
    writes: true,
    handler: writeFile,
  },
  {
    name: 'edit_file',
    title: 'Edit a file',
    description: 'Replace text in a file: each edit\'s oldText must occur exactly once (exact match, whitespace and line ' +
      'endings included; no fuzzy matching), else nothing is changed and the error names the edit and how often it ' +
      'matched. Edits apply in order. Returns a git-style unified diff; dryRun shows it without writing. The file is ' +
      `replaced only if nobody changed it since it was read. ${PATHS}`,
    inputSchema: {
      path,
      edits: z.array(z.object({
        oldText: z.string().describe('Text to search for - must occur exactly once'),
        newText: z.string().describe('Text to replace it with'),
      })),
      dryRun: z.boolean().default(false).describe('Preview changes using git-style diff format'),
    },
    annotations: { ...CHANGE, destructiveHint: true, idempotentHint: false },
    writes: true,
    handler: editFile,
  },
  {
    name: 'create_directory',
    title: 'Create a directory',
    description: `Create a directory and any missing parents; an existing directory is fine. ${PATHS}`,
    inputSchema: { path },
    annotations: { ...CHANGE, destructiveHint: false, idempotentHint: true },
    writes: true,
    handler: createDirectory,
  },
  {
    name: 'list_directory',
    title: 'List a directory',
    description: 'List a directory\'s entries, each on a line starting [FILE] or [DIR] ([OTHER] for an entry that cannot ' +
      `be followed). Long listings are cut with a note. ${PATHS}`,
    inputSchema: { path },
    annotations: READ,
    writes: false,
    handler: listDirectory,
  },
  {
    name: 'list_directory_with_sizes',
    title: 'List a directory with sizes',
    description: `List a directory's entries with [FILE]/[DIR] and file sizes, sorted by name or size, with totals. ${PATHS}`,
    inputSchema: {
      path,
      sortBy: z.enum(['name', 'size']).optional().default('name').describe('Sort entries by name or size'),
    },
    annotations: READ,
    writes: false,
    handler: listDirectoryWithSizes,
  },
  {
    name: 'directory_tree',
    title: 'Directory tree',
    description: 'A recursive tree of a directory as JSON: entries with name, type (file/directory) and, for directories, ' +
      'children. excludePatterns skip entries like .gitignore lines: "node_modules", "*.log" (a name at any depth) or ' +
      `"build/**" (a relative path). Bounded in depth and entries; a cut tree says so. ${PATHS}`,
    inputSchema: { path, excludePatterns: z.array(z.string()).optional().default([]) },
    annotations: READ,
    writes: false,
    handler: directoryTree,
  },
  {
    name: 'move_file',
    changes: ['write', 'delete'],
    title: 'Move or rename a file',
    description: 'Move or rename a file, within a mount or across mounts. Fails if the destination exists. Directories ' +
      `are not moved. ${PATHS}`,
    inputSchema: { source: z.string(), destination: z.string() },
    annotations: { ...CHANGE, destructiveHint: true, idempotentHint: false },
    writes: true,
    handler: moveFile,
  },
  {
    name: 'search_files',
    title: 'Find files by name',
    description: 'Find files and directories under path whose path relative to it matches a glob: "*.ts" (directly in ' +
      'path), "**/*.ts" (at any depth), with ?, [a-z] and {a,b}. Dotfiles match only when the pattern names the dot. ' +
      'excludePatterns work as in directory_tree. Returns virtual paths, sorted, at most a bounded number (a note says ' +
      `when there are more). ${PATHS}`,
    inputSchema: { path, pattern: z.string(), excludePatterns: z.array(z.string()).optional().default([]) },
    annotations: READ,
    writes: false,
    handler: searchFiles,
  },
  {
    name: 'get_file_info',
    title: 'File information',
    description: 'Size, creation and modification times, whether it is a file or a directory, whether it is writable, ' +
      `and its version (changes whenever the file does). ${PATHS}`,
    inputSchema: { path },
    annotations: READ,
    writes: false,
    handler: getFileInfo,
  },
  {
    name: 'list_allowed_directories',
    title: 'List allowed directories',
    description: 'The sandbox\'s mount table: "/" (the root) and each mounted directory, as virtual paths, each read-only ' +
      'or read-write. Everything below them is reachable.',
    inputSchema: {},
    annotations: READ,
    writes: false,
    handler: listAllowedDirectories,
  },
  {
    name: 'delete_file',
    changes: ['delete'],
    title: 'Delete a file',
    description: `Delete a file or a symlink (never a directory, never what a symlink points to). ${PATHS}`,
    inputSchema: { path },
    annotations: { ...CHANGE, destructiveHint: true, idempotentHint: true },
    writes: true,
    handler: deleteFile,
  },
  {
    name: 'copy_file',
    title: 'Copy a file',
    description: 'Copy a file; the source may be read-only. Fails if the destination exists unless overwrite is true. ' +
      PATHS,
    inputSchema: {
      source: z.string(),
      destination: z.string(),
      overwrite: z.boolean().optional().default(false).describe('Replace an existing destination file'),
    },
    annotations: { ...CHANGE, destructiveHint: true, idempotentHint: false },
    writes: true,
    handler: copyFile,
  },
  {
    name: 'explain_path',
    title: 'Explain a path',
    description: 'What a virtual path means in this sandbox: the mount it lies in, read-only or not, whether it exists, ' +
      `and what reading, writing and deleting it would do, and why. ${PATHS}`,
    inputSchema: { path },
    annotations: READ,
    writes: false,
    handler: explainPath,
  },
];
