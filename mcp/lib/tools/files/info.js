'use strict';

// What the sandbox says about paths: get_file_info (a file's size, times, version and whether it
// is writable), list_allowed_directories (the mount table) and explain_path (what a path means
// here, and what reading, writing and deleting it would do).
const { PATHS, READ, path, virtual, text, llmMessage, normalise } = require('./common');

// How a type other than a file reads in a sentence.
const TYPE_WORDS = {
  directory: 'directory',
  fifo: 'FIFO (named pipe), which cannot be read or written here',
  socket: 'socket, which cannot be read or written here',
  'character-device': 'character device, which cannot be read or written here',
  'block-device': 'block device, which cannot be read or written here',
};

async function getFileInfo(args, ctx) {
  const p = virtual(args.path);
  const s = await ctx.sandbox.stat(p);
  const info = {
    size: s.size,
    created: s.createdAt.toISOString(),
    modified: s.modifiedAt.toISOString(),
    type: s.type,
    isDirectory: s.isDirectory,
    isFile: s.type === 'file',
    writable: ctx.sandbox.checkChange(p, 'write') === null,
    version: s.version,
  };
  const lines = Object.entries(info).map(([k, v]) => `${k}: ${v}`);
  lines.push('accessed, permissions: not reported (the sandbox does not expose them)');
  return text(lines.join('\n'), info);
}

// The mount table: the root, then each mount in order of its path.
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
    facts.type = s.type;
    const what = s.type === 'file' ? `file of ${s.size} bytes` : (TYPE_WORDS[s.type] ?? s.type);
    lines.push(`Read: allowed. It exists: a ${what}.`);
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

const getFileInfoTool = {
  name: 'get_file_info',
  title: 'File information',
  description: 'Size, creation and modification times, its type (file, directory, symlink, fifo, socket, ' +
    'character-device or block-device, as it is), whether it is writable, ' +
    `and its version (changes whenever the file does). ${PATHS}`,
  inputSchema: { path },
  annotations: READ,
  writes: false,
  handler: getFileInfo,
};

const listAllowedDirectoriesTool = {
  name: 'list_allowed_directories',
  title: 'List allowed directories',
  description: 'The sandbox\'s mount table: "/" (the root) and each mounted directory, as virtual paths, each read-only ' +
    'or read-write. Everything below them is reachable.',
  inputSchema: {},
  annotations: READ,
  writes: false,
  handler: listAllowedDirectories,
};

const explainPathTool = {
  name: 'explain_path',
  title: 'Explain a path',
  description: 'What a virtual path means in this sandbox: the mount it lies in, read-only or not, whether it exists, ' +
    `and what reading, writing and deleting it would do, and why. ${PATHS}`,
  inputSchema: { path },
  annotations: READ,
  writes: false,
  handler: explainPath,
};

module.exports = { getFileInfoTool, listAllowedDirectoriesTool, explainPathTool };
