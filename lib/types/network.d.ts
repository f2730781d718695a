// The network a sandbox's commands get, by name: allowlists, what describe() says of them, and
// why the judge refused a destination (ExecResult.network).
// Part of the main entry's declarations: lib/index.d.ts re-exports every name.

/**
 * Entries are `host[:port]`: an exact name (case-insensitive, a trailing dot ignored),
 * `*.example.com` for its subdomains (not the apex), an IP literal (`[2001:db8::1]:443` for IPv6).
 * `*` and wildcards over public suffixes (`*.com`, `*.co.uk`, `*.github.io`) are refused in allow.
 */
export interface NetworkAllowlist {
  /** What the command may reach; empty means no network. */
  allow: string[];
  /** Never reachable, even where allow (or a grant, or onRequest) covers it. */
  deny?: string[];
}

/** false: no network; true: the host's network; an allowlist: those destinations, by name. */
export type NetworkSetting = boolean | NetworkAllowlist;

export interface NetworkDescription {
  mode: 'off' | 'host' | 'filtered';
  allow: string[];
  deny: string[];
}

export type NetworkRefusalReason =
  | 'not-allowed' | 'denied' | 'own-address' | 'unresolvable' | 'unreachable'
  | 'loopback-address' | 'private-address' | 'link-local-address' | 'metadata-address'
  | 'carrier-grade-nat-address' | 'multicast-address' | 'unspecified-address' | 'reserved-address'
  | 'sni-mismatch' | 'tls-renegotiation' | 'bad-tls-hello' | 'bad-http-request' | 'silent-client' | 'unread-protocol'
  | 'bad-response' | 'unknown-address' | 'too-many-names' | 'udp' | 'unsupported-command';
