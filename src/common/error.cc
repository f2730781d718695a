#include "common/error.h"

#include <cerrno>

namespace msb {

std::string_view errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::ok: return "OK";
    case Errc::not_found: return "NOT_FOUND";
    case Errc::invalid_path: return "INVALID_PATH";
    case Errc::path_escape: return "PATH_ESCAPE";
    case Errc::read_only: return "READ_ONLY";
    case Errc::permission_escalation: return "PERMISSION_ESCALATION";
    case Errc::symlink_escape: return "SYMLINK_ESCAPE";
    case Errc::symlink_loop: return "SYMLINK_LOOP";
    case Errc::not_regular_file: return "NOT_REGULAR_FILE";
    case Errc::is_directory: return "IS_DIRECTORY";
    case Errc::not_directory: return "NOT_DIRECTORY";
    case Errc::too_large: return "TOO_LARGE";
    case Errc::mount_point: return "MOUNT_POINT";
    case Errc::access_denied: return "ACCESS_DENIED";
    case Errc::already_exists: return "ALREADY_EXISTS";
    case Errc::invalid_config: return "INVALID_CONFIG";
    case Errc::unsupported: return "UNSUPPORTED";
    case Errc::io_error: return "IO_ERROR";
    case Errc::outside_sandbox: return "OUTSIDE_SANDBOX";
    case Errc::write_blocked: return "WRITE_BLOCKED";
    case Errc::delete_blocked: return "DELETE_BLOCKED";
    case Errc::suffix_not_allowed: return "SUFFIX_NOT_ALLOWED";
    case Errc::no_match: return "NO_MATCH";
    case Errc::ambiguous_match: return "AMBIGUOUS_MATCH";
    case Errc::too_many_attachments: return "TOO_MANY_ATTACHMENTS";
    case Errc::attachments_too_large: return "ATTACHMENTS_TOO_LARGE";
    case Errc::depth_exceeded: return "DEPTH_EXCEEDED";
    case Errc::zone_not_found: return "ZONE_NOT_FOUND";
    case Errc::invalid_pattern: return "INVALID_PATTERN";
    case Errc::untrusted_source: return "UNTRUSTED_SOURCE";
    case Errc::proc_unavailable: return "PROC_UNAVAILABLE";
    case Errc::changed_underneath: return "CHANGED_UNDERNEATH";
    case Errc::metadata_not_kept: return "METADATA_NOT_KEPT";
    case Errc::pseudo_filesystem: return "PSEUDO_FILESYSTEM";
    case Errc::conflict: return "CONFLICT";
    case Errc::host_trusted: return "HOST_TRUSTED";
  }
  return "IO_ERROR";
}

Errc errc_from_errno(int err) noexcept {
  switch (err) {
    case ENOENT: return Errc::not_found;
    case ENOTDIR: return Errc::not_directory;
    case EISDIR: return Errc::is_directory;
    case EXDEV: return Errc::symlink_escape;
    case ELOOP: return Errc::symlink_loop;
    case EACCES:
    case EPERM: return Errc::access_denied;
    case EROFS: return Errc::read_only;
    case EEXIST: return Errc::already_exists;
    case EFBIG: return Errc::too_large;
    case ENXIO:
    case ENODEV: return Errc::not_regular_file;
    case ENAMETOOLONG: return Errc::invalid_path;
    default: return Errc::io_error;
  }
}

std::string_view sysop_name(SysOp op) noexcept {
  switch (op) {
    case SysOp::none: return "";
    case SysOp::open: return "open";
    case SysOp::openat: return "openat";
    case SysOp::openat2: return "openat2";
    case SysOp::fstat: return "fstat";
    case SysOp::fstatat: return "fstatat";
    case SysOp::statx: return "statx";
    case SysOp::read: return "read";
    case SysOp::pread: return "pread";
    case SysOp::write: return "write";
    case SysOp::readlinkat: return "readlinkat";
    case SysOp::getdents64: return "getdents64";
    case SysOp::mkdirat: return "mkdirat";
    case SysOp::unlinkat: return "unlinkat";
    case SysOp::renameat: return "renameat";
    case SysOp::renameat2: return "renameat2";
    case SysOp::linkat: return "linkat";
    case SysOp::symlinkat: return "symlinkat";
    case SysOp::fchmod: return "fchmod";
    case SysOp::fcntl: return "fcntl";
    case SysOp::fchdir: return "fchdir";
    case SysOp::chdir: return "chdir";
    case SysOp::mount: return "mount";
    case SysOp::umount2: return "umount2";
    case SysOp::open_tree: return "open_tree";
    case SysOp::move_mount: return "move_mount";
    case SysOp::mount_setattr: return "mount_setattr";
    case SysOp::pivot_root: return "pivot_root";
    case SysOp::unshare: return "unshare";
    case SysOp::socket: return "socket";
    case SysOp::ioctl: return "ioctl";
    case SysOp::prctl: return "prctl";
    case SysOp::capset: return "capset";
    case SysOp::landlock_create_ruleset: return "landlock_create_ruleset";
    case SysOp::landlock_add_rule: return "landlock_add_rule";
    case SysOp::landlock_restrict_self: return "landlock_restrict_self";
    case SysOp::listxattr: return "listxattr";
    case SysOp::getxattr: return "getxattr";
    case SysOp::flistxattr: return "flistxattr";
    case SysOp::fgetxattr: return "fgetxattr";
    case SysOp::fsetxattr: return "fsetxattr";
    case SysOp::fremovexattr: return "fremovexattr";
    case SysOp::listxattrat: return "listxattrat";
    case SysOp::getxattrat: return "getxattrat";
    case SysOp::fstatfs: return "fstatfs";
    case SysOp::fsopen: return "fsopen";
    case SysOp::fsconfig: return "fsconfig";
    case SysOp::fsmount: return "fsmount";
    case SysOp::socketpair: return "socketpair";
    case SysOp::setsockopt: return "setsockopt";
    case SysOp::getsockopt: return "getsockopt";
    case SysOp::bind: return "bind";
    case SysOp::listen: return "listen";
    case SysOp::sendmsg: return "sendmsg";
    case SysOp::recvmsg: return "recvmsg";
    case SysOp::poll: return "poll";
  }
  return "";
}

Error from_errno(SysOp op, int err) noexcept {
  Error e{errc_from_errno(err), err};
  e.op = op;
  return e;
}

Error sys_failure(SysOp op, int err) noexcept {
  Error e{Errc::io_error, err};
  e.op = op;
  return e;
}

Error too_large(std::uint64_t size, std::uint64_t limit) noexcept {
  Error e{Errc::too_large};
  e.size = size;
  e.limit = limit;
  return e;
}

Error pseudo_filesystem(const char* filesystem) noexcept {
  Error e{Errc::pseudo_filesystem};
  e.filesystem = filesystem;
  return e;
}

Error at_index(Error error, std::size_t index) noexcept {
  error.index = index;
  return error;
}

}  // namespace msb
