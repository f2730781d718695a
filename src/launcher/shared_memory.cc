#include "launcher/shared_memory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "common/unique_fd.h"

namespace msb {
namespace {

constexpr std::uint64_t kShmDefaultBytes = 64ULL * 1024 * 1024;
constexpr std::uint64_t kMaxSegments = 4096;  // the kernel's default shmmni

Status write_text(const char* path, const std::string& text) {
  UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_failure(SysOp::open, errno);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return sys_failure(SysOp::write, errno);
  return ok_status();
}

Status write_sysctl(const char* path, std::uint64_t value) {
  return write_text(path, std::to_string(value));
}

// One id each way, as an unprivileged process may map its own user namespace.
Status write_id_maps(const std::string& uid_line, const std::string& gid_line) {
  if (Status s = write_text("/proc/self/setgroups", "deny"); !s) return s;
  if (Status s = write_text("/proc/self/uid_map", uid_line); !s) return s;
  return write_text("/proc/self/gid_map", gid_line);
}

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

std::uint64_t page_size() {
  long size = ::sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<std::uint64_t>(size) : 4096;
}

}  // namespace

std::string shm_tmpfs_size(std::uint64_t memory_bytes) {
  const std::uint64_t bytes =
      memory_bytes > 0 ? std::min(memory_bytes, kShmDefaultBytes) : kShmDefaultBytes;
  return "size=" + std::to_string(bytes);
}

std::uint64_t tmp_size(const ExecLimits& limits) {
  if (limits.tmp_bytes == 0) return limits.memory_bytes;
  if (limits.memory_bytes == 0) return limits.tmp_bytes;
  return std::min(limits.tmp_bytes, limits.memory_bytes);
}

Status put_tmp_on_tmpfs(const ExecPolicy& policy) {
  const std::uint64_t size = tmp_size(policy.limits);
  if (size == 0) return ok_status();
  for (const ExecPath& entry : policy.paths) {
    if (entry.target != "/tmp" || entry.access != PathAccess::write) continue;
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    UniqueFd before(::open(entry.path.c_str(), flags));
    const std::string options = "mode=0700,size=" + std::to_string(size);
    if (::mount("tmpfs", entry.path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
      return sys_failure(SysOp::mount, errno);
    UniqueFd after(::open(entry.path.c_str(), flags));
    if (!after.valid()) return sys_failure(SysOp::open, errno);
    if (before.valid()) {
      if (Status carried = carry_files(before.get(), after.get()); !carried) return carried;
    }
  }
  return ok_status();
}

Status limit_system_v(std::uint64_t memory_bytes) {
  const std::uint64_t pages =
      std::max<std::uint64_t>(1, (memory_bytes + page_size() - 1) / page_size());
  if (Status s = write_sysctl("/proc/sys/kernel/shmmax", memory_bytes); !s) return s;
  if (Status s = write_sysctl("/proc/sys/kernel/shmall", pages); !s) return s;
  return write_sysctl("/proc/sys/kernel/shmmni", std::min(pages, kMaxSegments));
}

Result<LimitedIpc> enter_limited_ipc_namespace(std::uint64_t memory_bytes) {
  const std::string uid = std::to_string(::geteuid());
  const std::string gid = std::to_string(::getegid());
  LimitedIpc done;
  if (::unshare(CLONE_NEWUSER | CLONE_NEWIPC) != 0) return done;
  done.entered = true;
  if (Status s = write_id_maps("0 " + uid + " 1", "0 " + gid + " 1"); !s) return s.error();
  done.limited = static_cast<bool>(limit_system_v(memory_bytes));
  // Our own ids again: here they are uid and gid 0 of the namespace above.
  if (::unshare(CLONE_NEWUSER) != 0) return sys_failure(SysOp::unshare, errno);
  if (Status s = write_id_maps(uid + " 0 1", gid + " 0 1"); !s) return s.error();
  return done;
}

}  // namespace msb
