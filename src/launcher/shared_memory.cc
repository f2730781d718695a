#include "launcher/shared_memory.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
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
