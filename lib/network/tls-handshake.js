'use strict';

// A TLS connection the judge lets through, followed record by record in both directions until
// nothing in it can name another host. The first ClientHello alone does not settle the name: a
// server that answers HelloRetryRequest reads a second hello, and OpenSSL's server-name callback
// (nginx's, HAProxy's, Apache's) picks its certificate and site again from that one. So every
// plaintext ClientHello is read whole and held until judged: it must name what the first named.
// The server's side is read only up to its ServerHello, which says whether a retry was asked
// for and which version was chosen:
// - TLS 1.3: once the ServerHello is not a retry, every later handshake record from the client
//   is encrypted (record type 23); a plaintext handshake record after it is refused.
// - TLS 1.2 and older: the client's handshake records stay plaintext up to its ChangeCipherSpec,
//   and one handshake record (its Finished) follows it. Any handshake record after that is a
//   renegotiation, encrypted where the judge cannot read its server name, and is refused.
// Work is linear in the bytes: record headers are walked once, and only the plaintext handshake
// records that must be judged are held, within MAX_HELD_BYTES.

const { helloServerName, MAX_RECORD_BYTES } = require('./sni');

const EMPTY = Buffer.alloc(0);
const RECORD = Object.freeze({ CHANGE_CIPHER_SPEC: 0x14, HANDSHAKE: 0x16 });
const MESSAGE = Object.freeze({ CLIENT_HELLO: 1, SERVER_HELLO: 2 });
const EXTENSION_SUPPORTED_VERSIONS = 0x002b;
const TLS13 = 0x0304;
// A ClientHello, or TLS 1.2's plaintext flight (a client certificate chain among it), held whole.
const MAX_HELD_BYTES = 64 * 1024;
// RFC 8446 section 4.1.3: a ServerHello with this random is a HelloRetryRequest.
const RETRY_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');

// Walks one direction's records as their bytes arrive in pieces of any size: a record's header
// is handed to onHeader(type, header), each piece of its body to onBody(piece, last).
class RecordWalk {
  #header = EMPTY;
  #left = 0;
  #inBody = false;

  /** Returns false when the bytes are not TLS records (or a handler said stop). */
  walk(chunk, onHeader, onBody) {
    let at = 0;
    while (at < chunk.length || (this.#inBody && this.#left === 0)) {
      if (this.#inBody) {
        const piece = chunk.subarray(at, at + this.#left);
        at += piece.length;
        this.#left -= piece.length;
        if (this.#left === 0) this.#inBody = false;
        if (!onBody(piece, this.#left === 0)) return false;
        continue;
      }
      const take = Math.min(5 - this.#header.length, chunk.length - at);
      this.#header = Buffer.concat([this.#header, chunk.subarray(at, at + take)]);
      at += take;
      if (this.#header.length < 5) return true;
      const header = this.#header;
      this.#header = EMPTY;
      if (header[1] !== 3 || header.readUInt16BE(3) > MAX_RECORD_BYTES) return false;
      this.#left = header.readUInt16BE(3);
      this.#inBody = true;
      if (!onHeader(header[0], header)) return false;
    }
    return true;
  }
}

// Handshake messages gathered from the fragments of consecutive handshake records. Pieces are
// kept as they came and joined once, when a message is whole: a hello dripped one byte per record
// costs what it costs whole.
class Messages {
  #pieces = [];
  #length = 0;

  get pending() {
    return this.#length > 0;
  }

  add(fragment) {
    if (fragment.length > 0) this.#pieces.push(fragment);
    this.#length += fragment.length;
    return this.#length <= MAX_HELD_BYTES;
  }

  // The whole messages gathered so far, as { type, body }, keeping a partial one.
  take() {
    if (this.#length < 4 || this.#length < 4 + this.#firstLength()) return [];
    const bytes = Buffer.concat(this.#pieces, this.#length);
    const whole = [];
    let at = 0;
    while (at + 4 <= bytes.length) {
      const end = at + 4 + bytes.readUIntBE(at + 1, 3);
      if (end > bytes.length) break;
      whole.push({ type: bytes[at], body: bytes.subarray(at + 4, end) });
      at = end;
    }
    this.#pieces = at === bytes.length ? [] : [bytes.subarray(at)];
    this.#length = bytes.length - at;
    return whole;
  }

  // The body length the first message's header gives (its first 4 bytes, across pieces).
  #firstLength() {
    const header = [];
    for (const piece of this.#pieces) {
      for (let i = 0; i < piece.length && header.length < 4; i++) header.push(piece[i]);
      if (header.length === 4) break;
    }
    return (header[1] << 16) | (header[2] << 8) | header[3];
  }
}

// What a ServerHello says: 'retry', 'tls13' or 'tls12' (TLS 1.2 or older), or null when it
// cannot be read.
function serverHelloKind(body) {
  if (body.length < 38) return null;
  if (body.subarray(2, 34).equals(RETRY_RANDOM)) return 'retry';
  let at = 34;
  at += 1 + body[at]; // legacy_session_id_echo
  at += 3; // cipher_suite, legacy_compression_method
  if (at === body.length) return 'tls12';
  if (at + 2 > body.length) return null;
  const end = at + 2 + body.readUInt16BE(at);
  if (end !== body.length) return null;
  for (at += 2; at + 4 <= end; ) {
    const type = body.readUInt16BE(at);
    const length = body.readUInt16BE(at + 2);
    if (type === EXTENSION_SUPPORTED_VERSIONS && length === 2) return body.readUInt16BE(at + 4) === TLS13 ? 'tls13' : 'tls12';
    at += 4 + length;
  }
  return 'tls12';
}

class HandshakeFollower {
  #sni;
  // 'hello': the server has not yet chosen (or asked for a retry): every client handshake record
  // is held and read. 'tls13': settled. 'tls12' (plaintext flight), 'tls12-finished' (its
  // ChangeCipherSpec sent, its Finished next), 'tls12-done': settled, renegotiation refused.
  #phase = 'hello';
  #client = new RecordWalk();
  #server = new RecordWalk();
  #serverMessages = new Messages();
  #serverDone = false;
  #clientMessages = new Messages();
  #holding = false;
  #held = [];
  #out = [];
  /** Why the connection was refused, once it was: a report reason. */
  refusal = null;

  /** @param {string | null} sni what the first ClientHello named (already judged) */
  constructor(sni) {
    this.#sni = sni;
  }

  /** The client's bytes that may go upstream now, or null when the connection is refused. */
  fromClient(chunk) {
    if (this.refusal) return null;
    this.#out = [];
    const ok = this.#client.walk(chunk, (type, header) => this.#clientHeader(type, header), (piece, last) => this.#clientBody(piece, last));
    if (!ok) this.refusal ??= 'bad-tls-hello';
    return this.refusal ? null : Buffer.concat(this.#out);
  }

  /** Reads the server's bytes (passed on unchanged) up to its ServerHello. */
  fromServer(chunk) {
    if (this.#serverDone || this.refusal) return;
    let handshake = false;
    const ok = this.#server.walk(
      chunk,
      (type) => {
        handshake = type === RECORD.HANDSHAKE;
        // An alert or anything else before a ServerHello: the handshake failed or is not TLS;
        // the client's side stays as strict as before a ServerHello.
        if (!handshake && type !== RECORD.CHANGE_CIPHER_SPEC) this.#serverDone = true;
        return !this.#serverDone;
      },
      (piece) => !handshake || this.#serverPiece(piece),
    );
    if (!ok) this.#serverDone = true;
  }

  #serverPiece(piece) {
    if (!this.#serverMessages.add(piece)) return false;
    for (const message of this.#serverMessages.take()) {
      const kind = message.type === MESSAGE.SERVER_HELLO ? serverHelloKind(message.body) : null;
      if (kind === 'retry') continue; // the client's next hello is read like its first
      if (kind !== null && this.#phase === 'hello') this.#phase = kind;
      return false; // settled (or unreadable): the server's side is not read further
    }
    return true;
  }

  #clientHeader(type, header) {
    if (type !== RECORD.HANDSHAKE) {
      // Handshake messages are never interleaved with other records (RFC 8446 section 5.1).
      if (this.#clientMessages.pending) return this.#refuse('bad-tls-hello');
      if (type === RECORD.CHANGE_CIPHER_SPEC && this.#phase === 'tls12') this.#phase = 'tls12-finished';
      this.#out.push(header);
      this.#holding = false;
      return true;
    }
    if (this.#phase === 'tls13' || this.#phase === 'tls12-done') return this.#refuse('tls-renegotiation');
    if (this.#phase === 'tls12-finished') this.#phase = 'tls12-done';
    this.#holding = this.#phase === 'hello' || this.#phase === 'tls12';
    (this.#holding ? this.#held : this.#out).push(header);
    return true;
  }

  #clientBody(piece, last) {
    if (!this.#holding) {
      this.#out.push(piece);
      return true;
    }
    this.#held.push(piece);
    if (!this.#clientMessages.add(piece)) return this.#refuse('bad-tls-hello');
    if (!last) return true;
    for (const message of this.#clientMessages.take()) {
      if (!this.#clientMessageAllowed(message)) return false;
    }
    // A record is passed on once every message it ends is judged; one that begins a message
    // another record finishes waits for it.
    if (!this.#clientMessages.pending) {
      this.#out.push(Buffer.concat(this.#held));
      this.#held = [];
    }
    return true;
  }

  // Before the server has chosen, a client sends only ClientHellos, each naming what the first
  // named; in TLS 1.2's plaintext flight, any message but a ClientHello.
  #clientMessageAllowed({ type, body }) {
    if (type !== MESSAGE.CLIENT_HELLO) return this.#phase === 'tls12' || this.#refuse('bad-tls-hello');
    if (this.#phase !== 'hello') return this.#refuse('tls-renegotiation');
    const hello = helloServerName(body);
    if (hello === 'invalid') return this.#refuse('bad-tls-hello');
    return hello.sni === this.#sni || this.#refuse('sni-mismatch');
  }

  #refuse(reason) {
    this.refusal ??= reason;
    return false;
  }
}

module.exports = { HandshakeFollower, serverHelloKind, RETRY_RANDOM };
