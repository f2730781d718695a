#!/usr/bin/env node
'use strict';

// mount-sandbox-mcp with probe tools instead of the real ones, run as a process by
// test/mcp-server.test.js (startServer(args, { bin: PROBE_BIN })): the same command line, sandbox
// building, read-only mode, roots, error mapping and request plumbing, with tools that exercise
// each. MSB_PROBE_MARKER names a host file probe_wait writes when its request is cancelled.
const fs = require('fs');
const { z } = require('zod');
const { main } = require('../../mcp/lib/cli');
const { ok } = require('../../mcp/lib/tool-result');

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

const tools = [
  {
    name: 'probe_read', title: 'Read', description: 'Reads a file.', annotations: READ, writes: false,
    inputSchema: { path: z.string() },
    handler: async ({ path }, ctx) => ok(await ctx.sandbox.read(path)),
  },
  {
    name: 'probe_write', title: 'Write', description: 'Writes a file.', annotations: WRITE, writes: true,
    inputSchema: { path: z.string(), content: z.string() },
    handler: async ({ path, content }, ctx) => {
      await ctx.sandbox.write(path, content);
      return ok(`wrote ${path}`);
    },
  },
  {
    name: 'probe_crash', title: 'Crash', description: 'Fails unexpectedly.', annotations: READ, writes: false,
    inputSchema: {},
    handler: async (args, ctx) => {
      // An unexpected error whose text names a host path, as an errno message would.
      throw new Error(`EACCES: permission denied, open '${ctx.sandbox.resolve('/')}/secret'`);
    },
  },
  {
    name: 'probe_wait', title: 'Wait', description: 'Reports progress until cancelled.', annotations: READ, writes: false,
    inputSchema: { steps: z.number().int().positive() },
    handler: async ({ steps }, ctx) => {
      for (let done = 1; done <= steps; done++) {
        if (ctx.signal.aborted) {
          fs.writeFileSync(process.env.MSB_PROBE_MARKER, 'aborted');
          return ok('aborted');
        }
        ctx.progress(done, steps, `step ${done}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return ok(`done ${steps}`);
    },
  },
];

main(process.argv.slice(2), { tools });
