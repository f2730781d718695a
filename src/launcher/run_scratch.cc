#include "launcher/run_scratch.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/change_layer.h"
#include "launcher/root_places.h"
#include "launcher/shared_memory.h"

namespace msb {
namespace {

constexpr const char* kTmpDir = "tmp";
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// What the caller put in its private temp directory before the launch (git's excludes file for
// the mount points: lib/next-run/git.js) goes into the tmpfs that covers it: a few small regular
// files, nothing else. The directory is the caller's own (mode 0700), written before we ran.
constexpr int kMaxCarried = 16;
constexpr off_t kMaxCarriedBytes = 1 << 20;

Status copy_file(int from_dir, int to_dir, const char* name) {
  UniqueFd from(::openat(from_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!from.valid() || ::fstat(from.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size > kMaxCarriedBytes)
    return ok_status();
  UniqueFd to(::openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       st.st_mode & 0600));
  if (!to.valid()) return sys_failure(SysOp::openat, errno);
  std::array<char, 8192> buffer{};
  for (ssize_t got; (got = ::read(from.get(), buffer.data(), buffer.size())) != 0;) {
    if (got < 0) return sys_failure(SysOp::read, errno);
    if (::write(to.get(), buffer.data(), static_cast<std::size_t>(got)) != got)
      return sys_failure(SysOp::write, errno);
  }
  return ok_status();
}

Status carry_files(int from_dir, int to_dir) {
  DIR* listing = ::fdopendir(::dup(from_dir));
  if (listing == nullptr) return sys_failure(SysOp::getdents64, errno);
  Status carried = ok_status();
  int count = 0;
  while (const dirent* entry = ::readdir(listing)) {
    if (entry->d_type != DT_REG) continue;
    if (++count > kMaxCarried) break;
    if (carried = copy_file(from_dir, to_dir, entry->d_name); !carried) break;
  }
  ::closedir(listing);
  return carried;
}

ExecPath* tmp_entry(ExecPolicy& policy) {
  for (ExecPath& entry : policy.paths) {
    if (entry.target == "/tmp" && entry.access == PathAccess::write) return &entry;
  }
  return nullptr;
}

// overlayfs with "userxattr" keeps its marks in user.overlay.* attributes of the upper directory;
// a tmpfs takes user.* ones since Linux 6.6. Without them the layers stay on the host's disk.
bool takes_user_xattrs(int dir) {
  constexpr const char* kProbe = "user.msb-probe";
  if (::fsetxattr(dir, kProbe, "", 0, 0) != 0) return false;
  ::fremovexattr(dir, kProbe);
  return true;
}

// The last component of a layer directory the caller named: "<i>u" or "<i>w" beneath its stage.
std::string_view last_component(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

Status make_layer_dirs(ExecPolicy& policy, int root) {
  std::vector<std::string> made{kTmpDir};
  for (ExecPath& entry : policy.paths) {
    if (entry.upper.empty()) continue;
    for (std::string* dir : {&entry.upper, &entry.work}) {
      const std::string name(last_component(*dir));
      if (name.empty() || name == "." || name == "..") return Errc::invalid_config;
      for (const std::string& other : made) {
        if (other == name) return Errc::invalid_config;
      }
      if (::mkdirat(root, name.c_str(), 0700) != 0) return sys_failure(SysOp::mkdirat, errno);
      made.push_back(name);
      *dir = name;
    }
  }
  return ok_status();
}

// The tmpfs's "tmp" directory bound over its own root at `place`: the command's /tmp is that
// directory alone, and the layers' directories beside it are reached only through overlayfs.
Status cover_with_tmp_dir(int root, int place) {
  UniqueFd tmp(::openat(root, kTmpDir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!tmp.valid()) return sys_failure(SysOp::openat, errno);
  return attach(tmp.get(), place, kWritable);
}

}  // namespace

Result<Scratch> make_scratch(ExecPolicy& policy, bool with_layers) {
  const std::uint64_t size = tmp_size(policy.limits);
  ExecPath* entry = tmp_entry(policy);
  if (size == 0 || entry == nullptr) return Scratch{};
  UniqueFd before(::open(entry->path.c_str(), kDirFlags));
  const std::string options = "mode=0700,size=" + std::to_string(size);
  if (::mount("tmpfs", entry->path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
    return sys_failure(SysOp::mount, errno);
  Scratch out;
  out.root = UniqueFd(::open(entry->path.c_str(), kDirFlags));
  if (!out.root.valid()) return sys_failure(SysOp::open, errno);
  if (with_layers && has_layers(policy) && takes_user_xattrs(out.root.get())) {
    if (::mkdirat(out.root.get(), kTmpDir, 0700) != 0) return sys_failure(SysOp::mkdirat, errno);
    if (Status s = make_layer_dirs(policy, out.root.get()); !s) return s.error();
    if (Status s = cover_with_tmp_dir(out.root.get(), out.root.get()); !s) return s.error();
    out.layers = true;
  }
  UniqueFd after(::open(entry->path.c_str(), kDirFlags));
  if (!after.valid()) return sys_failure(SysOp::open, errno);
  if (before.valid()) {
    if (Status carried = carry_files(before.get(), after.get()); !carried) return carried.error();
  }
  return out;
}

}  // namespace msb
