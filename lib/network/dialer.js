'use strict';

// How the network judge decides on a destination and reaches it: the policy's verdict (and, for
// what the policy leaves out, the caller's onRequest, asked once per destination), then one
// resolution of the name whose addresses are checked and the checked address dialled, so DNS
// rebinding cannot turn an allowed name into a private or local address. Every protocol of the
// judge opens its upstream connections here.

const { dns, net, os } = require('../common/builtins');
const { matchDestination, addressRefusal, namesAddress } = require('./policy');
const { LIMITS } = require('./limits');
const { canonicalIp } = require('./destination');

async function defaultLookup(host) {
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

function defaultOwnAddresses() {
  return Object.values(os.networkInterfaces())
    .flat()
    .map((entry) => entry.address);
}

class Dialer {
  #policy;
  #onRequest;
  #lookup;
  #ownAddresses;
  #report;
  #track;
  #isClosed;
  #answers = new Map();
  #grantedNames = new Set();
  #approvedAddresses = new Set();

  /**
   * @param {{
   *   policy: import('./policy').NetworkPolicy,
   *   onRequest: ((destination: { host: string, port: number }) => boolean | Promise<boolean>) | null,
   *   lookup?: (host: string) => Promise<string[]>,
   *   ownAddresses?: () => string[],
   *   report: import('./report').Report,
   *   track: (socket: import('net').Socket) => void,
   *   isClosed: () => boolean,
   * }} options track takes each upstream socket, so closing the judge ends it
   */
  constructor({ policy, onRequest, lookup, ownAddresses, report, track, isClosed }) {
    this.#policy = policy;
    this.#onRequest = onRequest;
    this.#lookup = lookup ?? defaultLookup;
    this.#ownAddresses = ownAddresses ?? defaultOwnAddresses;
    this.#report = report;
    this.#track = track;
    this.#isClosed = isClosed;
  }

  // Null when host:port may be reached, else the reason. A destination the policy leaves out
  // (never a denied one) goes to onRequest once; its answer stands for the judge's life.
  async judge(host, port) {
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
  nameRefusal(name) {
    const verdict = matchDestination(this.#policy, name, null);
    if (verdict.allowed || (verdict.reason === 'not-allowed' && this.#grantedNames.has(name))) return null;
    return verdict.reason;
  }

  // Judges and dials host:port, recording a refusal. Returns { socket } or { reason }.
  async open(host, port) {
    const refusal = await this.judge(host, port);
    const outcome = refusal ? { reason: refusal } : await this.#dial(host, port);
    if (outcome.reason) this.#report.refused(host, port, outcome.reason);
    else this.#report.connected(host, port, outcome.socket);
    return outcome;
  }

  // A connection to host:port, judged and opened for an earlier step (a tunnel's) when it is
  // still open, else a new one.
  async openOrReuse(host, port, spare) {
    if (spare && !spare.destroyed && !spare.readableEnded) return { socket: spare };
    spare?.destroy();
    return this.open(host, port);
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
      if (this.#isClosed()) return resolve({ reason: 'unreachable' });
      const socket = net.connect({ host: ip, port, allowHalfOpen: true });
      this.#track(socket);
      socket.setTimeout(LIMITS.connectMs, () => socket.destroy());
      const failed = () => resolve({ reason: 'unreachable' });
      socket.once('close', failed);
      socket.once('connect', () => {
        socket.off('close', failed);
        socket.setTimeout(LIMITS.idleMs, () => socket.destroy());
        if (this.#isClosed()) {
          socket.destroy();
          resolve({ reason: 'unreachable' });
        } else resolve({ socket });
      });
    });
  }
}

module.exports = { Dialer };
