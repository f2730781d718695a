'use strict';

// One entry of a network policy's allow or deny list, read from its text: a host name, a wildcard
// or an IP literal, with an optional port, each refused with a message that says what to write
// instead. Pure JS, no I/O; lib/network/policy.js makes policies of the lists.
//
// The entry grammar is the one of Anthropic's sandbox-runtime (allowedDomains / deniedDomains)
// and Claude Code's sandbox network settings, so their lists carry over: exact names
// (case-insensitive, a trailing dot ignored), `*.example.com` for the names strictly below
// example.com (not example.com itself), an optional `:port`, IP literals (IPv6 in brackets when a
// port follows). IP literals match only IP literal destinations: a name that resolves to an
// address is judged by its name.
const net = process.getBuiltinModule?.('net') ?? require('net');
const url = process.getBuiltinModule?.('url') ?? require('url');
const { parseIP, ipv6Groups } = require('./addresses');

/**
 * @typedef {Readonly<{ kind: 'name' | 'wildcard' | 'ip', host: string, port: number | null, text: string }>} Entry
 */

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

module.exports = { parseEntry, asciiName, describeValue };
