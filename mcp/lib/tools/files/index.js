'use strict';

// The file tools: the official filesystem server's fourteen, with its names and parameters, plus
// delete_file, copy_file and explain_path. Every path is virtual ("/" is the sandbox's root) and
// every operation goes through the sandbox, which resolves it on descriptors beneath the pinned
// mounts; nothing here touches the host filesystem by name, and no reply names a host path.
// Handlers throw sandbox errors as they come (server.js makes them tool results); a reply cut at
// a bound says so and how to get the rest.
//
// This file lists them in the order they are served; each is defined beside its handler, in the
// file of its concern: read.js, media.js, write.js, edit/, list.js and info.js (what they share is
// common.js).
const { readTextFileTool, readFileTool, readMultipleFilesTool } = require('./read');
const { readMediaFileTool } = require('./media');
const { writeFileTool, createDirectoryTool, moveFileTool, deleteFileTool, copyFileTool } = require('./write');
const { editFileTool } = require('./edit');
const { listDirectoryTool, listDirectoryWithSizesTool, directoryTreeTool, searchFilesTool } = require('./list');
const { getFileInfoTool, listAllowedDirectoriesTool, explainPathTool } = require('./info');

module.exports = [
  readFileTool,
  readTextFileTool,
  readMediaFileTool,
  readMultipleFilesTool,
  writeFileTool,
  editFileTool,
  createDirectoryTool,
  listDirectoryTool,
  listDirectoryWithSizesTool,
  directoryTreeTool,
  moveFileTool,
  searchFilesTool,
  getFileInfoTool,
  listAllowedDirectoriesTool,
  deleteFileTool,
  copyFileTool,
  explainPathTool,
];
