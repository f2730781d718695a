'use strict';

// The DNS stub a filtered command's resolver asks (its resolv.conf names 127.0.0.1): one question
// per query, answered from the judge's own table and never forwarded, so no query (and nothing
// encoded in a name) leaves the machine. This file holds the packet codec, the table of per-name
// loopback addresses and the socket loop; which names resolve is the judge's decision.

const TYPE_A = 1;
const TYPE_AAAA = 28;
const TYPE_SVCB = 64;
const TYPE_HTTPS = 65;
const CLASS_IN = 1;

const RCODE = Object.freeze({ NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 });

const HEADER_BYTES = 12;
const MAX_NAME_BYTES = 255;
const MAX_LABEL_BYTES = 63;
const LABEL_PATTERN = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;

// Reads the question's name at `offset`: plain labels only. A compression pointer in a question
// is legal in theory but no resolver sends one; refusing it leaves no loops or jumps to bound.
// Returns { name, end } or null when the name is malformed or runs past the packet.
function readName(packet, offset) {
  const labels = [];
  let at = offset;
  let total = 0;
  for (;;) {
    if (at >= packet.length) return null;
    const length = packet[at];
    if (length === 0) break;
    if (length > MAX_LABEL_BYTES) return null; // 0xC0 pointers and the reserved 0x40/0x80 types
    total += length + 1;
    if (total + 1 > MAX_NAME_BYTES || at + 1 + length > packet.length) return null;
    labels.push(packet.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  return { labels, end: at + 1 };
}

// Decodes a query. Returns null for what deserves no answer (shorter than a header, or a
// response rather than a query); { id, flags, error: 'format' | 'opcode' } for what gets an
// error answer; or { id, flags, question: { labels, name, type, qclass, bytes } }, where `name`
// is the lowercased dotted name or null when a label holds other characters than letters,
// digits, '-' and '_' (such a name never resolves), and `bytes` the question as sent, to echo.
function decodeQuery(packet) {
  if (!Buffer.isBuffer(packet) || packet.length < HEADER_BYTES) return null;
  const id = packet.readUInt16BE(0);
  const flags = packet.readUInt16BE(2);
  if (flags & 0x8000) return null;
  const opcode = (flags >> 11) & 0xf;
  if (opcode !== 0) return { id, flags, error: 'opcode' };
  const questions = packet.readUInt16BE(4);
  const answers = packet.readUInt16BE(6);
  const authorities = packet.readUInt16BE(8);
  if (questions !== 1 || answers !== 0 || authorities !== 0) return { id, flags, error: 'format' };
  const read = readName(packet, HEADER_BYTES);
  if (!read || read.end + 4 > packet.length) return { id, flags, error: 'format' };
  const type = packet.readUInt16BE(read.end);
  const qclass = packet.readUInt16BE(read.end + 2);
  const lowered = read.labels.map((label) => label.toLowerCase());
  const name = lowered.length > 0 && lowered.every((label) => LABEL_PATTERN.test(label)) ? lowered.join('.') : null;
  const bytes = packet.subarray(HEADER_BYTES, read.end + 4);
  return { id, flags, question: { labels: read.labels, name, type, qclass, bytes } };
}

// Encodes an answer to `query` (as decodeQuery returned it): the ID and the RD bit echoed, RA
// set, the question echoed when there was a readable one, and for `address` one A record
// pointing back at the question's name.
function encodeResponse(query, rcode, { address = null, ttl = 60 } = {}) {
  const question = query.question ? query.question.bytes : Buffer.alloc(0);
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt16BE(query.id, 0);
  const recursionDesired = query.flags & 0x0100;
  const opcodeBits = query.flags & 0x7800;
  header.writeUInt16BE(0x8000 | opcodeBits | recursionDesired | 0x0080 | rcode, 2);
  header.writeUInt16BE(query.question ? 1 : 0, 4);
  header.writeUInt16BE(address ? 1 : 0, 6);
  const parts = [header, question];
  if (address) {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc000 | HEADER_BYTES, 0); // the name: a pointer to the question's
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(CLASS_IN, 4);
    record.writeUInt32BE(ttl, 6);
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    parts.push(record);
  }
  return Buffer.concat(parts);
}

// Where NameTable's addresses lie: the launcher redirects every TCP port of this network in the
// command's namespace to the judge (src/launcher/port_redirect.h).
const STUB_NETWORK = Object.freeze({ network: '127.1.0.0', prefix: 16 });
const STUB_NETWORK_NAMES = 254 * 256;

// Per-name loopback addresses, stable for the table's life: 127.1.0.1, 127.1.0.2, ... (never
// 127.0.0.1, and nothing in 127.0.0.0/16, which the command may use for its own servers), the
// last octet kept within 1..254. At most `limit` names, all of them in STUB_NETWORK.
class NameTable {
  #byName = new Map();
  #byAddress = new Map();
  #limit;

  constructor(limit = 4096) {
    if (!(limit <= STUB_NETWORK_NAMES)) throw new RangeError(`NameTable: at most ${STUB_NETWORK_NAMES} names fit in 127.1.0.0/16`);
    this.#limit = limit;
  }

  // The name's address, allocated on first use; null once the table is full.
  addressFor(name) {
    const known = this.#byName.get(name);
    if (known) return known;
    const index = this.#byName.size;
    if (index >= this.#limit) return null;
    const address = `127.1.${Math.floor(index / 254)}.${(index % 254) + 1}`;
    this.#byName.set(name, address);
    this.#byAddress.set(address, name);
    return address;
  }

  // The name an address was handed out for, or null.
  nameAt(address) {
    return this.#byAddress.get(address) ?? null;
  }
}

// Answers every query arriving on the bound UDP socket with what `answer(query)` encodes (a
// Buffer, or null to stay silent). Errors on the socket (a reply to a vanished client) are
// dropped: the stub must outlive any one client.
function serveDns(socket, answer) {
  socket.on('error', () => {});
  socket.on('message', (packet, from) => {
    const query = decodeQuery(packet);
    if (!query) return;
    const reply = answer(query);
    if (reply) socket.send(reply, from.port, from.address, () => {});
  });
}

module.exports = {
  TYPE_A,
  TYPE_AAAA,
  TYPE_SVCB,
  TYPE_HTTPS,
  CLASS_IN,
  RCODE,
  decodeQuery,
  encodeResponse,
  NameTable,
  STUB_NETWORK,
  serveDns,
};
