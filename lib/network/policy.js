'use strict';

// exec's `network` option read as a policy, and the judgments made with it: which destinations a
// filtered run may reach, whether a child's network stays within its parent's, which resolved
// addresses are never dialled. Pure JS, no I/O: lib/network/judge.js does the serving.
//
// The entry grammar is the one of Anthropic's sandbox-runtime (allowedDomains / deniedDomains)
// and Claude Code's sandbox network settings, so their lists carry over: exact names
// (case-insensitive, a trailing dot ignored), `*.example.com` for the names strictly below
// example.com (not example.com itself), an optional `:port`, IP literals (IPv6 in brackets when a
// port follows). IP literals match only IP literal destinations: a name that resolves to an
// address is judged by its name.
const net = process.getBuiltinModule?.('net') ?? require('net');
const url = process.getBuiltinModule?.('url') ?? require('url');
const { plainData } = require('../common/plain');
const { PermissionEscalationError } = require('../sandbox-errors');

/**
 * @typedef {Readonly<{ kind: 'name' | 'wildcard' | 'ip', host: string, port: number | null, text: string }>} Entry
 * @typedef {Readonly<{ mode: 'off' | 'host' | 'filtered', allow: readonly Entry[], deny: readonly Entry[] }>} NetworkPolicy
 * @typedef {'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'carrier-grade-nat' | 'reserved'} AddressRefusal
 * @typedef {Readonly<{ allowed: boolean, entry: Entry | null, reason: null | 'denied' | 'not-allowed' }>} Match
 */

// More entries than any hand-written list holds; the judge's DNS stub serves at most 4096 names.
const MAX_ENTRIES = 4096;
const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
const HOSTS_HINT = 'list the hosts (exact names, or *.example.com for the subdomains of one)';

// Suffixes under which strangers get their own names: a wildcard there lets anyone who registers
// a name (or opens an account) receive what the command sends. Country second levels, and hosting
// domains that give every customer a subdomain. Deliberately short: a wildcard with a one-label
// suffix (*.com) is refused on its own; this list catches the common two- and three-label ones.
const SHARED_SUFFIXES = new Set([
  'co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'me.uk', 'ltd.uk', 'plc.uk', 'net.uk',
  'com.au', 'net.au', 'org.au', 'edu.au', 'gov.au',
  'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'go.jp',
  'co.nz', 'net.nz', 'org.nz',
  'co.za', 'org.za',
  'com.br', 'net.br', 'org.br',
  'com.cn', 'net.cn', 'org.cn',
  'com.tw', 'org.tw',
  'co.in', 'net.in', 'org.in',
  'co.kr', 'or.kr',
  'com.mx', 'com.ar', 'com.tr', 'com.sg', 'com.hk', 'co.il',
  'github.io', 'gitlab.io', 'herokuapp.com', 'vercel.app', 'netlify.app', 'pages.dev', 'workers.dev',
  'appspot.com', 'cloudfront.net', 'amazonaws.com', 'azurewebsites.net', 'blob.core.windows.net',
  'web.app', 'firebaseapp.com',
]);

// Whole-text markers of something other than a host, each with what to write instead.
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const DEFAULT_PORTS = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

const policies = new WeakSet(); // every NetworkPolicy this module made, and only those

/** @param {unknown} value */
function describeValue(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? quoted(value) : typeof value;
}

// An entry as messages quote it: JSON-quoted (so control characters show), cut at 200 characters.
/** @param {string} text */
function quoted(text) {
  return text.length > 200 ? `${JSON.stringify(text.slice(0, 200)).slice(0, -1)}..."` : JSON.stringify(text);
}

/** @param {string} where @param {string} text @param {string} why */
function entryError(where, text, why) {
  return new TypeError(`${where}: ${quoted(text)} ${why}`);
}

// ---------------------------------------------------------------------------------------------
// IP literals. IPv4 only in dotted decimal (four numbers 0..255, no leading zeros, as
// net.isIP accepts); IPv6 parsed here into eight 16-bit groups and written back in RFC 5952's
// canonical text. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address.

/** @param {string} text @returns {number[] | null} four bytes */
function ipv4Bytes(text) {
  if (net.isIP(text) !== 4) return null;
  return text.split('.').map(Number);
}

/** @param {string} text @returns {number[] | null} eight 16-bit groups */
function ipv6Groups(text) {
  if (net.isIP(text) !== 6 || text.includes('%')) return null; // a zone names a host interface
  let head = text.toLowerCase();
  /** @type {number[]} */
  let tail = [];
  const lastColon = head.lastIndexOf(':');
  if (head.slice(lastColon + 1).includes('.')) {
    const bytes = ipv4Bytes(head.slice(lastColon + 1));
    if (bytes === null) return null;
    tail = [(bytes[0] << 8) | bytes[1], (bytes[2] << 8) | bytes[3]];
    head = head[lastColon - 1] === ':' ? head.slice(0, lastColon + 1) : head.slice(0, lastColon);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const side = (/** @type {string} */ part) => (part === '' ? [] : part.split(':'));
  const left = side(halves[0]);
  const right = halves.length === 2 ? side(halves[1]) : [];
  if (![...left, ...right].every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const zeros = new Array(8 - given).fill(0);
  return [...left.map((g) => parseInt(g, 16)), ...zeros, ...right.map((g) => parseInt(g, 16)), ...tail];
}

/** @param {number[]} groups eight groups @returns {string} RFC 5952 text: lowercase, the longest run of two or more zero groups (the first of equals) as "::" */
function ipv6Text(groups) {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** @param {number[]} groups */
function isMapped(groups) {
  return groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
}

/** @param {number} high @param {number} low @returns {number[]} */
function embeddedBytes(high, low) {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

/**
 * An IP literal (IPv6 with or without brackets) in canonical form, or null when `text` is not one.
 * @param {string} text
 * @returns {{ version: 4, text: string, bytes: number[] } | { version: 6, text: string, groups: number[] } | null}
 */
function parseIP(text) {
  if (typeof text !== 'string') return null;
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bare !== text && net.isIP(bare) !== 6) return null; // brackets hold IPv6 only
  const bytes = ipv4Bytes(bare);
  if (bytes !== null) return { version: 4, text: bytes.join('.'), bytes };
  const groups = ipv6Groups(bare);
  if (groups === null) return null;
  if (isMapped(groups)) {
    const mapped = embeddedBytes(groups[6], groups[7]);
    return { version: 4, text: mapped.join('.'), bytes: mapped };
  }
  return { version: 6, text: ipv6Text(groups), groups };
}

// ---------------------------------------------------------------------------------------------
// Host names.

// `name` in ASCII (IDN converted, lowercase, one trailing dot dropped) when it is a valid host
// name, else a reason. Labels are letters, digits, '-' (not first or last) and '_' (for names
// such as _acme-challenge.example.com); a last label that is a number would be read as an IPv4
// address by URL parsers (127.1, 0x7f.1), so it is refused rather than guessed at.
/** @param {string} name @returns {{ ascii: string } | { why: string }} */
function asciiName(name) {
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  if (trimmed === '' || trimmed.startsWith('.') || trimmed.endsWith('.') || trimmed.includes('..')) {
    return { why: 'has an empty label (two dots in a row, or a dot at the start)' };
  }
  // domainToASCII would also percent-decode and cut at '/', so only letters, digits, '-', '_'
  // and '.' are passed among ASCII characters; anything else is reported as itself.
  const bad = [...trimmed].find((c) => c <= '\u007f' && !/[A-Za-z0-9._-]/.test(c));
  if (bad !== undefined) return { why: `contains ${JSON.stringify(bad)}, which cannot appear in a host name` };
  if (endsInNumber(trimmed.toLowerCase())) return { why: ENDS_IN_NUMBER };
  const ascii = url.domainToASCII(trimmed);
  if (ascii === '') return { why: 'is not a valid host name' };
  const labels = ascii.split('.');
  if (ascii.length > MAX_NAME_LENGTH) return { why: `is longer than ${MAX_NAME_LENGTH} characters` };
  for (const label of labels) {
    if (label.length === 0 || label.length > MAX_LABEL_LENGTH || !/^[a-z0-9_-]+$/.test(label)) {
      return { why: 'is not a valid host name' };
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      return { why: `is not a valid host name: the label "${label}" starts or ends with "-"` };
    }
  }
  if (endsInNumber(ascii)) return { why: ENDS_IN_NUMBER };
  return { ascii };
}

const ENDS_IN_NUMBER = 'ends in a number, so it is neither a host name nor an IPv4 address; write IPv4 addresses as four decimal numbers (a.b.c.d)';

// Whether URL parsers would read `name` as an IPv4 address (in decimal, octal or hex parts).
// Checked before IDN conversion too, which would turn 127.1 into 127.0.0.1 and refuse 256.0.0.1.
/** @param {string} name lowercase */
function endsInNumber(name) {
  return /^(?:[0-9]+|0x[0-9a-f]*)$/.test(name.slice(name.lastIndexOf('.') + 1));
}

// The host part of an entry, `host` as written between any scheme checks and the port.
/** @param {string} host @param {string} text @param {string} where @param {'allow' | 'deny'} role */
function parseHost(host, text, where, role) {
  if (host === '') throw entryError(where, text, 'names no host; give a host name like example.com');
  const ip = parseIP(host.endsWith('.') && !host.includes(':') ? host.slice(0, -1) : host);
  if (ip !== null) return { kind: /** @type {'ip'} */ ('ip'), host: ip.text };
  if (host.includes('*')) return parseWildcard(host, text, where, role);
  const name = asciiName(host);
  if ('why' in name) throw entryError(where, text, name.why);
  return { kind: /** @type {'name'} */ ('name'), host: name.ascii };
}

/** @param {string} host @param {string} text @param {string} where @param {'allow' | 'deny'} role */
function parseWildcard(host, text, where, role) {
  const rest = host.slice(2);
  if (!host.startsWith('*.') || rest.includes('*')) {
    throw entryError(where, text, 'has "*" other than as its whole first label; a wildcard is written *.example.com (the names below example.com)');
  }
  if (net.isIP(rest.endsWith('.') ? rest.slice(0, -1) : rest) !== 0 || rest.startsWith('[')) {
    throw entryError(where, text, 'puts a wildcard on an IP address; wildcards take host names, as in *.example.com');
  }
  const name = asciiName(rest);
  if ('why' in name) throw entryError(where, text, name.why);
  if (role === 'allow') refuseSharedSuffix(name.ascii, text, where);
  return { kind: /** @type {'wildcard'} */ ('wildcard'), host: name.ascii };
}

/** @param {string} suffix @param {string} text @param {string} where */
function refuseSharedSuffix(suffix, text, where) {
  if (!suffix.includes('.')) {
    throw entryError(where, text, `would allow every name under .${suffix}; ${HOSTS_HINT}`);
  }
  if (SHARED_SUFFIXES.has(suffix)) {
    throw entryError(where, text, `would allow every name under ${suffix}, where strangers get names of their ` +
      `own, so anyone could receive the data; list your own names instead (e.g. *.yours.${suffix} or yours.${suffix})`);
  }
}

// A URL given where a host belongs: what its host entry would be, for the message.
/** @param {string} text */
function urlSuggestion(text) {
  const scheme = text.slice(0, text.indexOf(':')).toLowerCase();
  let authority = text.slice(text.indexOf('//') + 2).split(/[/?#]/)[0];
  authority = authority.slice(authority.lastIndexOf('@') + 1);
  if (authority === '') return 'give the host name only (example.com, or example.com:443)';
  const hasPort = /:[0-9]+$/.test(authority) && (authority.startsWith('[') || !authority.includes('::'));
  const port = /** @type {Record<string, number>} */ (DEFAULT_PORTS)[scheme];
  if (hasPort || port === undefined) return `give the host name only (${authority})`;
  return `give the host name only (${authority}, or ${authority}:${port})`;
}

// Splits `host[:port]`, `[ipv6][:port]` or a bare IPv6 address (no port).
/** @param {string} text @param {string} where @returns {{ host: string, portText: string | null }} */
function splitPort(text, where) {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw entryError(where, text, 'opens "[" without closing it; write an IPv6 address as [2001:db8::1] or [2001:db8::1]:443');
    const inner = text.slice(1, close);
    const after = text.slice(close + 1);
    if (inner.includes('%')) {
      throw entryError(where, text, 'has a zone (after "%"), which names one of the host\'s own interfaces; give the address without it');
    }
    if (ipv6Groups(inner) === null) {
      throw entryError(where, text, 'has brackets around something other than an IPv6 address; brackets hold an IPv6 address only, as in [2001:db8::1]:443');
    }
    if (after !== '' && !after.startsWith(':')) {
      throw entryError(where, text, 'has text after "]"; write [2001:db8::1] or [2001:db8::1]:443');
    }
    return { host: inner, portText: after === '' ? null : after.slice(1) };
  }
  const colons = text.split(':').length - 1;
  if (colons >= 2 && text.includes('%')) {
    throw entryError(where, text, 'has a zone (after "%"), which names one of the host\'s own interfaces; give the address without it');
  }
  if (colons >= 2) {
    if (ipv6Groups(text) === null) {
      throw entryError(where, text, 'is not a valid IPv6 address; write an IPv6 address as 2001:db8::1, or with a port as [2001:db8::1]:443');
    }
    return { host: text, portText: null };
  }
  if (colons === 1) {
    const colon = text.indexOf(':');
    return { host: text.slice(0, colon), portText: text.slice(colon + 1) };
  }
  return { host: text, portText: null };
}

/** @param {string | null} portText @param {string} text @param {string} where @returns {number | null} */
function parsePort(portText, text, where) {
  if (portText === null) return null;
  if (portText === '') throw entryError(where, text, 'has ":" but no port after it; give a port from 1 to 65535, or leave out ":"');
  if (!/^[0-9]+$/.test(portText)) {
    throw entryError(where, text, `has the port ${quoted(portText)}; a port is a number from 1 to 65535 (leave the port out to allow every port)`);
  }
  if (portText.length > 1 && portText.startsWith('0')) {
    throw entryError(where, text, `has the port ${portText} with a leading zero; write it without (${Number(portText)})`);
  }
  const port = Number(portText);
  if (port < 1 || port > 65535) throw entryError(where, text, `has the port ${portText}, outside 1 to 65535`);
  return port;
}

// The checks on the text as a whole, before it is split: things that are not host entries.
/** @param {unknown} text @param {string} where @param {'allow' | 'deny'} role @returns {string} */
function checkEntryText(text, where, role) {
  if (typeof text !== 'string') {
    throw new TypeError(`${where}: expected a host name (a string like "example.com"), got ${describeValue(text)}`);
  }
  if (text.trim() === '') throw entryError(where, text, 'is empty; give a host name like example.com');
  if (/[\u0000-\u001f\u007f]/.test(text)) throw entryError(where, text, 'contains a control character');
  if (/\s/.test(text)) throw entryError(where, text, 'contains white space; give the host name alone, like example.com');
  if (!text.isWellFormed()) throw entryError(where, text, 'contains a lone surrogate (not valid UTF-16)');
  if (URL_SCHEME.test(text)) throw entryError(where, text, `is a URL; ${urlSuggestion(text)}`);
  if (text === '*' || text === '*.' || /^\*:[0-9]*$/.test(text)) {
    throw entryError(where, text, role === 'allow' ? `would allow every host; ${HOSTS_HINT}`
      : 'would deny every host; give network: false for no network at all');
  }
  const host = text.split(/[/?#]/)[0];
  if (host.includes('@')) {
    throw entryError(where, text, `has a user name (before "@"); give the host name only (${host.slice(host.lastIndexOf('@') + 1) || 'example.com'})`);
  }
  if (text.includes('/') || text.includes('?') || text.includes('#') || text.includes('\\')) {
    throw entryError(where, text, `has a path; give the host name only (${host.split('\\')[0] || 'example.com'}): the policy names hosts, not URLs`);
  }
  if (text.startsWith('.')) {
    const name = text.slice(1).replace(/:[0-9]*$/, '');
    throw entryError(where, text, `starts with a dot; write *${text} for the names below ${name}, or ${text.slice(1)} for ${name} itself`);
  }
  return text;
}

/** @param {'name' | 'wildcard' | 'ip'} kind @param {string} host @param {number | null} port @returns {Entry} */
function makeEntry(kind, host, port) {
  const bare = kind === 'wildcard' ? `*.${host}` : host;
  const display = kind === 'ip' && host.includes(':') && port !== null ? `[${host}]` : bare;
  return Object.freeze({ kind, host, port, text: port === null ? display : `${display}:${port}` });
}

/**
 * One entry of an allow (or deny) list. `role` 'deny' accepts broad wildcards (*.com, *.co.uk),
 * which in an allow list would hand the data to strangers.
 * @param {unknown} text
 * @param {string} [where] names the entry in messages, e.g. 'network.allow[2]'
 * @param {'allow' | 'deny'} [role]
 * @returns {Entry}
 */
function parseEntry(text, where = 'entry', role = 'allow') {
  if (role !== 'allow' && role !== 'deny') throw new TypeError(`parseEntry: role must be 'allow' or 'deny', got ${describeValue(role)}`);
  const whole = checkEntryText(text, where, role);
  const { host, portText } = splitPort(whole, where);
  const port = parsePort(portText, whole, where);
  const parsed = parseHost(host, whole, where, role);
  return makeEntry(parsed.kind, parsed.host, port);
}

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

// ---------------------------------------------------------------------------------------------
// Addresses never dialled for a name, whatever it resolves to: the host itself, its networks,
// cloud metadata services and addresses with no public meaning. The documentation ranges
// (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are deliberately NOT refused:
// nothing public uses them, and tests use them as stand-ins for public servers.

/** @param {number[]} b four bytes @returns {AddressRefusal | null} */
function ipv4Refusal(b) {
  const [b0, b1, b2, b3] = b;
  if ((b0 === 169 && b1 === 254 && b2 === 169 && b3 === 254) || (b0 === 100 && b1 === 100 && b2 === 100 && b3 === 200)) {
    return 'metadata'; // the clouds' instance metadata (AWS, GCP, Azure, Oracle; Alibaba)
  }
  if (b0 === 0) return 'unspecified';
  if (b0 === 10 || (b0 === 172 && (b1 & 0xf0) === 16) || (b0 === 192 && b1 === 168)) return 'private';
  if (b0 === 100 && (b1 & 0xc0) === 64) return 'carrier-grade-nat';
  if (b0 === 127) return 'loopback';
  if (b0 === 169 && b1 === 254) return 'link-local';
  // 198.18.0.0/15, the benchmarking range, is not refused: nothing public or private lives there,
  // and DNS-intercepting proxies (Clash, Surge, sing-box) hand out their fake addresses from it,
  // each standing for the very name that was looked up (README, "The risks, plainly").
  if (b0 === 192 && b1 === 0 && b2 === 0) return 'reserved';
  if (b0 >= 224 && b0 < 240) return 'multicast';
  if (b0 >= 240) return 'reserved'; // 240/4, and 255.255.255.255 the broadcast address
  return null;
}

/** @param {number[]} g eight groups @returns {AddressRefusal | null} */
function ipv6Refusal(g) {
  const zeroUpTo = (/** @type {number} */ n) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // Forms that carry an IPv4 address, judged by it: IPv4-mapped, IPv4-compatible, NAT64
  // (64:ff9b::/96 and the local-use 64:ff9b:1::/48, its last 32 bits) and 6to4 (bits 16..47).
  if (isMapped(g) || zeroUpTo(6)) return ipv4Refusal(embeddedBytes(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && (g[2] === 1 || (g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0))) {
    return ipv4Refusal(embeddedBytes(g[6], g[7]));
  }
  if (g[0] === 0x2002) return ipv4Refusal(embeddedBytes(g[1], g[2]));
  if (g[0] < 0x100) return 'reserved'; // the rest of ::/8 (e.g. ::ffff:0:a.b.c.d), assigned to nothing public
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved'; // 100::/64, discard
  // 2001::/32, Teredo: the IPv4 address inside is obfuscated and the relay is anyone's.
  if (g[0] === 0x2001 && g[1] === 0) return 'reserved';
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) {
    return 'metadata'; // AWS's instance metadata over IPv6
  }
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'reserved'; // the deprecated site-local fec0::/10
  if ((g[0] & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/**
 * Why a resolved address is not dialled for a name, or null when it may be.
 * @param {string} ip an IP literal (IPv6 with or without brackets)
 * @returns {AddressRefusal | null}
 */
function addressRefusal(ip) {
  const parsed = parseIP(ip);
  if (parsed === null) throw new TypeError(`addressRefusal: expected an IP address, got ${describeValue(ip)}`);
  return parsed.version === 4 ? ipv4Refusal(parsed.bytes) : ipv6Refusal(parsed.groups);
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
