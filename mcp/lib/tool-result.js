'use strict';

// Tool results. A handler returns what it found through ok(); anything it throws becomes a result
// through failure(): a sandbox error is the model's to read (its toLLMMessage names virtual paths
// only) with its code for programs, and anything else is a generic message, since its text may
// name host paths (an errno message, a stack) and is of no use to a model.
const { SandboxError, displayText, excerpt } = require('./mount-sandbox');
const { sentBytes, fitText } = require('./sent-bytes');

// The most an error's text takes as sent: a message quotes values the client sent in part only.
const MAX_ERROR_BYTES = 4096;

const UNEXPECTED = 'The tool failed with an unexpected internal error. Nothing more can be said about it here; ' +
  'try another way, or ask the user to look at the server log.';

function ok(text, structured) {
  const result = { content: [{ type: 'text', text: String(text) }] };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

function refusal(text, code) {
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { code } };
}

// The library's own wording names its file API's operations; a model here calls tools.
function messageFor(error) {
  if (error.code === 'IS_DIRECTORY' && typeof error.path === 'string') {
    return `${error.path} is a directory. Use list_directory to see its entries, or name a file inside it.`;
  }
  // exec's refusal for a missing layer names this server's flags, not the library's options.
  if (error.code === 'ENFORCEMENT_UNAVAILABLE' && typeof error.messageIn === 'function') return String(error.messageIn('mcp'));
  return String(error.toLLMMessage());
}

// The strings of a call's arguments, at any depth (paths, patterns, a command, edits).
function stringsOf(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

// A message with every long value the client sent (as it is, escaped for display, or quoted as
// JSON) cut to its first characters and "…"; then held to MAX_ERROR_BYTES as sent, in case it
// quotes a value in some other form.
function boundEchoes(message, args) {
  let text = message;
  for (const value of stringsOf(args)) {
    if (excerpt(value) === value) continue; // short enough to quote whole
    for (const form of new Set([value, displayText(value), JSON.stringify(value).slice(1, -1)])) {
      if (excerpt(form) !== form && text.includes(form)) text = text.split(form).join(excerpt(form));
    }
  }
  return sentBytes(text) <= MAX_ERROR_BYTES ? text : `${fitText(text, MAX_ERROR_BYTES - 3)}…`;
}

function failure(error, args = {}) {
  if (error instanceof SandboxError) return refusal(boundEchoes(messageFor(error), args), String(error.code));
  // The library refuses arguments it cannot take (a lone surrogate, a string over its bounds)
  // with TypeError and RangeError saying what it expected: the model's to fix.
  if (error instanceof TypeError || error instanceof RangeError) {
    return refusal(boundEchoes(`Invalid arguments: ${excerpt(String(error.message), 500)}`, args), 'INVALID_ARGUMENT');
  }
  return refusal(UNEXPECTED, 'INTERNAL');
}

// Every reply held to `max` bytes as sent (its text parts and structured content; an image's
// base64 is bounded by maxMediaBytes): past it, the text is cut with a note saying how much is
// shown, and the structured content gives way to { truncated: true, replyTruncated: true }.
// The tools keep within their own caps; this is the bound nothing passes.
function capReply(result, max) {
  const texts = result.content.filter((c) => c.type === 'text');
  const total = texts.reduce((n, c) => n + sentBytes(c.text), 0);
  const structured = result.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.structuredContent));
  if (total + structured <= max) return result;
  let room = max - 1024; // the notes and the structured content that replaces a large one
  const content = result.content.map((c) => {
    if (c.type !== 'text') return c;
    const shown = fitText(c.text, Math.max(0, room));
    room -= sentBytes(shown);
    if (shown.length === c.text.length) return c;
    return { type: 'text', text: `${shown}\n[truncated: ${sentBytes(shown)} of ${sentBytes(c.text)} bytes shown (as sent, JSON ` +
      `escapes counted); a reply is capped at ${max} bytes. Ask for less: a narrower path, a range, a filter.]` };
  });
  const capped = { ...result, content };
  if (result.structuredContent !== undefined) {
    capped.structuredContent = structured + total <= max ? result.structuredContent : { ...(result.isError ? { code: result.structuredContent.code } : {}), truncated: true, replyTruncated: true };
  }
  return capped;
}

module.exports = { ok, failure, capReply, boundEchoes, UNEXPECTED, MAX_ERROR_BYTES };
