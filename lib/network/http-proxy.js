'use strict';

// The network judge's HTTP: the proxy port (absolute-URI requests, upgrades and CONNECT) and the
// plain HTTP found inside tunnels and on captured ports. Each request is judged on its own and
// sent with Host set by the judge to the address the judge checked, so no request can name
// another site than the one judged; the answer comes back without hop-by-hop headers, and one an
// HTTP client cannot be given becomes a 502 rather than a throw in the caller's process.

const { http } = require('../common/builtins');
const { LIMITS } = require('./limits');
const { parseAuthority, authorityFor } = require('./destination');
const { REFUSALS, refusalSentence } = require('./report');
const { EMPTY, guarded, guard, endSocket, readLine, pipe, closeWith } = require('./sockets');
const { Turns } = require('./turns');
const { tunnel } = require('./tunnel');

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

// The headers a message's Connection header names, which are hop-by-hop for that message.
function connectionListed(headers) {
  return new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
}

// The request headers passed on: hop-by-hop and proxy headers dropped (with those the
// Connection header lists), Host set by the judge, and the body framed again. Node's parser took
// the client's framing off (Content-Length, or chunked last in Transfer-Encoding; a request with
// both is refused there); a body sent on with neither would be read by the origin as the next
// request, naming whatever host it likes. So a chunked body goes on chunked, whatever the method
// (Node's client sends no framing of its own for GET, HEAD, DELETE or OPTIONS), and
// Content-Length, which is not hop-by-hop, goes on as it came.
/** @param {import('http').IncomingHttpHeaders} headers @param {string} host @returns {import('http').OutgoingHttpHeaders} */
function forwardedHeaders(headers, host) {
  const listed = connectionListed(headers);
  /** @type {import('http').OutgoingHttpHeaders} */
  const out = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && !listed.has(name) && name !== 'host') out[name] = value;
  }
  if (headers['transfer-encoding'] !== undefined) {
    out['transfer-encoding'] = headers['transfer-encoding'];
    delete out['content-length'];
  }
  out.host = host;
  return out;
}

// Whether a request carries a body: an upgrade with one is refused, since nothing of what the
// client sends goes on before the origin has switched protocols.
function hasBody(headers) {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

function responseHeaders(headers) {
  const listed = connectionListed(headers);
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

function plainResponse(status, phrase, message) {
  const body = `${message}\n`;
  return `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

// What an HTTP client is told when host:port is refused: the reason, and what the policy allows.
function refusalResponse(policy, host, port, reason) {
  const { status } = REFUSALS[reason];
  const sentence = refusalSentence({ host, port, reason });
  const phrase =
    status === 403
      ? `Forbidden by mount-sandbox network policy: ${sentence}`
      : `Bad Gateway from the mount-sandbox network judge: ${sentence}`;
  const allowed = policy.allow.map((entry) => entry.text).join(', ') || '(nothing)';
  const body = `${status === 403 ? 'mount-sandbox network policy' : 'mount-sandbox network judge'}: ${sentence}.\nAllowed by the network policy: ${allowed}\n`;
  return { status, phrase, body };
}

function refuseHttp(res, policy, host, port, reason) {
  const { status, phrase, body } = refusalResponse(policy, host, port, reason);
  res.writeHead(status, phrase, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

// The refusal as raw bytes, for a socket no HTTP server is writing to.
function refusalBytes(policy, host, port, reason) {
  const { status, phrase, body } = refusalResponse(policy, host, port, reason);
  return `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

// Where a request to the proxy port goes: { host, port, authority, path }, or { message }.
function proxyTarget(req) {
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

class HttpProxy {
  #judging;
  #turns = new Turns();
  #proxyFront;
  #captureFront;
  #captureTargets = new WeakMap();

  /** @param {import('./judge').Judging} judging */
  constructor(judging) {
    this.#judging = judging;
    this.#proxyFront = this.#front((req) => proxyTarget(req));
    this.#proxyFront.on('connect', (req, socket, head) => guard(socket, () => this.#connect(req, socket, head)));
    this.#captureFront = this.#front((req) => this.#captureTarget(req));
    this.#captureFront.on('connect', (req, socket) => endSocket(socket, plainResponse(400, 'Bad Request', 'CONNECT is for the proxy port')));
  }

  // A client connection to the proxy port.
  serveProxy(socket) {
    this.#proxyFront.emit('connection', socket);
  }

  // Hands a connection whose first bytes are an HTTP/1.x request to the HTTP server that
  // forwards each request to host:port with Host set by the judge.
  serveHttp(socket, bytes, target) {
    this.#captureTargets.set(socket, target);
    socket.once('close', () => target.spare?.destroy());
    socket.unshift(bytes);
    this.#captureFront.emit('connection', socket);
    socket.resume();
  }

  // An HTTP server (never listening: sockets are emitted into it) whose requests go where
  // `targetOf(req)` says: { host, port, authority, path }, or { message } for a bad request.
  #front(targetOf) {
    const front = http.createServer({ maxHeaderSize: LIMITS.headerBytes });
    front.on('request', (req, res) =>
      this.#turns.take(req.socket, res, () =>
        guard(res, async () => {
          const target = targetOf(req);
          if (!('message' in target)) return this.#forward(req, res, target);
          res.writeHead(400, 'Bad Request', { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
          res.end(`${target.message}\n`);
        }),
      ),
    );
    front.on('upgrade', (req, socket, head) =>
      guard(socket, async () => {
        const target = targetOf(req);
        if ('message' in target) return endSocket(socket, plainResponse(400, 'Bad Request', target.message));
        if (hasBody(req.headers)) return endSocket(socket, plainResponse(400, 'Bad Request', 'mount-sandbox network judge: an upgrade request cannot carry a body'));
        return this.#upgrade(req, socket, head, target);
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
    const { policy, dialer } = this.#judging;
    const opened = await dialer.openOrReuse(host, port, spare);
    if (opened.reason) return refuseHttp(res, policy, host, port, opened.reason);
    const upstream = opened.socket;
    if (res.destroyed || req.socket.destroyed) return upstream.destroy();
    res.once('close', () => upstream.destroy());
    closeWith(req.socket, upstream);
    const outgoing = http.request({
      method: req.method,
      path,
      headers: forwardedHeaders(req.headers, authority),
      setHost: false,
      createConnection: () => upstream,
    });
    outgoing.on('error', guarded(() => {
      if (res.headersSent) res.destroy();
      else refuseHttp(res, policy, host, port, 'unreachable');
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
    this.#judging.report.refused(host, port, 'bad-response');
    if (res.headersSent) res.destroy();
    else refuseHttp(res, this.#judging.policy, host, port, 'bad-response');
    return false;
  }

  // An upgrade (WebSocket): judged like a request, its head sent on with Host set by the judge,
  // then the connection piped once the origin switches protocols. If the origin answers
  // anything but 101, the client gets that answer and nothing more of what it sends goes on (no
  // second request on the connection could name another Host).
  async #upgrade(req, socket, head, { host, port, authority, path, spare = null }) {
    socket.pause();
    const opened = await this.#judging.dialer.openOrReuse(host, port, spare);
    if (opened.reason) return endSocket(socket, refusalBytes(this.#judging.policy, host, port, opened.reason));
    const upstream = opened.socket;
    if (socket.destroyed) return upstream.destroy();
    closeWith(socket, upstream);
    const listed = connectionListed(req.headers);
    const lines = [`${req.method} ${path} HTTP/1.1`, `Host: ${authority}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i].toLowerCase();
      if (name !== 'host' && !HOP_BY_HOP.has(name) && !listed.has(name)) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    }
    lines.push('Connection: Upgrade', `Upgrade: ${req.headers.upgrade}`, '', '');
    upstream.write(Buffer.from(lines.join('\r\n'), 'latin1'));
    const answer = await readLine(upstream);
    socket.write(answer);
    if (/^HTTP\/1\.[01] 101 /.test(answer.toString('latin1'))) return pipe(socket, upstream, head);
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
    const opened = await this.#judging.dialer.open(host, port);
    if (opened.reason) {
      endSocket(socket, refusalBytes(this.#judging.policy, host, port, opened.reason));
      return;
    }
    if (socket.destroyed) {
      opened.socket.destroy();
      return;
    }
    socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
    await tunnel(this.#judging, socket, head ?? EMPTY, opened.socket, host, port);
  }
}

module.exports = { HttpProxy, originForm, refusalBytes };
