// The command's root, built from nothing inside the namespace layer: a tmpfs holding only what
// the policy places there (system paths read-only, the sandbox's tree at its workspace, a private
// /tmp, a few devices, a private /proc), then made the root with pivot_root. Nothing else of the
// host exists for the command: no host sockets, no other homes, no /run or /var.
#pragma once

#include <vector>

#include "common/error.h"
#include "common/unique_fd.h"
#include "launcher/exec_policy.h"

namespace msb {

// Before canonicalize_paths: a path placed at its own host path (a system path) that is a
// symlink into another such path is recreated as that symlink rather than bound, as merged-usr
// /bin -> usr/bin and /etc/localtime -> /usr/share/zoneinfo/... are; the others are bound as
// the file the link names (/etc/resolv.conf -> /run/..., which the root does not hold).
void note_system_links(ExecPolicy& policy);

// In the new user and mount namespaces, with `fds` the policy's paths opened there: builds the
// root on a tmpfs covering our own /tmp and returns a descriptor of it. Every target is reached
// from the root without following symlinks (a command may have planted one in a writable source
// for this run to trust); a missing target is created, as Docker creates bind-mount targets.
// Paths that lie inside a writable one are bound at each place they appear there, read-only when
// their own access is narrower, and the directories between are bound onto themselves, so no
// command can rename them and plant a replacement for the next run. A writable path with a layer
// (ExecPath::upper) is seen through it (change_layer.h), and its descriptor in `fds` is replaced
// by the layer's root; its upper and work directories are opened beneath `layer_base` (AT_FDCWD
// for host paths, the run's tmpfs: run_scratch.h). Fails with io_error (sys_errno, op; Error::index
// names the entry; see layer_unavailable) or changed_underneath when a place names another inode.
Result<UniqueFd> build_root(const ExecPolicy& policy, std::vector<UniqueFd>& fds, int layer_base);

// What entering the root applied.
struct RootEntered {
  bool proc = false;           // a procfs of the command's PID namespace at /proc
  bool process_limit = false;  // the PID namespace holds at most limits.processes processes
};

// In the PID namespace's first process: mounts its procfs (its boot id one of this run's own,
// /proc/keys and /proc/key-users empty, read-only once the process limit is written), makes `root`
// the root with pivot_root, detaches the host's, and makes the tmpfs itself read-only. A procfs
// that cannot be mounted (the host's has masked paths, as in containers) leaves /proc empty and
// `proc` false. Fails with io_error (sys_errno).
Result<RootEntered> enter_root(const UniqueFd& root, const ExecLimits& limits);

}  // namespace msb
