'use strict';

// exec and grep_files. exec runs a shell command under sandbox.exec (confined by the kernel, the
// sandbox at /workspace, output capped per stream); a cancelled request kills every process of it
// (the exec's `signal`), and while it runs a request with a progress token gets the elapsed time
// every second. grep_files (grep.js) is registered beside it.
//
// The array holds the definitions for a sandbox whose commands have no network. The exec tool's
// description and openWorldHint depend on the sandbox's network: forSandbox(sandbox) returns the
// definitions for that sandbox (server.js should register those).
const { z } = require('zod');
const { grepTool } = require('./grep');

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_OUTPUT_BYTES = 50 * 1024;
const PROGRESS_EVERY_MS = 1_000;

// What the sandbox's commands may reach, as the description tells the model, and whether that is
// any network at all (openWorldHint).
function networkOf(sandbox) {
  const network = sandbox ? sandbox.describe().network : { mode: 'off', allow: [], deny: [], declared: false };
  // A sandbox that declares no network gives commands none (a call could ask, but this tool never does).
  if (!network.declared || network.mode === 'off') return { open: false, text: 'Commands have no network (only their own loopback).' };
  if (network.mode === 'host') return { open: true, text: 'Commands have the host\'s network.' };
  return { open: true, text: `Commands reach only these destinations, by name, through a proxy: ${network.allow.join(', ') || 'none'}.` };
}

function execDescription(network) {
  return 'Run a shell command (sh -c) confined by the kernel to this sandbox, and return its exit code, ' +
    'stdout and stderr. How paths map: the sandbox\'s virtual path /x is /workspace/x inside commands; ' +
    'a command starts in cwd (a virtual directory, default /, which is /workspace), so relative paths work ' +
    'unchanged. Read-only mounts stay read-only; nothing outside the sandbox exists for the command except ' +
    'read-only system directories (/usr, /bin, /lib, a minimal /etc); /tmp (also $HOME) is private, holds at most 1 GiB ' +
    '(past it, writes fail with ENOSPC) and is removed after each command, so keep what should last under /workspace. What the command changes under /workspace ' +
    'lands on the project when it ends, each change judged by the rules the file tools obey: a change they refuse ' +
    '(a file the host trusts, a read-only place, a file someone else changed meanwhile) does not land, and a note ' +
    'at the end of stderr names it and why. ' +
    `${network.text} Each of stdout and stderr keeps its first bytes (a note says when output was ` +
    `cut: redirect to a file and read it in parts); the command is killed after timeoutMs (default ${DEFAULT_TIMEOUT_MS}, ` +
    `at most ${MAX_TIMEOUT_MS}). Not interactive: stdin is given whole or is empty. A command can read the host paths ` +
    'of its mounts in /proc/self/mountinfo; nothing else it can do with them (they lead nowhere in its view).';
}

function stream(name, text) {
  if (text === '') return `${name}: (empty)`;
  return `${name}:\n${text.replace(/\n$/, '')}`;
}

// The reply: the exit status first, then each stream, then the notes on what was cut.
function execText(result, maxOutputBytes) {
  let status = `exit code: ${result.exitCode}`;
  if (result.signal) status += ` (killed by ${result.signal}${result.timedOut ? ' at the timeout' : ''})`;
  const parts = [status, stream('stdout', result.stdout), stream('stderr', result.stderr)];
  if (result.truncated) {
    parts.push(`[truncated: stdout and stderr each keep their first ${maxOutputBytes} bytes; ` +
      'redirect the output to a file and read it in parts, or filter it (head, grep)]');
  }
  return parts.join('\n');
}

// How many of the command's changes landed, were refused, conflicted or wait; null when it wrote
// directly (no copy-on-write layer on this machine).
function changeCounts(changes) {
  if (changes === null) return null;
  return {
    applied: changes.applied.length,
    refused: changes.refused.length,
    conflicts: changes.conflicts.length,
    pending: changes.pending.length,
  };
}

// Progress while the command runs: the seconds elapsed, out of the timeout's.
function reportProgress(progress, timeoutMs) {
  if (typeof progress !== 'function') return () => {};
  const started = Date.now();
  const total = Math.ceil(timeoutMs / 1000);
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    Promise.resolve(progress(seconds, total, `running for ${seconds} s (timeout ${total} s)`)).catch(() => {});
  }, PROGRESS_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function execTool(network) {
  return {
    name: 'exec',
    title: 'Run a command in the sandbox',
    description: execDescription(network),
    inputSchema: {
      command: z.string().min(1).describe('Shell command line, run with sh -c (pipes, redirections and && work)'),
      cwd: z.string().optional().describe('Virtual working directory (default /, which is /workspace inside the command)'),
      timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional()
        .describe(`Kill the command after this many milliseconds (default ${DEFAULT_TIMEOUT_MS})`),
      stdin: z.string().optional().describe('Text fed to the command\'s standard input'),
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: network.open },
    writes: false, // a read-only sandbox still runs commands (they cannot change it)
    handler: async (args, ctx) => {
      const maxOutputBytes = (ctx.limits && ctx.limits.maxOutputBytes) || DEFAULT_MAX_OUTPUT_BYTES;
      const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const options = { ...ctx.exec, timeoutMs, maxOutputBytes };
      if (args.cwd !== undefined) options.cwd = args.cwd;
      if (args.stdin !== undefined) options.stdin = args.stdin;
      // --tmp-bytes; otherwise the sandbox's own (its config's tmpBytes), then the library's.
      if (ctx.limits && ctx.limits.tmpBytes !== undefined) options.limits = { tmpBytes: ctx.limits.tmpBytes };
      if (ctx.signal) options.signal = ctx.signal;
      const stop = reportProgress(ctx.progress, timeoutMs);
      let result;
      try {
        result = await ctx.sandbox.exec(['sh', '-c', args.command], options);
      } finally {
        stop();
      }
      return {
        content: [{ type: 'text', text: execText(result, maxOutputBytes) }],
        structuredContent: {
          exitCode: result.exitCode,
          signal: result.signal,
          timedOut: result.timedOut,
          truncated: result.truncated,
          network: result.enforcement.network,
          changes: changeCounts(result.changes),
        },
      };
    },
  };
}

function forSandbox(sandbox) {
  return [execTool(networkOf(sandbox)), grepTool];
}

module.exports = forSandbox(null);
module.exports.forSandbox = forSandbox;
