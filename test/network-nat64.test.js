'use strict';

// IPv6 addresses that carry an IPv4 address under a NAT64 prefix (issue 38), judged by what they
// carry. The well-known 64:ff9b::/96 puts it in the last 32 bits (RFC 6052); the local-use
// 64:ff9b:1::/48 (RFC 8215) is the operator's to use whole or split into longer translator
// prefixes, and RFC 6052 puts the IPv4 address at a different place for each length, never in
// bits 64..71. The other forms (mapped, compatible, 6to4) are in test/network-policy.test.js.

const { addressRefusal } = require('../lib/network/policy');

describe('the local-use NAT64 prefix 64:ff9b:1::/48 in every layout', () => {
  test.each([
    ['64:ff9b:1:a00:0:100::', 'private', '10.0.0.1 in the /48 layout (bits 48..63, 72..87)'],
    ['64:ff9b:1:a00:0:100:808:808', 'private', 'the same, with a suffix a translator ignores'],
    ['64:ff9b:1:ff0a:0:1::', 'private', '10.0.0.1 in the /56 layout (bits 56..63, 72..95)'],
    ['64:ff9b:1:0:64:6464:c800:0', 'metadata', '100.100.100.200 in the /64 layout (bits 72..103)'],
    ['64:ff9b:1:0:7f:0:100:0', 'loopback', '127.0.0.1 in the /64 layout'],
    ['64:ff9b:1:7f00:0:100::', 'loopback', '127.0.0.1 in the /48 layout'],
    ['64:ff9b:1:0:a9:fea9:fe00:0', 'reserved', '169.254.169.254 in the /64 layout, whose last 32 bits read 254.0.0.0'],
    ['64:ff9b:1::7f00:1', 'loopback', '127.0.0.1 under 64:ff9b:1::/96'],
    ['64:ff9b:1::808:808', null, '8.8.8.8 under 64:ff9b:1::/96 (a zero subnet ID reads as 0.0.0.0/8 elsewhere)'],
    ['64:ff9b:1:1:0:0:808:808', null, '8.8.8.8 under 64:ff9b:1:1::/96'],
    ['64:ff9b:1:808:8:800::', 'unspecified', '8.8.8.8 in the /48 layout: its last 32 bits read 0.0.0.0 under /96'],
  ])('%s -> %p (%s)', (ip, reason) => {
    expect(addressRefusal(ip)).toBe(reason);
  });

  test('the well-known prefix is /96 only; other prefixes are not read', () => {
    expect(addressRefusal('64:ff9b::a00:1')).toBe('private');
    expect(addressRefusal('64:ff9b::808:808')).toBe(null);
    // Inside ::/8 but not the well-known /96: reserved, whatever it would carry.
    expect(addressRefusal('64:ff9b:0:0:a00:0:100:0')).toBe('reserved');
    // A network-specific prefix cannot be told from the address: judged as any public address.
    expect(addressRefusal('2001:db8:64::a00:1')).toBe(null);
  });
});
