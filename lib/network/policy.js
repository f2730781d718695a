'use strict';

// exec's `network` option read as a policy, and the judgments made with it: which destinations a
// filtered run may reach, whether a child's network stays within its parent's, which resolved
// addresses are never dialled. Pure JS, no I/O: lib/network/judge.js does the serving.
//
// The grammar of one entry is in lib/network/entry.js; IP literals and the addresses never
// dialled are in lib/network/addresses.js.
const { plainData } = require('../common/plain');
const { PermissionEscalationError } = require('../sandbox-errors');
const { parseEntry, asciiName, describeValue } = require('./entry');
const { parseIP, parsedRefusal } = require('./addresses');

/**
 * @typedef {import('./entry').Entry} Entry
 * @typedef {Readonly<{ mode: 'off' | 'host' | 'filtered', allow: readonly Entry[], deny: readonly Entry[] }>} NetworkPolicy
 * @typedef {import('./addresses').AddressRefusal} AddressRefusal
 * @typedef {Readonly<{ allowed: boolean, entry: Entry | null, reason: null | 'denied' | 'not-allowed' }>} Match
 */

// More entries than any hand-written list holds; the judge's DNS stub serves at most 4096 names.
const MAX_ENTRIES = 4096;

const policies = new WeakSet(); // every NetworkPolicy this module made, and only those

// ---------------------------------------------------------------------------------------------
// Policies.

// The same destinations, served by the judge even where none is allowed: a caller that approves
// destinations as they come (exec's onRequest) needs one to ask it. The host's network stays so.
/** @param {NetworkPolicy} policy @returns {NetworkPolicy} */
function judgedPolicy(policy) {
  checkPolicy(policy, 'judgedPolicy');
  return policy.mode === 'off' ? makePolicy('filtered', policy.allow, policy.deny) : policy;
}

/** @param {'off' | 'host' | 'filtered'} mode @param {readonly Entry[]} allow @param {readonly Entry[]} deny @returns {NetworkPolicy} */
function makePolicy(mode, allow, deny) {
  const policy = Object.freeze({ mode, allow: Object.freeze([...allow]), deny: Object.freeze([...deny]) });
  policies.add(policy);
  return policy;
}

const OFF = makePolicy('off', [], []);
const HOST = makePolicy('host', [], []);

/** @param {readonly Entry[]} entries @returns {Entry[]} the first of each text */
function uniqueEntries(entries) {
  const seen = new Set();
  return entries.filter((entry) => !seen.has(entry.text) && seen.add(entry.text));
}

/** @param {unknown} list @param {string} where @param {'allow' | 'deny'} role @returns {{ entries: Entry[], index: Map<string, number> }} */
function parseList(list, where, role) {
  if (!Array.isArray(list)) {
    throw new TypeError(`${where}: expected a list of host names, like ["example.com", "*.example.org"], got ${describeValue(list)}`);
  }
  if (list.length > MAX_ENTRIES) throw new TypeError(`${where}: has ${list.length} entries; at most ${MAX_ENTRIES} are accepted`);
  const index = new Map();
  const entries = list.map((text, i) => {
    const entry = parseEntry(text, `${where}[${i}]`, role);
    if (!index.has(entry.text)) index.set(entry.text, i);
    return entry;
  });
  return { entries: uniqueEntries(entries), index };
}

/** @param {unknown} value @param {string} where @returns {{ policy: NetworkPolicy, index: Map<string, number> }} */
function parseIndexed(value, where) {
  if (isNetworkPolicy(value)) {
    const policy = /** @type {NetworkPolicy} */ (value);
    return { policy, index: new Map(policy.allow.map((entry, i) => [entry.text, i])) };
  }
  if (value === undefined || value === false) return { policy: OFF, index: new Map() };
  if (value === true) return { policy: HOST, index: new Map() };
  if (Array.isArray(value)) {
    throw new TypeError(`${where}: got a list; write { allow: [...] } to allow those hosts (or true for the host's network, false for none)`);
  }
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${where}: expected true (the host's network), false (none) or { allow: [...hosts], deny?: [...hosts] }, got ${describeValue(value)}`);
  }
  const copy = plainData(value, (/** @type {string} */ message) => new TypeError(message), where);
  for (const key of Object.keys(copy)) {
    if (key !== 'allow' && key !== 'deny') throw new TypeError(`${where}: unknown key "${key}" (allowed: allow, deny)`);
  }
  if (!('allow' in copy)) {
    throw new TypeError(`${where}.allow: missing; list the hosts to allow, like { allow: ["example.com"] }`);
  }
  const allow = parseList(copy.allow, `${where}.allow`, 'allow');
  const deny = 'deny' in copy ? parseList(copy.deny, `${where}.deny`, 'deny').entries : [];
  if (allow.entries.length === 0) return { policy: makePolicy('off', [], deny), index: allow.index };
  return { policy: makePolicy('filtered', allow.entries, deny), index: allow.index };
}

/**
 * exec's `network` option as a policy: false (or undefined) -> off, true -> the host's network,
 * { allow, deny? } -> filtered (an empty allow -> off). A policy this module made is returned
 * as it is. Duplicate entries (same canonical text) are kept once.
 * @param {unknown} value
 * @param {string} [where] names the option in messages
 * @returns {NetworkPolicy}
 */
function parseNetwork(value, where = 'network') {
  return parseIndexed(value, where).policy;
}

/**
 * Whether `value` is a policy made by this module (a look-alike object is not).
 * @param {unknown} value
 * @returns {boolean}
 */
function isNetworkPolicy(value) {
  return typeof value === 'object' && value !== null && policies.has(value);
}

/** @param {unknown} policy @param {string} caller @returns {NetworkPolicy} */
function checkPolicy(policy, caller) {
  if (!isNetworkPolicy(policy)) throw new TypeError(`${caller}: expected a policy from parseNetwork(), got ${describeValue(policy)}`);
  return /** @type {NetworkPolicy} */ (policy);
}

// A destination as the entries hold hosts: an IP literal canonical, a name in ASCII. Null when
// it is neither (nothing matches it).
/** @param {unknown} host @returns {{ kind: 'ip' | 'name', host: string } | null} */
function destinationHost(host) {
  if (typeof host !== 'string' || host === '') return null;
  const ip = parseIP(host);
  if (ip !== null) return { kind: 'ip', host: ip.text };
  const name = asciiName(host);
  return 'why' in name ? null : { kind: 'name', host: name.ascii };
}

/** @param {Entry} entry @param {{ kind: 'ip' | 'name', host: string }} target */
function hostMatches(entry, target) {
  if (entry.kind === 'ip') return target.kind === 'ip' && target.host === entry.host;
  if (target.kind !== 'name') return false;
  return entry.kind === 'name' ? target.host === entry.host : target.host.endsWith(`.${entry.host}`);
}

// The most specific of the matching entries: an exact host before a wildcard, a longer wildcard
// before a shorter one, a port before none; else the first listed.
/** @param {Entry[]} entries @returns {Entry | null} */
function mostSpecific(entries) {
  const score = (/** @type {Entry} */ e) => (e.kind === 'wildcard' ? 0 : 1000) + e.host.length * 2 + (e.port === null ? 0 : 1);
  return entries.reduce((best, e) => (best === null || score(e) > score(best) ? e : best), /** @type {Entry | null} */ (null));
}

/** @param {unknown} port */
function validPort(port) {
  return port === null || (Number.isInteger(port) && /** @type {number} */ (port) >= 1 && /** @type {number} */ (port) <= 65535);
}

/**
 * Whether the command may reach `host`:`port`. `host` is a name or an IP literal (IPv6 with or
 * without brackets); names match name and wildcard entries, IP literals only IP entries. Deny
 * wins over allow. `port` null asks about the host at all (as a DNS lookup does): allowed when an
 * allow entry matches on some port and no deny entry covers every port. A host or port that is
 * not valid matches nothing (not-allowed).
 * @param {NetworkPolicy} policy
 * @param {string} host
 * @param {number | null} port
 * @returns {Match}
 */
function matchDestination(policy, host, port) {
  checkPolicy(policy, 'matchDestination');
  if (policy.mode === 'host') return Object.freeze({ allowed: true, entry: null, reason: null });
  const target = destinationHost(host);
  if (target === null || !validPort(port)) return Object.freeze({ allowed: false, entry: null, reason: 'not-allowed' });
  const denied = mostSpecific(policy.deny.filter((e) => hostMatches(e, target) && (e.port === null || e.port === port)));
  if (denied !== null) return Object.freeze({ allowed: false, entry: denied, reason: 'denied' });
  const allowed = mostSpecific(policy.allow.filter((e) => hostMatches(e, target) && (e.port === null || port === null || e.port === port)));
  if (allowed !== null) return Object.freeze({ allowed: true, entry: allowed, reason: null });
  return Object.freeze({ allowed: false, entry: null, reason: 'not-allowed' });
}

/**
 * `policy` with the granted entries added to its allow list (an approval given while the
 * command runs). Off becomes filtered; the host's network stays as it is; deny is unchanged.
 * @param {NetworkPolicy} policy
 * @param {readonly string[]} texts
 * @param {string} [where]
 * @returns {NetworkPolicy}
 */
function withGrant(policy, texts, where = 'grant') {
  checkPolicy(policy, 'withGrant');
  const copy = plainData(texts, (/** @type {string} */ message) => new TypeError(message), where);
  const granted = parseList(copy, where, 'allow').entries;
  if (policy.mode === 'host' || granted.length === 0) return policy;
  return makePolicy('filtered', uniqueEntries([...policy.allow, ...granted]), policy.deny);
}

/**
 * Whether parent entry `p` admits every destination child entry `c` admits.
 * @param {Entry} p
 * @param {Entry} c
 * @returns {boolean}
 */
function covers(p, c) {
  if (p.port !== null && p.port !== c.port) return false;
  if (p.kind === 'ip' || p.kind === 'name') return c.kind === p.kind && c.host === p.host;
  if (c.kind === 'ip') return false;
  return c.host.endsWith(`.${p.host}`) || (c.kind === 'wildcard' && c.host === p.host);
}

/** @param {NetworkPolicy} policy */
function allowedList(policy) {
  return policy.allow.length === 0 ? 'none' : policy.allow.map((e) => e.text).join(', ');
}

/**
 * A child's network within its parent's: the child's policy, with the parent's deny entries
 * added. Throws PermissionEscalationError naming what the parent does not allow.
 * @param {NetworkPolicy} parent
 * @param {unknown} child a policy, or the child's `network` value as parseNetwork() takes it
 * @param {string} [where] names the child's option in messages
 * @returns {NetworkPolicy}
 */
function narrowNetwork(parent, child, where = 'network') {
  checkPolicy(parent, 'narrowNetwork');
  const { policy, index } = parseIndexed(child, where);
  const deny = uniqueEntries([...parent.deny, ...policy.deny]);
  if (parent.mode === 'host') return makePolicy(policy.mode, policy.allow, deny);
  if (policy.mode === 'host') {
    throw new PermissionEscalationError(`${where}: true would widen this sandbox's network (allowed: ${allowedList(parent)})`);
  }
  for (const entry of policy.allow) {
    if (!parent.allow.some((p) => covers(p, entry))) {
      throw new PermissionEscalationError(`${where}.allow[${index.get(entry.text)}]: ${JSON.stringify(entry.text)} ` +
        `is not within this sandbox's network (allowed: ${allowedList(parent)})`);
    }
  }
  return makePolicy(policy.mode, policy.allow, deny);
}

/**
 * The ports the launcher captures for names: 80 and 443 when a name or wildcard entry allows
 * every port, and each port a name or wildcard entry names; ascending. (IP entries are reached
 * through the proxies only: a connection to a public address has no route out of the namespace.)
 * @param {NetworkPolicy} policy
 * @returns {readonly number[]}
 */
function capturePorts(policy) {
  checkPolicy(policy, 'capturePorts');
  if (policy.mode !== 'filtered') return Object.freeze([]);
  const ports = new Set();
  for (const entry of policy.allow) {
    if (entry.kind === 'ip') continue;
    if (entry.port === null) {
      ports.add(80);
      ports.add(443);
    } else {
      ports.add(entry.port);
    }
  }
  return Object.freeze([...ports].sort((a, b) => a - b));
}

/**
 * Why a resolved address is not dialled for a name, or null when it may be.
 * @param {string} ip an IP literal (IPv6 with or without brackets)
 * @returns {AddressRefusal | null}
 */
function addressRefusal(ip) {
  const parsed = parseIP(ip);
  if (parsed === null) throw new TypeError(`addressRefusal: expected an IP address, got ${describeValue(ip)}`);
  return parsedRefusal(parsed);
}

/**
 * Whether an IP entry of the allow list names exactly this address (on this port, or on any
 * port when `port` is null), and no deny entry names it: the user asked for that address, so
 * the judge may dial it even where addressRefusal() refuses it.
 * @param {NetworkPolicy} policy
 * @param {string} ip
 * @param {number | null} port
 * @returns {boolean}
 */
function namesAddress(policy, ip, port) {
  checkPolicy(policy, 'namesAddress');
  const parsed = parseIP(ip);
  if (parsed === null) throw new TypeError(`namesAddress: expected an IP address, got ${describeValue(ip)}`);
  if (policy.mode !== 'filtered' || !validPort(port)) return false;
  const names = (/** @type {Entry} */ e) => e.kind === 'ip' && e.host === parsed.text;
  if (policy.deny.some((e) => names(e) && (e.port === null || e.port === port))) return false;
  return policy.allow.some((e) => names(e) && (e.port === null || port === null || e.port === port));
}

/**
 * The policy as plain text lists, for reports and messages.
 * @param {NetworkPolicy} policy
 * @returns {Readonly<{ mode: 'off' | 'host' | 'filtered', allow: readonly string[], deny: readonly string[] }>}
 */
function describeNetwork(policy) {
  checkPolicy(policy, 'describeNetwork');
  return Object.freeze({
    mode: policy.mode,
    allow: Object.freeze(policy.allow.map((e) => e.text)),
    deny: Object.freeze(policy.deny.map((e) => e.text)),
  });
}

module.exports = {
  judgedPolicy,
  parseEntry, parseNetwork, isNetworkPolicy, matchDestination, withGrant, narrowNetwork, covers,
  capturePorts, addressRefusal, namesAddress, describeNetwork,
};
