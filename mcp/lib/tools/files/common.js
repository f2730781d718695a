'use strict';

// What the file tools (index.js) share: the words on paths every description ends with, the path
// argument, the hints, and the handlers' helpers (virtual paths, text replies, replies cut at a
// bound, no memory budget where there is no server).
const { z } = require('zod');
const { SandboxError } = require('../../mount-sandbox');

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

const CHANGE = { readOnlyHint: false, openWorldHint: false };

// "a/b" -> "/a/b": the official server takes relative paths from its first directory; here they
// are taken from the root. Everything else (.., //, escapes) is the sandbox's to judge.
function virtual(p) {
  return typeof p === 'string' && !p.startsWith('/') ? `/${p}` : p;
}

function text(body, structured) {
  const result = { content: [{ type: 'text', text: body }] };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

function llmMessage(error) {
  return error instanceof SandboxError ? error.toLLMMessage() : 'could not be read (an unexpected error).';
}

// Cuts a reply to the output bound, saying so.
function bounded(body, limit, hint) {
  if (Buffer.byteLength(body) <= limit) return body;
  let cut = Buffer.from(body).subarray(0, limit).toString('utf8').replace(/\uFFFD$/, '');
  const lastLine = cut.lastIndexOf('\n');
  if (lastLine > cut.length / 2) cut = cut.slice(0, lastLine);
  return `${cut}\n[Truncated at ${Buffer.byteLength(cut)} bytes, the reply's bound. ${hint}]`;
}

// Handlers called without a server (the tests' in-process calls) hold no budget.
const NO_BUDGET = { holding: (bytes, work) => work() };

// A virtual path with "." and ".." taken away as text, or null where ".." climbs above "/".
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

module.exports = { PATHS, ToolArgumentError, READ, CHANGE, path, virtual, text, llmMessage, bounded, NO_BUDGET, normalise };
