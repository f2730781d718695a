'use strict';

// read_text_file (and read_file, its deprecated name) and read_multiple_files: text read in
// bounded ranges (ranges.js), never more than a reply holds, with a note on where to read on.
const { z } = require('zod');
const { displayText } = require('../../mount-sandbox');
const { randomBytes } = require('crypto');
const { readRange, readHead, readTail } = require('./ranges');
const { sentBytes } = require('../../sent-bytes');
const { PATHS, ToolArgumentError, READ, path, virtual, text, llmMessage } = require('./common');

const readTextSchema = {
  path,
  head: z.number().int().positive().optional().describe('If provided, returns only the first N lines of the file'),
  tail: z.number().int().positive().optional().describe('If provided, returns only the last N lines of the file'),
  offset: z.number().int().nonnegative().optional().describe('Byte offset to start reading at (not with head or tail)'),
  length: z.number().int().positive().optional().describe('Most bytes to read from offset (not with head or tail)'),
};

function capNote(p, shown, from, size, cap, escaped) {
  const next = from + shown;
  const why = escaped ? `${cap} bytes as sent, JSON escapes counted (this text is heavy in them: a NUL byte or ` +
    'another control character is sent as 6 bytes)' : `${cap} bytes`;
  return `\n[Truncated: this is bytes ${from}-${next} of ${size}; replies are capped at ${why}. ` +
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
    const note = r.truncated ? `\n[Truncated: the first ${head} lines exceed ${cap} bytes as sent (JSON escapes counted). Read on with offset ${r.bytes}.]` : '';
    return text(r.text + note, { content: r.text, truncated: r.truncated });
  }
  const { size } = await ctx.sandbox.stat(p);
  if (tail !== undefined) {
    const r = await readTail(ctx.sandbox, p, tail, size, cap, ctx.signal);
    const note = r.truncated ? `\n[Truncated: the last ${tail} lines exceed ${cap} bytes as sent (JSON escapes counted); this is from byte ${r.start}. Read earlier parts with offset and length.]` : '';
    return text(r.text + note, { content: r.text, truncated: r.truncated });
  }
  const from = offset ?? 0;
  const r = await readRange(ctx.sandbox, p, from, length ?? Number.MAX_SAFE_INTEGER, cap);
  const note = r.truncated ? capNote(p, r.bytes, from, size, cap, r.escaped) : '';
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

// Each file's block starts with a line holding a boundary drawn at random for this reply, so no
// file's content (which cannot know it) can forge another file's block. The whole reply is held to
// the read cap plus the blocks' headers and notes.
async function readMultipleFiles(args, ctx) {
  let budget = ctx.limits.maxReadBytes;
  const boundary = randomBytes(6).toString('hex');
  const parts = [`Each file below starts with a line "==== ${boundary} <path> ====" (the same random mark throughout); ` +
    'nothing else in this reply contains that mark.'];
  let replyBytes = sentBytes(parts[0]);
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
        budget -= sentBytes(r.text);
        const note = r.truncated ? `\n[Truncated after ${r.bytes} bytes (the reply's cap). Read the rest with read_text_file offset ${r.bytes}.]` : '';
        block = `${r.text}${note}`;
      }
    } catch (error) {
      block = `Error: ${llmMessage(error)}`;
    }
    const part = `==== ${boundary} ${displayText(p)} ====\n${block}`;
    replyBytes += sentBytes(part) + 1;
    parts.push(part);
  }
  if (skipped > 0) parts.push(`[${skipped} more paths not read: the reply holds at most ${ctx.limits.maxEntries} paths and ${replyCap} bytes; read them in another call.]`);
  return text(parts.join('\n'));
}

const readMultipleFilesTool = {
  name: 'read_multiple_files',
  title: 'Read several files',
  description: 'Read several text files in one call, each under its path, separated by "---". A file that cannot be ' +
    `read gets its error inline and the others are still read. All together are capped in size. ${PATHS}`,
  inputSchema: { paths: z.array(z.string()).min(1).describe('Virtual paths of the files to read') },
  annotations: READ,
  writes: false,
  handler: readMultipleFiles,
};

module.exports = { readTextFileTool, readFileTool, readMultipleFilesTool };
