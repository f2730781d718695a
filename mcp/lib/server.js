'use strict';

// createServer({ sandbox, options }): an McpServer with the tools of tools/ registered. Each
// tool's handler gets ctx = { sandbox, signal, progress, limits, memory, exec } and throws sandbox
// errors as they come; this file turns them into tool results (tool-result.js), leaves write tools out when the
// sandbox can write nothing, narrows the view to the client's roots only when asked, and plumbs
// cancellation and progress from the request.
const { McpServer } = require('@modelcontextprotocol/server');
const { z } = require('zod');
const { ok, failure, capReply } = require('./tool-result');
const { MemoryBudget } = require('./bounds/memory');
const { narrowToRoots } = require('./roots');
const { version } = require('../package.json');

const DEFAULT_LIMITS = Object.freeze({
  maxReadBytes: 256 * 1024,
  maxEntries: 1000,
  maxDepth: 10,
  maxOutputBytes: 64 * 1024,
  maxMediaBytes: 5 * 1024 * 1024,
  maxReplyBytes: 1024 * 1024, // any reply as sent, JSON escapes counted (tool-result.js capReply)
});

// The largest JSON-RPC message the server reads (a write_file of about as much text); a larger
// one is answered with an error and the server goes on (bounds/stdin.js).
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

const INSTRUCTIONS = 'Files are reached through a sandbox. Every path is virtual: "/" is the sandbox\'s root, ' +
  'and list_allowed_directories shows what is mounted where and what is read-only. Host paths mean nothing here.';

// exec's description and openWorldHint say what network its commands get: they depend on the sandbox.
function allTools(sandbox = null) {
  return [...require('./tools/files'), ...require('./tools/exec').forSandbox(sandbox)];
}

// A tool list with a missing or non-boolean hint is a programming error: caught at start.
function checkTool(tool) {
  for (const hint of HINTS) {
    if (typeof tool.annotations?.[hint] !== 'boolean') throw new Error(`tool ${tool.name}: annotations.${hint} must be a boolean`);
  }
  if (typeof tool.handler !== 'function') throw new Error(`tool ${tool.name}: no handler`);
}

// Where the configuration marks `operation` "ask" (golem-forge's approval: a person confirms).
function askingPlaces(sandbox, operation) {
  const described = sandbox.describe();
  const places = described.mounts.filter((m) => m.approval[operation] === 'ask').map((m) => m.target);
  if (described.root !== null && described.approval[operation] === 'ask') places.unshift('/');
  return places;
}

// A change the configuration says needs approval ("ask") is announced as destructive, so that a
// client confirms it with the user before the call rather than running it unasked; "blocked" is
// refused by the sandbox itself. `changes`: the operations a tool makes (default: write).
function withApprovals(tool, sandbox) {
  if (!tool.writes || sandbox === null) return tool;
  const asking = (tool.changes ?? ['write']).some((operation) => askingPlaces(sandbox, operation).length > 0);
  return asking ? { ...tool, annotations: { ...tool.annotations, destructiveHint: true } } : tool;
}

// What the sandbox keeps unchanged because the host trusts it to run things, for the
// descriptions of the tools that change files or run commands (the core decides; this only says).
function trustedSentence(sandbox) {
  const { names, released } = sandbox.describe().trustedNames;
  const shown = names.map((n) => n.name).filter((n) => !released.includes(n));
  if (shown.length === 0) return '';
  return ' Files the host trusts to run things cannot be changed (reading them is fine): the sandbox\'s own config ' +
    `and worker files, a file named .git, and ${shown.join(', ')}, at any depth; nor may a change make a directory ` +
    'a git repository by its layout (HEAD, objects and refs together) or void a repository\'s HEAD.';
}

function withTrustedNames(tool, sandbox) {
  if (sandbox === null || !(tool.writes || tool.name === 'exec')) return tool;
  return { ...tool, description: `${tool.description}${trustedSentence(sandbox)}` };
}

function canWriteAnything(sandbox) {
  return sandbox !== null && sandbox.writablePaths().length > 0;
}

function schemaOf(shape) {
  if (shape === undefined) return z.object({});
  return shape['~standard'] ? shape : z.object(shape);
}

// ctx.progress(done, total?, message?): a notifications/progress for the request's token, or
// nothing when the request carried none.
function progressFor(sdkCtx) {
  const token = sdkCtx.mcpReq._meta?.progressToken;
  if (token === undefined) return () => {};
  return (done, total, message) => {
    const params = { progressToken: token, progress: done };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    sdkCtx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {});
  };
}

// The view the client's roots allow (--roots narrow), fetched once and again after the client
// says its roots changed. A client that cannot list roots leaves the sandbox as configured.
function rootsView(mcp, sandbox, log) {
  let current = null;
  mcp.server.setNotificationHandler('notifications/roots/list_changed', () => {
    current = null;
  });
  return async () => {
    if (current === null) {
      current = (async () => {
        if (!mcp.server.getClientCapabilities()?.roots) return sandbox;
        try {
          const { roots } = await mcp.server.listRoots();
          return narrowToRoots(sandbox, roots).sandbox;
        } catch (error) {
          log(`roots: could not list or apply the client's roots (${error.message}); serving the configured sandbox`);
          return sandbox;
        }
      })();
    }
    return current;
  };
}

function createServer({ sandbox, options = {} }) {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  // --namespaces and --allow-weaker, as sandbox.exec() takes them.
  const execOptions = { ...options.exec };
  const memory = new MemoryBudget(options.memoryBudget);
  const log = options.log ?? ((line) => process.stderr.write(`mount-sandbox-mcp: ${line}\n`));
  const mcp = new McpServer({ name: 'mount-sandbox-mcp', version }, { instructions: INSTRUCTIONS });
  const view = options.roots === 'narrow' ? rootsView(mcp, sandbox, log) : async () => sandbox;
  const writable = canWriteAnything(sandbox);
  const tools = options.tools ?? allTools(sandbox);
  for (const given of tools) {
    checkTool(given);
    if (given.writes && !writable) continue;
    const tool = withTrustedNames(withApprovals(given, sandbox), sandbox);
    mcp.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: schemaOf(tool.inputSchema),
      ...(tool.outputSchema ? { outputSchema: schemaOf(tool.outputSchema) } : {}),
      annotations: { ...(tool.title ? { title: tool.title } : {}), ...tool.annotations },
    }, async (args, sdkCtx) => {
      try {
        const ctx = {
          sandbox: await view(), signal: sdkCtx.mcpReq.signal, progress: progressFor(sdkCtx), limits, memory, exec: execOptions,
        };
        return capReply(await tool.handler(args, ctx), limits.maxReplyBytes);
      } catch (error) {
        const result = failure(error, args);
        if (result.structuredContent.code === 'INTERNAL') log(`${tool.name}: ${error && error.stack ? error.stack : error}`);
        return result;
      }
    });
  }
  return mcp;
}

module.exports = { createServer, allTools, checkTool, DEFAULT_LIMITS, MAX_MESSAGE_BYTES, ok, failure };
