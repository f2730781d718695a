'use strict';

// The SOCKS5 handshake (RFC 1928) as the judge speaks it: no authentication, CONNECT only.
// Parsers take the bytes received so far and say 'more' until a whole message is there.

const VERSION = 5;
const METHOD_NONE = 0x00;
const METHOD_UNACCEPTABLE = 0xff;

const COMMAND = Object.freeze({ CONNECT: 1, BIND: 2, UDP_ASSOCIATE: 3 });
const ADDRESS = Object.freeze({ IPV4: 1, DOMAIN: 3, IPV6: 4 });
const REPLY = Object.freeze({
  SUCCEEDED: 0x00,
  GENERAL_FAILURE: 0x01,
  NOT_ALLOWED: 0x02,
  HOST_UNREACHABLE: 0x04,
  COMMAND_NOT_SUPPORTED: 0x07,
  ADDRESS_NOT_SUPPORTED: 0x08,
});

// The greeting: VER NMETHODS METHODS. Returns 'more', 'invalid', or { noAuth, length }.
function parseGreeting(bytes) {
  if (bytes.length < 2) return 'more';
  if (bytes[0] !== VERSION || bytes[1] === 0) return 'invalid';
  const length = 2 + bytes[1];
  if (bytes.length < length) return 'more';
  return { noAuth: bytes.subarray(2, length).includes(METHOD_NONE), length };
}

function greetingReply(noAuth) {
  return Buffer.from([VERSION, noAuth ? METHOD_NONE : METHOD_UNACCEPTABLE]);
}

function ipv6Text(bytes) {
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}

// The request: VER CMD RSV ATYP DST.ADDR DST.PORT. Returns 'more', 'invalid', or
// { command, addressType, host, port, length }; `host` is the text sent (a domain name as given,
// IPv4 dotted, IPv6 uncompressed), for the caller to canonicalize.
function parseRequest(bytes) {
  if (bytes.length < 5) return 'more';
  if (bytes[0] !== VERSION || bytes[2] !== 0) return 'invalid';
  const command = bytes[1];
  const addressType = bytes[3];
  let host;
  let at;
  if (addressType === ADDRESS.IPV4) {
    if (bytes.length < 4 + 4 + 2) return 'more';
    host = Array.from(bytes.subarray(4, 8)).join('.');
    at = 8;
  } else if (addressType === ADDRESS.IPV6) {
    if (bytes.length < 4 + 16 + 2) return 'more';
    host = ipv6Text(bytes.subarray(4, 20));
    at = 20;
  } else if (addressType === ADDRESS.DOMAIN) {
    const nameLength = bytes[4];
    if (nameLength === 0) return 'invalid';
    if (bytes.length < 5 + nameLength + 2) return 'more';
    host = bytes.subarray(5, 5 + nameLength).toString('latin1');
    at = 5 + nameLength;
  } else {
    return { command, addressType, host: null, port: null, length: null };
  }
  return { command, addressType, host, port: bytes.readUInt16BE(at), length: at + 2 };
}

// A reply with the bound address 0.0.0.0:0: the judge binds nothing the client could use.
function requestReply(code) {
  return Buffer.from([VERSION, code, 0, ADDRESS.IPV4, 0, 0, 0, 0, 0, 0]);
}

module.exports = { COMMAND, ADDRESS, REPLY, parseGreeting, greetingReply, parseRequest, requestReply };
