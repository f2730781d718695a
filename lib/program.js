'use strict';

// Program configuration files and .worker declarations. Parsing and validation are native (the
// core's one typed model); this file finds and reads the files, and turns the model into
// sandboxes with golem-forge's call_worker rules.
const fs = require('fs');
const path = require('path');
const { addon } = require('./native');
const { addProtectedFiles } = require('./protected');
const { plainData, record } = require('./plain');
const {
  ConfigFileError,
  PermissionEscalationError,
  SandboxConfigError,
  WorkerSandboxError,
} = require('./errors');

const CONFIG_FILE_NAMES = ['golem-forge.config.yaml', 'golem-forge.config.yml', 'golem-forge.config.json'];
const MAX_CONFIG_BYTES = 1024 * 1024;

function formatOf(file) {
  return file.endsWith('.json') ? 'json' : 'yaml';
}

function checkText(text, file) {
  if (typeof text !== 'string') throw new TypeError(`expected a string for the contents of ${file}`);
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES) {
    throw new ConfigFileError({ file, line: 0, column: 0, keyPath: '', expected: 'a file of at most 1 MiB' });
  }
}

const typeError = (message) => new TypeError(message);

// Parses program configuration text. `file` (absolute or relative to the current directory)
// anchors relative paths and names the file in errors; `format` defaults from its extension.
function parseProgramConfig(text, options) {
  const given = options !== null && typeof options === 'object' ? plainData(options, typeError, 'options') : record({});
  const { file, format } = given;
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('expected { file } naming the config file');
  const absolute = path.resolve(file);
  checkText(text, absolute);
  const fmt = format ?? formatOf(absolute);
  if (fmt !== 'yaml' && fmt !== 'json') throw new TypeError('expected "yaml" or "json" for format');
  const result = addon().parseProgramConfig(text, absolute, fmt);
  if (Object.hasOwn(result, 'error')) throw new ConfigFileError({ file: absolute, ...result.error });
  return result.config;
}

async function readConfigText(file) {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > MAX_CONFIG_BYTES) {
      throw new ConfigFileError({ file, line: 0, column: 0, keyPath: '', expected: 'a file of at most 1 MiB' });
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

async function loadProgramConfig(file) {
  const absolute = path.resolve(file);
  return parseProgramConfig(await readConfigText(absolute), { file: absolute });
}

// Walks up from startDir to the first golem-forge.config.{yaml,yml,json}, like golem-forge's
// findProgramConfig. null when there is none. A file that exists but does not validate throws.
async function findProgramConfig(startDir = process.cwd()) {
  let dir = path.resolve(startDir);
  for (;;) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = path.join(dir, name);
      let stat;
      try {
        stat = await fs.promises.stat(candidate);
      } catch {
        continue;
      }
      if (stat.isFile()) return loadProgramConfig(candidate);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

// The createMountSandbox() config a program config describes, or null for "no file access".
// Read from a plain copy: nothing comes from a prototype.
function sandboxConfigFrom(given) {
  const program = plainData(given, typeError, 'program');
  if (!program || typeof program !== 'object' || !Object.hasOwn(program, 'sandbox')) {
    throw new TypeError('expected a program config from loadProgramConfig()');
  }
  const sb = program.sandbox;
  if (sb === null) return null;
  const policyKeys = ({ approval, policy }) => ({
    approval,
    ...(policy.allowedSuffixes ? { allowedSuffixes: policy.allowedSuffixes } : {}),
    ...(policy.deniedSuffixes.length ? { deniedSuffixes: policy.deniedSuffixes } : {}),
    ...(policy.maxFileBytes !== null ? { maxFileBytes: policy.maxFileBytes } : {}),
  });
  return {
    root: sb.root,
    readonly: sb.readonly,
    ...policyKeys(sb),
    mounts: sb.mounts.map((m) => ({ source: m.source, target: m.target, readonly: m.readonly, ...policyKeys(m) })),
    maxDepth: program.delegation.maxDepth,
  };
}

function parseWorkerFile(text, file = '<worker>') {
  checkText(text, file);
  const result = addon().parseWorkerFile(text);
  if (Object.hasOwn(result, 'error')) throw new ConfigFileError({ file, ...result.error });
  return { ...result.worker, file };
}

async function loadWorkerFile(file) {
  const absolute = path.resolve(file);
  return parseWorkerFile(await readConfigText(absolute), absolute);
}

function workerLabel(worker) {
  return worker.name ? `Worker '${worker.name}'` : 'This worker';
}

function zoneError(error, worker, parent) {
  const request = worker.sandbox.zones[error.index ?? 0];
  const available = parent.zones().sort();
  if (error.code === 'ZONE_NOT_FOUND') {
    return new WorkerSandboxError('ZONE_NOT_FOUND',
      `${workerLabel(worker)} requests zone '${request.name}' but its parent does not have it ` +
        `(available zones: ${available.length ? available.join(', ') : 'none'})`, worker.name);
  }
  const e = new PermissionEscalationError(
    `${workerLabel(worker)} requests 'rw' on zone '${request.name}' but its parent only has 'ro'`, `/${request.name}`);
  e.worker = worker.name;
  return e;
}

function depthError(error, worker) {
  return new WorkerSandboxError('DEPTH_EXCEEDED',
    `${workerLabel(worker)} would be delegation level ${error.size}, deeper than delegation.maxDepth ${error.limit}`,
    worker.name);
}

// golem-forge's call_worker rule, natively enforced: no declaration gives the parent's view
// (one level deeper); `sandbox: false` or `zones: []` gives no sandbox (a pure function); a
// declaration narrows the parent's view and can never widen it; a declaration with no parent
// sandbox is an error naming the worker.
function sandboxForWorker(parent, given) {
  const worker = plainData(given, typeError, 'worker');
  if (!worker || typeof worker !== 'object' || !worker.sandbox) {
    throw new TypeError('expected a worker declaration from parseWorkerFile() or loadWorkerFile()');
  }
  const decl = worker.sandbox;
  if (decl.kind === 'none') return null;
  if (parent === null || parent === undefined) {
    if (decl.kind === 'inherit') return null;
    throw new WorkerSandboxError('NO_PARENT_SANDBOX',
      `${workerLabel(worker)} declares sandbox restrictions but parent has no sandbox`, worker.name);
  }
  try {
    const workerFile = worker.file ? [worker.file] : [];
    if (decl.kind === 'zones') return addProtectedFiles(parent.selectZones(decl.zones), workerFile);
    const restriction = record({});
    if (decl.restrict !== undefined) restriction.restrict = decl.restrict;
    if (decl.readonly !== undefined) restriction.readonly = decl.readonly;
    if (decl.approval !== undefined) restriction.approval = decl.approval;
    return addProtectedFiles(parent.restrict(restriction), workerFile);
  } catch (error) {
    if (error.code === 'ZONE_NOT_FOUND' || (decl.kind === 'zones' && error.code === 'PERMISSION_ESCALATION')) {
      throw zoneError(error, worker, parent);
    }
    if (error.code === 'DEPTH_EXCEEDED') throw depthError(error, worker);
    if (error instanceof SandboxConfigError) throw error;
    if (error.code === 'PERMISSION_ESCALATION') {
      error.message = `${workerLabel(worker)} asks for read-write access where its parent is read-only`;
      error.worker = worker.name;
    }
    throw error;
  }
}

module.exports = {
  CONFIG_FILE_NAMES,
  parseProgramConfig,
  loadProgramConfig,
  findProgramConfig,
  sandboxConfigFrom,
  parseWorkerFile,
  loadWorkerFile,
  sandboxForWorker,
};
