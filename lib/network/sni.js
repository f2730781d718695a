'use strict';

// Reads the server name (SNI) out of the TLS ClientHello a client sends first, so the judge can
// refuse a tunnel whose TLS names another host than the one judged (domain fronting through a
// CDN that routes by SNI). Strict on purpose: bytes that start like a TLS handshake but do not
// parse as one ClientHello are refused, never passed on unread, since a server might read them
// differently.

const RECORD_HANDSHAKE = 0x16;
const HANDSHAKE_CLIENT_HELLO = 1;
const EXTENSION_SERVER_NAME = 0;
const NAME_TYPE_HOST = 0;
const MAX_RECORD_BYTES = 16384 + 2048;
const HOST_PATTERN = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

// True when the first byte says a TLS handshake record follows.
function looksLikeTls(bytes) {
  return bytes.length > 0 && bytes[0] === RECORD_HANDSHAKE;
}

// The first handshake message in `joined` (the handshake records' fragments, joined): { type,
// body }, or null when it does not hold one whole.
function readHandshakeMessage(joined) {
  if (joined.length < 4) return null;
  const length = joined.readUIntBE(1, 3);
  if (joined.length < 4 + length) return null;
  return { type: joined[0], body: joined.subarray(4, 4 + length) };
}

// Walks the handshake records at the start of `bytes` once, until their fragments hold one
// whole handshake message, and joins them once. Returns { type, body }, 'more' when `bytes`
// ends first, or 'invalid'.
function firstHandshakeMessage(bytes) {
  const fragments = [];
  let gathered = 0;
  let needed = -1; // the message's whole length, once its 4-byte header has arrived
  let at = 0;
  while (needed < 0 || gathered < needed) {
    if (at + 5 > bytes.length) return 'more';
    if (bytes[at] !== RECORD_HANDSHAKE || bytes[at + 1] !== 3) return 'invalid';
    const length = bytes.readUInt16BE(at + 3);
    if (length === 0 || length > MAX_RECORD_BYTES) return 'invalid';
    if (at + 5 + length > bytes.length) return 'more';
    fragments.push(bytes.subarray(at + 5, at + 5 + length));
    gathered += length;
    at += 5 + length;
    if (needed < 0 && gathered >= 4) needed = 4 + Buffer.concat(fragments).readUIntBE(1, 3);
  }
  return readHandshakeMessage(Buffer.concat(fragments));
}

// A cursor over a ClientHello body that fails (returns null) on any read past its end.
class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.at = 0;
  }

  take(count) {
    if (count < 0 || this.at + count > this.bytes.length) return null;
    const out = this.bytes.subarray(this.at, this.at + count);
    this.at += count;
    return out;
  }

  // A length-prefixed vector (prefix of 1 or 2 bytes).
  vector(prefix) {
    const head = this.take(prefix);
    if (!head) return null;
    return this.take(head.readUIntBE(0, prefix));
  }

  get done() {
    return this.at === this.bytes.length;
  }
}

// The host name in a server_name extension's body, or undefined when it is malformed (more than
// one host name, a name that is not a DNS name).
function serverName(body) {
  const outer = new Reader(body);
  const list = outer.vector(2);
  if (!list || !outer.done) return undefined;
  const entries = new Reader(list);
  let host = null;
  while (!entries.done) {
    const type = entries.take(1);
    const name = entries.vector(2);
    if (!type || !name) return undefined;
    if (type[0] !== NAME_TYPE_HOST) continue;
    if (host !== null) return undefined;
    host = name.toString('latin1');
    if (!HOST_PATTERN.test(host)) return undefined;
  }
  return host === null ? undefined : host.toLowerCase().replace(/\.$/, '');
}

// The SNI of a ClientHello body: { sni } (null without the extension) or 'invalid'.
function helloServerName(body) {
  const hello = new Reader(body);
  if (!hello.take(2 + 32)) return 'invalid'; // legacy_version, random
  const session = hello.vector(1);
  const suites = hello.vector(2);
  const compression = hello.vector(1);
  if (!session || session.length > 32 || !suites || suites.length < 2 || suites.length % 2 !== 0) return 'invalid';
  if (!compression || compression.length < 1) return 'invalid';
  if (hello.done) return { sni: null };
  const extensions = hello.vector(2);
  if (!extensions || !hello.done) return 'invalid';
  const list = new Reader(extensions);
  const seen = new Set();
  let sni = null;
  while (!list.done) {
    const type = list.take(2);
    const data = list.vector(2);
    if (!type || !data) return 'invalid';
    const code = type.readUInt16BE(0);
    if (seen.has(code)) return 'invalid';
    seen.add(code);
    if (code === EXTENSION_SERVER_NAME) {
      sni = serverName(data);
      if (sni === undefined) return 'invalid';
    }
  }
  return { sni };
}

// Reads the ClientHello at the start of `bytes`: 'more' (wait for more bytes), 'invalid' (not a
// well-formed ClientHello), or { sni } with the lowercased name without a trailing dot, or null
// when the hello names none.
function readClientHello(bytes) {
  const message = firstHandshakeMessage(bytes);
  if (typeof message === 'string') return message;
  if (message.type !== HANDSHAKE_CLIENT_HELLO) return 'invalid';
  return helloServerName(message.body);
}

module.exports = {
  looksLikeTls, readClientHello, readHandshakeMessage, helloServerName, HANDSHAKE_CLIENT_HELLO, RECORD_HANDSHAKE, MAX_RECORD_BYTES,
};
