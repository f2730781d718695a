#include "launcher/namespace_layer.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "common/unique_fd.h"

namespace msb {
namespace {

bool grants_write(PathAccess access) {
  return access == PathAccess::write || access == PathAccess::write_keep;
}

Status write_file(const char* path, const std::string& text) {
  UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_failure(SysOp::open, errno);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return sys_failure(SysOp::write, errno);
  }
  return ok_status();
}

// Maps our own ids to themselves: files keep their owners, and nothing else is mapped.
Status map_own_ids(uid_t uid, gid_t gid) {
  if (Status s = write_file("/proc/self/setgroups", "deny"); !s) return s;
  if (Status s =
          write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1");
      !s) {
    return s;
  }
  return write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1");
}

// A new network namespace has loopback down: nothing, not even 127.0.0.1, would answer.
Status bring_up_loopback() {
  UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return sys_failure(SysOp::socket, errno);
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(sock.get(), SIOCGIFFLAGS, &request) != 0) return sys_failure(SysOp::ioctl, errno);
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING);
  if (::ioctl(sock.get(), SIOCSIFFLAGS, &request) != 0) return sys_failure(SysOp::ioctl, errno);
  return ok_status();
}

// True when another of the policy's paths that grants `access`-like rights holds `path`.
template <typename Grants>
bool inside(const ExecPolicy& policy, const std::string& path, Grants grants) {
  return std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& other) {
    return grants(other.access) && other.path != path && path_is_within(path, other.path);
  });
}

// The required namespaces with as many of the optional ones as the kernel allows: both first,
// then each alone, then none (on failure only: one call where the kernel has them all). Returns
// the optional flags entered, -1 (errno set) when even the required ones were refused.
int unshare_with_optional(int required, int first_optional, int second_optional) {
  const int attempts[] = {first_optional | second_optional, second_optional, first_optional, 0};
  int previous = -1;
  for (const int optional : attempts) {
    if (optional == previous) continue;
    previous = optional;
    if (::unshare(required | optional) == 0) return optional;
  }
  return -1;
}

}  // namespace

Status forbid_nested_user_namespaces() {
  return write_file("/proc/sys/user/max_user_namespaces", "0");
}

bool needs_read_only_binds(const ExecPolicy& policy) noexcept {
  return std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& entry) {
    if (entry.access == PathAccess::device || entry.access == PathAccess::pin) return false;
    if (entry.access == PathAccess::write_keep) {
      return inside(policy, entry.path, [](PathAccess a) { return a == PathAccess::write; });
    }
    return !grants_write(entry.access) && inside(policy, entry.path, grants_write);
  });
}

Result<NamespacesEntered> enter_namespaces(bool own_network, bool own_ipc) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  // IPC: System V objects and POSIX message queues are found by id or name, not through files.
  const int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | (own_ipc ? CLONE_NEWIPC : 0);
  // UTS: the host's name would be the command's. Where the kernel refuses it or the network
  // namespace, the rest is entered without it and the caller reports it missing.
  const int entered_optional =
      unshare_with_optional(flags, own_network ? CLONE_NEWNET : 0, CLONE_NEWUTS);
  if (entered_optional < 0) {
    Error e = from_errno(SysOp::unshare, errno);
    e.code = Errc::unsupported;
    return e;
  }
  NamespacesEntered entered;
  entered.network = (entered_optional & CLONE_NEWNET) != 0;
  entered.uts = (entered_optional & CLONE_NEWUTS) != 0;
  if (Status s = map_own_ids(uid, gid); !s) return s.error();
  if (entered.network) {
    if (Status s = bring_up_loopback(); !s) return s.error();
  }
  // Nothing we mount may reach the host's namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return sys_failure(SysOp::mount, errno);
  return entered;
}

}  // namespace msb
