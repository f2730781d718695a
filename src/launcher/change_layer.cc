#include "launcher/change_layer.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace msb {
namespace {

std::string proc_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

// Our own layer directories, never through a symlink: the caller made them, private, outside
// every path the command can write.
Result<UniqueFd> open_layer_dir(int base, const std::string& path) {
  UniqueFd fd(::openat(base, path.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return sys_failure(SysOp::open, errno);
  return fd;
}

Status set_option(int fs, const char* key, const std::string& value) {
  if (::fsconfig(fs, FSCONFIG_SET_STRING, key, value.c_str(), 0) != 0)
    return sys_failure(SysOp::fsconfig, errno);
  return ok_status();
}

Status set_flag(int fs, const char* key) {
  if (::fsconfig(fs, FSCONFIG_SET_FLAG, key, nullptr, 0) != 0)
    return sys_failure(SysOp::fsconfig, errno);
  return ok_status();
}

}  // namespace

Result<LayerDirs> open_layer_dirs(const ExecPath& entry, int base) {
  auto upper = open_layer_dir(base, entry.upper);
  if (!upper) return upper.error();
  auto work = open_layer_dir(base, entry.work);
  if (!work) return work.error();
  return LayerDirs{std::move(upper.value()), std::move(work.value())};
}

Result<UniqueFd> mount_change_layer(const LayerDirs& dirs, int lower, int place) {
  UniqueFd fs(::fsopen("overlay", FSOPEN_CLOEXEC));
  if (!fs.valid()) return sys_failure(SysOp::fsopen, errno);
  // By descriptor, through /proc: each layer is the inode opened and checked, whatever its path
  // names by now.
  if (Status s = set_option(fs.get(), "lowerdir", proc_path(lower)); !s) return s.error();
  if (Status s = set_option(fs.get(), "upperdir", proc_path(dirs.upper.get())); !s)
    return s.error();
  if (Status s = set_option(fs.get(), "workdir", proc_path(dirs.work.get())); !s) return s.error();
  if (Status s = set_flag(fs.get(), "userxattr"); !s) return s.error();
  if (::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    return sys_failure(SysOp::fsconfig, errno);
  UniqueFd mnt(::fsmount(fs.get(), FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV));
  if (!mnt.valid()) return sys_failure(SysOp::fsmount, errno);
  if (::move_mount(mnt.get(), "", place, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) !=
      0) {
    return sys_failure(SysOp::move_mount, errno);
  }
  UniqueFd root(::openat(mnt.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return sys_failure(SysOp::openat, errno);
  return root;
}

bool has_layers(const ExecPolicy& policy) noexcept {
  return std::any_of(policy.paths.begin(), policy.paths.end(),
                     [](const ExecPath& entry) { return !entry.upper.empty(); });
}

bool in_layer(const ExecPolicy& policy, std::string_view path) noexcept {
  return std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& entry) {
    return !entry.upper.empty() && path_is_within(path, entry.target);
  });
}

bool layer_unavailable(const Error& e) noexcept {
  return e.op == SysOp::fsopen || e.op == SysOp::fsconfig || e.op == SysOp::fsmount;
}

}  // namespace msb
