'use strict';

// call_worker's attachments: golem-forge's attachment policy, enforced before anything is read.
// The count and suffix rules are lexical and checked here first, so their errors name the rule;
// the core checks them again, then opens every file, checks each file's own policy and the total
// size on the open descriptors, and only then reads.
const { path } = require('../common/builtins');
const { AttachmentPolicyError, invalidPath } = require('../errors/from-codes');
const { plainData, record } = require('../common/plain');
const { addon } = require('../common/native');

const DEFAULT_ATTACHMENT_POLICY = Object.freeze({
  max_attachments: 4,
  max_total_bytes: 10_000_000,
  allowed_suffixes: [],
  denied_suffixes: [],
});

const MEDIA_TYPES = record({
  '.txt': 'text/plain', '.md': 'text/markdown', '.csv': 'text/csv', '.html': 'text/html',
  '.htm': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript', '.py': 'text/x-python', '.xml': 'application/xml',
  '.json': 'application/json', '.yaml': 'application/yaml', '.yml': 'application/yaml',
  '.pdf': 'application/pdf', '.zip': 'application/zip', '.png': 'image/png', '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.svg': 'image/svg+xml',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.mp4': 'video/mp4',
});

function mediaTypeOf(name) {
  return MEDIA_TYPES[path.posix.extname(name).toLowerCase()] || 'application/octet-stream';
}

function isTextual(mediaType) {
  return mediaType.startsWith('text/') || /\/(json|xml|yaml)$/.test(mediaType) || mediaType === 'image/svg+xml';
}

function policyError(message) {
  return new TypeError(`Invalid attachment policy: ${message}`);
}

function fail(message) {
  throw policyError(message);
}

// golem-forge writes attachment suffixes with or without the dot; with the dot added, they are
// validated and folded by the core (suffix_rule), as every other suffix rule is.
function suffixList(value, key) {
  if (value === undefined) return [];
  const invalid = () => fail(`${key} must be an array of suffixes such as [".pdf"]`);
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string' || s.length === 0 || !s.isWellFormed())) {
    invalid();
  }
  const folded = addon().foldSuffixes(value.map((s) => (s.startsWith('.') ? s : `.${s}`)));
  if (folded.suffixes === undefined) invalid();
  return folded.suffixes;
}

// The first of `suffixes` that `name` ends with, matched by the core (has_suffix), or undefined.
function matchingSuffix(name, suffixes) {
  const index = addon().matchingSuffix(name, suffixes);
  return index < 0 ? undefined : suffixes[index];
}

// Accepts golem-forge's snake_case policy object (and camelCase), filling its defaults. The
// policy is copied into plain own data first: no default comes from a prototype.
function normalizePolicy(given) {
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    fail('expected an object');
  }
  const policy = given === undefined ? record({}) : plainData(given, policyError);
  const pick = (snake, camel) => (policy[snake] !== undefined ? policy[snake] : policy[camel]);
  const known = ['max_attachments', 'maxAttachments', 'max_total_bytes', 'maxTotalBytes',
    'allowed_suffixes', 'allowedSuffixes', 'denied_suffixes', 'deniedSuffixes'];
  for (const key of Object.keys(policy)) if (!known.includes(key)) fail(`unknown key "${key}"`);
  const maxAttachments = pick('max_attachments', 'maxAttachments') ?? DEFAULT_ATTACHMENT_POLICY.max_attachments;
  const maxTotalBytes = pick('max_total_bytes', 'maxTotalBytes') ?? DEFAULT_ATTACHMENT_POLICY.max_total_bytes;
  if (!Number.isSafeInteger(maxAttachments) || maxAttachments < 0) fail('max_attachments must be a non-negative integer');
  if (!Number.isSafeInteger(maxTotalBytes) || maxTotalBytes <= 0) fail('max_total_bytes must be a positive integer');
  return record({
    maxAttachments,
    maxTotalBytes,
    allowedSuffixes: suffixList(pick('allowed_suffixes', 'allowedSuffixes'), 'allowed_suffixes'),
    deniedSuffixes: suffixList(pick('denied_suffixes', 'deniedSuffixes'), 'denied_suffixes'),
  });
}

// The name the core will open: "/notes.env/." and "/notes.env/x/.." are /notes.env, so the
// suffix rules and the media type must look at "notes.env", not at "." or "..".
function fileNameOf(p) {
  return path.posix.basename(path.posix.normalize(p));
}

function checkLexicalRules(paths, policy) {
  if (paths.length > policy.maxAttachments) {
    throw new AttachmentPolicyError('maxAttachments',
      `up to ${policy.maxAttachments} attachment(s) allowed but ${paths.length} provided.`);
  }
  for (const p of paths) {
    const name = fileNameOf(p);
    if (policy.allowedSuffixes.length > 0 && matchingSuffix(name, policy.allowedSuffixes) === undefined) {
      throw new AttachmentPolicyError('allowedSuffixes',
        `${p} is not in the allowed list: ${policy.allowedSuffixes.join(', ')}`, p);
    }
    const denied = matchingSuffix(name, policy.deniedSuffixes);
    if (denied) throw new AttachmentPolicyError('deniedSuffixes', `${p} extension ${denied} is denied.`, p);
  }
}

async function readAttachments(native, given, policy) {
  if (!Array.isArray(given)) throw new TypeError('expected an array of virtual paths for attachments');
  const paths = plainData(given, (message) => new TypeError(message), 'attachments');
  for (const p of paths) {
    if (typeof p !== 'string') throw new TypeError(`expected a string for attachment path, got ${typeof p}`);
    if (p.length >= 4096 || !p.isWellFormed()) throw invalidPath(p.length >= 4096 ? 'tooLong' : 'surrogate', p.slice(0, 64));
  }
  const rules = normalizePolicy(policy);
  checkLexicalRules(paths, rules);
  if (paths.length === 0) return [];
  const mimeTypes = paths.map((p) => mediaTypeOf(fileNameOf(p)));
  // Which ones get `text`: the addon holds those to the longest text V8 can make (a file over it
  // is FileTooLargeError, as read() reports it, judged from its size before anything is read).
  const textual = mimeTypes.map(isTextual);
  const buffers = await native.readAttachments(paths, rules, textual);
  return buffers.map((buf, i) => {
    const data = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    const attachment = { name: fileNameOf(paths[i]), path: paths[i], mimeType: mimeTypes[i], data };
    if (textual[i]) attachment.text = buf.toString('utf8');
    return attachment;
  });
}

module.exports = { readAttachments, DEFAULT_ATTACHMENT_POLICY, mediaTypeOf };
