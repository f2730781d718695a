// A memory cgroup for one command: RLIMIT_DATA counts only each process's private memory, while a
// cgroup's limit counts everything its processes make resident, shared memory included (shared
// anonymous mappings, memfds, System V segments, tmpfs files). The launcher makes one where it
// may (as root, or in a delegated cgroup v2 subtree) and joins it before entering its namespaces,
// so that the PID namespace's init and the command inherit it. It stays in it to the end: each
// migration waits for an RCU grace period (milliseconds), so it does not move out again, and its
// caller (lib/exec/exec.js) removes the cgroup once it has exited.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/unique_fd.h"

namespace msb {

// Held by descriptor: once the command's root is pivoted in, the launcher no longer sees /sys.
struct MemoryCgroup {
  std::string dir;   // the cgroup made for this command (a host path, never shown to it)
  std::string name;  // its name in `parent`
  UniqueFd parent;   // the cgroup it was made in
  UniqueFd home;     // the cgroup the launcher came from, which it returns to before removal
  bool v2 = false;   // on cgroup v2 (else the memory controller's v1 hierarchy)
};

// Our cgroup as /proc/self/cgroup (`proc_self_cgroup`, "id:controllers:path" per hierarchy) puts
// it: in the cgroup v1 hierarchy holding the memory controller when there is one (cgroup v2 then
// has none), else in cgroup v2's. Nothing when neither is there, or the path lies outside our
// cgroup namespace ("/..").
struct CgroupMembership {
  std::string path;  // from the hierarchy's root, "/" for the root itself
  bool v2 = false;
};
std::optional<CgroupMembership> memory_cgroup_membership(std::string_view proc_self_cgroup);

// Makes a child cgroup limited to `memory_bytes` of memory and none of swap, and moves the
// calling process into it. Where the memory controller is on cgroup v2, the child is made beside
// our own cgroup (a v2 cgroup holding processes cannot give children controllers), so that
// cgroup's parent must have memory among its controllers and be writable by us, as systemd's
// delegation to a user's service makes it; where it is on cgroup v1, below our own (root only,
// in practice). Nothing when no cgroup can be made here, or any step fails (the cgroup is then
// removed again).
std::optional<MemoryCgroup> join_memory_cgroup(std::uint64_t memory_bytes);

// Moves the calling process back home and removes the cgroup, waiting briefly for processes that
// are still exiting; on cgroup v2, kills what is left in it. Best effort: the caller of the
// launcher removes it too. For a launch that goes on without namespaces.
void leave_memory_cgroup(const MemoryCgroup& cgroup);

}  // namespace msb
