// The optional namespace layer: a user namespace owning a private mount namespace (and a PID
// namespace), in which every mount is read-only except the policy's writable paths. This makes
// read-only paths read-only to chmod, chown, utime and xattr calls too, which Landlock does
// not govern, and keeps read-only mounts read-only when they lie inside writable ones.
#pragma once

#include "error.h"
#include "exec_policy.h"

namespace msb {

// True when some path the policy does not let the command write lies inside one it may write:
// Landlock grants by hierarchy, so only the namespace layer can keep it read-only.
bool needs_read_only_binds(const ExecPolicy& policy) noexcept;

// Enters new user, mount, PID and IPC namespaces (the PID namespace applies to children forked
// afterwards), keeping our uid and gid. Fails with unsupported when the kernel refuses
// (then nothing changed), io_error (sys_errno) when the id maps cannot be written.
Status enter_namespaces();

// In our user namespace: no further user namespaces below it (max_user_namespaces = 0). Fails
// with io_error (sys_errno).
Status forbid_nested_user_namespaces();

// In the new mount namespace: everything read-only, then the writable paths bound writable and
// the read-only paths inside them bound read-only again. `fds` are the policy's paths opened
// (by open_policy_paths) after entering the namespace; those below a new bind are reopened on
// it. Fails with io_error (sys_errno), or symlink_escape when a reopened path names another inode.
Status remount(const ExecPolicy& policy, std::vector<UniqueFd>& fds);

// In the new PID namespace's first process: a procfs of that namespace over /proc, read-only, so
// the command sees only its own processes (not the host's command lines). Policy paths at or
// under /proc are reopened on it. Fails with io_error (sys_errno); then /proc stays the host's.
Status mount_private_proc(const ExecPolicy& policy, std::vector<UniqueFd>& fds);

}  // namespace msb
