#include "fs/metadata.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/sys.h"

// Linux 6.13's *xattrat calls, numbered alike on every architecture (from 424 on).
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
#ifndef SYS_listxattrat
#define SYS_listxattrat 465
#endif

namespace msb {
namespace {

constexpr const char* kAccessAcl = "system.posix_acl_access";

// <linux/xattr.h>'s struct xattr_args (6.13), which the build's kernel headers may predate.
struct XattrArgs {
  std::uint64_t value;
  std::uint32_t size;
  std::uint32_t flags;
};

// Cleared where listxattrat is missing (before Linux 6.13) or refused to us (a seccomp filter).
std::atomic<bool> xattrat_works{true};

Error not_kept(SysOp op, int err) {
  Error e{Errc::metadata_not_kept, err};
  e.op = op;
  return e;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Where a file's attributes are read: an open descriptor, the /proc/self/fd link of an O_PATH
// descriptor (getxattr follows it to the very inode without opening it), or a name in a directory.
struct Source {
  enum class Kind : std::uint8_t { fd, proc_path, name_at } kind;
  int fd = -1;                  // fd; name_at: the directory
  const char* path = nullptr;   // proc_path: the link; name_at: the name
  SysOp list_op = SysOp::none;  // the calls, as an Error names them
  SysOp get_op = SysOp::none;
};

Source fd_source(int fd) {
  return {Source::Kind::fd, fd, nullptr, SysOp::flistxattr, SysOp::fgetxattr};
}
Source proc_source(const char* link) {
  return {Source::Kind::proc_path, -1, link, SysOp::listxattr, SysOp::getxattr};
}
Source name_source(int dir_fd, const char* name) {
  return {Source::Kind::name_at, dir_fd, name, SysOp::listxattrat, SysOp::getxattrat};
}

ssize_t list_names(const Source& s, char* buf, std::size_t size) {
  switch (s.kind) {
    case Source::Kind::fd: return ::flistxattr(s.fd, buf, size);
    case Source::Kind::proc_path: return ::listxattr(s.path, buf, size);
    case Source::Kind::name_at:
      return ::syscall(SYS_listxattrat, s.fd, s.path, AT_SYMLINK_NOFOLLOW, buf, size);
  }
  errno = EINVAL;
  return -1;
}

ssize_t get_value(const Source& s, const char* name, char* buf, std::size_t size) {
  switch (s.kind) {
    case Source::Kind::fd: return ::fgetxattr(s.fd, name, buf, size);
    case Source::Kind::proc_path: return ::getxattr(s.path, name, buf, size);
    case Source::Kind::name_at: {
      XattrArgs args{reinterpret_cast<std::uintptr_t>(buf), static_cast<std::uint32_t>(size), 0};
      return ::syscall(SYS_getxattrat, s.fd, s.path, AT_SYMLINK_NOFOLLOW, name, &args,
                       sizeof(args));
    }
  }
  errno = EINVAL;
  return -1;
}

// Calls `call(buf, size)` until the buffer is large enough (ERANGE: the value grew meanwhile):
// the bytes, or -1 with errno.
template <typename Call>
ssize_t read_sized(std::string& out, Call call) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const ssize_t n = call(out.data(), out.size());
    if (n >= 0) {
      out.resize(static_cast<std::size_t>(n));
      return n;
    }
    if (errno != ERANGE) return -1;
    const ssize_t needed = call(nullptr, 0);
    if (needed < 0) return -1;
    out.resize(static_cast<std::size_t>(needed) + 64);
  }
  errno = ERANGE;
  return -1;
}

// The attributes of the file `s` names that a replacement carries. A filesystem without
// extended attributes (ENOTSUP) has none to keep.
Result<std::vector<Xattr>> read_xattrs(const Source& s) {
  std::vector<Xattr> out;
  // Most files have none or a few: one call with a buffer on the stack answers.
  char first[1024];
  std::string names;
  ssize_t n = list_names(s, first, sizeof(first));
  if (n >= 0) {
    names.assign(first, static_cast<std::size_t>(n));
  } else if (errno == ERANGE) {
    names.resize(sizeof(first) * 4);
    n = read_sized(names, [&](char* buf, std::size_t size) { return list_names(s, buf, size); });
  }
  if (n < 0) {
    if (errno == ENOTSUP) return out;
    return not_kept(s.list_op, errno);
  }
  for (std::size_t at = 0; at < names.size();) {
    const char* name = names.c_str() + at;
    const std::size_t len = std::strlen(name);
    at += len + 1;
    if (len == 0 || !xattr_carried({name, len})) continue;
    std::string value(256, '\0');
    const ssize_t got = read_sized(
        value, [&](char* buf, std::size_t size) { return get_value(s, name, buf, size); });
    if (got < 0) {
      if (errno == ENODATA) continue;  // removed since it was listed
      return not_kept(s.get_op, errno);
    }
    out.push_back(Xattr{std::string(name, len), std::move(value)});
  }
  return out;
}

FileMetadata from_stat(const struct stat& st) {
  FileMetadata meta;
  meta.mode = st.st_mode & 0777;
  meta.uid = st.st_uid;
  meta.gid = st.st_gid;
  return meta;
}

// Whether the new file already has this value (a security label its directory gave it), so that
// setting it, which may need a privilege, is not asked for.
bool has_value(int fd, const Xattr& x) {
  std::string now(x.value.size() + 1, '\0');
  const ssize_t n = ::fgetxattr(fd, x.name.c_str(), now.data(), now.size());
  return n >= 0 && static_cast<std::size_t>(n) == x.value.size() &&
         std::memcmp(now.data(), x.value.data(), x.value.size()) == 0;
}

Status set_xattr(int fd, const Xattr& x) {
  if (::fsetxattr(fd, x.name.c_str(), x.value.data(), x.value.size(), 0) != 0) {
    return not_kept(SysOp::fsetxattr, errno);
  }
  return ok_status();
}

// An ACL the new file inherited from its directory's default ACL, where the old file had none:
// removed, so that the new file is as open as the old one and no more.
Status drop_inherited_acl(int fd) {
  if (::fgetxattr(fd, kAccessAcl, nullptr, 0) < 0) return ok_status();  // ENODATA, ENOTSUP
  if (::fremovexattr(fd, kAccessAcl) != 0 && errno != ENODATA) {
    return not_kept(SysOp::fremovexattr, errno);
  }
  return ok_status();
}

}  // namespace

bool xattr_carried(std::string_view name) noexcept {
  return name != "security.capability" && name != "security.ima" && name != "security.evm" &&
         !starts_with(name, "trusted.overlay.");
}

Result<FileMetadata> read_metadata(int fd) {
  auto st = sys::stat_fd(fd);
  if (!st) return st.error();
  FileMetadata meta = from_stat(st.value());
  auto xattrs = read_xattrs(fd_source(fd));
  if (!xattrs) return xattrs.error();
  meta.xattrs = std::move(xattrs.value());
  return meta;
}

Result<std::optional<FileMetadata>> read_metadata_at(int dir_fd, const char* name,
                                                     const struct stat& st) {
  if (xattrat_works.load(std::memory_order_relaxed)) {
    auto xattrs = read_xattrs(name_source(dir_fd, name));
    if (xattrs) {
      FileMetadata meta = from_stat(st);
      meta.xattrs = std::move(xattrs.value());
      return std::optional<FileMetadata>{std::move(meta)};
    }
    const Error& e = xattrs.error();
    if (e.sys_errno == ENOENT) return std::optional<FileMetadata>{};  // gone since
    if (e.op != SysOp::listxattrat || (e.sys_errno != ENOSYS && e.sys_errno != EPERM)) return e;
    // No listxattrat here (before Linux 6.13), or a seccomp filter refuses it: through /proc.
    xattrat_works.store(false, std::memory_order_relaxed);
  }
  return read_metadata_through_proc(dir_fd, name);
}

Result<std::optional<FileMetadata>> read_metadata_through_proc(int dir_fd, const char* name) {
  auto found = sys::open_at(dir_fd, name, O_PATH | O_NOFOLLOW);
  if (!found) {
    if (found.error().code == Errc::not_found) return std::optional<FileMetadata>{};
    return found.error();
  }
  auto st = sys::stat_fd(found.value().get());
  if (!st) return st.error();
  if (!S_ISREG(st.value().st_mode)) return std::optional<FileMetadata>{};
  FileMetadata meta = from_stat(st.value());
  char link[32];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", found.value().get());
  auto xattrs = read_xattrs(proc_source(link));
  if (!xattrs) {
    // The descriptor is open, so its link exists wherever /proc is mounted.
    if (xattrs.error().op != SysOp::listxattr || xattrs.error().sys_errno != ENOENT) {
      return xattrs.error();
    }
    Error e{Errc::proc_unavailable, ENOENT};
    e.op = SysOp::listxattr;
    return e;
  }
  meta.xattrs = std::move(xattrs.value());
  return std::optional<FileMetadata>{std::move(meta)};
}

Status apply_metadata(int fd, const FileMetadata& meta) {
  const Xattr* acl = nullptr;
  for (const Xattr& x : meta.xattrs) {
    if (x.name == kAccessAcl) {
      acl = &x;
      continue;
    }
    if (starts_with(x.name, "security.") && has_value(fd, x)) continue;
    if (auto st = set_xattr(fd, x); !st) return st;
  }
  // The ACL after the attributes: user.* needs write permission, which an ACL may take away.
  if (auto st = acl ? set_xattr(fd, *acl) : drop_inherited_acl(fd); !st) return st;
  if (::fchmod(fd, meta.mode) != 0) return from_errno(SysOp::fchmod, errno);
  struct stat now;
  if (::fstat(fd, &now) == 0 && (now.st_uid != meta.uid || now.st_gid != meta.gid)) {
    (void)::fchown(fd, meta.uid, meta.gid);  // EPERM: keep ours, as any editor would
  }
  return ok_status();
}

}  // namespace msb
