// The namespace layer: a user namespace owning private mount, PID and IPC namespaces (and, with
// the network off, a network namespace holding only loopback), in which the launcher builds the
// command's root (command_root.h). Mount flags there make read-only paths read-only to chmod,
// chown, utime and xattr calls too, which Landlock does not govern.
#pragma once

#include "common/error.h"
#include "launcher/exec_policy.h"

namespace msb {

// True when some path the policy does not let the command write lies inside one it may write:
// Landlock grants by hierarchy, so only the namespace layer can keep it read-only.
bool needs_read_only_binds(const ExecPolicy& policy) noexcept;

struct NamespacesEntered {
  bool network = false;  // a network namespace of its own, loopback up
  bool uts = false;      // a UTS namespace of its own, still named as the host
};

// Enters new user, mount, PID and IPC namespaces (the PID namespace applies to children forked
// afterwards), keeping our uid and gid, a UTS namespace, and a network namespace when
// `own_network`: where the kernel refuses the UTS or network namespace alone, the rest is entered
// without it. Our mounts become private. `own_ipc` false keeps the IPC namespace we are in (one
// made for the command already, with its System V limits set: shared_memory.h).
// Fails with unsupported when the kernel refuses (then nothing changed), io_error (sys_errno)
// when the id maps cannot be written or loopback not brought up.
Result<NamespacesEntered> enter_namespaces(bool own_network, bool own_ipc = true);

// In our user namespace: no further user namespaces below it (max_user_namespaces = 0). Fails
// with io_error (sys_errno).
Status forbid_nested_user_namespaces();

}  // namespace msb
