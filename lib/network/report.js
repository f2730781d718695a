'use strict';

// The network judge's report: which destinations a command reached (connections and bytes) and
// which it was refused (with the reason and how often), merged per destination and bounded in
// size, with exact counts past the bounds. Every reason a refusal can give is listed here, with
// its sentence for notes and messages and the status an HTTP client gets for it. Destinations,
// counts and reasons only: nothing the command sends is kept.

const { LIMITS } = require('./limits');
const { displayDestination } = require('./destination');
const { matchDestination } = require('./policy');

// Every reason a report's denied entry can give, with what it says after "<host>:<port> " and,
// for those an HTTP client can be told, the status it gets. `failed` marks what no policy
// refused: the destination is allowed but could not be used, and says briefly why (for notes).
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
  unresolvable: { status: 502, text: 'could not be resolved', failed: 'no DNS answer' },
  unreachable: { status: 502, text: 'could not be reached', failed: 'the connection failed' },
  'sni-mismatch': { status: null, text: 'was sent a TLS server name (SNI) naming another host' },
  'tls-renegotiation': { status: null, text: 'was sent a TLS handshake record after the server had chosen its certificate (a renegotiation, or a second ClientHello), which the judge cannot read and does not pass' },
  'bad-tls-hello': { status: null, text: 'was sent a malformed or unfinished TLS ClientHello' },
  'bad-http-request': { status: null, text: 'was sent a malformed or unfinished HTTP request line' },
  'silent-client': { status: null, text: 'was sent nothing the judge could check (here a client must send a TLS ClientHello or an HTTP request first)' },
  'unread-protocol': { status: null, text: 'was sent bytes that are neither a TLS ClientHello nor an HTTP request, on a port where only those are carried' },
  'bad-response': { status: 502, text: 'answered with a status line or headers that cannot be passed on', failed: 'a broken answer' },
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

// The bounds (issue 38): a command must not grow the caller's memory without limit, nor hide what
// it reached behind junk. Each destination reached gets a row of its own while there are fewer
// than ROWS; past that, a new one is counted in one row for the allow entry it matched (bounded
// by the policy's size; `destinations` says how many it holds), or, matching none (approved by
// onRequest), in one row for all such ('*'). So every connection and byte is in some row.
// Refusals get a row per destination and reason, connections and DNS lookups ROWS each (so a
// flood of lookups cannot crowd out a refused connection); past that, `overflow` counts them.
// Distinct destinations past the rows are told apart while REMEMBERED keys of each side fit; past
// that the counts of destinations are lower bounds, and `overflow.exact` is false.
const ROWS = LIMITS.listEntries;
const REMEMBERED = LIMITS.names;
const OTHERS = '*';

class Report {
  #policy;
  #allowed = new Map();
  #aggregated = new Map();
  #denied = new Map();
  #lookupRows = 0;
  #remembered = { allowed: new Set(), denied: new Set() };
  #exact = true;
  #dropped = { destinations: 0, refusals: 0, reasons: new Map() };

  /** @param {import('./policy').NetworkPolicy} [policy] the judge's, to fold destinations by entry */
  constructor(policy) {
    this.#policy = policy ?? null;
  }

  refused(host, port, reason) {
    const key = `${host}\n${port}\n${reason}`;
    const known = this.#denied.get(key);
    if (known) {
      known.count++;
      return;
    }
    const lookup = port === null;
    if ((lookup ? this.#lookupRows : this.#denied.size - this.#lookupRows) < ROWS) {
      if (lookup) this.#lookupRows++;
      this.#denied.set(key, { host, port, reason, count: 1 });
      return;
    }
    const dropped = this.#dropped;
    let byReason = dropped.reasons.get(reason);
    if (!byReason) dropped.reasons.set(reason, (byReason = { destinations: 0, refusals: 0 }));
    const fresh = this.#isNew(this.#remembered.denied, key);
    for (const count of [dropped, byReason]) {
      count.refusals++;
      if (fresh) count.destinations++;
    }
  }

  // Counts a connection opened to host:port, and its bytes both ways once it closes.
  connected(host, port, upstream) {
    const key = `${host}\n${port}`;
    let entry = this.#allowed.get(key);
    if (!entry && this.#allowed.size < ROWS) {
      entry = { host, port, connections: 0, bytes: 0 };
      this.#allowed.set(key, entry);
    }
    if (!entry) {
      entry = this.#aggregateFor(host, port);
      if (this.#isNew(this.#remembered.allowed, key)) entry.destinations++;
    }
    entry.connections++;
    const row = entry;
    upstream.once('close', () => {
      row.bytes += upstream.bytesRead + upstream.bytesWritten;
    });
  }

  // The row for the allow entry host:port matched (the most specific), or the one for others.
  #aggregateFor(host, port) {
    const verdict = this.#policy === null ? null : matchDestination(this.#policy, host, port);
    const match = verdict?.allowed ? verdict.entry : null;
    const key = match === null ? OTHERS : match.text;
    let row = this.#aggregated.get(key);
    if (!row) {
      const shown = match === null ? OTHERS : match.kind === 'wildcard' ? `*.${match.host}` : match.host;
      row = { host: shown, port: match === null ? null : match.port, connections: 0, bytes: 0, destinations: 0 };
      this.#aggregated.set(key, row);
    }
    return row;
  }

  // Whether `key` is seen in `seen` first; once it holds REMEMBERED keys, none is (counts stay low).
  #isNew(seen, key) {
    if (seen.has(key)) return false;
    if (seen.size >= REMEMBERED) {
      this.#exact = false;
      return false;
    }
    seen.add(key);
    return true;
  }

  // Copies, so what a caller does with them cannot change what the judge counts next. `overflow`
  // only where some destination has no row of its own.
  snapshot() {
    const report = {
      allowed: [...this.#allowed.values(), ...this.#aggregated.values()].map((entry) => ({ ...entry })),
      denied: [...this.#denied.values()].map((entry) => ({ ...entry })),
    };
    const folded = [...this.#aggregated.values()].reduce((sum, row) => sum + row.destinations, 0);
    const dropped = this.#dropped;
    if (this.#aggregated.size === 0 && dropped.refusals === 0) return report;
    return {
      ...report,
      overflow: {
        allowed: folded,
        denied: dropped.destinations,
        refusals: dropped.refusals,
        reasons: Object.fromEntries([...dropped.reasons].map(([reason, count]) => [reason, { ...count }])),
        exact: this.#exact,
      },
    };
  }
}

module.exports = { REFUSALS, refusalSentence, Report };
