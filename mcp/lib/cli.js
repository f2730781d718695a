'use strict';

// What bin/mount-sandbox-mcp.js runs: parses the command line, builds the sandbox it names and
// serves its tools over stdio. Usage errors exit 2; a sandbox that cannot be built (an invalid or
// untrusted config, a directory that is not there) exits 1 with the library's message. The
// messages go to stderr, which agent clients show in their server log: that is the operator's,
// so naming host paths there is fine (replies to the model never do).
const fs = require('fs');
const { parseArgs, UsageError, USAGE } = require('./args');

function fail(message, status) {
  process.stderr.write(`mount-sandbox-mcp: ${message}\n`);
  if (status === 2) process.stderr.write(`${USAGE}\n`);
  process.exit(status);
}

function isDirectory(dir) {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

// As the mount-sandbox CLI's --config file [--worker file]: the config is refused when a config
// above it lets a sandbox write where it lies, the worker file when it lies where this sandbox
// lets commands write (either could have been planted by a command), and the sandbox's commands
// cannot change what the next run trusts.
// A directory is searched as the CLI searches it: the config there or in the nearest directory above.
async function loadConfig(ms, where) {
  if (!isDirectory(where)) return ms.loadTrustedProgramConfig(where);
  const found = await ms.findProgramConfig(where);
  if (!found) throw new Error(`--config ${where}: no ${ms.CONFIG_FILE_NAMES.join(' / ')} there or above`);
  return found;
}

async function sandboxFromConfig(ms, args) {
  const config = await loadConfig(ms, args.config);
  let sandbox = await ms.createSandboxFromConfig(config);
  if (args.worker !== null) sandbox = ms.sandboxForWorker(sandbox, await ms.loadTrustedWorkerFile(config, args.worker));
  // The command line was right; the config gives nothing to serve: a refusal (1), not a usage error.
  if (sandbox === null) throw new Error('this config (or worker) gives no file access: there is nothing to serve');
  return sandbox;
}

function sandboxFromMounts(ms, args) {
  for (const [option, dir] of [['--root', args.root], ...args.mounts.map((m) => ['--mount', m.source])]) {
    if (dir !== null && !isDirectory(dir)) throw new Error(`${option} ${dir}: not a directory`);
  }
  const config = { root: args.root, mounts: args.mounts };
  if (args.network !== undefined) config.network = args.network;
  return ms.createMountSandbox(config);
}

async function buildSandbox(args) {
  const ms = require('./mount-sandbox');
  const sandbox = args.config !== null ? await sandboxFromConfig(ms, args) : sandboxFromMounts(ms, args);
  return args.readOnly ? sandbox.restrict({ readonly: true }) : sandbox;
}

// extra.tools replaces the tool list (the tests' probe tools); nothing else passes it.
async function run(argv, extra = {}) {
  let args;
  try {
    args = parseArgs(argv);
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
  const { createServer, allTools, checkTool, MAX_MESSAGE_BYTES } = require('./server');
  const { serveStdio, StdioServerTransport } = require('@modelcontextprotocol/server/stdio');
  const { BoundedLines } = require('./bounds/stdin');
  const { Replies } = require('./bounds/stdout');
  const tools = extra.tools ?? allTools(sandbox);
  // A tool without its four hints is refused here, before any client connects.
  tools.forEach(checkTool);
  const options = { roots: args.roots, tools, limits: args.tmpBytes === null ? {} : { tmpBytes: args.tmpBytes }, exec: args.exec };
  // Messages over the bound are answered with an error by BoundedLines and never reach the
  // transport, whose own bound (which closes it) is therefore never met.
  const replies = new Replies(process.stdout);
  const stdin = process.stdin.pipe(new BoundedLines({ maxBytes: MAX_MESSAGE_BYTES, replies }));
  const transport = new StdioServerTransport(stdin, /** @type {any} */ (replies), { maxBufferSize: MAX_MESSAGE_BYTES + 1024 });
  serveStdio(() => createServer({ sandbox, options }), {
    transport,
    onerror: (error) => process.stderr.write(`mount-sandbox-mcp: ${error.message}\n`),
  });
}

function main(argv, extra) {
  run(argv, extra).catch((error) => fail(error && error.stack ? error.stack : String(error), 1));
}

module.exports = { run, main, buildSandbox };
