'use strict';

// edit_file: exact replacements of text in a file, applied in turn (apply.js, off the server's
// thread when it is much work), written only over the version read, and shown as a unified diff
// (diff.js).
const { z } = require('zod');
const { SandboxError, EditError } = require('../../../mount-sandbox');
const { unifiedDiff } = require('./diff');
const { applyEditsOffThread } = require('./apply');
const { PATHS, ToolArgumentError, CHANGE, path, virtual, text, bounded, NO_BUDGET, normalise } = require('../common');

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

// The edited text (apply.js, off the server's thread when it is much work), or the error
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

const editFileTool = {
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
    })).describe('Replacements, applied in order; if one does not match exactly once, none is made'),
    dryRun: z.boolean().default(false).describe('Preview changes using git-style diff format'),
  },
  annotations: { ...CHANGE, destructiveHint: true, idempotentHint: false },
  writes: true,
  handler: editFile,
};

module.exports = { editFileTool };
