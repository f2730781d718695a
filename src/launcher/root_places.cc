#include "launcher/root_places.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "common/path.h"

namespace msb {
namespace {

std::vector<std::string_view> parts_of(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::string_view piece : split_at_slashes(path)) {
    if (!piece.empty()) out.push_back(piece);
  }
  return out;
}

// One component below `dir`, never through a symlink; created when missing and asked to.
Result<UniqueFd> open_component(int dir, const std::string& name, Create create) {
  UniqueFd next(::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!next.valid() && errno == ENOENT && create != Create::never) {
    if (create == Create::file) {
      UniqueFd made(
          ::openat(dir, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644));
      if (!made.valid() && errno != EEXIST) return sys_failure(SysOp::openat, errno);
    } else if (::mkdirat(dir, name.c_str(), 0755) != 0 && errno != EEXIST) {
      return sys_failure(SysOp::mkdirat, errno);
    }
    next.reset(::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  }
  if (!next.valid()) return sys_failure(SysOp::openat, errno);
  struct stat st {};
  if (::fstat(next.get(), &st) != 0) return sys_failure(SysOp::fstat, errno);
  if (S_ISLNK(st.st_mode)) return sys_failure(SysOp::none, ELOOP);
  return next;
}

}  // namespace

bool same_inode(int a, int b) {
  struct stat sa {};
  struct stat sb {};
  return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

bool is_directory(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

Result<UniqueFd> open_place(int root, std::string_view path, Create create) {
  UniqueFd dir(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  if (!dir.valid()) return sys_failure(SysOp::fcntl, errno);
  const std::vector<std::string_view> parts = parts_of(path);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    const Create here = last || create == Create::never ? create : Create::directory;
    auto next = open_component(dir.get(), std::string(parts[i]), here);
    if (!next) return next.error();
    if (!last && !is_directory(next.value().get())) return sys_failure(SysOp::none, ENOTDIR);
    dir = std::move(next.value());
  }
  return dir;
}

Status attach(int source, int place, std::uint64_t attrs) {
  UniqueFd tree(
      ::open_tree(source, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH));
  if (!tree.valid()) return sys_failure(SysOp::open_tree, errno);
  if (attrs != 0) {
    mount_attr attr{};
    attr.attr_set = attrs;
    if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0)
      return sys_failure(SysOp::mount_setattr, errno);
  }
  if (::move_mount(tree.get(), "", place, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) !=
      0) {
    return sys_failure(SysOp::move_mount, errno);
  }
  return ok_status();
}

}  // namespace msb
