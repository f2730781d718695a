// Every TCP port of the addresses the judge's DNS stub hands out, brought to one listener: an
// nf_tables rule in the command's own network namespace,
//   table ip msb { chain redirect { type nat hook output priority -100;
//     ip daddr <network>/<prefix> meta l4proto tcp redirect to :<port> } }
// made over netlink while the launcher holds the namespace's capabilities. The judge reads each
// connection's original port back with SO_ORIGINAL_DST (original_destination.h), so a client that
// ignores the proxy variables reaches an allowed name on any port, as curl does through them.
//
// Written here rather than with libnftnl: the launcher is a static executable, and libnftnl
// needs libmnl, which Debian ships without a static archive; the rule is one fixed rule of seven
// expressions.
#pragma once

#include <cstdint>

#include "common/error.h"

namespace msb {

struct PortRedirect {
  std::uint32_t network = 0;  // IPv4, host byte order, e.g. 127.1.0.0
  std::uint8_t prefix = 0;    // 1..32
  std::uint16_t port = 0;     // the listener's port
};

// In the network namespace the rule is for, holding CAP_NET_ADMIN there. Fails with io_error
// (sys_errno, op socket/sendmsg/recvmsg) when the kernel refuses: no nf_tables, no NAT, or its
// modules not loaded (a user namespace cannot load them).
Status install_port_redirect(const PortRedirect& redirect);

}  // namespace msb
