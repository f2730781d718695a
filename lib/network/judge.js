'use strict';

// The judge of a filtered command's network (issue 21): it runs in the calling Node process and
// serves the sockets the launcher made inside the command's network namespace, which is the only
// way out of it. Every destination is judged by the policy (lib/network/policy.js) before a byte
// leaves: an HTTP proxy (absolute-URI requests and CONNECT), SOCKS5 (CONNECT), a DNS stub that
// resolves allowed names to per-name loopback addresses, and capture listeners on the allowed
// ports that map those addresses back to names. An allowed name is resolved once, here, and the
// address checked is the address dialed (no DNS rebinding onto private or local addresses).
// Nothing the command sends (headers, bodies, credentials) is logged or kept; the report holds
// destinations, counts and reasons only.

const { dns, http, net, os } = require('../common/builtins');
const { isNetworkPolicy, matchDestination, addressRefusal, namesAddress } = require('./policy');
const dnsCodec = require('./dns');
const { FirstBytes } = require('./first-bytes');
const socks = require('./socks');

const LIMITS = Object.freeze({
  headerBytes: 16 * 1024,
  socksBytes: 1024,
  peekBytes: 16 * 1024,
  connections: 512,
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

// Every reason a report's denied entry can give, with what it says after "<host>:<port> " and,
// for those an HTTP client can be told, the status it gets.
const REFUSALS = Object.freeze({
  'not-allowed': { status: 403, text: 'is not in the allowlist' },
  denied: { status: 403, text: 'is denied by the network policy' },
  // What the addresses a name resolves to are, when none of them may be dialled for it
  // (network-policy.js addressRefusal), each named for what it is.
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

const EMPTY = Buffer.alloc(0);
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);
const HOST_TEXT = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$/;

function noop() {}

// An event handler that cannot throw out into the caller's process: what `handler` throws is
// answered by `onThrow` (closing the one connection it was about), and that never throws either.
function guarded(handler, onThrow) {
  return (...args) => {
    try {
      handler(...args);
    } catch {
      try {
        onThrow();
      } catch {
        // nothing more to close
      }
    }
  };
}

// IP text in one form per address: IPv4 dotted, IPv6 compressed lowercase without brackets or
// zone, IPv4-mapped IPv6 as IPv4. Null for what is not an IP literal.
function canonicalIp(text) {
  const unbracketed = String(text).replace(/^\[(.*)\]$/, '$1');
  const bare = unbracketed.includes(':') ? unbracketed.replace(/%.*$/, '') : unbracketed;
  const family = net.isIP(bare);
  if (family === 0) return null;
  if (family === 4) return bare;
  const compressed = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (!mapped) return compressed;
  const high = parseInt(mapped[1], 16);
  const low = parseInt(mapped[2], 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

// A destination host as the judge compares it: a lowercased ASCII name without a trailing dot,
// or canonical IP text (numeric forms such as 0x7f.1 become the address they dial). Null for
// anything else (userinfo, paths, spaces, empty labels).
function canonicalHost(text) {
  if (typeof text !== 'string') return null;
  const ip = canonicalIp(text);
  if (ip) return ip;
  if (!HOST_TEXT.test(text)) return null;
  let hostname;
  try {
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
  const asIp = canonicalIp(hostname);
  if (asIp) return asIp;
  const name = hostname.replace(/\.$/, '').toLowerCase();
  if (name === '' || name.split('.').some((label) => label === '')) return null;
  return name;
}

// "host:port" as a CONNECT request or a URI names it; null when malformed.
function parseAuthority(text, defaultPort) {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(String(text));
  if (!match) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  const host = canonicalHost(match[1]);
  return host ? { host, port } : null;
}

function displayHost(host) {
  return net.isIPv6(host) ? `[${host}]` : host;
}

// What a status line or note shows for a destination: printable ASCII only, on one line.
function displayDestination(host, port) {
  const shown = port === null ? displayHost(host) : `${displayHost(host)}:${port}`;
  return shown.replace(/[^\x21-\x7e]/g, '?');
}

function authorityFor(host, port, defaultPort) {
  return port === defaultPort ? displayHost(host) : `${displayHost(host)}:${port}`;
}

// The request headers passed on: hop-by-hop and proxy headers dropped (with those the
// Connection header lists), Host set by the judge.
/** @param {import('http').IncomingHttpHeaders} headers @param {string} host @returns {import('http').OutgoingHttpHeaders} */
function forwardedHeaders(headers, host) {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  /** @type {import('http').OutgoingHttpHeaders} */
  const out = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && !listed.has(name) && name !== 'host') out[name] = value;
  }
  out.host = host;
  return out;
}

function responseHeaders(headers) {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !listed.has(name)));
}

// The request target an origin server gets: origin-form, whatever form the client used (an
// absolute-form target on a captured port would otherwise name its own host to the origin, which
// RFC 9112 says wins over Host).
function originForm(target) {
  if (target.startsWith('/') || target === '*') return target;
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*([^#]*)/.exec(target);
  if (!match) return null;
  const rest = match[1];
  if (rest === '') return '/';
  return rest.startsWith('?') ? `/${rest}` : rest;
}

async function defaultLookup(host) {
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

function defaultOwnAddresses() {
  return Object.values(os.networkInterfaces())
    .flat()
    .map((entry) => entry.address);
}

// Ends a client connection after `data`, and destroys it if the client has not closed its side
// soon after (the judge's sockets are half-open).
function endSocket(socket, data) {
  socket.end(data);
  setTimeout(() => socket.destroy(), LIMITS.finishMs).unref();
}

// What `socket` sends up to and including its first line feed (or up to 16 KiB, its end, or
// 10 s), left paused.
function readLine(socket) {
  return new Promise((resolve) => {
    let bytes = EMPTY;
    const finish = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', finish);
      socket.off('close', finish);
      socket.pause();
      resolve(bytes);
    };
    const onData = (chunk) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (bytes.includes(0x0a) || bytes.length >= LIMITS.peekBytes) finish();
    };
    const timer = setTimeout(finish, LIMITS.finishMs);
    socket.on('data', onData);
    socket.once('end', finish);
    socket.once('close', finish);
    socket.resume();
  });
}

function closeServer(server) {
  return new Promise((resolve) => {
    try {
      server.close(() => resolve());
    } catch {
      resolve();
    }
  });
}

class NetworkJudge {
  #policy;
  #onRequest;
  #approvedAddresses = new Set();
  #lookup;
  #ownAddresses;
  #answers = new Map();
  #grantedNames = new Set();
  #names = new dnsCodec.NameTable(LIMITS.names);
  #allowed = new Map();
  #denied = new Map();
  #servers = [];
  #datagrams = [];
  #sockets = new Set();
  #clients = 0;
  #closed = false;
  #captureTargets = new WeakMap();
  #proxyFront;
  #captureFront;

  /**
   * @param {{
   *   policy: import('./policy').NetworkPolicy,
   *   onRequest?: (destination: { host: string, port: number }) => boolean | Promise<boolean>,
   *   lookup?: (host: string) => Promise<string[]>,
   *   ownAddresses?: () => string[],
   * }} options
   */
  constructor({ policy, onRequest, lookup, ownAddresses }) {
    if (!isNetworkPolicy(policy)) throw new TypeError('NetworkJudge: policy must come from parseNetwork()');
    for (const [name, value] of Object.entries({ onRequest, lookup, ownAddresses })) {
      if (value !== undefined && typeof value !== 'function') {
        throw new TypeError(`NetworkJudge: ${name} must be a function`);
      }
    }
    this.#policy = policy;
    this.#onRequest = onRequest ?? null;
    this.#lookup = lookup ?? defaultLookup;
    this.#ownAddresses = ownAddresses ?? defaultOwnAddresses;
    this.#proxyFront = this.#front((req) => this.#proxyTarget(req));
    this.#proxyFront.on('connect', (req, socket, head) => this.#guard(socket, () => this.#connect(req, socket, head)));
    this.#captureFront = this.#front((req) => this.#captureTarget(req));
    this.#captureFront.on('connect', (req, socket) => endSocket(socket, plainResponse(400, 'Bad Request', 'CONNECT is for the proxy port')));
  }

  // Serves `handle` (a listening net.Server, or for 'dns' a bound dgram socket) as `label`:
  // 'http', 'socks', 'dns' or 'capture <port>'.
  attach(label, handle) {
    if (this.#closed) throw new Error('NetworkJudge: attach after close');
    const capture = /^capture ([1-9]\d{0,4})$/.exec(String(label));
    if (label === 'dns') {
      this.#datagrams.push(handle);
      dnsCodec.serveDns(handle, (query) => this.#answerDns(query));
      return;
    }
    let serve;
    if (label === 'http') serve = (socket) => this.#proxyFront.emit('connection', socket);
    else if (label === 'socks') serve = (socket) => this.#guard(socket, () => this.#socks(socket));
    else if (capture && Number(capture[1]) <= 65535) {
      const port = Number(capture[1]);
      serve = (socket) => this.#guard(socket, () => this.#capture(socket, port));
    } else {
      throw new TypeError(`NetworkJudge: unknown listener label ${JSON.stringify(String(label))}`);
    }
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
    return {
      allowed: [...this.#allowed.values()].map((entry) => ({ ...entry })),
      denied: [...this.#denied.values()].map((entry) => ({ ...entry })),
    };
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

  // ---- bookkeeping ----

  // An HTTP server (never listening: sockets are emitted into it) whose requests go where
  // `targetOf(req)` says: { host, port, authority, path }, or { message } for a bad request.
  #front(targetOf) {
    const front = http.createServer({ maxHeaderSize: LIMITS.headerBytes });
    front.on('request', (req, res) =>
      this.#serve(res, async () => {
        const target = targetOf(req);
        if (!('message' in target)) return this.#forward(req, res, target);
        res.writeHead(400, 'Bad Request', { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end(`${target.message}\n`);
      }),
    );
    front.on('upgrade', (req, socket, head) =>
      this.#guard(socket, async () => {
        const target = targetOf(req);
        if (!('message' in target)) return this.#upgrade(req, socket, head, target);
        endSocket(socket, plainResponse(400, 'Bad Request', target.message));
      }),
    );
    front.timeout = LIMITS.idleMs;
    front.on('clientError', (error, socket) => {
      if (!socket.writable) return socket.destroy();
      const tooLarge = /** @type {NodeJS.ErrnoException} */ (error)?.code === 'HPE_HEADER_OVERFLOW';
      endSocket(socket, tooLarge ? plainResponse(431, 'Request Header Fields Too Large', 'request headers over 16 KiB') : plainResponse(400, 'Bad Request', 'malformed request'));
    });
    return front;
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

  #guard(socket, work) {
    work().catch(() => socket.destroy());
  }

  #serve(res, work) {
    work().catch(() => res.destroy());
  }

  #refused(host, port, reason) {
    const key = `${host}\n${port}\n${reason}`;
    const known = this.#denied.get(key);
    if (known) known.count++;
    else if (this.#denied.size < LIMITS.listEntries) this.#denied.set(key, { host, port, reason, count: 1 });
  }

  // Counts a connection opened to host:port, and its bytes both ways once it closes.
  #connected(host, port, upstream) {
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

  // ---- judging and dialing ----

  // Null when host:port may be reached, else the reason. A destination the policy leaves out
  // (never a denied one) goes to onRequest once; its answer stands for the judge's life.
  async #judge(host, port) {
    const verdict = matchDestination(this.#policy, host, port);
    if (verdict.allowed) return null;
    if (verdict.reason === 'denied') return 'denied';
    if (!this.#onRequest) return 'not-allowed';
    const key = `${host}\n${port}`;
    let answer = this.#answers.get(key);
    if (!answer) {
      if (this.#answers.size >= LIMITS.questions) return 'not-allowed';
      answer = this.#ask(host, port);
      this.#answers.set(key, answer);
    }
    return (await answer) ? null : 'not-allowed';
  }

  async #ask(host, port) {
    try {
      const approved = (await this.#onRequest({ host, port })) === true;
      if (approved) this.#grantedNames.add(host);
      // An address the operator approved by itself is named as explicitly as an ip entry names it.
      if (approved && canonicalIp(host)) this.#approvedAddresses.add(`${canonicalIp(host)}\n${port}`);
      return approved;
    } catch {
      return false;
    }
  }

  // Whether the DNS stub resolves `name`: when some port of it is allowed (a port-less deny
  // entry refuses every port), or onRequest already approved a port of it. The stub never asks
  // onRequest itself: a lookup names no port, and a prompt per lookup would hand the approver
  // every name a command looks up (names that only carry data included). onRequest is asked on
  // the proxy paths (HTTP, SOCKS5) and for captured connections. Returns null or the reason.
  #nameRefusal(name) {
    const verdict = matchDestination(this.#policy, name, null);
    if (verdict.allowed || (verdict.reason === 'not-allowed' && this.#grantedNames.has(name))) return null;
    return verdict.reason;
  }

  // Resolves host once, keeps the addresses the judge may dial and connects to the first.
  // Returns { socket } or { reason }.
  async #dial(host, port) {
    const addresses = canonicalIp(host) ? [host] : await this.#resolve(host);
    if (!Array.isArray(addresses) || addresses.length === 0) return { reason: 'unresolvable' };
    let own;
    try {
      own = new Set(this.#ownAddresses().map(canonicalIp).filter(Boolean));
    } catch {
      return { reason: 'own-address' };
    }
    let refusal = 'unresolvable';
    let target = null;
    for (const found of addresses) {
      const ip = canonicalIp(String(found));
      if (!ip) continue;
      if (namesAddress(this.#policy, ip, port) || (ip === canonicalIp(host) && this.#approvedAddresses.has(`${ip}\n${port}`))) {
        target = ip;
        break;
      }
      const kind = addressRefusal(ip);
      if (kind !== null) refusal = refusal === 'unresolvable' || refusal === 'own-address' ? `${kind}-address` : refusal;
      else if (own.has(ip)) refusal = refusal === 'unresolvable' ? 'own-address' : refusal;
      else {
        target = ip;
        break;
      }
    }
    if (!target) return { reason: refusal };
    return this.#connectTo(target, port);
  }

  // The addresses `lookup` gives for host, or null when it fails or takes longer than a dial may.
  async #resolve(host) {
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), LIMITS.connectMs);
    });
    try {
      return await Promise.race([Promise.resolve(this.#lookup(host)).catch(() => null), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  #connectTo(ip, port) {
    return new Promise((resolve) => {
      if (this.#closed) return resolve({ reason: 'unreachable' });
      const socket = net.connect({ host: ip, port, allowHalfOpen: true });
      this.#track(socket);
      socket.setTimeout(LIMITS.connectMs, () => socket.destroy());
      const failed = () => resolve({ reason: 'unreachable' });
      socket.once('close', failed);
      socket.once('connect', () => {
        socket.off('close', failed);
        socket.setTimeout(LIMITS.idleMs, () => socket.destroy());
        if (this.#closed) {
          socket.destroy();
          resolve({ reason: 'unreachable' });
        } else resolve({ socket });
      });
    });
  }

  // Judges and dials host:port, recording a refusal. Returns { socket } or { reason }.
  async #open(host, port) {
    const refusal = await this.#judge(host, port);
    const outcome = refusal ? { reason: refusal } : await this.#dial(host, port);
    if (outcome.reason) this.#refused(host, port, outcome.reason);
    else this.#connected(host, port, outcome.socket);
    return outcome;
  }

  // A connection to host:port, judged and opened for an earlier step (a tunnel's) when it is
  // still open, else a new one.
  async #openOrReuse(host, port, spare) {
    if (spare && !spare.destroyed && !spare.readableEnded) return { socket: spare };
    spare?.destroy();
    return this.#open(host, port);
  }

  // ---- first bytes of a tunnel ----

  // Reads what the client sends first, enough to know what it is (lib/network/first-bytes.js): { kind:
  // 'tls', sni } for a whole ClientHello; 'http' for an HTTP/1.x request line (when `http`),
  // after any empty lines; 'raw' for anything else; 'silent' when nothing came within `waitMs`;
  // 'bad-tls' / 'bad-http' for a hello or request line that is malformed or unfinished.
  // `bytes` holds everything read, `request` the request from its line on.
  #readFirst(socket, initial, { http: httpAware, waitMs }) {
    return new Promise((resolve) => {
      const first = new FirstBytes({ http: httpAware, limit: LIMITS.peekBytes });
      if (initial.length > 0) first.push(initial);
      let timer = null;
      const finish = (result) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('end', onEnd);
        socket.off('close', onEnd);
        socket.pause();
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
      const onEnd = () => settle(true);
      if (settle(socket.readableEnded || socket.destroyed)) return;
      timer = setTimeout(() => settle(true), first.length === 0 ? waitMs : LIMITS.finishMs);
      socket.on('data', onData);
      socket.once('end', onEnd);
      socket.once('close', onEnd);
      socket.resume();
    });
  }

  // Whether a connection to host:port may start with silence (a client that waits for the server
  // to speak first, as SSH and SMTP do): only on a port an allow entry names explicitly
  // (`git.example.org:22`), never 80 or 443. Elsewhere a client that pauses and then sends a
  // ClientHello or a request gets it read and judged, never piped unread.
  #mayPassUnread(host, port) {
    if (port === 80 || port === 443) return false;
    const verdict = matchDestination(this.#policy, host, port);
    return verdict.allowed && verdict.entry !== null && verdict.entry.port === port;
  }

  // How long to wait for a first byte: a short while where silence may be piped (a server that
  // speaks first), else as long as a started message gets.
  #firstWaitMs(host, port) {
    return this.#mayPassUnread(host, port) ? LIMITS.firstByteMs : LIMITS.finishMs;
  }

  // The refusal reason for first bytes that may not go to `host`, or null.
  #firstBytesRefusal(first, host, port) {
    if (first.kind === 'bad-tls') return 'bad-tls-hello';
    if (first.kind === 'bad-http') return 'bad-http-request';
    if (first.kind === 'tls' && first.sni !== null && first.sni !== host.toLowerCase()) return 'sni-mismatch';
    // On 80 and 443 only TLS and HTTP, which the judge reads; elsewhere a protocol it cannot read
    // is passed on, but silence only where an entry names the port (a server that speaks first).
    if (first.kind === 'raw' && (port === 80 || port === 443)) return 'unread-protocol';
    if (first.kind === 'silent' && !this.#mayPassUnread(host, port)) return 'silent-client';
    return null;
  }

  #pipe(client, upstream, first) {
    if (client.destroyed) return upstream.destroy();
    const both = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', both);
    upstream.once('error', both);
    client.once('close', () => upstream.end());
    upstream.once('close', () => client.end());
    upstream.pipe(client);
    // A client that ended its sending while the judge read its first bytes has no 'end' left
    // for pipe() to pass on.
    if (client.readableEnded) return upstream.end(first);
    if (first.length > 0) upstream.write(first);
    client.pipe(upstream);
    client.resume();
  }

  // The bytes of a tunnel that was opened to host:port: checked, then piped; plain HTTP is
  // served per request instead, with Host set to the tunnel's host (so a request through a
  // tunnel to an allowed CDN address cannot name another site in its Host header). The
  // connection already open serves the first request.
  async #tunnel(client, initial, upstream, host, port) {
    const first = await this.#readFirst(client, initial, { http: true, waitMs: this.#firstWaitMs(host, port) });
    const refusal = this.#firstBytesRefusal(first, host, port);
    if (refusal) {
      this.#refused(host, port, refusal);
      client.destroy();
      upstream.destroy();
      return;
    }
    if (first.kind === 'http') return this.#serveHttp(client, first.request, { host, port, spare: upstream });
    this.#pipe(client, upstream, first.bytes);
  }

  // Hands a connection whose first bytes are an HTTP/1.x request to the HTTP server that
  // forwards each request to host:port with Host set by the judge.
  #serveHttp(socket, bytes, target) {
    this.#captureTargets.set(socket, target);
    socket.once('close', () => target.spare?.destroy());
    socket.unshift(bytes);
    this.#captureFront.emit('connection', socket);
    socket.resume();
  }

  // ---- HTTP ----

  #refusalResponse(host, port, reason) {
    const { status } = REFUSALS[reason];
    const sentence = refusalSentence({ host, port, reason });
    const phrase =
      status === 403
        ? `Forbidden by mount-sandbox network policy: ${sentence}`
        : `Bad Gateway from the mount-sandbox network judge: ${sentence}`;
    const allowed = this.#policy.allow.map((entry) => entry.text).join(', ') || '(nothing)';
    const body = `${status === 403 ? 'mount-sandbox network policy' : 'mount-sandbox network judge'}: ${sentence}.\nAllowed by the network policy: ${allowed}\n`;
    return { status, phrase, body };
  }

  #refuseHttp(res, host, port, reason) {
    const { status, phrase, body } = this.#refusalResponse(host, port, reason);
    res.writeHead(status, phrase, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  #refusalBytes(host, port, reason) {
    const { status, phrase, body } = this.#refusalResponse(host, port, reason);
    return `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  }

  #proxyTarget(req) {
    const match = /^http:\/\/([^/?#]*)(.*)$/is.exec(req.url);
    const target = match && parseAuthority(match[1], 80);
    if (!target) {
      const message = match
        ? 'mount-sandbox network proxy: the URI does not name a host[:port] (user names and passwords in it are not passed on)'
        : /^[a-z][a-z0-9+.-]*:\/\//i.test(req.url)
          ? 'mount-sandbox network proxy: only http:// URIs can be proxied; use CONNECT for TLS'
          : 'mount-sandbox network proxy: this port takes proxy requests (an absolute URI such as http://host/path, or CONNECT host:port)';
      return { message };
    }
    const { host, port } = target;
    return { host, port, authority: authorityFor(host, port, 80), path: originForm(`http://x${match[2]}`) };
  }

  #captureTarget(req) {
    const target = this.#captureTargets.get(req.socket);
    const path = originForm(req.url);
    if (!target || path === null) return { message: 'mount-sandbox network judge: malformed request target' };
    const { host, port, spare } = target;
    target.spare = null;
    return { host, port, authority: authorityFor(host, port, 80), path, spare };
  }

  // Judges one request, then sends it on its own connection to the address checked, with Host
  // set by the judge, and streams the response back.
  async #forward(req, res, { host, port, authority, path, spare = null }) {
    const opened = await this.#openOrReuse(host, port, spare);
    if (opened.reason) return this.#refuseHttp(res, host, port, opened.reason);
    const upstream = opened.socket;
    if (res.destroyed || req.socket.destroyed) return upstream.destroy();
    res.once('close', () => upstream.destroy());
    const outgoing = http.request({
      method: req.method,
      path,
      headers: forwardedHeaders(req.headers, authority),
      setHost: false,
      createConnection: () => upstream,
    });
    outgoing.on('error', guarded(() => {
      if (res.headersSent) res.destroy();
      else this.#refuseHttp(res, host, port, 'unreachable');
    }, () => res.destroy()));
    outgoing.on('response', guarded((incoming) => {
      incoming.on('error', () => res.destroy());
      if (!this.#relayHead(res, incoming, host, port)) {
        incoming.destroy();
        upstream.destroy();
        return;
      }
      incoming.pipe(res);
    }, () => {
      res.destroy();
      upstream.destroy();
    }));
    req.on('error', () => outgoing.destroy());
    req.pipe(outgoing);
  }

  // Passes an upstream response's status line and headers on, or answers 502 in its place when
  // they are not a response Node can write (a status outside 100..999, a reason phrase with a
  // control byte or too long, a header it refuses): an allowed server, or whoever sits on the
  // path of a plain http:// destination, must not be able to throw in the caller's process.
  // Returns whether the body may follow.
  #relayHead(res, incoming, host, port) {
    const status = incoming.statusCode;
    const phrase = incoming.statusMessage;
    const usable = typeof phrase === 'string' && phrase.length <= 512 && /^[\t\x20-\x7e\x80-\xff]*$/.test(phrase);
    if (Number.isInteger(status) && status >= 100 && status <= 999) {
      try {
        if (usable) res.writeHead(status, phrase, responseHeaders(incoming.headers));
        else res.writeHead(status, responseHeaders(incoming.headers));
        return true;
      } catch {
        // answered below, as a response that could not be passed on
      }
    }
    this.#refused(host, port, 'bad-response');
    if (res.headersSent) res.destroy();
    else this.#refuseHttp(res, host, port, 'bad-response');
    return false;
  }

  // An upgrade (WebSocket): judged like a request, its head sent on with Host set by the judge,
  // then the connection piped once the origin switches protocols. If the origin answers
  // anything but 101, the client gets that answer and nothing more of what it sends goes on (no
  // second request on the connection could name another Host).
  async #upgrade(req, socket, head, { host, port, authority, path, spare = null }) {
    socket.pause();
    const opened = await this.#openOrReuse(host, port, spare);
    if (opened.reason) return endSocket(socket, this.#refusalBytes(host, port, opened.reason));
    const upstream = opened.socket;
    if (socket.destroyed) return upstream.destroy();
    const listed = new Set(String(req.headers.connection ?? '').split(',').map((token) => token.trim().toLowerCase()));
    const lines = [`${req.method} ${path} HTTP/1.1`, `Host: ${authority}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i].toLowerCase();
      if (name !== 'host' && !HOP_BY_HOP.has(name) && !listed.has(name)) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    }
    lines.push('Connection: Upgrade', `Upgrade: ${req.headers.upgrade}`, '', '');
    upstream.write(Buffer.from(lines.join('\r\n'), 'latin1'));
    const answer = await readLine(upstream);
    socket.write(answer);
    if (/^HTTP\/1\.[01] 101 /.test(answer.toString('latin1'))) return this.#pipe(socket, upstream, head);
    upstream.pipe(socket);
    upstream.once('close', () => endSocket(socket));
  }

  async #connect(req, socket, head) {
    const target = parseAuthority(req.url, null);
    if (!target) {
      endSocket(socket, plainResponse(400, 'Bad Request', 'mount-sandbox network proxy: CONNECT takes host:port'));
      return;
    }
    const { host, port } = target;
    const opened = await this.#open(host, port);
    if (opened.reason) {
      endSocket(socket, this.#refusalBytes(host, port, opened.reason));
      return;
    }
    if (socket.destroyed) {
      opened.socket.destroy();
      return;
    }
    socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
    await this.#tunnel(socket, head ?? EMPTY, opened.socket, host, port);
  }

  // ---- SOCKS5 ----

  // Reads from `socket` until `parse` has a whole message, within the handshake's byte and time
  // bounds. Resolves { result, rest } or null when the client went away, overran or timed out.
  #readHandshake(socket, bytes, parse) {
    return new Promise((resolve) => {
      let buffered = bytes;
      const finish = (value) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('end', onClose);
        socket.off('close', onClose);
        socket.pause();
        resolve(value);
      };
      const attempt = () => {
        const result = parse(buffered);
        if (result === 'more') {
          if (buffered.length > LIMITS.socksBytes) finish(null);
          return false;
        }
        finish({ result, rest: buffered.subarray(result.length ?? buffered.length) });
        return true;
      };
      const onData = (chunk) => {
        buffered = Buffer.concat([buffered, chunk]);
        attempt();
      };
      const onClose = () => finish(null);
      const timer = setTimeout(() => finish(null), LIMITS.handshakeMs);
      if (attempt()) return;
      if (socket.readableEnded) return finish(null);
      socket.on('data', onData);
      socket.once('end', onClose);
      socket.once('close', onClose);
      socket.resume();
    });
  }

  async #socks(socket) {
    const greeting = await this.#readHandshake(socket, EMPTY, socks.parseGreeting);
    if (!greeting || greeting.result === 'invalid') return socket.destroy();
    socket.write(socks.greetingReply(greeting.result.noAuth));
    if (!greeting.result.noAuth) return endSocket(socket);
    const request = await this.#readHandshake(socket, greeting.rest, socks.parseRequest);
    if (!request || request.result === 'invalid') return socket.destroy();
    const { command, host: sent, port } = request.result;
    if (sent === null) return endSocket(socket, socks.requestReply(socks.REPLY.ADDRESS_NOT_SUPPORTED));
    const host = canonicalHost(sent);
    if (command !== socks.COMMAND.CONNECT) {
      if (host) this.#refused(host, port, command === socks.COMMAND.UDP_ASSOCIATE ? 'udp' : 'unsupported-command');
      return endSocket(socket, socks.requestReply(socks.REPLY.COMMAND_NOT_SUPPORTED));
    }
    if (!host || port === 0) return endSocket(socket, socks.requestReply(socks.REPLY.GENERAL_FAILURE));
    const opened = await this.#open(host, port);
    if (opened.reason) {
      const unreachable = opened.reason === 'unreachable' || opened.reason === 'unresolvable';
      return endSocket(socket, socks.requestReply(unreachable ? socks.REPLY.HOST_UNREACHABLE : socks.REPLY.NOT_ALLOWED));
    }
    if (socket.destroyed) return opened.socket.destroy();
    socket.write(socks.requestReply(socks.REPLY.SUCCEEDED));
    await this.#tunnel(socket, request.rest, opened.socket, host, port);
  }

  // ---- DNS ----

  #answerDns(query) {
    const { RCODE } = dnsCodec;
    if (query.error) return dnsCodec.encodeResponse(query, query.error === 'opcode' ? RCODE.NOTIMP : RCODE.FORMERR);
    const { name, type, qclass } = query.question;
    if (qclass !== dnsCodec.CLASS_IN) return dnsCodec.encodeResponse(query, RCODE.REFUSED);
    if (name === null || canonicalIp(name)) return dnsCodec.encodeResponse(query, RCODE.NXDOMAIN);
    const refusal = this.#nameRefusal(name);
    if (refusal) {
      this.#refused(name, null, refusal);
      return dnsCodec.encodeResponse(query, RCODE.NXDOMAIN);
    }
    // AAAA, HTTPS, SVCB and every other type of an allowed name: the name exists, with no data
    // of that type (an NXDOMAIN here would make resolvers forget the A answer).
    if (type !== dnsCodec.TYPE_A) return dnsCodec.encodeResponse(query, RCODE.NOERROR);
    const address = this.#names.addressFor(name);
    if (!address) {
      this.#refused(name, null, 'too-many-names');
      return dnsCodec.encodeResponse(query, RCODE.SERVFAIL);
    }
    return dnsCodec.encodeResponse(query, RCODE.NOERROR, { address, ttl: 60 });
  }

  // ---- capture ----

  async #capture(socket, port) {
    const local = canonicalIp(socket.localAddress ?? '');
    const host = local && this.#names.nameAt(local);
    if (!host) {
      this.#refused(local ?? 'unknown', port, 'unknown-address');
      return socket.destroy();
    }
    const refusal = await this.#judge(host, port);
    const first = await this.#readFirst(socket, EMPTY, { http: true, waitMs: this.#firstWaitMs(host, port) });
    if (refusal) {
      this.#refused(host, port, refusal);
      if (first.kind === 'http') endSocket(socket, this.#refusalBytes(host, port, refusal));
      else socket.destroy();
      return;
    }
    const firstRefusal = this.#firstBytesRefusal(first, host, port);
    if (firstRefusal) {
      this.#refused(host, port, firstRefusal);
      return socket.destroy();
    }
    if (first.kind === 'http') return this.#serveHttp(socket, first.request, { host, port, spare: null });
    const opened = await this.#open(host, port);
    if (opened.reason || socket.destroyed) {
      opened.socket?.destroy();
      return socket.destroy();
    }
    this.#pipe(socket, opened.socket, first.bytes);
  }
}

function plainResponse(status, phrase, message) {
  const body = `${message}\n`;
  return `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

module.exports = { NetworkJudge, LIMITS, REFUSALS, refusalSentence, canonicalHost, parseAuthority, originForm };
