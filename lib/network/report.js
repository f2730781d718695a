'use strict';

// The network judge's report: which destinations a command reached (connections and bytes) and
// which it was refused (with the reason and how often), merged per destination and bounded in
// size. Every reason a refusal can give is listed here, with its sentence for notes and messages
// and the status an HTTP client gets for it. Destinations, counts and reasons only: nothing the
// command sends is kept.

const { LIMITS } = require('./limits');
const { displayDestination } = require('./destination');

// Every reason a report's denied entry can give, with what it says after "<host>:<port> " and,
// for those an HTTP client can be told, the status it gets.
const REFUSALS = Object.freeze({
  'not-allowed': { status: 403, text: 'is not in the allowlist' },
  denied: { status: 403, text: 'is denied by the network policy' },
  // What the addresses a name resolves to are, when none of them may be dialled for it
  // (lib/network/policy.js addressRefusal), each named for what it is.
  'loopback-address': { status: 403, text: 'resolves only to loopback addresses (127.0.0.0/8, ::1)' },
  'private-address': { status: 403, text: 'resolves only to private network addresses (10/8, 172.16/12, 192.168/16, fc00::/7)' },
  'link-local-address': { status: 403, text: 'resolves only to link-local addresses (169.254/16, fe80::/10)' },
  'metadata-address': { status: 403, text: 'resolves only to a cloud instance metadata address' },
  'carrier-grade-nat-address': { status: 403, text: 'resolves only to carrier-grade NAT addresses (100.64.0.0/10)' },
  'multicast-address': { status: 403, text: 'resolves only to multicast addresses' },
  'unspecified-address': { status: 403, text: 'resolves only to the unspecified address (0.0.0.0/8, ::)' },
  'reserved-address': { status: 403, text: 'resolves only to reserved addresses, used by nothing public' },
  'own-address': { status: 403, text: "resolves only to this machine's own addresses" },
  unresolvable: { status: 502, text: 'could not be resolved' },
  unreachable: { status: 502, text: 'could not be reached' },
  'sni-mismatch': { status: null, text: 'was sent a TLS server name (SNI) naming another host' },
  'bad-tls-hello': { status: null, text: 'was sent a malformed or unfinished TLS ClientHello' },
  'bad-http-request': { status: null, text: 'was sent a malformed or unfinished HTTP request line' },
  'silent-client': { status: null, text: 'was sent nothing the judge could check (here a client must send a TLS ClientHello or an HTTP request first)' },
  'unread-protocol': { status: null, text: 'was sent bytes that are neither a TLS ClientHello nor an HTTP request, on a port where only those are carried' },
  'bad-response': { status: 502, text: 'answered with a status line or headers that cannot be passed on' },
  'unknown-address': { status: null, text: 'is not an address the sandbox DNS gave out' },
  'too-many-names': { status: null, text: 'is past the sandbox DNS limit of 4096 names' },
  udp: { status: null, text: 'was asked for over UDP, which the sandbox does not carry' },
  'unsupported-command': { status: null, text: 'was asked for with SOCKS5 BIND, which the sandbox does not support' },
});

// One sentence for a report's denied entry (port null: a DNS lookup), for notes and messages.
function refusalSentence({ host, port, reason }) {
  const text = REFUSALS[reason]?.text ?? `was refused (${reason})`;
  return `${displayDestination(host, port)} ${text}`;
}

class Report {
  #allowed = new Map();
  #denied = new Map();

  refused(host, port, reason) {
    const key = `${host}\n${port}\n${reason}`;
    const known = this.#denied.get(key);
    if (known) known.count++;
    else if (this.#denied.size < LIMITS.listEntries) this.#denied.set(key, { host, port, reason, count: 1 });
  }

  // Counts a connection opened to host:port, and its bytes both ways once it closes.
  connected(host, port, upstream) {
    const key = `${host}\n${port}`;
    let entry = this.#allowed.get(key);
    if (!entry) {
      if (this.#allowed.size >= LIMITS.listEntries) return;
      entry = { host, port, connections: 0, bytes: 0 };
      this.#allowed.set(key, entry);
    }
    entry.connections++;
    upstream.once('close', () => {
      entry.bytes += upstream.bytesRead + upstream.bytesWritten;
    });
  }

  // Copies, so what a caller does with them cannot change what the judge counts next.
  snapshot() {
    return {
      allowed: [...this.#allowed.values()].map((entry) => ({ ...entry })),
      denied: [...this.#denied.values()].map((entry) => ({ ...entry })),
    };
  }
}

module.exports = { REFUSALS, refusalSentence, Report };
