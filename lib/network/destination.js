'use strict';

// A destination as the judge reads it from what a command sends (a CONNECT line, a URI, a SOCKS5
// request, a DNS question) and as it shows it back: one canonical text per host, so the policy,
// the report and the dialer all compare the same strings.

const { net } = require('../common/builtins');

const HOST_TEXT = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$/;

// IP text in one form per address: IPv4 dotted, IPv6 compressed lowercase without brackets or
// zone, IPv4-mapped IPv6 as IPv4. Null for what is not an IP literal.
function canonicalIp(text) {
  const unbracketed = String(text).replace(/^\[(.*)\]$/, '$1');
  const bare = unbracketed.includes(':') ? unbracketed.replace(/%.*$/, '') : unbracketed;
  const family = net.isIP(bare);
  if (family === 0) return null;
  if (family === 4) return bare;
  const compressed = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (!mapped) return compressed;
  const high = parseInt(mapped[1], 16);
  const low = parseInt(mapped[2], 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

// A destination host as the judge compares it: a lowercased ASCII name without a trailing dot,
// or canonical IP text (numeric forms such as 0x7f.1 become the address they dial). Null for
// anything else (userinfo, paths, spaces, empty labels).
function canonicalHost(text) {
  if (typeof text !== 'string') return null;
  const ip = canonicalIp(text);
  if (ip) return ip;
  if (!HOST_TEXT.test(text)) return null;
  let hostname;
  try {
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
  const asIp = canonicalIp(hostname);
  if (asIp) return asIp;
  const name = hostname.replace(/\.$/, '').toLowerCase();
  if (name === '' || name.split('.').some((label) => label === '')) return null;
  return name;
}

// "host:port" as a CONNECT request or a URI names it; null when malformed.
function parseAuthority(text, defaultPort) {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(String(text));
  if (!match) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  const host = canonicalHost(match[1]);
  return host ? { host, port } : null;
}

function displayHost(host) {
  return net.isIPv6(host) ? `[${host}]` : host;
}

// What a status line or note shows for a destination: printable ASCII only, on one line.
function displayDestination(host, port) {
  const shown = port === null ? displayHost(host) : `${displayHost(host)}:${port}`;
  return shown.replace(/[^\x21-\x7e]/g, '?');
}

function authorityFor(host, port, defaultPort) {
  return port === defaultPort ? displayHost(host) : `${displayHost(host)}:${port}`;
}

module.exports = { canonicalIp, canonicalHost, parseAuthority, displayDestination, authorityFor };
