'use strict';

// The judge of a filtered command's network (issue 21): it runs in the calling Node process and
// serves the sockets the launcher made inside the command's network namespace, which is the only
// way out of it. Every destination is judged by the policy (lib/network/policy.js) before a byte
// leaves: an HTTP proxy (absolute-URI requests and CONNECT), SOCKS5 (CONNECT), a DNS stub that
// resolves allowed names to per-name loopback addresses, and the listeners that map those
// addresses back to names: one that every TCP port of them is redirected to (the port asked for
// read back with SO_ORIGINAL_DST), and capture listeners on the allowed ports for where the
// launcher could not install the redirect. An allowed name is resolved once, here, and the
// address checked is the address dialed (no DNS rebinding onto private or local addresses).
// Nothing the command sends (headers, bodies, credentials) is logged or kept; the report holds
// destinations, counts and reasons only.
//
// This file is the judge's life (its listeners, the connections it admits, closing) and which
// protocol serves which listener; each protocol is a file of its own beside it: http-proxy.js,
// tunnel.js, socks-server.js, dns-stub.js and capture.js, all of them opening upstream
// connections through dialer.js and recording them in report.js.

const dnsCodec = require('./dns');
const { isNetworkPolicy } = require('./policy');
const { LIMITS } = require('./limits');
const { canonicalHost, parseAuthority } = require('./destination');
const { REFUSALS, refusalSentence, Report } = require('./report');
const { noop, guard, closeServer } = require('./sockets');
const { Dialer } = require('./dialer');
const { HttpProxy, originForm } = require('./http-proxy');
const { serveSocks } = require('./socks-server');
const { answerDns } = require('./dns-stub');
const { capture } = require('./capture');
const { addon } = require('../common/native');

// SO_ORIGINAL_DST of a connection accepted on the redirect listener, through the addon.
function redirectedFrom(socket) {
  const fd = /** @type {any} */ (socket)._handle?.fd;
  if (!Number.isInteger(fd) || fd < 0) throw new Error('the connection has no descriptor');
  return addon().originalDestination(fd);
}

/**
 * What the judge's protocols share, handed to each explicitly.
 * @typedef {{
 *   policy: import('./policy').NetworkPolicy,
 *   report: Report,
 *   dialer: Dialer,
 *   names: InstanceType<typeof dnsCodec.NameTable>,
 *   serveHttp: (socket: import('net').Socket, bytes: Buffer, target: { host: string, port: number, spare: import('net').Socket | null }) => void,
 * }} Judging
 */

class NetworkJudge {
  #judging;
  #http;
  #report;
  #servers = [];
  #datagrams = [];
  #sockets = new Set();
  #clients = 0;
  #closed = false;
  #originalDestination;

  /**
   * @param {{
   *   policy: import('./policy').NetworkPolicy,
   *   onRequest?: (destination: { host: string, port: number }) => boolean | Promise<boolean>,
   *   lookup?: (host: string) => Promise<string[]>,
   *   ownAddresses?: () => string[],
   *   originalDestination?: (socket: import('net').Socket) => { address: string, port: number } | null,
   * }} options originalDestination: where a redirected connection was made (the addon's
   *   SO_ORIGINAL_DST by default); null for one that was not redirected
   */
  constructor({ policy, onRequest, lookup, ownAddresses, originalDestination }) {
    if (!isNetworkPolicy(policy)) throw new TypeError('NetworkJudge: policy must come from parseNetwork()');
    for (const [name, value] of Object.entries({ onRequest, lookup, ownAddresses, originalDestination })) {
      if (value !== undefined && typeof value !== 'function') {
        throw new TypeError(`NetworkJudge: ${name} must be a function`);
      }
    }
    this.#originalDestination = originalDestination ?? redirectedFrom;
    this.#report = new Report(policy);
    const dialer = new Dialer({
      policy,
      onRequest: onRequest ?? null,
      lookup,
      ownAddresses,
      report: this.#report,
      track: (socket) => this.#track(socket),
      isClosed: () => this.#closed,
    });
    /** @type {Judging} */
    this.#judging = {
      policy,
      report: this.#report,
      dialer,
      names: new dnsCodec.NameTable(LIMITS.names),
      serveHttp: (socket, bytes, target) => this.#http.serveHttp(socket, bytes, target),
    };
    this.#http = new HttpProxy(this.#judging);
  }

  // Serves `handle` (a listening net.Server, or for 'dns' a bound dgram socket) as `label`:
  // 'http', 'socks', 'dns', 'capture <port>' or 'redirect'.
  attach(label, handle) {
    if (this.#closed) throw new Error('NetworkJudge: attach after close');
    if (label === 'dns') {
      this.#datagrams.push(handle);
      dnsCodec.serveDns(handle, (query) => answerDns(this.#judging, query));
      return;
    }
    const serve = this.#server(label);
    this.#servers.push(handle);
    // Half-open connections, as the HTTP server expects them and as a tunnel must carry them: a
    // client that ends its sending (shutdown) still gets the answer.
    handle.allowHalfOpen = true;
    handle.on('error', noop);
    handle.on('connection', (socket) => {
      if (this.#admit(socket)) serve(socket);
    });
  }

  // What the command reached and what was refused, merged per destination.
  report() {
    return this.#report.snapshot();
  }

  // Stops every listener and ends every open connection; resolves when all are closed.
  async close() {
    this.#closed = true;
    const closing = this.#servers.map(closeServer);
    for (const socket of this.#datagrams) {
      try {
        socket.close();
      } catch {
        // already closed
      }
    }
    const ended = [...this.#sockets].map((socket) => new Promise((resolve) => {
      if (socket.closed) return resolve();
      socket.once('close', resolve);
      socket.destroy();
    }));
    await Promise.all([...closing, ...ended]);
  }

  // The protocol that serves a stream listener's connections, by its label.
  #server(label) {
    const capturing = /^capture ([1-9]\d{0,4})$/.exec(String(label));
    if (label === 'http') return (socket) => this.#http.serveProxy(socket);
    if (label === 'socks') return (socket) => guard(socket, () => serveSocks(this.#judging, socket));
    if (capturing && Number(capturing[1]) <= 65535) {
      const port = Number(capturing[1]);
      return (socket) => guard(socket, () => capture(this.#judging, socket, { address: socket.localAddress, port }));
    }
    if (label === 'redirect') return (socket) => guard(socket, () => capture(this.#judging, socket, this.#destinationOf(socket)));
    throw new TypeError(`NetworkJudge: unknown listener label ${JSON.stringify(String(label))}`);
  }

  // Where a connection to the redirect listener was made: read back from the command's
  // namespace (its own port where it was not redirected); null when that cannot be read.
  #destinationOf(socket) {
    try {
      const original = this.#originalDestination(socket);
      return original ?? { address: socket.localAddress, port: socket.localPort };
    } catch {
      return null;
    }
  }

  #track(socket) {
    this.#sockets.add(socket);
    socket.on('error', noop);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  // Takes a client connection in, or closes it when the judge is closed or full.
  #admit(socket) {
    if (this.#closed || this.#clients >= LIMITS.connections) {
      socket.on('error', noop);
      socket.destroy();
      return false;
    }
    this.#clients++;
    socket.once('close', () => this.#clients--);
    this.#track(socket);
    socket.setTimeout(LIMITS.idleMs, () => socket.destroy());
    return true;
  }
}

module.exports = { NetworkJudge, LIMITS, REFUSALS, refusalSentence, canonicalHost, parseAuthority, originForm };
