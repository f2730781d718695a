#include "namespace_layer.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "unique_fd.h"

namespace msb {
namespace {

bool grants_write(PathAccess access) {
  return access == PathAccess::write || access == PathAccess::write_keep;
}

Status write_file(const char* path, const std::string& text) {
  UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_error(errno);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return sys_error(errno);
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

// Binds the directory `fd` names onto itself, read-only or writable. By descriptor, so the bind
// lands on the inode the policy was checked against, whatever its path names by now.
Status rebind(int fd, bool writable) {
  UniqueFd tree(
      ::open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH));
  if (!tree.valid()) return sys_error(errno);
  mount_attr attr{};
  if (writable) {
    attr.attr_clr = MOUNT_ATTR_RDONLY;  // only the top mount: host read-only mounts below stay so
    if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
      return sys_error(errno);
  } else {
    attr.attr_set = MOUNT_ATTR_RDONLY;
    if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0) {
      return sys_error(errno);
    }
  }
  if (::move_mount(tree.get(), "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) !=
      0) {
    return sys_error(errno);
  }
  return ok_status();
}

Status reopen_on_top(UniqueFd& fd, const std::string& path) {
  struct stat before {};
  struct stat after {};
  UniqueFd again(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!again.valid() || ::fstat(fd.get(), &before) != 0 || ::fstat(again.get(), &after) != 0) {
    return sys_error(errno);
  }
  if (before.st_dev != after.st_dev || before.st_ino != after.st_ino) return Errc::symlink_escape;
  fd = std::move(again);
  return ok_status();
}

// True when another of the policy's paths that grants `access`-like rights holds `path`.
template <typename Grants>
bool inside(const ExecPolicy& policy, const std::string& path, Grants grants) {
  return std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& other) {
    return grants(other.access) && other.path != path && path_is_within(path, other.path);
  });
}

bool inside_writable(const ExecPolicy& policy, const std::string& path) {
  return inside(policy, path, grants_write);
}

bool inside_full_write(const ExecPolicy& policy, const std::string& path) {
  return inside(policy, path, [](PathAccess a) { return a == PathAccess::write; });
}

// A keep-files path inside a fully writable one cannot keep its files under Landlock (rights
// add up along the hierarchy); the namespace layer makes it read-only instead.
bool bound_writable(const ExecPolicy& policy, const ExecPath& entry) {
  if (entry.access == PathAccess::write) return true;
  return entry.access == PathAccess::write_keep && !inside_full_write(policy, entry.path);
}

}  // namespace

// Outermost first, so inner binds land on top of outer ones.
Status remount(const ExecPolicy& policy, std::vector<UniqueFd>& fds) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return sys_error(errno);
  mount_attr all_read_only{};
  all_read_only.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID;
  if (::mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &all_read_only, sizeof all_read_only) != 0) {
    return sys_error(errno);
  }
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < policy.paths.size() && i < fds.size(); ++i) {
    if (policy.paths[i].access != PathAccess::device && fds[i].valid()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return policy.paths[a].path.size() < policy.paths[b].path.size();
  });
  for (std::size_t i : order) {
    const ExecPath& entry = policy.paths[i];
    const bool writable = bound_writable(policy, entry);
    // Read-only paths outside every writable one are already read-only.
    if (!writable && !inside_writable(policy, entry.path)) continue;
    if (Status s = rebind(fds[i].get(), writable); !s) return s;
    // Descriptors below still name the covered mount; a bind there would stay hidden.
    for (std::size_t j : order) {
      if (j != i && path_is_within(policy.paths[j].path, entry.path)) {
        if (Status s = reopen_on_top(fds[j], policy.paths[j].path); !s) return s;
      }
    }
  }
  return ok_status();
}

Status forbid_nested_user_namespaces() {
  return write_file("/proc/sys/user/max_user_namespaces", "0");
}

Status mount_private_proc(const ExecPolicy& policy, std::vector<UniqueFd>& fds) {
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, nullptr) !=
      0) {
    return sys_error(errno);
  }
  for (std::size_t i = 0; i < policy.paths.size() && i < fds.size(); ++i) {
    if (!path_is_within(policy.paths[i].path, "/proc")) continue;
    fds[i].reset(::open(policy.paths[i].path.c_str(), O_PATH | O_CLOEXEC));
  }
  return ok_status();
}

bool needs_read_only_binds(const ExecPolicy& policy) noexcept {
  return std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& entry) {
    if (entry.access == PathAccess::device) return false;
    if (entry.access == PathAccess::write_keep) return inside_full_write(policy, entry.path);
    return !grants_write(entry.access) && inside_writable(policy, entry.path);
  });
}

Status enter_namespaces() {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  // IPC: System V objects and POSIX message queues are found by id or name, not through files.
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC) != 0) {
    return Error{Errc::unsupported, errno};
  }
  return map_own_ids(uid, gid);
}

}  // namespace msb
