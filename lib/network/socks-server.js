'use strict';

// The network judge's SOCKS5 port: the handshake read within its byte and time bounds (the
// messages themselves are parsed in lib/network/socks.js), CONNECT judged and dialled like the
// HTTP proxy's, and the tunnel's bytes checked as every tunnel's are. BIND and UDP ASSOCIATE are
// refused and reported.

const { LIMITS } = require('./limits');
const { canonicalHost } = require('./destination');
const { EMPTY, endSocket, listen } = require('./sockets');
const { tunnel } = require('./tunnel');
const socks = require('./socks');

// Reads from `socket` until `parse` has a whole message, within the handshake's byte and time
// bounds. Resolves { result, rest } or null when the client went away, overran or timed out.
function readHandshake(socket, bytes, parse) {
  return new Promise((resolve) => {
    let buffered = bytes;
    let stop = () => socket.pause();
    const finish = (value) => {
      clearTimeout(timer);
      stop();
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
    const timer = setTimeout(() => finish(null), LIMITS.handshakeMs);
    if (attempt()) return;
    if (socket.readableEnded) return finish(null);
    stop = listen(socket, onData, () => finish(null));
  });
}

// One client connection to the SOCKS5 port, from its greeting to its tunnel.
/** @param {import('./judge').Judging} judging */
async function serveSocks(judging, socket) {
  const greeting = await readHandshake(socket, EMPTY, socks.parseGreeting);
  if (!greeting || greeting.result === 'invalid') return socket.destroy();
  socket.write(socks.greetingReply(greeting.result.noAuth));
  if (!greeting.result.noAuth) return endSocket(socket);
  const request = await readHandshake(socket, greeting.rest, socks.parseRequest);
  if (!request || request.result === 'invalid') return socket.destroy();
  const { command, host: sent, port } = request.result;
  if (sent === null) return endSocket(socket, socks.requestReply(socks.REPLY.ADDRESS_NOT_SUPPORTED));
  const host = canonicalHost(sent);
  if (command !== socks.COMMAND.CONNECT) {
    if (host) judging.report.refused(host, port, command === socks.COMMAND.UDP_ASSOCIATE ? 'udp' : 'unsupported-command');
    return endSocket(socket, socks.requestReply(socks.REPLY.COMMAND_NOT_SUPPORTED));
  }
  if (!host || port === 0) return endSocket(socket, socks.requestReply(socks.REPLY.GENERAL_FAILURE));
  const opened = await judging.dialer.open(host, port);
  if (opened.reason) {
    const unreachable = opened.reason === 'unreachable' || opened.reason === 'unresolvable';
    return endSocket(socket, socks.requestReply(unreachable ? socks.REPLY.HOST_UNREACHABLE : socks.REPLY.NOT_ALLOWED));
  }
  if (socket.destroyed) return opened.socket.destroy();
  socket.write(socks.requestReply(socks.REPLY.SUCCEEDED));
  await tunnel(judging, socket, request.rest, opened.socket, host, port);
}

module.exports = { serveSocks };
