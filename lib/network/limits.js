'use strict';

// The network judge's bounds, in one place so each protocol file stops where the others do: what
// one command can make the judge buffer, hold open, remember or wait for.

const LIMITS = Object.freeze({
  headerBytes: 16 * 1024,
  socksBytes: 1024,
  peekBytes: 16 * 1024,
  connections: 512,
  // Requests one client connection may send ahead of the answer it waits for (lib/network/turns.js).
  pipelined: 64,
  idleMs: 5 * 60 * 1000,
  // A client that waits for the server to speak first (SSH, SMTP) is piped after this long.
  firstByteMs: 300,
  // Once a client has started a TLS ClientHello or an HTTP request line, the time it gets to
  // finish it; a half-sent hello must never be piped unread.
  finishMs: 10 * 1000,
  handshakeMs: 10 * 1000,
  connectMs: 10 * 1000,
  listEntries: 256,
  names: 4096,
  questions: 4096,
});

module.exports = { LIMITS };
