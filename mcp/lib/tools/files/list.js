'use strict';

// Listing and finding: list_directory, list_directory_with_sizes, directory_tree and search_files.
// Each is bounded in entries and in the reply's size, and says where it stopped; excludePatterns
// are exclude.js's.
const { z } = require('zod');
const { displayText } = require('../../mount-sandbox');
const { excluder } = require('./exclude');
const { PATHS, READ, path, virtual, text, bounded } = require('./common');

function join(dir, name) {
  return dir === '/' ? `/${name}` : `${dir.replace(/\/+$/, '')}/${name}`;
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

const listDirectoryTool = {
  name: 'list_directory',
  title: 'List a directory',
  description: 'List a directory\'s entries, each on a line starting [FILE] or [DIR] ([OTHER] for an entry that cannot ' +
    `be followed). Long listings are cut with a note. ${PATHS}`,
  inputSchema: { path },
  annotations: READ,
  writes: false,
  handler: listDirectory,
};

const listDirectoryWithSizesTool = {
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
};

const directoryTreeTool = {
  name: 'directory_tree',
  title: 'Directory tree',
  description: 'A recursive tree of a directory as JSON: entries with name, type (file/directory) and, for directories, ' +
    'children. excludePatterns skip entries like .gitignore lines: "node_modules", "*.log" (a name at any depth) or ' +
    `"build/**" (a relative path). Bounded in depth and entries; a cut tree says so. ${PATHS}`,
  inputSchema: {
    path,
    excludePatterns: z.array(z.string()).optional().default([])
      .describe('Entries to leave out, as .gitignore lines: a name at any depth ("node_modules", "*.log") or a relative path ("build/**")'),
  },
  annotations: READ,
  writes: false,
  handler: directoryTree,
};

const searchFilesTool = {
  name: 'search_files',
  title: 'Find files by name',
  description: 'Find files and directories under path whose path relative to it matches a glob: "*.ts" (directly in ' +
    'path), "**/*.ts" (at any depth), with ?, [a-z] and {a,b}. Dotfiles match only when the pattern names the dot. ' +
    'excludePatterns work as in directory_tree. Returns virtual paths, sorted, at most a bounded number (a note says ' +
    `when there are more). ${PATHS}`,
  inputSchema: {
    path,
    pattern: z.string().describe('Glob matched against each path relative to path: "*.ts" (directly in it), "**/*.ts" (at any depth)'),
    excludePatterns: z.array(z.string()).optional().default([]).describe('Entries to leave out, as in directory_tree'),
  },
  annotations: READ,
  writes: false,
  handler: searchFiles,
};

module.exports = { listDirectoryTool, listDirectoryWithSizesTool, directoryTreeTool, searchFilesTool };
