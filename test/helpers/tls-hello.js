'use strict';

// TLS 1.3 ClientHellos built byte by byte, for attacks no TLS library will make: a first hello
// with an empty key share (which makes the server answer HelloRetryRequest) and a second hello,
// after it, naming another host. Also reads the server's first handshake message back.
const crypto = require('crypto');

const u16 = (n) => Buffer.from([n >> 8, n & 0xff]);
const u24 = (n) => Buffer.from([n >> 16, (n >> 8) & 0xff, n & 0xff]);
const vector16 = (bytes) => Buffer.concat([u16(bytes.length), bytes]);
const extension = (type, body) => Buffer.concat([u16(type), vector16(body)]);

const X25519 = 0x001d;
const HRR_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');

// A raw X25519 public key, as a key_share entry carries it.
function x25519PublicKey() {
  const { publicKey } = crypto.generateKeyPairSync('x25519');
  return Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
}

/**
 * One ClientHello record. `keyShare` false sends an empty key_share (asking for a retry);
 * `random` and `session` let a second hello repeat the first's, as RFC 8446 asks.
 */
function clientHello({ servername, keyShare = true, random = crypto.randomBytes(32), session = crypto.randomBytes(32), cookie = null }) {
  const name = Buffer.from(servername, 'latin1');
  const extensions = [
    extension(0x0000, vector16(Buffer.concat([Buffer.from([0]), vector16(name)]))),
    extension(0x000a, vector16(u16(X25519))),
    extension(0x000d, vector16(Buffer.concat([0x0403, 0x0804, 0x0401, 0x0503, 0x0805].map(u16)))),
    extension(0x002b, Buffer.from([2, 0x03, 0x04])),
    extension(0x002d, Buffer.from([1, 1])),
    extension(0x0033, vector16(keyShare ? Buffer.concat([u16(X25519), vector16(x25519PublicKey())]) : Buffer.alloc(0))),
  ];
  if (cookie) extensions.push(extension(0x002c, cookie));
  const body = Buffer.concat([
    u16(0x0303),
    random,
    Buffer.from([session.length]),
    session,
    vector16(Buffer.concat([0x1301, 0x1302, 0x1303].map(u16))),
    Buffer.from([1, 0]),
    vector16(Buffer.concat(extensions)),
  ]);
  const message = Buffer.concat([Buffer.from([1]), u24(body.length), body]);
  return { record: Buffer.concat([Buffer.from([0x16, 0x03, 0x01]), u16(message.length), message]), random, session };
}

// The first handshake message in the server's bytes: { retry, cookie } once a ServerHello is
// whole (retry: it is a HelloRetryRequest; cookie: the extension's body to echo), else null.
function serverHello(bytes) {
  let at = 0;
  while (at + 5 <= bytes.length && bytes[at] !== 0x16) at += 5 + bytes.readUInt16BE(at + 3);
  if (at + 5 > bytes.length || at + 5 + bytes.readUInt16BE(at + 3) > bytes.length) return null;
  const message = bytes.subarray(at + 5 + 4, at + 5 + bytes.readUInt16BE(at + 3));
  const random = message.subarray(2, 34);
  let p = 34;
  p += 1 + message[p]; // session id
  p += 3; // suite, compression
  const end = p + 2 + message.readUInt16BE(p);
  let cookie = null;
  for (p += 2; p + 4 <= end; ) {
    const type = message.readUInt16BE(p);
    const length = message.readUInt16BE(p + 2);
    if (type === 0x002c) cookie = message.subarray(p + 4, p + 4 + length);
    p += 4 + length;
  }
  return { retry: random.equals(HRR_RANDOM), cookie };
}

module.exports = { clientHello, serverHello, HRR_RANDOM };
