'use strict';

// The network judge's captured ports: a command that dials an address the DNS stub gave out
// (lib/network/dns-stub.js) on an allowed port lands here, where the address is mapped back to
// the name it stands for. The name and port are judged as a proxy request would be, and the
// connection's first bytes checked as a tunnel's are, before anything is dialled or piped.

const { canonicalIp } = require('./destination');
const { EMPTY, endSocket } = require('./sockets');
const { readFirst, firstWaitMs, firstBytesRefusal, relay } = require('./tunnel');
const { refusalBytes } = require('./http-proxy');

// One connection made to `destination` (a captured port's, or the one a redirected connection
// was made to; null when it could not be read), from the name its address stands for to its
// upstream.
/** @param {import('./judge').Judging} judging @param {{ address: string | undefined, port: number } | null} destination */
async function capture(judging, socket, destination) {
  const { policy, report, dialer, names } = judging;
  if (destination === null) return socket.destroy();
  const { port } = destination;
  const local = canonicalIp(destination.address ?? '');
  const host = local && names.nameAt(local);
  if (!host) {
    report.refused(local ?? 'unknown', port, 'unknown-address');
    return socket.destroy();
  }
  const refusal = await dialer.judge(host, port);
  const first = await readFirst(socket, EMPTY, { http: true, waitMs: firstWaitMs(policy, host, port) });
  if (refusal) {
    report.refused(host, port, refusal);
    if (first.kind === 'http') endSocket(socket, refusalBytes(policy, host, port, refusal));
    else socket.destroy();
    return;
  }
  const firstRefusal = firstBytesRefusal(policy, first, host, port);
  if (firstRefusal) {
    report.refused(host, port, firstRefusal);
    return socket.destroy();
  }
  if (first.kind === 'http') return judging.serveHttp(socket, first.request, { host, port, spare: null });
  const opened = await dialer.open(host, port);
  if (opened.reason || socket.destroyed) {
    opened.socket?.destroy();
    return socket.destroy();
  }
  relay(report, socket, opened.socket, first, host, port);
}

module.exports = { capture };
