'use strict';

// IP literals as network policies hold them, and the addresses never dialled for a name: the
// parsing behind entries such as [2001:db8::1]:443 (lib/network/entry.js) and behind
// addressRefusal() (lib/network/policy.js), which the judge asks about each resolved address.
const net = process.getBuiltinModule?.('net') ?? require('net');

/**
 * @typedef {'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'carrier-grade-nat' | 'reserved'} AddressRefusal
 */

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

// The IPv4 address an RFC 6052 layout puts in an address of prefix length `length` (48, 56, 64
// or 96), skipping bits 64..71 (the "u" octet), as translators read it: the suffix is ignored.
/** @param {number[]} g eight groups @param {48 | 56 | 64 | 96} length @returns {number[]} four bytes */
function nat64Bytes(g, length) {
  const bytes = g.flatMap((group) => [group >> 8, group & 0xff]);
  if (length === 96) return bytes.slice(12, 16);
  const start = length / 8; // the first byte of the IPv4 address; byte 8 is the u octet
  return [...bytes.slice(start, 8), ...bytes.slice(9, 9 + 4 - (8 - start))];
}

// 64:ff9b:1::/48 is the operator's to split (RFC 8215): a translator there may use the whole /48
// or a longer prefix inside it, and RFC 6052 places the IPv4 address by that length (/48: bits
// 48..63 and 72..87; /56: 56..63 and 72..95; /64: 72..103; /96: the last 32 bits). Which one a
// network uses cannot be read from an address, so it is refused when any layout yields a refused
// IPv4 address. A 0.0.0.0/8 result counts only in the /96 layout: no translator forwards to it,
// and under the other layouts a zero subnet ID (64:ff9b:1::/96 itself) reads as one.
/** @param {number[]} g eight groups @returns {AddressRefusal | null} */
function localUseRefusal(g) {
  const found = /** @type {const} */ ([96, 64, 56, 48]).map((length) => ipv4Refusal(nat64Bytes(g, length)));
  return found.find((refusal) => refusal !== null && refusal !== 'unspecified') ?? found[0];
}

/** @param {number[]} g eight groups @returns {AddressRefusal | null} */
function ipv6Refusal(g) {
  const zeroUpTo = (/** @type {number} */ n) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // Forms that carry an IPv4 address, judged by it: IPv4-mapped, IPv4-compatible, NAT64's
  // well-known prefix 64:ff9b::/96 (RFC 6052: its last 32 bits), the local-use 64:ff9b:1::/48
  // (RFC 8215: see localUseRefusal) and 6to4 (bits 16..47).
  if (isMapped(g) || zeroUpTo(6)) return ipv4Refusal(embeddedBytes(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) {
    return ipv4Refusal(embeddedBytes(g[6], g[7]));
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return localUseRefusal(g);
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
 * Why a parsed address is not dialled for a name, or null when it may be.
 * @param {NonNullable<ReturnType<typeof parseIP>>} parsed
 * @returns {AddressRefusal | null}
 */
function parsedRefusal(parsed) {
  return parsed.version === 4 ? ipv4Refusal(parsed.bytes) : ipv6Refusal(parsed.groups);
}

module.exports = { parseIP, ipv6Groups, parsedRefusal };
