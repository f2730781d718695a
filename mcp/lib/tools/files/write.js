'use strict';

// The changes made whole: write_file, create_directory, move_file, copy_file and delete_file, each
// one call of the sandbox, which refuses what the configuration does not allow. (edit_file is
// edit/.)
const { z } = require('zod');
const { PATHS, CHANGE, path, virtual, text } = require('./common');

async function writeFile(args, ctx) {
  const p = virtual(args.path);
  await ctx.sandbox.write(p, args.content);
  return text(`Successfully wrote ${Buffer.byteLength(args.content)} bytes to ${p}`);
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

const writeFileTool = {
  name: 'write_file',
  title: 'Write a file',
  description: 'Create a file or replace an existing one with new content (atomically; missing parent directories are ' +
    `created). Overwrites without asking. ${PATHS}`,
  inputSchema: { path, content: z.string().describe('The whole new content of the file, as text (written as UTF-8)') },
  annotations: { ...CHANGE, destructiveHint: true, idempotentHint: true },
  writes: true,
  handler: writeFile,
};

const createDirectoryTool = {
  name: 'create_directory',
  title: 'Create a directory',
  description: `Create a directory and any missing parents; an existing directory is fine. ${PATHS}`,
  inputSchema: { path },
  annotations: { ...CHANGE, destructiveHint: false, idempotentHint: true },
  writes: true,
  handler: createDirectory,
};

const moveFileTool = {
  name: 'move_file',
  changes: ['write', 'delete'],
  title: 'Move or rename a file',
  description: 'Move or rename a file, within a mount or across mounts. Fails if the destination exists. Directories ' +
    `are not moved. ${PATHS}`,
  inputSchema: {
    source: z.string().describe('Virtual path of the file to move'),
    destination: z.string().describe('Virtual path it moves to (must not exist)'),
  },
  annotations: { ...CHANGE, destructiveHint: true, idempotentHint: false },
  writes: true,
  handler: moveFile,
};

const deleteFileTool = {
  name: 'delete_file',
  changes: ['delete'],
  title: 'Delete a file',
  description: `Delete a file or a symlink (never a directory, never what a symlink points to). ${PATHS}`,
  inputSchema: { path },
  annotations: { ...CHANGE, destructiveHint: true, idempotentHint: true },
  writes: true,
  handler: deleteFile,
};

const copyFileTool = {
  name: 'copy_file',
  title: 'Copy a file',
  description: 'Copy a file; the source may be read-only. Fails if the destination exists unless overwrite is true. ' +
    PATHS,
  inputSchema: {
    source: z.string().describe('Virtual path of the file to copy'),
    destination: z.string().describe('Virtual path of the copy'),
    overwrite: z.boolean().optional().default(false).describe('Replace an existing destination file'),
  },
  annotations: { ...CHANGE, destructiveHint: true, idempotentHint: false },
  writes: true,
  handler: copyFile,
};

module.exports = { writeFileTool, createDirectoryTool, moveFileTool, deleteFileTool, copyFileTool };
