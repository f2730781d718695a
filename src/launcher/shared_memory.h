// What bounds shared memory where no memory cgroup does (RLIMIT_DATA counts only private memory):
// the sizes of the tmpfs mounts the command can write, and the System V limits of its own IPC
// namespace. Shared anonymous mappings and memfds have no such bound; only a cgroup holds them.
#pragma once

#include <cstdint>
#include <string>

#include "common/error.h"
#include "launcher/exec_policy.h"

namespace msb {

// The mount options' size of the command's /dev/shm: 64 MiB, or memoryBytes when that is smaller.
std::string shm_tmpfs_size(std::uint64_t memory_bytes);

// In the command's new IPC namespace: shmmax (one segment) and shmall (all segments) at
// memoryBytes, shmmni no higher than the segments that could fit. The kernel lets only uid 0 of
// the namespace's user namespace write them. Fails with io_error (sys_errno, op).
Status limit_system_v(std::uint64_t memory_bytes);

// What enter_limited_ipc_namespace did.
struct LimitedIpc {
  bool entered = false;  // we are in an IPC namespace of our own
  bool limited = false;  // its System V limits are set
};

// For a caller other than root, before enter_namespaces (which must then keep this IPC
// namespace): uid 0 of the user namespace owning the command's namespaces is unmapped there, so
// the IPC namespace is made in a user namespace of its own where uid 0 is us, its limits set, and
// a second user namespace below maps our own ids back for what follows. Nothing when the kernel
// refuses a user namespace (enter_namespaces says so then). Fails with io_error (sys_errno, op)
// when an id map cannot be written (as under Ubuntu's AppArmor restriction).
Result<LimitedIpc> enter_limited_ipc_namespace(std::uint64_t memory_bytes);

}  // namespace msb
