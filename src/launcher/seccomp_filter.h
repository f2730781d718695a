// The launcher's seccomp filter: what Landlock cannot express. Always: no io_uring (its
// operations bypass syscall filtering) and no mount API (mount, open_tree, mount_setattr, ...:
// the read-only remounts must stay), no keyrings (keyctl, add_key, request_key: the caller's
// session keyring would be shared), no set-user-id or set-group-id bit set by chmod, fchmod,
// fchmodat(2), mknod(at), creat or a creating open(at) (the bit would outlive the sandbox on disk;
// openat2, whose mode a filter cannot read, answers ENOSYS). With `network` false (the network
// off and no network namespace of the command's own): no socket() at all, so no TCP (Landlock
// checks connect and bind, but not a TCP Fast Open sendto or listen's automatic bind), UDP, raw,
// packet, netlink or unix sockets. socketpair() stays: it reaches nothing outside.
#pragma once

#include <linux/filter.h>

#include <vector>

#include "common/error.h"

namespace msb {

// The classic BPF program for this architecture; empty where the architecture is unknown.
std::vector<sock_filter> seccomp_program(bool network);

// Installs the filter on the calling thread (no_new_privs must already be set). Fails with
// unsupported on unknown architectures, io_error (sys_errno) when the kernel refuses.
Status apply_seccomp(bool network);

}  // namespace msb
