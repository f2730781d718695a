'use strict';

// Validates and normalizes a sandbox config before it reaches the addon, with messages that say
// which key is wrong and what is expected. Unknown keys are refused: a misspelt `readOnly` must
// not silently leave a mount writable. The config is first copied into plain own data
// (lib/common/plain.js): nothing is read from a prototype, a getter is refused, and what the addon
// receives is exactly what was validated, in null-prototype records.
const { path } = require('../common/builtins');
const { SandboxConfigError } = require('../errors/from-codes');
const { plainData, record } = require('../common/plain');
const { addon } = require('../common/native');

const DEFAULT_MAX_READ_BYTES = 128 * 1024 * 1024;
const RESOLVERS = ['auto', 'openat2', 'walk'];
const DEFAULT_MAX_DEPTH = 5;
const POLICY_KEYS = ['approval', 'allowedSuffixes', 'deniedSuffixes', 'maxFileBytes'];
// allowPseudoFilesystem: pin this source even on procfs, sysfs, the device filesystem, ...
// (refused by default: /proc/self would show a model this process's environment).
// trustedNames: { add, release }, names the host trusts next beside the built-in ones, and
// built-in ones the agent may change after all (src/fs/trusted_names.h).
const CONFIG_KEYS = ['root', 'readonly', 'allowPseudoFilesystem', 'mounts', 'maxReadBytes', 'resolver', 'maxDepth',
  'trustedNames', ...POLICY_KEYS];
const TRUSTED_KEYS = ['add', 'release'];
const MOUNT_KEYS = ['source', 'target', 'readonly', 'allowPseudoFilesystem', ...POLICY_KEYS];
const APPROVALS = ['preApproved', 'ask', 'blocked'];

function configError(message) {
  return new SandboxConfigError(`Invalid sandbox config: ${message}`);
}

function fail(message) {
  throw configError(message);
}

function checkKeys(object, allowed, where) {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) fail(`unknown key ${where}${key} (allowed: ${allowed.join(', ')})`);
  }
}

function checkOptionalBoolean(value, where) {
  if (value !== undefined && typeof value !== 'boolean') fail(`${where} must be a boolean`);
  return value === true;
}

function checkHostPath(value, where) {
  if (typeof value !== 'string' || value.length === 0) fail(`${where} must be a non-empty string`);
  if (value.includes('\0')) fail(`${where} must not contain NUL bytes`);
  if (!value.isWellFormed()) fail(`${where} must be well-formed Unicode`);
  return path.resolve(value);
}

// Targets must already be in normal form: "/data" or "/a/b" (one trailing slash tolerated).
function normalizeTarget(value, where) {
  if (typeof value !== 'string') fail(`${where} must be a string such as "/data"`);
  let target = value.length > 1 && value.endsWith('/') ? value.slice(0, -1) : value;
  if (!target.startsWith('/')) fail(`${where} "${value}" must be absolute, such as "/data"`);
  if (target === '/') fail(`${where} must not be "/": the root is configured with "root"`);
  if (target.includes('\0') || !target.isWellFormed()) fail(`${where} must be well-formed text`);
  const parts = target.slice(1).split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) {
    fail(`${where} "${value}" must be a normalized path without empty, "." or ".." segments, such as "/data"`);
  }
  return target;
}

// An approval rule { write, delete } as written in a config or a restriction, with the names the
// core's config files accept; an operation not named gets `unnamed`. The one check of approvals
// in lib/: `raise` makes the caller's error type (SandboxConfigError here, TypeError for
// restrict()).
/** @param {(message: string) => Error} [raise] */
function approvalRule(value, where, unnamed, raise = configError) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw raise(`${where} must be an object like { write: "ask", delete: "blocked" }`);
  }
  for (const key of Object.keys(value)) {
    if (key !== 'write' && key !== 'delete') throw raise(`unknown key ${where}.${key} (allowed: write, delete)`);
  }
  const pick = (key) => {
    const v = value[key] === undefined ? unnamed : value[key];
    if (!APPROVALS.includes(v)) throw raise(`${where}.${key} must be one of ${APPROVALS.join(', ')}`);
    return v;
  };
  return record({ write: pick('write'), delete: pick('delete') });
}

function normalizeApproval(value, where) {
  return value === undefined ? record({ write: 'ask', delete: 'ask' }) : approvalRule(value, where, 'ask');
}

// A count a config file bounds the same way (the core's read_count): an integer from 1 to `max`.
function checkCount(value, where, max) {
  if (!Number.isInteger(value) || value < 1 || value > max) fail(`${where} must be an integer from 1 to ${max}`);
  return value;
}

// Only the argument types are checked here: what a suffix rule is, and how it folds, is the core's
// suffix_rule (src/policy.cc), the same that validates suffixes in config files.
function normalizeSuffixes(value, where) {
  if (!Array.isArray(value)) fail(`${where} must be an array of suffixes such as [".md", ".txt"]`);
  const invalid = (i) => fail(`${where}[${i}] must be a suffix starting with "." such as ".md"`);
  value.forEach((s, i) => {
    if (typeof s !== 'string' || !s.isWellFormed()) invalid(i);
  });
  const folded = addon().foldSuffixes(value);
  if (folded.suffixes === undefined) invalid(folded.invalid);
  return folded.suffixes;
}

// The approval and file policy keys a mount (or the root) may carry.
function normalizePolicy(object, where) {
  const policy = record({
    allowedSuffixes:
      object.allowedSuffixes === undefined ? null : normalizeSuffixes(object.allowedSuffixes, `${where}allowedSuffixes`),
    deniedSuffixes:
      object.deniedSuffixes === undefined ? [] : normalizeSuffixes(object.deniedSuffixes, `${where}deniedSuffixes`),
    maxFileBytes: null,
  });
  if (object.maxFileBytes !== undefined) {
    policy.maxFileBytes = checkCount(object.maxFileBytes, `${where}maxFileBytes`, addon().limits.maxFileBytes);
  }
  return { approval: normalizeApproval(object.approval, `${where}approval`), policy };
}

// process.env answers an unset variable from Object.prototype.
function ownEnv(name) {
  return Object.hasOwn(process.env, name) ? process.env[name] : undefined;
}

// An entry of trustedNames as an operator writes it: a path relative to the sandbox's root, or
// **/name for a name at any depth. The rule, and whether a release names anything protected, are
// the core's (src/fs/trusted_names.h).
function checkTrustedEntry(entry, where) {
  if (typeof entry !== 'string') fail(`${where} must be a string like ".vscode/settings.json" or "**/deploy.sh"`);
  const problem = addon().trustedEntryProblem(entry);
  if (problem !== null) {
    fail(`${where} "${entry}" must be a path relative to the sandbox's root like ".vscode/settings.json", ` +
      `or "**/name" for a name at any depth; at character ${problem.offset + 1}: ${problem.reason}`);
  }
  return entry;
}

function checkTrustedNames(given) {
  if (given === undefined) return { add: [], release: [] };
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    fail('trustedNames must be an object like { add: ["tools/deploy.sh"], release: [".vscode/settings.json"] }');
  }
  checkKeys(given, TRUSTED_KEYS, 'trustedNames.');
  const list = (key) => {
    const value = given[key] ?? [];
    if (!Array.isArray(value)) fail(`trustedNames.${key} must be an array of paths`);
    return value.map((entry, i) => checkTrustedEntry(entry, `trustedNames.${key}[${i}]`));
  };
  const add = list('add');
  const release = list('release');
  release.forEach((entry, i) => {
    if (!addon().releaseCoversProtected(entry, true, add)) {
      fail(`trustedNames.release[${i}] "${entry}" names nothing the sandbox protects: a release names the protected ` +
        'file or directory by its path from the root (".claude/settings.json", not "settings.json"), or "**/" and ' +
        'that path for every depth');
    }
  });
  return { add, release };
}

// Where a root-relative entry lies: under the root, or under a mount's target when there is no root.
function checkPlaced(entries, root, mounts, key) {
  if (root !== null) return;
  entries.forEach((entry, i) => {
    if (entry.startsWith('**/')) return;
    const at = `/${entry}`;
    if (!mounts.some((m) => at === m.target || at.startsWith(`${m.target}/`))) {
      fail(`trustedNames.${key}[${i}] "${entry}" lies under no mount of this sandbox (it has no root)`);
    }
  });
}

// `hostPaths`: the sandbox's own files (its config, the config names on the walk up, its worker
// files), absolute host paths given by the facade's program loader, never by a caller.
function normalizeConfig(given, hostPaths = []) {
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    fail('expected an object like { root: "/path/to/project" }');
  }
  const config = plainData(given, configError);
  checkKeys(config, CONFIG_KEYS, '');
  if (config.mounts !== undefined && !Array.isArray(config.mounts)) fail('mounts must be an array');
  // Without a root, "/" only lists the mounts (the zone form of program configs).
  const rootless = config.root === null && Array.isArray(config.mounts) && config.mounts.length > 0;
  const root = rootless ? null : checkHostPath(config.root, 'root');
  const readonly = checkOptionalBoolean(config.readonly, 'readonly');
  const allowPseudoFilesystem = checkOptionalBoolean(config.allowPseudoFilesystem, 'allowPseudoFilesystem');
  const seen = new Set();
  const mounts = (config.mounts || []).map((mount, i) => {
    const where = `mounts[${i}]`;
    if (mount === null || typeof mount !== 'object') fail(`${where} must be an object`);
    checkKeys(mount, MOUNT_KEYS, `${where}.`);
    const target = normalizeTarget(mount.target, `${where}.target`);
    if (seen.has(target)) fail(`${where}.target "${target}" is mounted twice`);
    seen.add(target);
    return record({
      source: checkHostPath(mount.source, `${where}.source`),
      target,
      readonly: checkOptionalBoolean(mount.readonly, `${where}.readonly`),
      allowPseudoFilesystem: checkOptionalBoolean(mount.allowPseudoFilesystem, `${where}.allowPseudoFilesystem`),
      ...normalizePolicy(mount, `${where}.`),
    });
  });
  let maxReadBytes = DEFAULT_MAX_READ_BYTES;
  if (config.maxReadBytes !== undefined) {
    maxReadBytes = config.maxReadBytes;
    const max = addon().limits.maxReadBytes;
    if (!Number.isSafeInteger(maxReadBytes) || maxReadBytes < 0 || maxReadBytes > max) {
      fail(`maxReadBytes must be an integer between 0 and ${max}`);
    }
  }
  const resolver = config.resolver ?? ownEnv('MOUNT_SANDBOX_RESOLVER') ?? 'auto';
  if (!RESOLVERS.includes(resolver)) fail(`resolver must be one of ${RESOLVERS.join(', ')}`);
  // The bounds of a config file's delegation.maxDepth, which becomes this same setting.
  const maxDepth = config.maxDepth === undefined
    ? DEFAULT_MAX_DEPTH
    : checkCount(config.maxDepth, 'maxDepth', addon().limits.maxDelegationDepth);
  const { add, release } = checkTrustedNames(config.trustedNames);
  checkPlaced(add, root, mounts, 'add');
  checkPlaced(release, root, mounts, 'release');
  const trusted = record({ builtin: true, add, release, hostPaths: [...hostPaths] });
  return record({
    root, readonly, allowPseudoFilesystem, ...normalizePolicy(config, ''), mounts, maxReadBytes, resolver, maxDepth, trusted,
  });
}

module.exports = { normalizeConfig, approvalRule, DEFAULT_MAX_READ_BYTES, DEFAULT_MAX_DEPTH };
