'use strict';

// Reads for read_text_file that fetch only what they return: a byte range, the first N lines
// (reading forward in chunks until N newlines), the last N lines (reading backward from the end
// in chunks), each at most `cap` bytes. Every chunk is a ranged read through the sandbox, so each
// is resolved and checked on descriptors like any other read. Lines end at "\n"; a UTF-8
// character never contains the byte 0x0A, so cutting at newlines never splits one.
const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;
const { fitFront, fitBack } = require('../../sent-bytes');

const decoder = new TextDecoder('utf-8');

function concat(chunks) {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

// The end of the last whole UTF-8 character within bytes[0, end), so a cut never splits one.
function charBoundary(bytes, end) {
  if (end >= bytes.length) return bytes.length;
  let i = end;
  while (i > 0 && end - i < 4 && (bytes[i] & 0xc0) === 0x80) i--;
  return i;
}

// { text, bytes: how many were returned, truncated }: at most cap bytes from offset, cut after
// the last newline when one lies in the second half (so the next read starts on a line), else at
// a character boundary. The cap holds on the text as sent (sent-bytes.js): text heavy in escapes
// (NUL bytes, quotes) is cut sooner, and `escaped` says so.
async function readRange(sandbox, path, offset, length, cap) {
  const want = Math.min(length, cap);
  const bytes = await sandbox.readBinary(path, { offset, length: want + 1 });
  let found;
  if (bytes.length <= want) found = { end: bytes.length, truncated: false };
  else if (want === length) found = { end: charBoundary(bytes, want) || want, truncated: false, more: true };
  else {
    let end = bytes.lastIndexOf(NEWLINE, want - 1) + 1;
    if (end < want / 2) end = charBoundary(bytes, want);
    found = { end, truncated: true };
  }
  const fit = fitFront(bytes, found.end, cap);
  if (fit < found.end) {
    let end = bytes.lastIndexOf(NEWLINE, fit - 1) + 1;
    if (end < fit / 2) end = fit;
    return { text: decoder.decode(bytes.subarray(0, end)), bytes: end, truncated: true, escaped: true };
  }
  const { end, truncated, more } = found;
  return { text: decoder.decode(bytes.subarray(0, end)), bytes: end, truncated, ...(more ? { more } : {}) };
}

// The first n lines: { text, bytes, truncated } (truncated when they exceed cap).
async function readHead(sandbox, path, n, cap, signal) {
  const chunks = [];
  let total = 0;
  let lines = 0;
  for (;;) {
    signal?.throwIfAborted();
    const chunk = Buffer.from(await sandbox.readBinary(path, { offset: total, length: CHUNK }));
    if (chunk.length === 0) break;
    let cut = -1;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) {
      if (++lines === n) {
        cut = i + 1;
        break;
      }
    }
    const part = cut === -1 ? chunk : chunk.subarray(0, cut);
    chunks.push(part);
    total += part.length;
    if (total > cap) {
      const all = concat(chunks);
      const end = fitFront(all, charBoundary(all, cap), cap);
      return { text: decoder.decode(all.subarray(0, end)), bytes: end, truncated: true };
    }
    if (cut !== -1 || chunk.length < CHUNK) break;
  }
  const all = concat(chunks);
  const end = fitFront(all, all.length, cap);
  return { text: decoder.decode(all.subarray(0, end)), bytes: end, truncated: end < all.length };
}

// The last n lines: { text, bytes, start (their offset), truncated }. A final "\n" ends the last
// line rather than starting an empty one.
async function readTail(sandbox, path, n, size, cap, signal) {
  const chunks = [];
  let start = size;
  let lines = 0;
  let skipFinalNewline = true;
  while (start > 0) {
    signal?.throwIfAborted();
    const from = Math.max(0, start - CHUNK);
    const chunk = Buffer.from(await sandbox.readBinary(path, { offset: from, length: start - from }));
    let cut = -1;
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] !== NEWLINE) {
        skipFinalNewline = false;
        continue;
      }
      if (skipFinalNewline) {
        skipFinalNewline = false;
        continue;
      }
      if (++lines === n) {
        cut = i + 1;
        break;
      }
    }
    const part = cut === -1 ? chunk : chunk.subarray(cut);
    chunks.unshift(part);
    start = cut === -1 ? from : from + cut;
    if (size - start > cap) break;
    if (cut !== -1) break;
  }
  const all = concat(chunks);
  // Within the cap as sent: at least as far in as the escapes need.
  const least = fitBack(all, cap);
  if (all.length <= cap && least === 0) return { text: decoder.decode(all), bytes: all.length, start, truncated: false };
  // Keep the end: drop whole lines from the front, or bytes up to a character boundary.
  let from = Math.max(all.length - cap, least);
  const nl = all.indexOf(NEWLINE, from);
  if (nl !== -1 && nl + 1 < all.length) from = nl + 1;
  else while (from < all.length && (all[from] & 0xc0) === 0x80) from++;
  return { text: decoder.decode(all.subarray(from)), bytes: all.length - from, start: start + from, truncated: true };
}

module.exports = { readRange, readHead, readTail, CHUNK };
