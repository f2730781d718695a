'use strict';

// The server's stdout, as the SDK's transport writes replies to it. The SDK waits for 'drain'
// itself, adding an 'error' and a 'drain' listener per reply it is waiting on: after a burst of
// 20,000 requests that is 20,000 listeners, and each drain walks all of them, so the server
// answered nothing for half a minute while the CPU burned. Here every write is accepted at once
// (so the SDK never waits) and queued; the queue is written on with stdout's backpressure honoured
// once, by one listener. And input is read no faster than replies drain: while more than
// `highBytes` wait, roomFor() holds the reader (bounds/stdin.js), so memory stays bounded however
// many requests a client pipelines.
const { EventEmitter } = require('events');

const HIGH_BYTES = 4 * 1024 * 1024;

class Replies extends EventEmitter {
  #out;
  #queue = [];
  #queued = 0;
  #waiting = false;
  #highBytes;
  #roomWaiters = [];

  /** @param {NodeJS.WritableStream} out @param {{ highBytes?: number }} [options] */
  constructor(out, { highBytes = HIGH_BYTES } = {}) {
    super();
    this.#out = out;
    this.#highBytes = highBytes;
    out.on('error', (error) => this.emit('error', error));
  }

  /** Bytes accepted and not yet handed to stdout. */
  get queuedBytes() {
    return this.#queued;
  }

  /** Takes a reply (a whole line); always true: the caller never waits on 'drain'. */
  write(line) {
    const text = typeof line === 'string' ? line : String(line);
    this.#queue.push(text);
    this.#queued += Buffer.byteLength(text);
    this.#flush();
    return true;
  }

  /** Resolves when fewer than `highBytes` wait to be written (at once when that is so already). */
  roomFor() {
    if (this.#queued <= this.#highBytes) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  #flush() {
    while (!this.#waiting && this.#queue.length > 0) {
      const text = this.#queue.shift();
      this.#queued -= Buffer.byteLength(text);
      if (!this.#out.write(text)) {
        this.#waiting = true;
        this.#out.once('drain', () => {
          this.#waiting = false;
          this.#flush();
        });
      }
    }
    if (this.#queued <= this.#highBytes && this.#roomWaiters.length > 0) {
      for (const resolve of this.#roomWaiters.splice(0)) resolve();
    }
  }
}

module.exports = { Replies, HIGH_BYTES };
