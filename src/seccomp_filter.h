// The launcher's seccomp filter: what Landlock cannot express. Always: no io_uring (its
// operations bypass syscall filtering). With the network off: sockets other than TCP over
// IPv4/IPv6 (TCP itself is Landlock's), so no UDP, raw, packet, netlink or unix sockets.
#pragma once

#include <linux/filter.h>

#include <vector>

#include "error.h"

namespace msb {

// The classic BPF program for this architecture; empty where the architecture is unknown.
std::vector<sock_filter> seccomp_program(bool network);

// Installs the filter on the calling thread (no_new_privs must already be set). Fails with
// unsupported on unknown architectures, io_error (sys_errno) when the kernel refuses.
Status apply_seccomp(bool network);

}  // namespace msb
