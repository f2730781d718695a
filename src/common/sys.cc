#include "common/sys.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace msb::sys {
namespace {

Error failed(SysOp op) {
  return from_errno(op, errno);
}

Status status_of(int rc, SysOp op) {
  if (rc != 0) return failed(op);
  return ok_status();
}

EntryType entry_type(unsigned char d_type) {
  switch (d_type) {
    case DT_DIR: return EntryType::directory;
    case DT_LNK: return EntryType::symlink;
    case DT_UNKNOWN: return EntryType::unknown;
    case DT_REG: return EntryType::file;
    default: return EntryType::other;
  }
}

}  // namespace

Result<UniqueFd> open_at(int dir_fd, const char* name, int flags, mode_t mode) {
  UniqueFd fd(::openat(dir_fd, name, flags | O_CLOEXEC, mode));
  if (!fd.valid()) return failed(SysOp::openat);
  return fd;
}

Result<struct stat> stat_fd(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return failed(SysOp::fstat);
  return st;
}

Result<struct stat> stat_at(int dir_fd, const char* name) {
  struct stat st;
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return failed(SysOp::fstatat);
  return st;
}

Status unlink_at(int dir_fd, const char* name, int flags) {
  return status_of(::unlinkat(dir_fd, name, flags), SysOp::unlinkat);
}

Status make_dir_at(int dir_fd, const char* name, mode_t mode) {
  return status_of(::mkdirat(dir_fd, name, mode), SysOp::mkdirat);
}

Status symlink_at(const char* text, int dir_fd, const char* name) {
  return status_of(::symlinkat(text, dir_fd, name), SysOp::symlinkat);
}

Status link_at(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  return status_of(::linkat(from_dir, from, to_dir, to, flags), SysOp::linkat);
}

Status rename_at(int from_dir, const char* from, int to_dir, const char* to, bool replace) {
  if (replace) return status_of(::renameat(from_dir, from, to_dir, to), SysOp::renameat);
  if (::renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE) == 0) return ok_status();
  if (errno != EINVAL) return failed(SysOp::renameat2);
  return rename_by_link(from_dir, from, to_dir, to);
}

Status rename_by_link(int from_dir, const char* from, int to_dir, const char* to) {
  if (Status linked = link_at(from_dir, from, to_dir, to); !linked) return linked;
  return unlink_at(from_dir, from);
}

Result<std::string> read_link(int dir_fd, const char* name) {
  char buf[PATH_MAX];  // the kernel stores no longer link text
  const ssize_t n = ::readlinkat(dir_fd, name, buf, sizeof(buf));
  if (n < 0) return failed(SysOp::readlinkat);
  if (static_cast<std::size_t>(n) >= sizeof(buf))
    return from_errno(SysOp::readlinkat, ENAMETOOLONG);
  return std::string(buf, static_cast<std::size_t>(n));
}

Status write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return failed(SysOp::write);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return ok_status();
}

Result<std::size_t> pread_full(int fd, std::uint8_t* data, std::size_t size, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, data + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return failed(SysOp::pread);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

Result<bool> read_dir_batch(int dir_fd,
                            const std::function<void(std::string_view, EntryType)>& on_entry) {
  // getdents64 directly: fdopendir would take ownership of the descriptor and add a copy.
  alignas(8) char buf[32768];
  long n;
  do {
    n = ::syscall(SYS_getdents64, dir_fd, buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  if (n < 0) return failed(SysOp::getdents64);
  for (long off = 0; off < n;) {
    const auto* entry = reinterpret_cast<const struct dirent64*>(buf + off);
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") on_entry(name, entry_type(entry->d_type));
    off += entry->d_reclen;
  }
  return n > 0;
}

}  // namespace msb::sys
