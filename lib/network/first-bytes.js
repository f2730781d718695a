'use strict';

// What a client sends first on a judged connection, read as it arrives: a TLS ClientHello (with
// its server name), an HTTP/1.x request line (after any empty lines, which servers skip: RFC 9112
// section 2.2), or anything else. Work is linear in the bytes whatever their pieces: they are
// appended to one growing buffer, TLS records are walked once each, and the request line's end
// is looked for only in bytes not yet searched, so a hello dripped one byte per record or per
// packet costs what it costs whole.

const {
  readHandshakeMessage, helloServerName, HANDSHAKE_CLIENT_HELLO, RECORD_HANDSHAKE, MAX_RECORD_BYTES,
} = require('./sni');

const CR = 0x0d;
const LF = 0x0a;
const METHOD_START = /^[A-Z]{1,20}(?: |$)/;
const REQUEST_LINE = /^[A-Z]{1,20} \S+ HTTP\/(\d)\.(\d)\r?$/;

class FirstBytes {
  #buffer = Buffer.alloc(256);
  #length = 0;
  #limit;
  #http;
  // TLS: where the next record header starts, and the handshake fragments gathered so far as
  // [start, end) offsets into the buffer (the buffer moves when it grows; offsets do not).
  #recordAt = 0;
  #fragments = [];
  #gathered = 0;
  // HTTP: how many empty-line bytes lead, and how far the search for the line's end has gone.
  #skip = 0;
  #searched = 0;

  /** @param {{ http: boolean, limit: number }} options */
  constructor({ http, limit }) {
    this.#http = http;
    this.#limit = limit;
  }

  get length() {
    return this.#length;
  }

  /** Everything read so far, for the caller to pass on. */
  get bytes() {
    return this.#buffer.subarray(0, this.#length);
  }

  /** The bytes from the request line on (leading empty lines dropped). */
  get request() {
    return this.#buffer.subarray(this.#skip, this.#length);
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    if (this.#length + chunk.length > this.#buffer.length) {
      const grown = Buffer.alloc(Math.max(this.#buffer.length * 2, this.#length + chunk.length));
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    chunk.copy(this.#buffer, this.#length);
    this.#length += chunk.length;
  }

  /**
   * What the bytes are: null while more are needed; 'silent' (nothing came), 'raw', 'http',
   * 'bad-tls', 'bad-http' or { kind: 'tls', sni }. `final`: no more will come (the client ended
   * its sending, or the wait is over).
   * @param {boolean} final
   */
  classify(final) {
    if (this.#length === 0) return final ? 'silent' : null;
    const full = final || this.#length >= this.#limit;
    if (this.#buffer[0] === RECORD_HANDSHAKE) return this.#classifyTls(full);
    if (!this.#http) return 'raw';
    return this.#classifyHttp(full);
  }

  #classifyTls(full) {
    const bytes = this.#buffer;
    while (this.#recordAt + 5 <= this.#length && !this.#wholeMessage()) {
      const at = this.#recordAt;
      if (bytes[at] !== RECORD_HANDSHAKE || bytes[at + 1] !== 3) return 'bad-tls';
      const length = bytes.readUInt16BE(at + 3);
      if (length === 0 || length > MAX_RECORD_BYTES) return 'bad-tls';
      if (at + 5 + length > this.#length) break;
      this.#fragments.push([at + 5, at + 5 + length]);
      this.#gathered += length;
      this.#recordAt = at + 5 + length;
    }
    if (!this.#wholeMessage()) return full ? 'bad-tls' : null;
    const message = readHandshakeMessage(Buffer.concat(this.#fragments.map(([s, e]) => bytes.subarray(s, e))));
    if (message === null || message.type !== HANDSHAKE_CLIENT_HELLO) return 'bad-tls';
    const hello = helloServerName(message.body);
    return hello === 'invalid' ? 'bad-tls' : { kind: 'tls', sni: hello.sni };
  }

  // Whether the fragments gathered hold the first handshake message whole: its 4-byte header
  // (type, 24-bit length) may itself be split across records.
  #wholeMessage() {
    if (this.#gathered < 4) return false;
    const header = [];
    for (const [start, end] of this.#fragments) {
      for (let i = start; i < end && header.length < 4; i++) header.push(this.#buffer[i]);
      if (header.length === 4) break;
    }
    const length = (header[1] << 16) | (header[2] << 8) | header[3];
    return this.#gathered >= 4 + length;
  }

  #classifyHttp(full) {
    const bytes = this.#buffer;
    while (this.#skip < this.#length && (bytes[this.#skip] === CR || bytes[this.#skip] === LF)) this.#skip++;
    if (this.#skip === this.#length) return full ? 'raw' : null;
    const start = bytes.subarray(this.#skip, Math.min(this.#skip + 21, this.#length)).toString('latin1');
    if (!METHOD_START.test(start)) return 'raw';
    const from = Math.max(this.#searched, this.#skip);
    const end = bytes.subarray(0, this.#length).indexOf(LF, from);
    if (end < 0) {
      this.#searched = this.#length;
      return full ? 'bad-http' : null;
    }
    const text = bytes.subarray(this.#skip, end).toString('latin1');
    const line = REQUEST_LINE.exec(text);
    if (!line) return /\bHTTP\/\d/.test(text) ? 'bad-http' : 'raw';
    return line[1] === '1' ? 'http' : 'bad-http';
  }
}

module.exports = { FirstBytes };
