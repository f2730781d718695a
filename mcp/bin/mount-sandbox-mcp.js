#!/usr/bin/env node
'use strict';

// mount-sandbox-mcp: builds the sandbox the command line names and serves its tools over stdio.
// Usage errors exit 2; a sandbox that cannot be built (an invalid or untrusted config, a missing
// directory) exits 1 with the library's message.
const { parseArgs, UsageError, USAGE } = require('../lib/args');

function fail(message, status) {
  process.stderr.write(`mount-sandbox-mcp: ${message}\n`);
  if (status === 2) process.stderr.write(`${USAGE}\n`);
  process.exit(status);
}

async function buildSandbox(args) {
  const ms = require('../lib/mount-sandbox');
  let sandbox;
  if (args.config !== null) {
    sandbox = await ms.createSandboxFromConfig(await ms.loadProgramConfig(args.config));
    if (args.worker !== null) sandbox = ms.sandboxForWorker(sandbox, await ms.loadWorkerFile(args.worker));
    if (sandbox === null) throw new UsageError('this config (or worker) gives no file access: there is nothing to serve');
  } else {
    const config = { root: args.root, mounts: args.mounts };
    if (args.network !== undefined) config.network = args.network;
    sandbox = ms.createMountSandbox(config);
  }
  return args.readOnly ? sandbox.restrict({ readonly: true }) : sandbox;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) fail(error.message, 2);
    throw error;
  }
  if (args.help) return void process.stdout.write(`${USAGE}\n`);
  if (args.version) return void process.stdout.write(`${require('../package.json').version}\n`);
  let sandbox;
  try {
    sandbox = await buildSandbox(args);
  } catch (error) {
    fail(error.message, error instanceof UsageError ? 2 : 1);
  }
  const { createServer } = require('../lib/server');
  const { serveStdio } = require('@modelcontextprotocol/server/stdio');
  const options = { roots: args.roots };
  serveStdio(() => createServer({ sandbox, options }), {
    onerror: (error) => process.stderr.write(`mount-sandbox-mcp: ${error.message}\n`),
  });
}

main().catch((error) => fail(error && error.stack ? error.stack : String(error), 1));
