'use strict';

// lib/network/policy.js: exec's `network` option read as a policy, and every judgment made with
// it. Pure functions: no sockets, no DNS (IP addresses below are literals only).
const {
  parseEntry, parseNetwork, isNetworkPolicy, matchDestination, withGrant, narrowNetwork, covers,
  capturePorts, addressRefusal, namesAddress, describeNetwork,
} = require('../lib/network/policy');
const { PermissionEscalationError, SandboxError } = require('../lib/sandbox-errors');

// The error `fn` throws (failing the test when it throws none).
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, none was thrown');
}

const filtered = (allow, deny) => parseNetwork(deny === undefined ? { allow } : { allow, deny });

describe('parseEntry: accepted forms and their canonical entries', () => {
  test.each([
    ['github.com', 'name', 'github.com', null, 'github.com'],
    ['GitHub.COM', 'name', 'github.com', null, 'github.com'],
    ['github.com.', 'name', 'github.com', null, 'github.com'],
    ['API.GitHub.com.:443', 'name', 'api.github.com', 443, 'api.github.com:443'],
    ['*.github.com', 'wildcard', 'github.com', null, '*.github.com'],
    ['*.GITHUB.com.', 'wildcard', 'github.com', null, '*.github.com'],
    ['*.example.com:8443', 'wildcard', 'example.com', 8443, '*.example.com:8443'],
    ['x.com:1', 'name', 'x.com', 1, 'x.com:1'],
    ['x.com:65535', 'name', 'x.com', 65535, 'x.com:65535'],
    ['localhost', 'name', 'localhost', null, 'localhost'],
    ['intranet', 'name', 'intranet', null, 'intranet'],
    ['_acme-challenge.example.com', 'name', '_acme-challenge.example.com', null, '_acme-challenge.example.com'],
    ['a-b.c-d.example', 'name', 'a-b.c-d.example', null, 'a-b.c-d.example'],
    ['123.example.com', 'name', '123.example.com', null, '123.example.com'],
    ['bücher.example', 'name', 'xn--bcher-kva.example', null, 'xn--bcher-kva.example'],
    ['BÜCHER.example:8080', 'name', 'xn--bcher-kva.example', 8080, 'xn--bcher-kva.example:8080'],
    ['xn--bcher-kva.example', 'name', 'xn--bcher-kva.example', null, 'xn--bcher-kva.example'],
    ['*.bücher.example', 'wildcard', 'xn--bcher-kva.example', null, '*.xn--bcher-kva.example'],
    ['ｅｘａｍｐｌｅ.com', 'name', 'example.com', null, 'example.com'],
    ['192.0.2.1', 'ip', '192.0.2.1', null, '192.0.2.1'],
    ['192.0.2.1:22', 'ip', '192.0.2.1', 22, '192.0.2.1:22'],
    ['192.0.2.1.', 'ip', '192.0.2.1', null, '192.0.2.1'],
    ['2001:db8::1', 'ip', '2001:db8::1', null, '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', 'ip', '2001:db8::1', null, '2001:db8::1'],
    ['[2001:db8::1]', 'ip', '2001:db8::1', null, '2001:db8::1'],
    ['[2001:db8::1]:443', 'ip', '2001:db8::1', 443, '[2001:db8::1]:443'],
    ['[2001:0DB8:0000:0000:0000:0000:0000:0001]:443', 'ip', '2001:db8::1', 443, '[2001:db8::1]:443'],
    ['::ffff:192.0.2.1', 'ip', '192.0.2.1', null, '192.0.2.1'],
    ['[::ffff:192.0.2.1]:80', 'ip', '192.0.2.1', 80, '192.0.2.1:80'],
    ['::ffff:c000:201', 'ip', '192.0.2.1', null, '192.0.2.1'],
    ['2001:db8::c000:201', 'ip', '2001:db8::c000:201', null, '2001:db8::c000:201'],
    ['2001:db8::192.0.2.1', 'ip', '2001:db8::c000:201', null, '2001:db8::c000:201'],
  ])('%j -> %s %s port %s, text %j', (text, kind, host, port, canonical) => {
    const entry = parseEntry(text, 'network.allow[0]');
    expect(entry).toEqual({ kind, host, port, text: canonical });
    expect(Object.isFrozen(entry)).toBe(true);
    // The canonical text parses back to the same entry.
    expect(parseEntry(entry.text, 'again')).toEqual(entry);
  });

  test.each([
    // RFC 5952: the longest run of zero groups is compressed, the first of equal runs, never a
    // single group; hex in lowercase without leading zeros.
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0db8:0000:0001:0000:0000:0000:0001', '2001:db8:0:1::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:db8::1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['0:0:1::', '0:0:1::'],
    ['1::', '1::'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
    ['::', '::'],
    ['::1', '::1'],
    ['FE80::ABCD', 'fe80::abcd'],
    ['::102:304', '::102:304'],
    ['::1.2.3.4', '::102:304'],
  ])('IPv6 %j is written %j', (text, canonical) => {
    expect(parseEntry(text).host).toBe(canonical);
  });

  test('a deny entry may be a broad wildcard that an allow entry may not', () => {
    expect(parseEntry('*.com', 'network.deny[0]', 'deny')).toEqual({ kind: 'wildcard', host: 'com', port: null, text: '*.com' });
    expect(parseEntry('*.co.uk', 'network.deny[0]', 'deny').text).toBe('*.co.uk');
    expect(parseEntry('*.github.io:443', 'network.deny[0]', 'deny').text).toBe('*.github.io:443');
    expect(() => parseEntry('*.com', 'network.allow[0]', 'allow')).toThrow(TypeError);
    expect(() => parseEntry('*.com', 'network.allow[0]')).toThrow(TypeError);
  });

  test('an unknown role is a TypeError', () => {
    expect(() => parseEntry('x.com', 'w', /** @type {any} */ ('maybe'))).toThrow(/role must be 'allow' or 'deny'/);
  });
});

describe('parseEntry: refusals name where, the entry, and what to write instead', () => {
  const W = 'network.allow[3]';
  test.each([
    ['*', `${W}: "*" would allow every host; list the hosts (exact names, or *.example.com for the subdomains of one)`],
    ['*.', `${W}: "*." would allow every host; list the hosts`],
    ['*:443', `${W}: "*:443" would allow every host`],
    ['*.com', `${W}: "*.com" would allow every name under .com; list the hosts (exact names, or *.example.com for the subdomains of one)`],
    ['*.COM.', `${W}: "*.COM." would allow every name under .com`],
    ['*.org:443', `${W}: "*.org:443" would allow every name under .org`],
    ['*.рф', `${W}: "*.рф" would allow every name under .xn--p1ai`],
    ['*.co.uk', `${W}: "*.co.uk" would allow every name under co.uk, where strangers get names of their own, so anyone could receive the data; list your own names instead (e.g. *.yours.co.uk or yours.co.uk)`],
    ['*.github.io', `${W}: "*.github.io" would allow every name under github.io, where strangers get names of their own, so anyone could receive the data`],
    ['https://x.com', `${W}: "https://x.com" is a URL; give the host name only (x.com, or x.com:443)`],
    ['http://x.com/path?q=1', `${W}: "http://x.com/path?q=1" is a URL; give the host name only (x.com, or x.com:80)`],
    ['https://user:pw@x.com:8443/', `${W}: "https://user:pw@x.com:8443/" is a URL; give the host name only (x.com:8443)`],
    ['HTTPS://[2001:db8::1]/', `${W}: "HTTPS://[2001:db8::1]/" is a URL; give the host name only ([2001:db8::1], or [2001:db8::1]:443)`],
    ['git+ssh://git@github.com/a/b', `${W}: "git+ssh://git@github.com/a/b" is a URL; give the host name only (github.com)`],
    ['x.com/api', `${W}: "x.com/api" has a path; give the host name only (x.com): the policy names hosts, not URLs`],
    ['x.com?q', `${W}: "x.com?q" has a path; give the host name only (x.com)`],
    ['x.com#top', `${W}: "x.com#top" has a path`],
    ['x.com\\evil.com', `${W}: "x.com\\\\evil.com" has a path; give the host name only (x.com)`],
    ['user@x.com', `${W}: "user@x.com" has a user name (before "@"); give the host name only (x.com)`],
    ['evil.com@x.com:443', `${W}: "evil.com@x.com:443" has a user name (before "@"); give the host name only (x.com:443)`],
    ['a.*.com', `${W}: "a.*.com" has "*" other than as its whole first label; a wildcard is written *.example.com (the names below example.com)`],
    ['*example.com', `${W}: "*example.com" has "*" other than as its whole first label`],
    ['*.*.example.com', `${W}: "*.*.example.com" has "*" other than as its whole first label`],
    ['x.*', `${W}: "x.*" has "*" other than as its whole first label`],
    ['**.example.com', `${W}: "**.example.com" has "*" other than as its whole first label`],
    ['*.192.0.2.1', `${W}: "*.192.0.2.1" puts a wildcard on an IP address; wildcards take host names, as in *.example.com`],
    ['x.com:0', `${W}: "x.com:0" has the port 0, outside 1 to 65535`],
    ['x.com:65536', `${W}: "x.com:65536" has the port 65536, outside 1 to 65535`],
    ['x.com:99999999999999999999', `${W}: "x.com:99999999999999999999" has the port 99999999999999999999, outside 1 to 65535`],
    ['x.com:0443', `${W}: "x.com:0443" has the port 0443 with a leading zero; write it without (443)`],
    ['x.com:', `${W}: "x.com:" has ":" but no port after it; give a port from 1 to 65535, or leave out ":"`],
    ['x.com:https', `${W}: "x.com:https" has the port "https"; a port is a number from 1 to 65535 (leave the port out to allow every port)`],
    ['x.com:*', `${W}: "x.com:*" has the port "*"`],
    ['x.com:-1', `${W}: "x.com:-1" has the port "-1"`],
    ['x.com:+443', `${W}: "x.com:+443" has the port "+443"`],
    [':443', `${W}: ":443" names no host; give a host name like example.com`],
    ['', `${W}: "" is empty; give a host name like example.com`],
    ['   ', `${W}: "   " is empty`],
    [' x.com', `${W}: " x.com" contains white space; give the host name alone, like example.com`],
    ['x.com ', `${W}: "x.com " contains white space`],
    ['x .com', `${W}: "x .com" contains white space`],
    ['x.com\u00a0', `${W}: "x.com\u00a0" contains white space`],
    ['x.com\n', `${W}: "x.com\\n" contains a control character`],
    ['x.com\u0000', `${W}: "x.com\\u0000" contains a control character`],
    ['x\ud800.com', `${W}: "x\\ud800.com" contains a lone surrogate (not valid UTF-16)`],
    ['.example.com', `${W}: ".example.com" starts with a dot; write *.example.com for the names below example.com, or example.com for example.com itself`],
    ['.example.com:443', `${W}: ".example.com:443" starts with a dot; write *.example.com:443 for the names below example.com, or example.com:443 for example.com itself`],
    ['a..com', `${W}: "a..com" has an empty label (two dots in a row, or a dot at the start)`],
    ['x.com..', `${W}: "x.com.." has an empty label`],
    ['-x.com', `${W}: "-x.com" is not a valid host name: the label "-x" starts or ends with "-"`],
    ['x-.com', `${W}: "x-.com" is not a valid host name: the label "x-" starts or ends with "-"`],
    [`${'a'.repeat(64)}.com`, `${W}: "${'a'.repeat(64)}.com" is not a valid host name`],
    ['xn--zz.example', `${W}: "xn--zz.example" is not a valid host name`],
    ['exa%41mple.com', `${W}: "exa%41mple.com" contains "%", which cannot appear in a host name`],
    ['x$.com', `${W}: "x$.com" contains "$", which cannot appear in a host name`],
    ['x,y.com', `${W}: "x,y.com" contains ","`],
    ['"x.com"', `${W}: "\\"x.com\\"" contains "\\""`],
    ['x／y.com', `${W}: "x／y.com" is not a valid host name`],
    // A last label that is a number: URL parsers read these as IPv4 addresses in other notations.
    ['127.1', `${W}: "127.1" ends in a number, so it is neither a host name nor an IPv4 address; write IPv4 addresses as four decimal numbers (a.b.c.d)`],
    ['0x7f.0.0.1', `${W}: "0x7f.0.0.1" ends in a number`],
    ['2130706433', `${W}: "2130706433" ends in a number`],
    ['0177.0.0.1', `${W}: "0177.0.0.1" ends in a number`],
    ['192.0.2.01', `${W}: "192.0.2.01" ends in a number`],
    ['1.2.3.4.5', `${W}: "1.2.3.4.5" ends in a number`],
    ['256.0.0.1', `${W}: "256.0.0.1" ends in a number`],
    ['x.0x1f', `${W}: "x.0x1f" ends in a number`],
    ['[192.0.2.1]', `${W}: "[192.0.2.1]" has brackets around something other than an IPv6 address; brackets hold an IPv6 address only, as in [2001:db8::1]:443`],
    ['[x.com]:443', `${W}: "[x.com]:443" has brackets around something other than an IPv6 address`],
    ['[2001:db8::1', `${W}: "[2001:db8::1" opens "[" without closing it; write an IPv6 address as [2001:db8::1] or [2001:db8::1]:443`],
    ['[2001:db8::1]443', `${W}: "[2001:db8::1]443" has text after "]"; write [2001:db8::1] or [2001:db8::1]:443`],
    ['[2001:db8::1]:', `${W}: "[2001:db8::1]:" has ":" but no port after it`],
    ['[2001:db8::1]:0', `${W}: "[2001:db8::1]:0" has the port 0, outside 1 to 65535`],
    ['1::2::3', `${W}: "1::2::3" is not a valid IPv6 address; write an IPv6 address as 2001:db8::1, or with a port as [2001:db8::1]:443`],
    ['1:2:3:4:5:6:7:8:9', `${W}: "1:2:3:4:5:6:7:8:9" is not a valid IPv6 address`],
    ['x.com:443:80', `${W}: "x.com:443:80" is not a valid IPv6 address`],
    ['fe80::1%eth0', `${W}: "fe80::1%eth0" has a zone (after "%"), which names one of the host's own interfaces; give the address without it`],
    ['[fe80::1%25eth0]:443', `${W}: "[fe80::1%25eth0]:443" has a zone (after "%")`],
  ])('%j', (text, message) => {
    const error = thrown(() => parseEntry(text, W));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message.startsWith(message)).toBe(true);
  });

  test('a name over 253 characters is refused, and the message quotes only its first 200', () => {
    const long = `${'abcdefghi.'.repeat(25)}coms`;
    expect(parseEntry(long.slice(1), W).host).toBe(long.slice(1)); // 253 is the most
    expect(() => parseEntry(long, W)).toThrow(new TypeError(`${W}: "${long.slice(0, 200)}..." is longer than 253 characters`));
  });

  test.each([
    [3, 'number'], [null, 'null'], [undefined, 'undefined'], [['x.com'], 'an array'], [{ host: 'x.com' }, 'object'],
  ])('%p is not a string', (value, described) => {
    expect(() => parseEntry(value, W)).toThrow(
      new TypeError(`${W}: expected a host name (a string like "example.com"), got ${described}`));
  });

  test.each([
    'co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'com.au', 'net.au', 'org.au', 'co.jp', 'ne.jp', 'or.jp', 'co.nz', 'co.za',
    'com.br', 'com.cn', 'com.tw', 'co.in', 'co.kr', 'github.io', 'gitlab.io', 'herokuapp.com', 'vercel.app',
    'netlify.app', 'pages.dev', 'workers.dev', 'appspot.com', 'cloudfront.net', 'amazonaws.com',
    'azurewebsites.net', 'blob.core.windows.net', 'web.app', 'firebaseapp.com',
  ])('*.%s is refused in allow (a suffix strangers share), accepted below it and in deny', (suffix) => {
    const error = thrown(() => parseEntry(`*.${suffix}`, W));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(`${W}: "*.${suffix}" would allow every name under ${suffix}, where strangers get names of their own, ` +
      `so anyone could receive the data; list your own names instead (e.g. *.yours.${suffix} or yours.${suffix})`);
    expect(parseEntry(`*.${suffix.toUpperCase()}:443`, 'network.deny[0]', 'deny').text).toBe(`*.${suffix}:443`);
    expect(parseEntry(`*.mine.${suffix}`, W).text).toBe(`*.mine.${suffix}`);
    expect(parseEntry(suffix, W).text).toBe(suffix); // the name itself is one host
  });

  test.each(['*.githubusercontent.com', '*.example.com', '*.s3.amazonaws.com.example'])(
    '%s is an ordinary wildcard', (text) => {
      expect(parseEntry(text, W).kind).toBe('wildcard');
    });

  test('deny refuses "*" and says to turn the network off instead', () => {
    expect(() => parseEntry('*', 'network.deny[0]', 'deny')).toThrow(
      new TypeError('network.deny[0]: "*" would deny every host; give network: false for no network at all'));
  });

  test('where defaults to "entry"', () => {
    expect(() => parseEntry('*')).toThrow(/^entry: "\*" would allow every host/);
  });
});

describe('parseNetwork', () => {
  test('false, true and undefined are the fixed modes, frozen and shared', () => {
    expect(parseNetwork(false)).toEqual({ mode: 'off', allow: [], deny: [] });
    expect(parseNetwork(undefined)).toBe(parseNetwork(false));
    expect(parseNetwork(true)).toEqual({ mode: 'host', allow: [], deny: [] });
    for (const policy of [parseNetwork(false), parseNetwork(true)]) {
      expect(Object.isFrozen(policy)).toBe(true);
      expect(Object.isFrozen(policy.allow)).toBe(true);
      expect(Object.isFrozen(policy.deny)).toBe(true);
    }
  });

  test('an srt / Claude Code allowedDomains list carries over', () => {
    // The shape of a real list (a forge, a registry's zone, a registry, an index and its files),
    // with the registries' names stood in for by reserved ones.
    const allowedDomains = ['github.com', '*.github.com', 'lfs.github.com', 'api.github.com', '*.pkgs.example',
      'registry.pkgs.example', 'pyindex.example', 'files.pyhosted.example'];
    const deniedDomains = ['gist.github.com', '*.evil.example'];
    const policy = parseNetwork({ allow: allowedDomains, deny: deniedDomains });
    expect(policy.mode).toBe('filtered');
    expect(policy.allow.map((e) => e.text)).toEqual(allowedDomains);
    expect(policy.allow.map((e) => e.kind)).toEqual(['name', 'wildcard', 'name', 'name', 'wildcard', 'name', 'name', 'name']);
    expect(policy.deny.map((e) => e.text)).toEqual(deniedDomains);
    expect(matchDestination(policy, 'github.com', 443).allowed).toBe(true);
    expect(matchDestination(policy, 'codeload.github.com', 443).allowed).toBe(true);
    expect(matchDestination(policy, 'gist.github.com', 443)).toMatchObject({ allowed: false, reason: 'denied' });
    expect(matchDestination(policy, 'pkgs.example', 443)).toMatchObject({ allowed: false, reason: 'not-allowed' });
    expect(matchDestination(policy, 'registry.pkgs.example', 443).entry.text).toBe('registry.pkgs.example');
    expect(matchDestination(policy, 'pyhosted.example', 443).allowed).toBe(false);
  });

  test('the result is frozen all the way down and cannot be changed by its user', () => {
    const policy = filtered(['a.example', '*.b.example:443'], ['c.example']);
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.allow)).toBe(true);
    expect(Object.isFrozen(policy.deny)).toBe(true);
    for (const entry of [...policy.allow, ...policy.deny]) expect(Object.isFrozen(entry)).toBe(true);
    expect(() => policy.allow.push(parseEntry('evil.example'))).toThrow(TypeError);
    expect(() => { policy.mode = 'host'; }).toThrow(TypeError);
    expect(() => { policy.allow[0].host = 'evil.example'; }).toThrow(TypeError);
    expect(matchDestination(policy, 'evil.example', 443).allowed).toBe(false);
  });

  test('the caller changing its input afterwards changes nothing', () => {
    const allow = ['a.example'];
    const input = { allow };
    const policy = parseNetwork(input);
    allow.push('evil.example');
    input.allow = ['evil.example'];
    expect(describeNetwork(policy).allow).toEqual(['a.example']);
  });

  test('an empty allow list is no network, its deny kept', () => {
    expect(parseNetwork({ allow: [] })).toEqual({ mode: 'off', allow: [], deny: [] });
    const policy = parseNetwork({ allow: [], deny: ['*.com'] });
    expect(policy.mode).toBe('off');
    expect(policy.deny.map((e) => e.text)).toEqual(['*.com']);
  });

  test('duplicates (by canonical text) are kept once, in first-seen order', () => {
    const policy = filtered(['B.example', 'a.example', 'b.example.', 'a.example:443', 'A.EXAMPLE'], ['x.example', 'X.example']);
    expect(describeNetwork(policy)).toEqual({
      mode: 'filtered', allow: ['b.example', 'a.example', 'a.example:443'], deny: ['x.example'],
    });
  });

  test('a policy made here is returned as it is; a look-alike is not a policy', () => {
    const policy = filtered(['a.example']);
    expect(parseNetwork(policy)).toBe(policy);
    expect(isNetworkPolicy(policy)).toBe(true);
    expect(isNetworkPolicy(parseNetwork(true))).toBe(true);
    const lookAlike = { mode: 'host', allow: [], deny: [] };
    expect(isNetworkPolicy(lookAlike)).toBe(false);
    expect(isNetworkPolicy(JSON.parse(JSON.stringify(policy)))).toBe(false);
    expect(isNetworkPolicy(null)).toBe(false);
    expect(isNetworkPolicy('host')).toBe(false);
    expect(() => parseNetwork(lookAlike)).toThrow(new TypeError('network: unknown key "mode" (allowed: allow, deny)'));
    expect(() => matchDestination(lookAlike, 'a.example', 443)).toThrow(TypeError);
  });

  test.each([
    [null, 'network: expected true (the host\'s network), false (none) or { allow: [...hosts], deny?: [...hosts] }, got null'],
    ['github.com', 'network: expected true (the host\'s network), false (none) or { allow: [...hosts], deny?: [...hosts] }, got "github.com"'],
    [1, 'network: expected true (the host\'s network), false (none) or { allow: [...hosts], deny?: [...hosts] }, got number'],
    [['github.com'], 'network: got a list; write { allow: [...] } to allow those hosts (or true for the host\'s network, false for none)'],
    [{}, 'network.allow: missing; list the hosts to allow, like { allow: ["example.com"] }'],
    [{ deny: ['x.com'] }, 'network.allow: missing; list the hosts to allow, like { allow: ["example.com"] }'],
    [{ allow: ['x.com'], allowedDomains: [] }, 'network: unknown key "allowedDomains" (allowed: allow, deny)'],
    [{ allow: 'x.com' }, 'network.allow: expected a list of host names, like ["example.com", "*.example.org"], got "x.com"'],
    [{ allow: null }, 'network.allow: expected a list of host names, like ["example.com", "*.example.org"], got null'],
    [{ allow: ['x.com'], deny: 'y.com' }, 'network.deny: expected a list of host names, like ["example.com", "*.example.org"], got "y.com"'],
    [{ allow: ['x.com', 7] }, 'network.allow[1]: expected a host name (a string like "example.com"), got number'],
    [{ allow: ['x.com', '*'] }, 'network.allow[1]: "*" would allow every host; list the hosts (exact names, or *.example.com for the subdomains of one)'],
    [{ allow: ['x.com'], deny: ['ok.com', '*'] }, 'network.deny[1]: "*" would deny every host; give network: false for no network at all'],
    [{ allow: ['x.com'], deny: ['https://y.com'] }, 'network.deny[0]: "https://y.com" is a URL; give the host name only (y.com, or y.com:443)'],
    [{ allow: ['*.co.uk'] }, 'network.allow[0]: "*.co.uk" would allow every name under co.uk'],
    [{ allow: [] , deny: [''] }, 'network.deny[0]: "" is empty'],
  ])('%p is refused', (value, message) => {
    const error = thrown(() => parseNetwork(value));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message.startsWith(message)).toBe(true);
  });

  test('where names the option in every message', () => {
    expect(() => parseNetwork({ allow: ['*'] }, 'workers.fetch.network')).toThrow(/^workers\.fetch\.network\.allow\[0\]: "\*"/);
    expect(() => parseNetwork(3, 'opts.network')).toThrow(/^opts\.network: expected true/);
  });

  test('a list of more than 4096 entries is refused; 4096 are accepted', () => {
    const names = Array.from({ length: 4097 }, (_, i) => `h${i}.example`);
    expect(() => parseNetwork({ allow: names })).toThrow(new TypeError('network.allow: has 4097 entries; at most 4096 are accepted'));
    expect(parseNetwork({ allow: names.slice(0, 4096) }).allow).toHaveLength(4096);
  });

  test('a getter is refused without being run; inherited keys are not read', () => {
    let ran = false;
    const value = { get allow() { ran = true; return ['x.com']; } };
    expect(() => parseNetwork(value)).toThrow(TypeError);
    expect(ran).toBe(false);
    const inherited = Object.create({ allow: ['x.com'] });
    expect(() => parseNetwork(inherited)).toThrow(/network\.allow: missing/);
  });

  test('a list that changes while read is read once', () => {
    let reads = 0;
    const allow = new Proxy(['a.example'], {
      get(target, key, receiver) {
        if (key === '0') reads++;
        return Reflect.get(target, key, receiver);
      },
      getOwnPropertyDescriptor(target, key) {
        if (key === '0') {
          reads++;
          return { value: reads > 1 ? '*' : 'a.example', writable: true, enumerable: true, configurable: true };
        }
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
    expect(describeNetwork(parseNetwork({ allow })).allow).toEqual(['a.example']);
    expect(reads).toBe(1);
  });
});

describe('matchDestination', () => {
  const policy = filtered(
    ['example.com', '*.example.org', 'api.example.net:443', '*.cdn.example.net:8443', '192.0.2.10', '[2001:db8::10]:443',
      'bücher.example', 'ported.example:80', 'ported.example:443'],
    ['bad.example.org', '*.worse.example.org', 'example.com:25', '2001:db8::10'],
  );

  test.each([
    // exact names, case and trailing dot
    ['example.com', 443, true, 'example.com', null],
    ['EXAMPLE.com.', 80, true, 'example.com', null],
    ['www.example.com', 443, false, null, 'not-allowed'],
    ['example.com.evil.test', 443, false, null, 'not-allowed'],
    ['evilexample.com', 443, false, null, 'not-allowed'],
    // a wildcard covers the names strictly below, not the apex
    ['a.example.org', 443, true, '*.example.org', null],
    ['a.b.c.example.org', 8080, true, '*.example.org', null],
    ['example.org', 443, false, null, 'not-allowed'],
    ['xexample.org', 443, false, null, 'not-allowed'],
    ['example.org.evil.test', 443, false, null, 'not-allowed'],
    // deny wins over allow, on its port only when it names one
    ['bad.example.org', 443, false, 'bad.example.org', 'denied'],
    ['x.bad.example.org', 443, true, '*.example.org', null],
    ['worse.example.org', 443, true, '*.example.org', null],
    ['a.worse.example.org', 443, false, '*.worse.example.org', 'denied'],
    ['example.com', 25, false, 'example.com:25', 'denied'],
    // ports
    ['api.example.net', 443, true, 'api.example.net:443', null],
    ['api.example.net', 80, false, null, 'not-allowed'],
    ['x.cdn.example.net', 8443, true, '*.cdn.example.net:8443', null],
    ['x.cdn.example.net', 443, false, null, 'not-allowed'],
    ['ported.example', 80, true, 'ported.example:80', null],
    ['ported.example', 443, true, 'ported.example:443', null],
    ['ported.example', 8080, false, null, 'not-allowed'],
    // IDN both ways
    ['bücher.example', 443, true, 'xn--bcher-kva.example', null],
    ['XN--BCHER-KVA.example', 443, true, 'xn--bcher-kva.example', null],
    // IP literals match only IP entries, in any notation of the same address
    ['192.0.2.10', 22, true, '192.0.2.10', null],
    ['::ffff:192.0.2.10', 22, true, '192.0.2.10', null],
    ['[::ffff:c000:20a]', 22, true, '192.0.2.10', null],
    ['192.0.2.11', 22, false, null, 'not-allowed'],
    ['2001:db8::10', 443, false, '2001:db8::10', 'denied'],
    ['[2001:DB8:0::10]', 443, false, '2001:db8::10', 'denied'],
    // not hosts at all
    ['', 443, false, null, 'not-allowed'],
    ['*.example.org', 443, false, null, 'not-allowed'],
    ['a.example.org/x', 443, false, null, 'not-allowed'],
    ['a.example.org:443', 443, false, null, 'not-allowed'],
    ['127.1', 443, false, null, 'not-allowed'],
    ['a..example.org', 443, false, null, 'not-allowed'],
    ['a.example.org%00', 443, false, null, 'not-allowed'],
    ['a.example.org\u0000', 443, false, null, 'not-allowed'],
  ])('%j port %j -> allowed %j by %j (%j)', (host, port, allowed, entryText, reason) => {
    const result = matchDestination(policy, host, port);
    expect(result.allowed).toBe(allowed);
    expect(result.entry === null ? null : result.entry.text).toBe(entryText);
    expect(result.reason).toBe(reason);
    expect(Object.isFrozen(result)).toBe(true);
  });

  test('a name that resolves to an allowed address is not allowed by the IP entry, nor an IP by a name', () => {
    const p = filtered(['192.0.2.1', 'example.com']);
    expect(matchDestination(p, 'one.example', 443).allowed).toBe(false);
    expect(matchDestination(p, '192.0.2.1', 443).allowed).toBe(true);
    const byName = filtered(['*.example.com']);
    expect(matchDestination(byName, '192.0.2.1', 443).allowed).toBe(false);
    expect(matchDestination(byName, '[2001:db8::1]', 443).allowed).toBe(false);
  });

  test('the most specific entry is reported', () => {
    const p = filtered(['*.example.com', '*.api.example.com', 'v1.api.example.com', 'v1.api.example.com:443']);
    expect(matchDestination(p, 'v1.api.example.com', 443).entry.text).toBe('v1.api.example.com:443');
    expect(matchDestination(p, 'v1.api.example.com', 80).entry.text).toBe('v1.api.example.com');
    expect(matchDestination(p, 'v2.api.example.com', 80).entry.text).toBe('*.api.example.com');
    expect(matchDestination(p, 'www.example.com', 80).entry.text).toBe('*.example.com');
  });

  test('port null asks about the host at all (a DNS lookup): some allowed port, not denied on every port', () => {
    expect(matchDestination(policy, 'api.example.net', null)).toMatchObject({ allowed: true, entry: { text: 'api.example.net:443' } });
    expect(matchDestination(policy, 'example.com', null).allowed).toBe(true); // denied on 25 only
    expect(matchDestination(policy, 'bad.example.org', null)).toMatchObject({ allowed: false, reason: 'denied' });
    expect(matchDestination(policy, 'nothing.example', null)).toMatchObject({ allowed: false, reason: 'not-allowed' });
  });

  test('an invalid port matches nothing', () => {
    for (const port of [0, -1, 65536, 1.5, NaN, '443', undefined]) {
      expect(matchDestination(policy, 'example.com', port)).toEqual({ allowed: false, entry: null, reason: 'not-allowed' });
    }
  });

  test('the host network allows everything; no network allows nothing and says denied where deny names it', () => {
    expect(matchDestination(parseNetwork(true), '10.0.0.1', 22)).toEqual({ allowed: true, entry: null, reason: null });
    expect(matchDestination(parseNetwork(false), 'example.com', 443)).toEqual({ allowed: false, entry: null, reason: 'not-allowed' });
    const off = parseNetwork({ allow: [], deny: ['example.com'] });
    expect(matchDestination(off, 'example.com', 443)).toMatchObject({ allowed: false, reason: 'denied' });
  });

  test('a policy not made by parseNetwork is a TypeError', () => {
    expect(() => matchDestination({ mode: 'host', allow: [], deny: [] }, 'x.com', 443)).toThrow(
      /^matchDestination: expected a policy from parseNetwork\(\)/);
  });
});

describe('withGrant', () => {
  test('adds to a filtered policy, deny unchanged and still winning', () => {
    const policy = filtered(['a.example'], ['*.bad.example']);
    const granted = withGrant(policy, ['b.example:443', 'A.EXAMPLE', 'x.bad.example'], 'approval');
    expect(describeNetwork(granted)).toEqual({
      mode: 'filtered', allow: ['a.example', 'b.example:443', 'x.bad.example'], deny: ['*.bad.example'],
    });
    expect(matchDestination(granted, 'b.example', 443).allowed).toBe(true);
    expect(matchDestination(granted, 'x.bad.example', 443).reason).toBe('denied');
    expect(describeNetwork(policy).allow).toEqual(['a.example']); // the original is unchanged
    expect(isNetworkPolicy(granted)).toBe(true);
    expect(Object.isFrozen(granted.allow)).toBe(true);
  });

  test('turns no network into a filtered one; leaves the host network as it is', () => {
    const off = parseNetwork({ allow: [], deny: ['c.example'] });
    expect(describeNetwork(withGrant(off, ['b.example']))).toEqual({ mode: 'filtered', allow: ['b.example'], deny: ['c.example'] });
    const host = parseNetwork(true);
    expect(withGrant(host, ['b.example'])).toBe(host);
    const policy = filtered(['a.example']);
    expect(withGrant(policy, [])).toBe(policy);
  });

  test('a grant is checked as an allow entry, named by where', () => {
    expect(() => withGrant(filtered(['a.example']), ['ok.example', '*.com'], 'approval')).toThrow(
      new TypeError('approval[1]: "*.com" would allow every name under .com; list the hosts (exact names, or *.example.com for the subdomains of one)'));
    expect(() => withGrant(filtered(['a.example']), 'b.example')).toThrow(/^grant: expected a list of host names/);
    expect(() => withGrant({ mode: 'off', allow: [], deny: [] }, ['b.example'])).toThrow(/^withGrant: expected a policy/);
  });
});

describe('covers', () => {
  const e = (text) => parseEntry(text, 'test', 'deny');
  test.each([
    ['example.com', 'example.com', true],
    ['example.com', 'EXAMPLE.com.', true],
    ['example.com', 'example.com:443', true],
    ['example.com:443', 'example.com:443', true],
    ['example.com:443', 'example.com', false],
    ['example.com:443', 'example.com:80', false],
    ['example.com', 'www.example.com', false],
    ['example.com', '*.example.com', false],
    ['*.example.com', 'www.example.com', true],
    ['*.example.com', 'a.b.example.com:8080', true],
    ['*.example.com', 'example.com', false],
    ['*.example.com', '*.example.com', true],
    ['*.example.com', '*.api.example.com', true],
    ['*.api.example.com', '*.example.com', false],
    ['*.example.com', 'wwwexample.com', false],
    ['*.example.com', '*.wwwexample.com', false],
    ['*.example.com:443', '*.api.example.com:443', true],
    ['*.example.com:443', '*.api.example.com', false],
    ['*.example.com', '192.0.2.1', false],
    ['192.0.2.1', '192.0.2.1:22', true],
    ['192.0.2.1', '::ffff:192.0.2.1', true],
    ['192.0.2.1:22', '192.0.2.1', false],
    ['192.0.2.1', '192.0.2.2', false],
    ['2001:db8::1', '[2001:DB8:0::1]:443', true],
    ['example.com', '192.0.2.1', false],
  ])('%j covers %j: %j', (parent, child, expected) => {
    expect(covers(e(parent), e(child))).toBe(expected);
  });
});

describe('narrowNetwork', () => {
  const parent = filtered(['a.example', '*.b.example', 'c.example:443', '192.0.2.1'], ['x.b.example']);
  const ALLOWED = 'allowed: a.example, *.b.example, c.example:443, 192.0.2.1';

  function escalation(p, child, where) {
    const error = thrown(() => narrowNetwork(p, child, where));
    expect(error).toBeInstanceOf(PermissionEscalationError);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error.code).toBe('PERMISSION_ESCALATION');
    return error.message;
  }

  test('within the parent: the child\'s allow, the parent\'s deny added (deduplicated)', () => {
    const child = narrowNetwork(parent, { allow: ['a.example', 'y.b.example', '*.z.b.example:443', 'c.example:443', '192.0.2.1:22'], deny: ['x.b.example', 'q.b.example'] });
    expect(describeNetwork(child)).toEqual({
      mode: 'filtered',
      allow: ['a.example', 'y.b.example', '*.z.b.example:443', 'c.example:443', '192.0.2.1:22'],
      deny: ['x.b.example', 'q.b.example'],
    });
    expect(isNetworkPolicy(child)).toBe(true);
    expect(Object.isFrozen(child.deny)).toBe(true);
  });

  test('a child entry the parent denies stays listed, and deny wins when matching', () => {
    const child = narrowNetwork(parent, { allow: ['x.b.example'] });
    expect(describeNetwork(child)).toEqual({ mode: 'filtered', allow: ['x.b.example'], deny: ['x.b.example'] });
    expect(matchDestination(child, 'x.b.example', 443).reason).toBe('denied');
  });

  test('a child that asks for less gets it: off, or an empty allow', () => {
    expect(describeNetwork(narrowNetwork(parent, false))).toEqual({ mode: 'off', allow: [], deny: ['x.b.example'] });
    expect(narrowNetwork(parent, undefined).mode).toBe('off');
    expect(narrowNetwork(parent, { allow: [] }).mode).toBe('off');
  });

  test.each([
    [true, `network: true would widen this sandbox's network (${ALLOWED})`],
    [{ allow: ['a.example', 'evil.example'] }, `network.allow[1]: "evil.example" is not within this sandbox's network (${ALLOWED})`],
    [{ allow: ['b.example'] }, 'network.allow[0]: "b.example" is not within'], // the apex of a wildcard
    [{ allow: ['*.b.example.evil'] }, 'network.allow[0]: "*.b.example.evil" is not within'],
    [{ allow: ['www.a.example'] }, 'network.allow[0]: "www.a.example" is not within'],
    [{ allow: ['*.a.example'] }, 'network.allow[0]: "*.a.example" is not within'],
    [{ allow: ['c.example'] }, 'network.allow[0]: "c.example" is not within'], // every port where the parent has one
    [{ allow: ['c.example:80'] }, 'network.allow[0]: "c.example:80" is not within'],
    [{ allow: ['192.0.2.2'] }, 'network.allow[0]: "192.0.2.2" is not within'],
    [{ allow: ['10.0.0.1'] }, 'network.allow[0]: "10.0.0.1" is not within'],
    [{ allow: ['A.example', 'a.example', 'evil.example'] }, 'network.allow[2]: "evil.example" is not within'],
  ])('widening %j is refused', (child, message) => {
    expect(escalation(parent, child).startsWith(message)).toBe(true);
  });

  test('a wildcard broader than the parent\'s is refused', () => {
    const deep = filtered(['*.api.example.com']);
    expect(escalation(deep, { allow: ['*.example.com'] })).toBe(
      'network.allow[0]: "*.example.com" is not within this sandbox\'s network (allowed: *.api.example.com)');
    expect(escalation(deep, { allow: ['api.example.com'] })).toMatch(/^network\.allow\[0\]: "api\.example\.com" is not within/);
    expect(narrowNetwork(deep, { allow: ['*.v1.api.example.com', 'v2.api.example.com'] }).mode).toBe('filtered');
    // one label is refused before narrowing is judged: no child may list it anywhere
    expect(() => narrowNetwork(deep, { allow: ['*.com'] })).toThrow(TypeError);
  });

  test('a parent without network allows only none; where names the child option', () => {
    const off = parseNetwork(false);
    expect(escalation(off, true, 'worker.network')).toBe('worker.network: true would widen this sandbox\'s network (allowed: none)');
    expect(escalation(off, { allow: ['a.example'] })).toBe('network.allow[0]: "a.example" is not within this sandbox\'s network (allowed: none)');
    expect(narrowNetwork(off, false)).toEqual({ mode: 'off', allow: [], deny: [] });
    expect(narrowNetwork(parseNetwork({ allow: [], deny: ['d.example'] }), { allow: [], deny: ['e.example'] }).deny.map((e) => e.text))
      .toEqual(['d.example', 'e.example']);
  });

  test('a parent on the host network covers every child', () => {
    const host = parseNetwork(true);
    expect(narrowNetwork(host, true).mode).toBe('host');
    expect(narrowNetwork(host, false).mode).toBe('off');
    expect(describeNetwork(narrowNetwork(host, { allow: ['*.anything.example'], deny: ['x.anything.example'] }))).toEqual({
      mode: 'filtered', allow: ['*.anything.example'], deny: ['x.anything.example'],
    });
  });

  test('a child given as a policy is narrowed the same way, indexes from its list', () => {
    const child = filtered(['a.example', 'evil.example']);
    expect(escalation(parent, child)).toMatch(/^network\.allow\[1\]: "evil\.example" is not within/);
    const ok = filtered(['q.b.example']);
    expect(describeNetwork(narrowNetwork(parent, ok)).deny).toEqual(['x.b.example']);
  });

  test('a narrowed child narrows its own children (the chain keeps every deny)', () => {
    const child = narrowNetwork(parent, { allow: ['*.b.example'], deny: ['y.b.example'] });
    const grandchild = narrowNetwork(child, { allow: ['z.b.example'] });
    expect(describeNetwork(grandchild).deny).toEqual(['x.b.example', 'y.b.example']);
    expect(escalation(child, { allow: ['a.example'] })).toMatch(/^network\.allow\[0\]: "a\.example" is not within this sandbox's network \(allowed: \*\.b\.example\)/);
  });

  test('a child\'s bad value is a TypeError, not an escalation; a bad parent a TypeError', () => {
    expect(() => narrowNetwork(parent, { allow: ['*'] }, 'child')).toThrow(new TypeError(
      'child.allow[0]: "*" would allow every host; list the hosts (exact names, or *.example.com for the subdomains of one)'));
    expect(() => narrowNetwork({ mode: 'host', allow: [], deny: [] }, false)).toThrow(/^narrowNetwork: expected a policy/);
  });
});

describe('capturePorts', () => {
  test.each([
    [['a.example'], [80, 443]],
    [['*.a.example'], [80, 443]],
    [['a.example:8443'], [8443]],
    [['a.example:8443', 'b.example:22', 'c.example:8443'], [22, 8443]],
    [['a.example:443'], [443]],
    [['a.example:8080', 'b.example'], [80, 443, 8080]],
    [['192.0.2.1', '[2001:db8::1]:8443'], []],
    [['192.0.2.1', 'a.example:25'], [25]],
  ])('%j -> %j', (allow, ports) => {
    const result = capturePorts(filtered(allow));
    expect(result).toEqual(ports);
    expect(Object.isFrozen(result)).toBe(true);
  });

  test('none for the fixed modes', () => {
    expect(capturePorts(parseNetwork(true))).toEqual([]);
    expect(capturePorts(parseNetwork(false))).toEqual([]);
  });
});

describe('addressRefusal', () => {
  test.each([
    // IPv4
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'], ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['172.15.255.255', null], ['172.32.0.0', null],
    ['192.168.0.1', 'private'], ['192.167.255.255', null], ['192.169.0.0', null],
    ['100.64.0.1', 'carrier-grade-nat'], ['100.127.255.255', 'carrier-grade-nat'], ['100.63.255.255', null], ['100.128.0.0', null],
    ['100.100.100.200', 'metadata'],
    ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['126.255.255.255', null], ['128.0.0.0', null],
    ['169.254.0.1', 'link-local'], ['169.254.169.253', 'link-local'], ['169.254.169.254', 'metadata'],
    ['169.253.255.255', null], ['169.255.0.0', null],
    ['192.0.0.1', 'reserved'], ['192.0.0.255', 'reserved'], ['192.0.1.0', null],
    // the benchmarking range: the fake addresses of DNS-intercepting proxies, each for the name asked
    ['198.18.0.1', null], ['198.19.255.255', null], ['198.17.255.255', null], ['198.20.0.0', null],
    ['224.0.0.1', 'multicast'], ['239.255.255.255', 'multicast'], ['223.255.255.255', null],
    ['240.0.0.1', 'reserved'], ['255.255.255.254', 'reserved'], ['255.255.255.255', 'reserved'],
    // documentation ranges stand in for public servers, and public addresses pass
    ['192.0.2.1', null], ['198.51.100.7', null], ['203.0.113.9', null], ['8.8.8.8', null], ['1.1.1.1', null],
    // IPv6
    ['::', 'unspecified'], ['::1', 'loopback'], ['[::1]', 'loopback'], ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'], ['febf:ffff::1', 'link-local'], ['fe7f::1', null],
    ['fc00::1', 'private'], ['fd12:3456::1', 'private'], ['fdff:ffff::1', 'private'], ['fe00::1', null], ['fbff::1', null],
    ['fd00:ec2::254', 'metadata'], ['[FD00:EC2:0:0:0:0:0:254]', 'metadata'], ['fd00:ec2::253', 'private'],
    ['ff02::1', 'multicast'], ['ff0e::1', 'multicast'], ['ff00::', 'multicast'],
    ['fec0::1', 'reserved'], ['feff::1', 'reserved'],
    ['2001::1', 'reserved'], ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], ['2001:1::1', null],
    ['100::1', 'reserved'], ['100::ffff:ffff:ffff:ffff', 'reserved'], ['100:0:0:1::', null],
    ['::1:0:0:0', 'reserved'], ['::ffff:0:808:808', 'reserved'], ['ff::1', 'reserved'],
    ['2001:db8::1', null], ['2606:4700:4700::1111', null], ['2a00:1450:4001::200e', null], ['64:ff9a::808:808', 'reserved'],
  ])('%s -> %p', (ip, reason) => {
    expect(addressRefusal(ip)).toBe(reason);
  });

  // Every IPv6 form that carries an IPv4 address is judged by that address.
  const EMBEDDED = [
    ['127.0.0.1', 'loopback', '7f00:1'], ['10.0.0.1', 'private', 'a00:1'], ['169.254.169.254', 'metadata', 'a9fe:a9fe'],
    ['100.100.100.200', 'metadata', '6464:64c8'], ['0.0.0.0', 'unspecified', '0:0'], ['192.168.1.1', 'private', 'c0a8:101'],
    ['224.0.0.1', 'multicast', 'e000:1'], ['8.8.8.8', null, '808:808'], ['192.0.2.1', null, 'c000:201'],
  ];
  test.each(EMBEDDED.flatMap(([v4, reason, hex]) => [
    [`::ffff:${v4}`, reason], [`::ffff:${hex}`, reason], [`[::FFFF:${v4}]`, reason], [`0:0:0:0:0:ffff:${hex}`, reason],
    ...(v4 === '0.0.0.0' ? [] : [[`::${v4}`, reason]]),
    [`64:ff9b::${v4}`, reason], [`64:ff9b::${hex}`, reason],
    [`64:ff9b:1::${v4}`, reason], [`64:ff9b:1:abcd::${hex}`, reason], [`64:ff9b:1:abcd:0:ffff:${hex}`, reason],
    [`2002:${hex}::`, reason], [`2002:${hex}::1`, reason], [`2002:${hex}:ffff:ffff:ffff:ffff:ffff`, reason],
  ]))('%s (embedding an IPv4 address) -> %p', (ip, reason) => {
    expect(addressRefusal(ip)).toBe(reason);
  });

  test('IPv4-compatible :: and ::1 are themselves, not 0.0.0.0 and 0.0.0.1', () => {
    expect(addressRefusal('::')).toBe('unspecified');
    expect(addressRefusal('::1')).toBe('loopback');
    expect(addressRefusal('::2')).toBe('unspecified'); // ::0.0.0.2
    expect(addressRefusal('::808:808')).toBe(null); // ::8.8.8.8
  });

  test('NAT64 outside its two prefixes is not judged by the embedded address', () => {
    expect(addressRefusal('64:ff9b:0:0:1::7f00:1')).toBe('reserved'); // not /96, still in ::/8
    expect(addressRefusal('64:ff9b:2::7f00:1')).toBe('reserved');
  });

  test.each(['example.com', '', '127.1', '0x7f000001', 'fe80::1%eth0', '[127.0.0.1]', '::ffff:127.1', '1::2::3', 42, null])(
    '%p is not an IP address: a TypeError', (value) => {
      expect(() => addressRefusal(value)).toThrow(/^addressRefusal: expected an IP address/);
    });
});

describe('namesAddress', () => {
  const policy = filtered(['10.0.0.5', '192.168.1.9:8080', '[fd00::5]:443', 'intranet.example', '10.0.0.6'], ['10.0.0.6']);

  test.each([
    ['10.0.0.5', 80, true],
    ['10.0.0.5', null, true],
    ['::ffff:10.0.0.5', 22, true],
    ['::ffff:a00:5', 22, true],
    ['10.0.0.4', 80, false],
    ['192.168.1.9', 8080, true],
    ['192.168.1.9', 80, false],
    ['192.168.1.9', null, true],
    ['fd00::5', 443, true],
    ['[FD00:0::5]', 443, true],
    ['fd00::5', 80, false],
    ['10.0.0.6', 80, false], // allowed and denied: deny wins
    ['10.0.0.5', 0, false],
  ])('%s port %p -> %p', (ip, port, expected) => {
    expect(namesAddress(policy, ip, port)).toBe(expected);
  });

  test('a name entry names no address; the fixed modes name none', () => {
    expect(namesAddress(filtered(['localhost']), '127.0.0.1', 80)).toBe(false);
    expect(namesAddress(parseNetwork(true), '127.0.0.1', 80)).toBe(false);
    expect(namesAddress(parseNetwork(false), '127.0.0.1', 80)).toBe(false);
    expect(() => namesAddress(policy, 'intranet.example', 80)).toThrow(/^namesAddress: expected an IP address/);
  });
});

describe('describeNetwork', () => {
  test('plain frozen text lists in canonical form', () => {
    const description = describeNetwork(filtered(['B.example.', '[2001:DB8::1]:443', '*.c.example'], ['*.COM']));
    expect(description).toEqual({ mode: 'filtered', allow: ['b.example', '[2001:db8::1]:443', '*.c.example'], deny: ['*.com'] });
    expect(Object.isFrozen(description)).toBe(true);
    expect(Object.isFrozen(description.allow)).toBe(true);
    expect(describeNetwork(parseNetwork(true))).toEqual({ mode: 'host', allow: [], deny: [] });
    expect(() => describeNetwork({ mode: 'off', allow: [], deny: [] })).toThrow(TypeError);
  });
});

// Independent checks on many generated addresses (a fixed seed, so every run checks the same ones).
describe('generated addresses against Node\'s own parsers', () => {
  const net = require('net');
  let seed = 0x2f6e2b1;
  function random(n) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return Math.floor((seed / 2 ** 32) * n);
  }
  // Groups biased towards zero runs, where RFC 5952's rules bite.
  function randomGroups() {
    return Array.from({ length: 8 }, () => (random(3) === 0 ? random(0x10000) : 0));
  }

  test('IPv6 text is the WHATWG URL parser\'s (the same RFC 5952 compression), mapped addresses as IPv4', () => {
    for (let i = 0; i < 3000; i++) {
      const groups = randomGroups();
      const full = groups.map((g) => g.toString(16).padStart(random(2) ? 4 : 1, '0')).join(':');
      const text = random(2) ? full.toUpperCase() : full;
      const viaUrl = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
      const expected = mapped ? `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}` : viaUrl;
      expect(parseEntry(text).host).toBe(expected);
      expect(parseEntry(viaUrl).host).toBe(expected); // its compressed form reads back the same
    }
  });

  test('IPv4 refusals agree with a net.BlockList of the same ranges, at and around every boundary', () => {
    const refused = new net.BlockList();
    for (const [prefix, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
      ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]]) {
      refused.addSubnet(prefix, bits, 'ipv4');
    }
    const text = (n) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    const boundaries = [0, 8, 10, 11, 100, 101, 127, 128, 169, 170, 172, 173, 192, 193, 198, 199, 223, 224, 239, 240, 255]
      .flatMap((a) => [a * 2 ** 24, a * 2 ** 24 - 1]);
    const around = ['100.64.0.0', '100.128.0.0', '169.254.0.0', '169.255.0.0', '172.16.0.0', '172.32.0.0', '192.0.0.0',
      '192.0.1.0', '192.168.0.0', '192.169.0.0', '198.18.0.0', '198.20.0.0'].map((t) => t.split('.').reduce((n, b) => n * 256 + Number(b), 0))
      .flatMap((n) => [n, n - 1]);
    const samples = [...boundaries, ...around, ...Array.from({ length: 5000 }, () => random(2 ** 32))].filter((n) => n >= 0 && n < 2 ** 32);
    for (const n of samples) {
      const ip = text(n);
      expect([ip, addressRefusal(ip) !== null]).toEqual([ip, refused.check(ip, 'ipv4')]);
      // The same address embedded in IPv6 is judged the same way.
      const hex = `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
      for (const form of [`::ffff:${ip}`, `64:ff9b::${hex}`, `64:ff9b:1:2:3:4:${hex}`, `2002:${hex}::1`]) {
        expect([form, addressRefusal(form)]).toEqual([form, addressRefusal(ip)]);
      }
    }
  });

  test('IPv6 refusals agree with a net.BlockList of the same ranges', () => {
    const refused = new net.BlockList();
    for (const [prefix, bits] of [['::', 8], ['100::', 64], ['2001::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8]]) {
      refused.addSubnet(prefix, bits, 'ipv6');
    }
    const firsts = [0, 0xff, 0x100, 0x1ff, 0x2001, 0x2002, 0x2003, 0x2001, 0x2600, 0xfbff, 0xfc00, 0xfdff, 0xfe00, 0xfe7f,
      0xfe80, 0xfebf, 0xfec0, 0xfeff, 0xff00, 0xffff];
    for (let i = 0; i < 5000; i++) {
      const groups = randomGroups();
      groups[0] = random(2) ? firsts[random(firsts.length)] : random(0x10000);
      if (groups[0] === 0x2001 && random(2)) groups[1] = 0;
      if (groups[0] === 0x100 && random(2)) groups.fill(0, 1, 4);
      if (groups[0] < 0x100 || groups[0] === 0x2002) continue; // the IPv4-carrying forms, checked above
      const ip = groups.map((g) => g.toString(16)).join(':');
      expect([ip, addressRefusal(ip) !== null]).toEqual([ip, refused.check(ip, 'ipv6')]);
    }
  });
});

describe('judgedPolicy', () => {
  const { judgedPolicy } = require('../lib/network/policy');
  test('off becomes an allowlist of nothing (deny kept); filtered and host stay as they are', () => {
    const off = parseNetwork({ allow: [], deny: ['evil.test'] });
    const judged = judgedPolicy(off);
    expect(judged).toMatchObject({ mode: 'filtered', allow: [], deny: [expect.objectContaining({ text: 'evil.test' })] });
    expect(matchDestination(judged, 'a.test', 443)).toMatchObject({ allowed: false, reason: 'not-allowed' });
    expect(matchDestination(judged, 'evil.test', 443)).toMatchObject({ allowed: false, reason: 'denied' });
    const filtered = parseNetwork({ allow: ['a.test'] });
    expect(judgedPolicy(filtered)).toBe(filtered);
    expect(judgedPolicy(parseNetwork(true)).mode).toBe('host');
    expect(() => judgedPolicy({ mode: 'off', allow: [], deny: [] })).toThrow(TypeError);
  });
});
