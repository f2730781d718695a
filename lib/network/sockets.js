'use strict';

// What every protocol of the network judge does with a client's socket: read from it a bounded
// while, end it, pipe it to a dialled connection, and keep a throw or a rejection in a handler
// from reaching the caller's process (the judge runs in the agent's own process).

const { stream } = require('../common/builtins');
const { LIMITS } = require('./limits');

const EMPTY = Buffer.alloc(0);

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

// Runs one connection's asynchronous work; a rejection destroys that connection (a socket, or an
// HTTP response) and goes no further.
function guard(stream, work) {
  work().catch(() => stream.destroy());
}

// Ends a client connection after `data`, and destroys it if the client has not closed its side
// soon after (the judge's sockets are half-open).
function endSocket(socket, data) {
  socket.end(data);
  setTimeout(() => socket.destroy(), LIMITS.finishMs).unref();
}

// Feeds what `socket` sends to `onData`, and its end or close to `onEnd`, until the function
// returned is called; that leaves the socket paused, so no byte is read past what was asked for.
function listen(socket, onData, onEnd) {
  socket.on('data', onData);
  socket.once('end', onEnd);
  socket.once('close', onEnd);
  socket.resume();
  return () => {
    socket.off('data', onData);
    socket.off('end', onEnd);
    socket.off('close', onEnd);
    socket.pause();
  };
}

// What `socket` sends up to and including its first line feed (or up to 16 KiB, its end, or
// 10 s), left paused.
function readLine(socket) {
  return new Promise((resolve) => {
    let bytes = EMPTY;
    let stop = null;
    const finish = () => {
      clearTimeout(timer);
      stop();
      resolve(bytes);
    };
    const onData = (chunk) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (bytes.includes(0x0a) || bytes.length >= LIMITS.peekBytes) finish();
    };
    const timer = setTimeout(finish, LIMITS.finishMs);
    stop = listen(socket, onData, finish);
  });
}

// Joins a client to its upstream both ways, `first` (what the judge read to check it) sent ahead.
// `follow` (optional) sees each piece on its way: follow.up(chunk) returns what may go upstream,
// or null to close both; follow.down(chunk) reads what comes back.
function pipe(client, upstream, first, follow = null) {
  if (client.destroyed) return upstream.destroy();
  const both = () => {
    client.destroy();
    upstream.destroy();
  };
  client.once('error', both);
  upstream.once('error', both);
  client.once('close', () => upstream.end());
  upstream.once('close', () => client.end());
  const into = follow ? followed(follow.up, both) : upstream;
  if (follow) into.pipe(upstream);
  (follow ? upstream.pipe(followed(follow.down, both)) : upstream).pipe(client);
  // A client that ended its sending while the judge read its first bytes has no 'end' left
  // for pipe() to pass on.
  if (client.readableEnded) return into.end(first);
  if (first.length > 0) into.write(first);
  client.pipe(into);
  client.resume();
}

// A stream that passes what `see` returns for each piece (a piece itself when it returns
// undefined); null closes the connection through `close`.
function followed(see, close) {
  return new stream.Transform({
    transform(chunk, _encoding, done) {
      const passed = see(chunk);
      if (passed === null) {
        close();
        return done();
      }
      done(null, passed === undefined ? chunk : passed);
    },
  });
}

// Destroys `upstream` when `client` closes: what a client connection asked for never outlives it.
function closeWith(client, upstream) {
  if (client.destroyed) return upstream.destroy();
  const close = () => upstream.destroy();
  client.once('close', close);
  upstream.once('close', () => client.off('close', close));
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

module.exports = { EMPTY, noop, guarded, guard, endSocket, listen, readLine, pipe, closeWith, closeServer };
