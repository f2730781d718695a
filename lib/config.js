'use strict';

// Validates and normalizes a sandbox config before it reaches the addon, with messages that say
// which key is wrong and what is expected. Unknown keys are refused: a misspelt `readOnly` must
// not silently leave a mount writable.
const path = require('path');
const { SandboxConfigError } = require('./errors');

const DEFAULT_MAX_READ_BYTES = 128 * 1024 * 1024;
const RESOLVERS = ['auto', 'openat2', 'walk'];
const CONFIG_KEYS = ['root', 'readonly', 'mounts', 'maxReadBytes', 'resolver'];
const MOUNT_KEYS = ['source', 'target', 'readonly'];

function fail(message) {
  throw new SandboxConfigError(`Invalid sandbox config: ${message}`);
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

function normalizeConfig(config) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    fail('expected an object like { root: "/path/to/project" }');
  }
  checkKeys(config, CONFIG_KEYS, '');
  const root = checkHostPath(config.root, 'root');
  const readonly = checkOptionalBoolean(config.readonly, 'readonly');
  if (config.mounts !== undefined && !Array.isArray(config.mounts)) fail('mounts must be an array');
  const seen = new Set();
  const mounts = (config.mounts || []).map((mount, i) => {
    const where = `mounts[${i}]`;
    if (mount === null || typeof mount !== 'object') fail(`${where} must be an object`);
    checkKeys(mount, MOUNT_KEYS, `${where}.`);
    const target = normalizeTarget(mount.target, `${where}.target`);
    if (seen.has(target)) fail(`${where}.target "${target}" is mounted twice`);
    seen.add(target);
    return {
      source: checkHostPath(mount.source, `${where}.source`),
      target,
      readonly: checkOptionalBoolean(mount.readonly, `${where}.readonly`),
    };
  });
  let maxReadBytes = DEFAULT_MAX_READ_BYTES;
  if (config.maxReadBytes !== undefined) {
    maxReadBytes = config.maxReadBytes;
    if (!Number.isSafeInteger(maxReadBytes) || maxReadBytes < 0 || maxReadBytes > 2 ** 32) {
      fail('maxReadBytes must be an integer between 0 and 4294967296');
    }
  }
  const resolver = config.resolver ?? process.env.MOUNT_SANDBOX_RESOLVER ?? 'auto';
  if (!RESOLVERS.includes(resolver)) fail(`resolver must be one of ${RESOLVERS.join(', ')}`);
  return { root, readonly, mounts, maxReadBytes, resolver };
}

module.exports = { normalizeConfig, DEFAULT_MAX_READ_BYTES };
