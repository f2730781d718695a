// Closed set of outcomes the core can report. The core never formats messages that could carry a
// host path: callers pair an Errc with the virtual path they asked about.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace msb {

enum class Errc : std::uint8_t {
  ok = 0,
  not_found,              // no such file or directory
  invalid_path,           // malformed virtual path (relative, NUL, ...)
  path_escape,            // `..` climbs above the sandbox root
  read_only,              // mutation under a read-only mount
  permission_escalation,  // restrict() asked for more than the parent has
  symlink_escape,         // a symlink points outside its mount, is absolute, or is a magic link
  symlink_loop,           // too many symlinks while resolving
  not_regular_file,       // FIFO, socket, device: never opened for data
  is_directory,           // a file operation on a directory
  not_directory,          // a path component is not a directory
  too_large,              // file exceeds the read limit
  mount_point,            // mutation of a mount point or of a directory that holds one
  access_denied,          // the host refused (EACCES/EPERM)
  already_exists,         // exclusive creation found an entry
  invalid_config,         // bad root/mount configuration
  unsupported,            // requested resolver is not available on this kernel
  io_error,               // anything else the host reported
  outside_sandbox,        // the path lies under no mount (sandboxes without a root)
  write_blocked,          // approval for writes here is `blocked`
  delete_blocked,         // approval for deletes here is `blocked`
  suffix_not_allowed,     // the file name's suffix is not allowed by the mount's policy
  no_match,               // edit: the text to replace does not occur
  ambiguous_match,        // edit: the text to replace occurs more than once (size = count)
  too_many_attachments,   // more attachments than the policy allows (size = count)
  attachments_too_large,  // attachments' total size exceeds the policy (size, limit)
  depth_exceeded,         // delegation deeper than maxDepth (size = depth, limit = max)
  zone_not_found,         // a worker asks for a zone its parent lacks (index = request)
  invalid_pattern,        // glob pattern is malformed
  untrusted_source,       // a mount source is reached through a symlink inside a writable source
  proc_unavailable,       // /proc is not mounted: a checked file cannot be reopened safely
  changed_underneath,     // exec launcher: a path names another inode than the sandbox pinned
  metadata_not_kept,      // a replacement could not keep an ACL or extended attribute it must
  pseudo_filesystem,      // a source or config file on procfs, sysfs, the device filesystem, ...
  conflict,      // write/edit: the file changed since it was read or since the given version
  host_trusted,  // a change to a file the host trusts to run things next (fs/trusted_names.h)
};

std::string_view errc_name(Errc code) noexcept;

// Maps an errno from a syscall on sandboxed paths to the closest Errc.
Errc errc_from_errno(int err) noexcept;

// The system call an Error comes from, so a report names the step the host refused (as
// libpathrs and Node's fs errors do). A closed set: the name is all a report carries, never
// the call's arguments, which may be host paths.
enum class SysOp : std::uint8_t {
  none = 0,  // the refusal is the sandbox's own, or no single call failed
  open,
  openat,
  openat2,
  fstat,
  fstatat,
  statx,
  read,
  pread,
  write,
  readlinkat,
  getdents64,
  mkdirat,
  unlinkat,
  renameat,
  renameat2,
  linkat,
  symlinkat,
  fchmod,
  fcntl,
  fchdir,
  chdir,
  mount,
  umount2,
  open_tree,
  move_mount,
  mount_setattr,
  pivot_root,
  unshare,
  socket,
  ioctl,
  prctl,
  capset,
  landlock_create_ruleset,
  landlock_add_rule,
  landlock_restrict_self,
  listxattr,
  getxattr,
  flistxattr,
  fgetxattr,
  fsetxattr,
  fremovexattr,
  listxattrat,
  getxattrat,
  fstatfs,
  socketpair,
  setsockopt,
  getsockopt,
  bind,
  listen,
  sendmsg,
  recvmsg,
  poll,
  fsopen,
  fsconfig,
  fsmount,
};

// The call's own name ("renameat2"), "" for SysOp::none.
std::string_view sysop_name(SysOp op) noexcept;

struct Error {
  Errc code = Errc::io_error;
  int sys_errno = 0;        // original errno, 0 when the refusal is the sandbox's own
  std::uint64_t size = 0;   // too_large: actual size
  std::uint64_t limit = 0;  // too_large: configured limit
  // Which of several inputs the error is about: 0 = source, 1 = destination for move/copy;
  // the attachment or zone request's position otherwise. kNoIndex when there is one input.
  std::size_t index = kNoIndex;
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
  SysOp op = SysOp::none;  // the call that failed, where sys_errno comes from one
  // pseudo_filesystem: which one, a name from a closed set of literals ("proc", "sysfs",
  // "devtmpfs", ...; see pseudo_filesystem_name), never a path.
  const char* filesystem = nullptr;
  // host_trusted: why, a name from a closed set of literals (trusted_kind_name).
  const char* trusted = nullptr;
  // invalid_pattern: what is wrong, a name from a closed set of literals (search/line_matcher.h),
  // and the byte offset in the pattern where it is (kNoIndex where it is not known).
  const char* pattern_problem = nullptr;
  std::size_t offset = kNoIndex;
};

// Minimal expected<T, E>: std::expected needs C++23. The sandbox reports Error; the config
// readers report ConfigError, which says where in a file the problem is.
template <typename T, typename E = Error>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(E error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  Result(Errc code)                              // NOLINT(google-explicit-constructor)
      requires std::is_same_v<E, Error> : state_(Error{code}) {}

  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const T& value() const& { return std::get<0>(state_); }
  const E& error() const& { return std::get<1>(state_); }
  E&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, E> state_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() {
  return Unit{};
}

// The only places that turn an errno into an Error. `from_errno` maps it to the closest refusal
// (ENOENT: not_found, ...), for calls on sandboxed paths; `sys_failure` keeps it an io_error, for
// steps whose failure is never the caller's refusal (the exec launcher's).
Error from_errno(SysOp op, int err) noexcept;
Error sys_failure(SysOp op, int err) noexcept;

// too_large with the size found and the limit it exceeds.
Error too_large(std::uint64_t size, std::uint64_t limit) noexcept;

// pseudo_filesystem naming the filesystem (a string literal).
Error pseudo_filesystem(const char* filesystem) noexcept;

// `error` about the input at `index` (see Error::index).
Error at_index(Error error, std::size_t index) noexcept;

}  // namespace msb
