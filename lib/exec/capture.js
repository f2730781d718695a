'use strict';

// Keeps the first `limit` bytes of a stream (cut at a character boundary) and drains the rest.
class Capture {
  constructor(limit) {
    this.limit = limit;
    this.chunks = [];
    this.size = 0;
    this.truncated = false;
  }

  add(chunk) {
    const room = this.limit - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text() {
    let buf = Buffer.concat(this.chunks);
    if (this.truncated) buf = buf.subarray(0, utf8Boundary(buf));
    return buf.toString('utf8');
  }
}

// Length of the longest prefix that does not end inside a UTF-8 sequence.
function utf8Boundary(buf) {
  let start = buf.length;
  while (start > 0 && start > buf.length - 4 && (buf[start - 1] & 0xc0) === 0x80) start--;
  if (start === 0) return buf.length;
  const lead = buf[start - 1];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return buf.length - (start - 1) >= need ? buf.length : start - 1;
}

module.exports = { Capture };
