'use strict';

// What the network judge does with the bytes of a connection it has judged by destination (a
// CONNECT or SOCKS5 tunnel, a captured port): it reads what the client sends first, refuses a TLS
// hello that names another host or anything it cannot read where only TLS and HTTP may pass,
// serves plain HTTP request by request, and pipes the rest.

const { matchDestination } = require('./policy');
const { LIMITS } = require('./limits');
const { FirstBytes } = require('./first-bytes');
const { listen, pipe } = require('./sockets');
const { HandshakeFollower } = require('./tls-handshake');

// Reads what the client sends first, enough to know what it is (lib/network/first-bytes.js): { kind:
// 'tls', sni } for a whole ClientHello; 'http' for an HTTP/1.x request line (when `http`),
// after any empty lines; 'raw' for anything else; 'silent' when nothing came within `waitMs`;
// 'bad-tls' / 'bad-http' for a hello or request line that is malformed or unfinished.
// `bytes` holds everything read, `request` the request from its line on.
function readFirst(socket, initial, { http: httpAware, waitMs }) {
  return new Promise((resolve) => {
    const first = new FirstBytes({ http: httpAware, limit: LIMITS.peekBytes });
    if (initial.length > 0) first.push(initial);
    let timer = null;
    let stop = () => socket.pause();
    const finish = (result) => {
      clearTimeout(timer);
      stop();
      const outcome = typeof result === 'string' ? { kind: result } : result;
      resolve({ ...outcome, bytes: first.bytes, request: first.request });
    };
    const settle = (final) => {
      const result = first.classify(final);
      if (result) finish(result);
      return result;
    };
    const onData = (chunk) => {
      const wasEmpty = first.length === 0;
      first.push(chunk);
      if (settle(false)) return;
      // The rest of a message begun gets finishMs from its first byte, not from each piece.
      if (wasEmpty) {
        clearTimeout(timer);
        timer = setTimeout(() => settle(true), LIMITS.finishMs);
      }
    };
    if (settle(socket.readableEnded || socket.destroyed)) return;
    timer = setTimeout(() => settle(true), first.length === 0 ? waitMs : LIMITS.finishMs);
    stop = listen(socket, onData, () => settle(true));
  });
}

// Whether a connection to host:port may start with silence (a client that waits for the server
// to speak first, as SSH and SMTP do): only on a port an allow entry names explicitly
// (`git.example.org:22`), never 80 or 443. Elsewhere a client that pauses and then sends a
// ClientHello or a request gets it read and judged, never piped unread.
function mayPassUnread(policy, host, port) {
  if (port === 80 || port === 443) return false;
  const verdict = matchDestination(policy, host, port);
  return verdict.allowed && verdict.entry !== null && verdict.entry.port === port;
}

// How long to wait for a first byte: a short while where silence may be piped (a server that
// speaks first), else as long as a started message gets.
function firstWaitMs(policy, host, port) {
  return mayPassUnread(policy, host, port) ? LIMITS.firstByteMs : LIMITS.finishMs;
}

// The refusal reason for first bytes that may not go to `host`, or null.
function firstBytesRefusal(policy, first, host, port) {
  if (first.kind === 'bad-tls') return 'bad-tls-hello';
  if (first.kind === 'bad-http') return 'bad-http-request';
  if (first.kind === 'tls' && first.sni !== null && first.sni !== host.toLowerCase()) return 'sni-mismatch';
  // On 80 and 443 only TLS and HTTP, which the judge reads; elsewhere a protocol it cannot read
  // is passed on, but silence only where an entry names the port (a server that speaks first).
  if (first.kind === 'raw' && (port === 80 || port === 443)) return 'unread-protocol';
  if (first.kind === 'silent' && !mayPassUnread(policy, host, port)) return 'silent-client';
  return null;
}

// The bytes of a tunnel that was opened to host:port: checked, then piped; plain HTTP is
// served per request instead, with Host set to the tunnel's host (so a request through a
// tunnel to an allowed CDN address cannot name another site in its Host header). The
// connection already open serves the first request.
/** @param {import('./judge').Judging} judging */
async function tunnel(judging, client, initial, upstream, host, port) {
  const { policy, report } = judging;
  const first = await readFirst(client, initial, { http: true, waitMs: firstWaitMs(policy, host, port) });
  const refusal = firstBytesRefusal(policy, first, host, port);
  if (refusal) {
    report.refused(host, port, refusal);
    client.destroy();
    upstream.destroy();
    return;
  }
  if (first.kind === 'http') return judging.serveHttp(client, first.request, { host, port, spare: upstream });
  relay(judging.report, client, upstream, first, host, port);
}

// Joins a judged client to its upstream: TLS followed until its handshake can name no other
// host (lib/network/tls-handshake.js), anything else piped as it is.
function relay(report, client, upstream, first, host, port) {
  if (first.kind !== 'tls') return pipe(client, upstream, first.bytes);
  const follower = new HandshakeFollower(first.sni);
  const up = (chunk) => {
    const passed = follower.fromClient(chunk);
    if (passed === null) report.refused(host, port, follower.refusal);
    return passed;
  };
  pipe(client, upstream, first.bytes, { up, down: (chunk) => follower.fromServer(chunk) });
}

module.exports = { readFirst, firstWaitMs, firstBytesRefusal, tunnel, relay };
