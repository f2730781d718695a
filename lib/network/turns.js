'use strict';

// Requests a client pipelines on one connection, forwarded one at a time. Node's HTTP server
// parses every request a client has sent and emits each at once, answering them in order; each
// forwarded request has its upstream connection, so without turns one client connection that
// pipelines 700 requests to a response that never ends makes the judge (which runs in the
// agent's own process) open 700 sockets. With turns, a connection holds at most one upstream
// socket; the next request is dialled when the previous response has ended. A client that
// pipelines more than LIMITS.pipelined requests ahead is closed: none waiting had dialled
// anything.

const { LIMITS } = require('./limits');

class Turns {
  #queues = new WeakMap();

  /**
   * Runs `work` for a request on `socket` when the requests before it have been answered; `res`
   * is its response, whose close ends its turn.
   * @param {import('net').Socket} socket @param {import('http').ServerResponse} res @param {() => void} work
   */
  take(socket, res, work) {
    const queue = this.#queue(socket);
    if (queue.refused) return;
    const turn = () => {
      queue.busy = true;
      res.once('close', () => this.#next(socket, queue));
      work();
    };
    if (!queue.busy) return turn();
    if (queue.waiting.length >= LIMITS.pipelined) {
      // Node goes on parsing what it has read already: refuse those too, not only this one.
      queue.refused = true;
      queue.waiting.length = 0;
      return socket.destroy();
    }
    queue.waiting.push(turn);
    // Read no more requests while this one waits (those already read stay queued).
    queue.paused = true;
    socket.pause();
  }

  #queue(socket) {
    let queue = this.#queues.get(socket);
    if (!queue) {
      queue = { busy: false, paused: false, refused: false, waiting: [] };
      this.#queues.set(socket, queue);
      // A request still waiting when its client leaves never gets a turn.
      socket.once('close', () => (queue.waiting.length = 0));
    }
    return queue;
  }

  #next(socket, queue) {
    queue.busy = false;
    if (socket.destroyed) queue.waiting.length = 0;
    const turn = queue.waiting.shift();
    if (turn) return turn();
    if (queue.paused && !socket.destroyed) socket.resume();
    queue.paused = false;
  }
}

module.exports = { Turns };
