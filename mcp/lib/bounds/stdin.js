'use strict';

// The server's stdin, one JSON-RPC message per line, with a bound of its own on a message's size:
// the SDK's stdio transport closes (and the server exits) on a message over its buffer, so lines
// reach it only up to `maxBytes`; a longer one is dropped as it streams in (never held whole) and
// answered with a JSON-RPC error naming the bound, and the server goes on serving. A request the
// SDK would drop unanswered (a progress token of the wrong type) is answered here too, and so is
// one that is not valid UTF-8 or holds a lone surrogate: decoded, a 0xFF byte would become U+FFFD
// and a path would name another file than the one sent (a\xff.txt would write a\ufffd.txt).
// Input is taken no faster than replies drain (bounds/stdout.js).
const { Transform } = require('stream');
const { isUtf8 } = require('buffer');

// Enough of a dropped message's start and end to find its id in (clients write it first or last).
const HEAD_BYTES = 4096;
const INVALID_REQUEST = -32600;

const INVALID_PARAMS = -32602;
const PROGRESS_TOKEN = Buffer.from('"progressToken"');

// A request whose progress token is neither a string nor a number fails the SDK's check of the
// whole message, which it then drops unanswered: answered here instead, with what is wrong.
function badProgressToken(line) {
  if (!line.includes(PROGRESS_TOKEN)) return null;
  let message;
  try {
    message = JSON.parse(line.toString('utf8'));
  } catch {
    return null; // not JSON: the transport's to report
  }
  const token = message?.params?._meta?.progressToken;
  if (token === undefined || typeof token === 'string' || typeof token === 'number') return null;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const error = { code: INVALID_PARAMS, message: 'params._meta.progressToken must be a string or a number' };
  return `${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`;
}

// A \uD800..\uDFFF escape: only then can a parsed string hold a lone surrogate.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

function hasLoneSurrogate(value) {
  if (typeof value === 'string') return !value.isWellFormed();
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => !key.isWellFormed() || hasLoneSurrogate(item));
}

// The error for a line that is not valid UTF-8, or whose strings hold a lone surrogate; null for
// a line that is fine (or not JSON, which is the transport's to report).
function badText(line) {
  let problem = null;
  if (!isUtf8(line)) {
    const at = firstInvalidByte(line);
    problem = `the message is not valid UTF-8 (byte 0x${line[at].toString(16).padStart(2, '0')} at offset ${at})`;
  } else if (SURROGATE_ESCAPE.test(line.toString('latin1')) && hasLoneSurrogate(parsedOrNull(line))) {
    problem = 'the message holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape)';
  }
  if (problem === null) return null;
  const text = line.toString('latin1');
  const id = idIn(text.slice(0, HEAD_BYTES), text.slice(-HEAD_BYTES));
  const message = `Refused: ${problem}. Paths, names and text must be valid Unicode; nothing was done.`;
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message } })}\n`;
}

function parsedOrNull(line) {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return null;
  }
}

// Where a line stops being UTF-8: decoding replaces the first bad sequence, so the line and its
// decoded text written back agree up to there.
function firstInvalidByte(line) {
  const again = Buffer.from(line.toString('utf8'), 'utf8');
  let at = 0;
  while (at < line.length && line[at] === again[at]) at++;
  return Math.min(at, line.length - 1);
}

const ID = /"id"\s*:\s*("(?:[^"\\]|\\.){0,256}"|-?\d{1,16})/g;

// The id of a request from the start or the end of its text, or null. Inside a string a quote is
// escaped, so a bare "id" is a key; the last one of the end, or else the first of the start, is
// the request's own (the SDK writes it last, others first).
function idIn(head, tail) {
  const last = [...tail.matchAll(ID)].pop() ?? [...head.matchAll(ID)][0];
  if (last === undefined) return null;
  try {
    return JSON.parse(last[1]);
  } catch {
    return null;
  }
}

class BoundedLines extends Transform {
  /**
   * @param {{ maxBytes: number, replies: import('./stdout').Replies }} options where replies
   *   go (stdout): this one's own, and the room it has, which paces the input
   */
  constructor({ maxBytes, replies }) {
    super();
    this.maxBytes = maxBytes;
    this.replies = replies;
    this.reply = (line) => replies.write(line);
    this.length = 0; // bytes of the current line so far
    this.pieces = []; // the current line, while it fits
    this.dropping = false;
    this.head = [];
    this.tail = Buffer.alloc(0);
  }

  _transform(chunk, encoding, done) {
    let at = 0;
    while (at < chunk.length) {
      const newline = chunk.indexOf(0x0a, at);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.take(chunk.subarray(at, end), newline !== -1);
      at = end;
    }
    this.replies.roomFor().then(() => done());
  }

  // A piece of the current line; `last` when it ends the line. Only whole lines that fit are
  // passed on; a line past the bound keeps only its head, for the id.
  take(piece, last) {
    this.length += piece.length;
    if (!this.dropping && this.length > this.maxBytes + 1) {
      this.dropping = true;
      this.head = [Buffer.concat(this.pieces).subarray(0, HEAD_BYTES)];
      this.pieces = [];
    }
    if (this.dropping) {
      const headBytes = this.head.reduce((n, b) => n + b.length, 0);
      if (headBytes < HEAD_BYTES) this.head.push(Buffer.from(piece.subarray(0, HEAD_BYTES - headBytes)));
      this.tail = Buffer.concat([this.tail, piece.subarray(-HEAD_BYTES)]).subarray(-HEAD_BYTES);
    } else {
      this.pieces.push(piece);
    }
    if (last) this.endLine();
  }

  endLine() {
    if (this.dropping) {
      const id = idIn(Buffer.concat(this.head).toString('utf8'), this.tail.toString('utf8'));
      const message = `Message of ${this.length} bytes is over this server's limit of ${this.maxBytes} bytes: ` +
        'send less at once (write a large file in parts, or read fewer files per call)';
      this.reply(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } })}\n`);
    } else {
      const line = this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces);
      const refusal = badText(line) ?? badProgressToken(line);
      if (refusal === null) this.push(line);
      else this.reply(refusal);
    }
    this.length = 0;
    this.pieces = [];
    this.dropping = false;
    this.head = [];
    this.tail = Buffer.alloc(0);
  }
}

module.exports = { BoundedLines, idIn, badProgressToken, badText };
