'use strict';

// mount-sandbox-mcp's command line. Every mistake is a UsageError (exit status 2) naming the
// option, so a client configuration that is wrong fails at start with a message in the client's
// server log rather than serving a sandbox other than the one meant.
class UsageError extends Error {}

const USAGE = `Usage:
  mount-sandbox-mcp --config FILE [--worker FILE] [options]
  mount-sandbox-mcp --root DIR [--mount SRC:/target[:ro]]... [--network | --allow HOST]... [options]
  mount-sandbox-mcp --mount SRC:/target[:ro]... [options]

Serves the sandbox's file and shell tools over stdio (MCP). Paths in every tool are virtual: "/" is
the sandbox's root, and no host path appears in any reply.

  --config FILE       a program config (golem-forge.config.yaml/.yml/.json): its sandbox, with the
                      trust rules the mount-sandbox CLI applies
  --worker FILE       with --config: serve the narrower sandbox this .worker file gets
  --root DIR          host directory seen at "/"
  --mount SRC:/target[:ro]
                      host directory SRC seen at the virtual /target (":ro": read-only); repeatable
  --network           with --root/--mount: exec's commands get the host's network (default: none)
  --allow HOST[:PORT] with --root/--mount: exec's commands may reach this destination; repeatable
  --read-only         serve the sandbox read-only: no write tool is registered
  --tmp-bytes N       the size of exec's /tmp in bytes (default: the config's tmpBytes, else
                      1073741824, 1 GiB); 0 puts it on the host's disk, unbounded
  --namespaces require|prefer|off
                      require (default): exec refuses where the kernel gives no user namespaces;
                      prefer: run without them there, where the rest suffices; off: never use them
  --allow-weaker      exec runs even where an enforcement layer the kernel lacks is required
                      (mount-sandbox doctor says which this machine lacks)
  --roots ignore|narrow
                      ignore (default): the client's roots change nothing; narrow: the view narrows
                      to the client's roots that lie inside the sandbox (never wider)
  --help, --version`;

const VALUE_OPTIONS = new Set(['--config', '--worker', '--root', '--mount', '--roots', '--allow', '--tmp-bytes', '--namespaces']);
const FLAG_OPTIONS = new Set(['--read-only', '--network', '--allow-weaker', '--help', '--version']);
const NAMESPACE_MODES = ['require', 'prefer', 'off'];
const REPEATABLE = new Set(['--mount', '--allow']);

function splitArgv(argv) {
  const given = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (FLAG_OPTIONS.has(name)) {
      if (eq > 0) throw new UsageError(`${name} takes no value`);
      given.set(name, true);
      continue;
    }
    if (!VALUE_OPTIONS.has(name)) {
      throw new UsageError(arg.startsWith('-') ? `unknown option ${name}` : `unexpected argument ${JSON.stringify(arg)}`);
    }
    let value;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new UsageError(`${name} needs a value`);
    if (value === '') throw new UsageError(`${name} needs a value, not an empty string`);
    if (REPEATABLE.has(name)) given.set(name, [...(given.get(name) || []), value]);
    else if (given.has(name)) throw new UsageError(`${name} given twice`);
    else given.set(name, value);
  }
  return given;
}

// SRC:/target or SRC:/target:ro (":rw" also accepted). The target is what follows the last ":/",
// so a source may itself contain colons.
function parseMount(spec) {
  let rest = spec;
  let readonly = false;
  const mode = /:(ro|rw)$/.exec(rest);
  if (mode) {
    readonly = mode[1] === 'ro';
    rest = rest.slice(0, -3);
  }
  const at = rest.lastIndexOf(':/');
  if (at <= 0) throw new UsageError(`--mount needs SRC:/target[:ro], got ${JSON.stringify(spec)}`);
  return { source: rest.slice(0, at), target: rest.slice(at + 1), readonly };
}

function parseArgs(argv) {
  const given = splitArgv(argv);
  if (given.get('--help')) return { help: true };
  if (given.get('--version')) return { version: true };
  const config = given.get('--config');
  const root = given.get('--root');
  const mounts = (given.get('--mount') || []).map(parseMount);
  if (config !== undefined && (root !== undefined || mounts.length > 0)) {
    throw new UsageError('give either --config or --root/--mount, not both');
  }
  if (config === undefined && root === undefined && mounts.length === 0) {
    throw new UsageError('no sandbox given: --config FILE, or --root DIR and/or --mount SRC:/target');
  }
  if (given.has('--worker') && config === undefined) throw new UsageError('--worker narrows a --config sandbox: give --config too');
  const allow = given.get('--allow') || [];
  if (config !== undefined && (given.get('--network') || allow.length > 0)) {
    throw new UsageError("--network and --allow are for --root/--mount; a config's sandbox sets its own network");
  }
  if (given.get('--network') && allow.length > 0) throw new UsageError('give either --network or --allow, not both');
  const roots = given.get('--roots') ?? 'ignore';
  if (roots !== 'ignore' && roots !== 'narrow') throw new UsageError(`--roots takes ignore or narrow, got ${JSON.stringify(roots)}`);
  const tmpBytes = given.get('--tmp-bytes');
  if (tmpBytes !== undefined && !(/^[0-9]+$/.test(tmpBytes) && Number.isSafeInteger(Number(tmpBytes)))) {
    throw new UsageError(`--tmp-bytes takes a whole number of bytes (1073741824 is 1 GiB; 0 the host's disk), got ${JSON.stringify(tmpBytes)}`);
  }
  const namespaces = given.get('--namespaces');
  if (namespaces !== undefined && !NAMESPACE_MODES.includes(namespaces)) {
    throw new UsageError(`--namespaces takes ${NAMESPACE_MODES.join(', ')}, got ${JSON.stringify(namespaces)}`);
  }
  let network;
  if (given.get('--network')) network = true;
  else if (allow.length > 0) network = { allow };
  return {
    config: config ?? null,
    worker: given.get('--worker') ?? null,
    root: root ?? null,
    mounts,
    network,
    readOnly: given.get('--read-only') === true,
    tmpBytes: tmpBytes === undefined ? null : Number(tmpBytes),
    roots,
    // exec's options for every command: how much it may do without (sandbox.exec()'s own names).
    exec: {
      ...(namespaces === undefined ? {} : { namespaces }),
      ...(given.get('--allow-weaker') ? { allowWeakerEnforcement: true } : {}),
    },
  };
}

module.exports = { parseArgs, parseMount, UsageError, USAGE };
