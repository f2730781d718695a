'use strict';

// Program configuration files and .worker declarations. Parsing and validation are native (the
// core's one typed model); this file finds and reads the files, and turns the model into
// sandboxes with golem-forge's call_worker rules.
const { fs, path } = require('../common/builtins');
const { addon } = require('../common/native');
const { addProtectedFiles } = require('../next-run/protected');
const { plainData, record } = require('../common/plain');
const { isWithin } = require('../common/paths');
const { parseNetwork } = require('../network/policy');
const { declareNetwork } = require('../network/scope');
const {
  ConfigFileError,
  PermissionEscalationError,
  SandboxConfigError,
  UnreadableConfigError,
  UntrustedConfigError,
  WorkerSandboxError,
} = require('../errors/from-codes');

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
  if (result.config.sandbox !== null) checkNetworkSetting(result.config.sandbox.network, absolute, 'sandbox.network');
  return result.config;
}

// A config's `network:` as exec takes it: false, true, or { allow, deny } (the core keeps each
// entry's place in the file; see src/config/network_setting.h).
function networkValue(setting) {
  if (setting === undefined || typeof setting === 'boolean') return setting;
  return { allow: setting.allow.map((e) => e.text), deny: setting.deny.map((e) => e.text) };
}

// Each entry checked in its own list, so that a bad one is reported where it is written.
function checkNetworkSetting(setting, file, keyPath) {
  if (setting === undefined || typeof setting === 'boolean') return;
  for (const list of ['allow', 'deny']) {
    setting[list].forEach((entry, i) => {
      const where = `${keyPath}.${list}[${i}]`;
      try {
        parseNetwork(list === 'allow' ? { allow: [entry.text] } : { allow: [], deny: [entry.text] }, where);
      } catch (error) {
        const expected = `a host[:port] entry: ${String(error.message).replace(`${where}: `, '')}`;
        throw new ConfigFileError({ file, line: entry.line, column: entry.column, keyPath: where, expected });
      }
    });
  }
}

// Config and .worker files are read from the disk as the file API reads files, natively and off
// the event loop (src/config/config_file.h), in two steps: opened with O_PATH, which never blocks
// and opens nothing (a FIFO, /proc/kmsg), then, once the caller has judged where the file really
// lies, checked on that descriptor (a regular file on a filesystem that holds data, at most
// 1 MiB) and read. Every failure is an UnreadableConfigError naming the file as given.
// `use(opened)` runs in between, with { file, realPath }; its `read()` gives the text.
async function withConfigFile(file, use) {
  if (file.includes('\0')) throw new UnreadableConfigError('INVALID_PATH', file);
  const opened = await addon().openConfigFile(file);
  const failed = (details) => new UnreadableConfigError(details.code, file, details);
  if (isFailure(opened)) return use({ file, realPath: null, read: () => Promise.reject(failed(opened.error)) });
  try {
    return await use({
      file,
      realPath: opened.realPath,
      read: async () => {
        const result = await addon().readConfigFile(opened.handle);
        if (isFailure(result)) throw failed(result.error);
        return result.text;
      },
    });
  } finally {
    addon().closeConfigFile(opened.handle);
  }
}

// Whether a config file step settled with an error (an own key: nothing from a prototype).
/**
 * @template T
 * @param {T | { error: import('../binding.d.ts').FileErrorDetails }} result
 * @returns {result is { error: import('../binding.d.ts').FileErrorDetails }}
 */
function isFailure(result) {
  return Object.hasOwn(/** @type {object} */ (result), 'error');
}

// Reads and parses a program config file; nothing is checked about where it lies.
async function loadProgramConfig(file) {
  const absolute = path.resolve(file);
  return withConfigFile(absolute, async (opened) => parseProgramConfig(await opened.read(), { file: absolute }));
}

// A config that discovery (or the CLI's --config file) will use: the configs above it are
// judged first, on where the file lies as named and where its descriptor really is, and only
// then is it read.
async function loadTrustedProgramConfig(file) {
  const absolute = path.resolve(file);
  return withConfigFile(absolute, async (opened) => {
    await checkConfigsAbove({ file: absolute, realPath: opened.realPath });
    return parseProgramConfig(await opened.read(), { file: absolute });
  });
}

// The directory and each one above it, up to the filesystem root.
function* ancestors(dir) {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    yield current;
    if (path.dirname(current) === current) return;
  }
}

// The config names in dir that discovery would read, in CONFIG_FILE_NAMES order: every entry of
// such a name but a directory (or a link to one), whatever else it is. A FIFO, a device or a
// dangling link is refused when read, with a typed error, rather than passed over for some other
// config above.
async function candidatesIn(dir) {
  const names = [];
  for (const name of CONFIG_FILE_NAMES) {
    const file = path.join(dir, name);
    if (!(await fs.promises.lstat(file).then(() => true, () => false))) continue;
    if (!(await fs.promises.stat(file).then((st) => st.isDirectory(), () => false))) names.push(name);
  }
  return names;
}

function severalCandidates(dir, names) {
  return new UntrustedConfigError('SEVERAL_CANDIDATES',
    `${dir} holds ${names.join(' and ')}: discovery cannot tell which one you wrote, and a sandboxed ` +
      'command may have written the other. Keep one and delete the rest.', { file: dir, names });
}

// Where a sandbox made from this config lets commands write: its root unless read-only, and each
// writable mount's source. Nested read-only mounts are not subtracted: what lies under a writable
// source counts as writable (the safe side).
function writableAreas(program) {
  const sandbox = sandboxConfigFrom(program);
  if (sandbox === null) return [];
  const areas = sandbox.mounts.filter((m) => !m.readonly).map((m) => m.source);
  if (sandbox.root !== null && !sandbox.readonly) areas.push(sandbox.root);
  return areas;
}

const realOrGiven = (p) => fs.promises.realpath(p).catch(() => path.resolve(p));

// Whether dir lies in one of the areas, as written or through symbolic links.
async function insideAny(dir, areas) {
  const realDir = await realOrGiven(dir);
  for (const area of areas) {
    if (isWithin(dir, area) || isWithin(realDir, await realOrGiven(area))) return true;
  }
  return false;
}

// A config above the one found decides whether the found one can be trusted: not when it lets a
// sandbox write where the found one lies. One that cannot be read or parsed cannot vouch for
// anything, so discovery refuses rather than guess.
async function checkAbove(found, aboveFile) {
  const above = path.relative(found.dir, aboveFile);
  let config;
  try {
    config = await loadProgramConfig(aboveFile);
  } catch (error) {
    throw new UntrustedConfigError('UNREADABLE_ABOVE',
      `${found.file}: the config at ${above} cannot be read (${error.message}), so discovery cannot ` +
        'tell whether it lets a sandbox write here. Fix or remove it.', { file: found.file, above, cause: error });
  }
  const areas = writableAreas(config);
  // A symlinked config: where its text is (the descriptor's own path, when the caller opened it).
  const realDir = path.dirname(found.realPath ?? (await realOrGiven(found.file)));
  if ((await insideAny(found.dir, areas)) || (await insideAny(realDir, areas))) {
    throw new UntrustedConfigError('WRITABLE_FROM_ABOVE',
      `${found.file}: a config inside a directory that the config at ${above} lets a sandbox write cannot ` +
        'be trusted (a command run in that sandbox could have written it). Move it out of that area, ' +
        `or make the area read-only in ${above}.`, { file: found.file, above });
  }
}

// Every config above a config's directory may make it untrustworthy: checks each one, refusing a
// directory on the way that holds more than one config name. `config` is { file } (a loaded
// config will do), with `realPath`, where its opened descriptor lies, when known.
async function checkConfigsAbove(config) {
  const found = { dir: path.dirname(config.file), file: config.file, realPath: config.realPath ?? null };
  if (path.dirname(found.dir) === found.dir) return;
  for (const dir of ancestors(path.dirname(found.dir))) {
    const names = await candidatesIn(dir);
    if (names.length > 1) throw severalCandidates(dir, names);
    if (names.length === 1) await checkAbove(found, path.join(dir, names[0]));
  }
}

// Walks up from startDir to the first golem-forge.config.{yaml,yml,json}, like golem-forge's
// findProgramConfig, then on to the filesystem root, because a config above can make the one found
// untrustworthy. null when there is none. A file that exists but does not validate throws.
// Refuses (UntrustedConfigError) a directory holding more than one config name, a config lying
// in a writable area of a config above it, and a config above that cannot be parsed.
async function findProgramConfig(startDir = process.cwd()) {
  for (const dir of ancestors(startDir)) {
    const names = await candidatesIn(dir);
    if (names.length > 1) throw severalCandidates(dir, names);
    if (names.length === 0) continue;
    return loadTrustedProgramConfig(path.join(dir, names[0]));
  }
  return null;
}

function workerDirsOf(program) {
  const dir = typeof program.dir === 'string' ? program.dir : path.dirname(program.file);
  const given = Array.isArray(program.workerPaths) ? program.workerPaths : ['workers', '.workers'];
  return given.map((p) => path.resolve(dir, p));
}

// What the next run trusts of this config, found by the core (src/config/next_run_files.h):
// `existing`, the host paths a command must not change (the config, every config name in its
// directory and above, its worker directories or, where one holds a writable area, their .worker
// files); `absent`, the names that do not exist yet, which sandbox.exec() watches instead.
async function nextRunFiles(program) {
  const workerDirs = workerDirsOf(program);
  const found = await addon().nextRunFiles(path.resolve(program.file), workerDirs, writableAreas(program));
  if ('error' in found) {
    throw new SandboxConfigError(`${workerDirs.join(', ')}: more than ${found.error.limit ?? 'the bound of'} entries under the worker directories`);
  }
  return found;
}

// A .worker file given by hand (the CLI's --worker) that lies where the config's sandbox lets a
// command write, and is not one of the protected worker files, may have been written by a
// command: refused. Judged where it is named and where its text really lies (`realPath`, its
// opened descriptor's, when known): a link among the protected workers to a file in a writable
// area is refused too.
async function checkWorkerFileTrusted(program, workerFile, trusted, realPath = null) {
  const file = path.resolve(workerFile);
  const real = realPath ?? (await realOrGiven(file));
  const protectedReal = await Promise.all(trusted.map(realOrGiven));
  if (protectedReal.some((p) => isWithin(real, p))) return;
  const areas = writableAreas(program);
  const realInArea = await insideAny(path.dirname(real), areas);
  if (trusted.some((p) => isWithin(file, p)) && !realInArea) return;
  if (realInArea || (await insideAny(path.dirname(file), areas))) {
    throw new UntrustedConfigError('UNPROTECTED_WORKER',
      `${file}: a .worker file where the sandbox lets commands write cannot be trusted (a command could ` +
        'have written it). Keep worker files in the config\'s worker directories ' +
        `(${workerDirsOf(program).map((d) => path.relative(path.dirname(program.file), d) || '.').join(', ')}), ` +
        'which commands cannot change, or outside the writable areas.', { file });
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
  // Only where the file says it: a config given to createMountSandbox takes the key the same way.
  const pseudo = (m) => (m.allowPseudoFilesystem === true ? { allowPseudoFilesystem: true } : {});
  return {
    root: sb.root,
    readonly: sb.readonly,
    ...pseudo(sb),
    ...policyKeys(sb),
    mounts: sb.mounts.map((m) => ({
      source: m.source, target: m.target, readonly: m.readonly, ...pseudo(m), ...policyKeys(m),
    })),
    maxDepth: program.delegation.maxDepth,
    ...(sb.network === undefined ? {} : { network: networkValue(sb.network) }),
    ...(sb.changes === undefined ? {} : { changes: sb.changes }),
    ...(sb.tmpBytes === undefined ? {} : { tmpBytes: sb.tmpBytes }),
    ...(sb.trustedNames === undefined ? {} : { trustedNames: sb.trustedNames }),
  };
}

function parseWorkerFile(text, file = '<worker>') {
  checkText(text, file);
  const result = addon().parseWorkerFile(text);
  if (Object.hasOwn(result, 'error')) throw new ConfigFileError({ file, ...result.error });
  checkNetworkSetting(result.worker.sandbox.network, file, 'sandbox.network');
  return { ...result.worker, file };
}

// Reads and parses a .worker file; nothing is checked about where it lies.
async function loadWorkerFile(file) {
  const absolute = path.resolve(file);
  return withConfigFile(absolute, async (opened) => parseWorkerFile(await opened.read(), absolute));
}

// A .worker file named by hand for a program's sandbox (the CLI's --worker): judged by
// checkWorkerFileTrusted on where its descriptor lies before it is read.
async function loadTrustedWorkerFile(program, file, trusted) {
  const absolute = path.resolve(file);
  return withConfigFile(absolute, async (opened) => {
    await checkWorkerFileTrusted(program, absolute, trusted, opened.realPath);
    return parseWorkerFile(await opened.read(), absolute);
  });
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

// A worker's `network:` narrows its parent's; a wider one is a PermissionEscalationError.
function workerNetwork(view, parent, worker) {
  const setting = networkValue(worker.sandbox.network);
  if (setting === undefined) return view;
  try {
    return declareNetwork(view, parent, setting, 'network');
  } catch (error) {
    if (error.code === 'PERMISSION_ESCALATION') error.network = true;
    throw error;
  }
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
    if (decl.kind === 'zones') return workerNetwork(addProtectedFiles(parent.selectZones(decl.zones), workerFile), parent, worker);
    const restriction = record({});
    if (decl.restrict !== undefined) restriction.restrict = decl.restrict;
    if (decl.readonly !== undefined) restriction.readonly = decl.readonly;
    if (decl.approval !== undefined) restriction.approval = decl.approval;
    return workerNetwork(addProtectedFiles(parent.restrict(restriction), workerFile), parent, worker);
  } catch (error) {
    if (error.code === 'PERMISSION_ESCALATION' && error.network) {
      error.message = `${workerLabel(worker)} asks for more network than its parent has: ${error.message}`;
      error.worker = worker.name;
      throw error;
    }
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
  checkConfigsAbove,
  loadTrustedProgramConfig,
  nextRunFiles,
  checkWorkerFileTrusted,
  loadTrustedWorkerFile,
  sandboxConfigFrom,
  parseWorkerFile,
  loadWorkerFile,
  sandboxForWorker,
};
