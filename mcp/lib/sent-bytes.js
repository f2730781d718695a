'use strict';

// A reply's size as sent: the bytes its text takes once JSON-serialized, escapes included (a NUL
// byte is sent as \u0000, six bytes; a quote as \", two). Caps on replies are measured this way,
// so that text heavy in escapes is cut sooner rather than sent several times its size.
const decoder = new TextDecoder('utf-8');

/** Bytes `text` takes inside a JSON string, without the quotes. */
function sentBytes(text) {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

// The end of the last whole UTF-8 character within bytes[0, end).
function charEnd(bytes, end) {
  if (end >= bytes.length) return bytes.length;
  let i = end;
  while (i > 0 && end - i < 4 && (bytes[i] & 0xc0) === 0x80) i--;
  return i;
}

// The start of the first whole UTF-8 character at or after `start`.
function charStart(bytes, start) {
  let i = start;
  while (i < bytes.length && i - start < 4 && (bytes[i] & 0xc0) === 0x80) i++;
  return i;
}

/**
 * The largest end <= `end` (on a character boundary) such that bytes[0, end), decoded, is at most
 * `cap` bytes as sent. Most text fits at once; text heavy in escapes is searched for its cut.
 */
function fitFront(bytes, end, cap) {
  if (sentBytes(decoder.decode(bytes.subarray(0, end))) <= cap) return end;
  let lo = 0;
  let hi = end;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (sentBytes(decoder.decode(bytes.subarray(0, charEnd(bytes, mid)))) <= cap) lo = mid;
    else hi = mid;
  }
  return charEnd(bytes, lo);
}

/** The smallest start (on a character boundary) such that bytes[start, length) is at most `cap` bytes as sent. */
function fitBack(bytes, cap) {
  if (sentBytes(decoder.decode(bytes)) <= cap) return 0;
  let lo = 0;
  let hi = bytes.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (sentBytes(decoder.decode(bytes.subarray(charStart(bytes, mid)))) <= cap) hi = mid;
    else lo = mid;
  }
  return charStart(bytes, hi);
}

/** The longest prefix of `text` that is at most `cap` bytes as sent (never splitting a surrogate pair). */
function fitText(text, cap) {
  if (sentBytes(text) <= cap) return text;
  let lo = 0;
  let hi = text.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (sentBytes(text.slice(0, mid)) <= cap) lo = mid;
    else hi = mid;
  }
  const code = text.charCodeAt(lo - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? lo - 1 : lo);
}

module.exports = { sentBytes, fitFront, fitBack, fitText };
