#include "fs/resolver.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <deque>

#include "common/path.h"
#include "common/sys.h"

namespace msb {
namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's own MAXSYMLINKS
constexpr int kOpenat2Retries = 32;

int raw_openat2(int base, const char* path, open_how* how) {
  return static_cast<int>(::syscall(SYS_openat2, base, path, how, sizeof(*how)));
}

bool probe_openat2() noexcept {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH;
  int fd = raw_openat2(AT_FDCWD, ".", &how);
  if (fd >= 0) {
    ::close(fd);
    return true;
  }
  return errno != ENOSYS && errno != EPERM;  // EPERM: a seccomp filter that refuses it
}

// openat2 result: a descriptor, or the errno the kernel reported.
struct KernelOpen {
  UniqueFd fd;
  int err = 0;
};

KernelOpen open_with_openat2(int base, const std::string& rel, const OpenRequest& request) {
  open_how how{};
  how.flags = static_cast<unsigned>(request.flags | O_CLOEXEC);
  if (!request.follow_final) how.flags |= O_NOFOLLOW;
  how.mode = (request.flags & (O_CREAT | O_TMPFILE)) ? request.mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  if (!request.symlinks) how.resolve |= RESOLVE_NO_SYMLINKS;
  for (int attempt = 0; attempt < kOpenat2Retries; ++attempt) {
    int fd = raw_openat2(base, rel.c_str(), &how);
    if (fd >= 0) return {UniqueFd(fd), 0};
    // EAGAIN: a concurrent rename raced a `..` step; the kernel asks us to try again.
    if (errno != EAGAIN && errno != EINTR) return {UniqueFd(), errno};
  }
  return {UniqueFd(), EAGAIN};
}

// Component walk. Each directory step is opened O_PATH|O_NOFOLLOW and fstat'ed, so a symlink is
// read as text (readlinkat on the link's own descriptor) and never followed by the kernel; `..`
// pops our own stack of descriptors, so it cannot climb above `base` whatever is renamed meanwhile.
class Walker {
 public:
  Walker(int base, const OpenRequest& request) : base_(base), request_(request) {}

  Result<UniqueFd> run(std::deque<std::string> pending) {
    pending_ = std::move(pending);
    while (!pending_.empty()) {
      std::string name = std::move(pending_.front());
      pending_.pop_front();
      if (name.empty() || name == ".") continue;
      if (name == "..") {
        if (stack_.empty()) return Errc::symlink_escape;
        stack_.pop_back();
        continue;
      }
      const bool last = !has_more_names();
      Status st = last ? open_final(name) : step_into(name);
      if (!st) return st.error();
      if (result_.valid()) return std::move(result_);
    }
    return reopen_current();
  }

 private:
  int current() const { return stack_.empty() ? base_ : stack_.back().get(); }

  // "." counts: a link text ending in "/" or "/." leaves one, so that what precedes it must be a
  // directory, as the kernel requires. Requested paths never contain "." (normalized earlier).
  bool has_more_names() const {
    for (const auto& n : pending_) {
      if (!n.empty()) return true;
    }
    return false;
  }

  Status expand_link(const std::string& target) {
    if (!request_.symlinks) return Errc::symlink_escape;
    if (++links_ > kMaxSymlinks) return Errc::symlink_loop;
    if (target.empty()) return Errc::not_found;
    if (target.front() == '/') return Errc::symlink_escape;
    std::vector<std::string> pieces;
    for (std::string_view piece : split_at_slashes(target)) pieces.emplace_back(piece);
    if (pieces.back().empty()) pieces.back().push_back('.');  // "dir/" must be a directory
    pending_.insert(pending_.begin(), pieces.begin(), pieces.end());
    return ok_status();
  }

  Status step_into(const std::string& name) {
    auto fd = sys::open_at(current(), name.c_str(), O_PATH | O_NOFOLLOW);
    if (!fd) return fd.error();
    auto st = sys::stat_fd(fd.value().get());
    if (!st) return st.error();
    if (S_ISLNK(st.value().st_mode)) {
      auto target = sys::read_link(fd.value().get(), "");
      if (!target) return target.error();
      return expand_link(target.value());
    }
    if (!S_ISDIR(st.value().st_mode)) return Error{Errc::not_directory, ENOTDIR};
    stack_.push_back(std::move(fd.value()));
    return ok_status();
  }

  Status open_final(const std::string& name) {
    auto fd = sys::open_at(current(), name.c_str(), request_.flags | O_NOFOLLOW, request_.mode);
    if (!fd) {
      // O_NOFOLLOW on a symlink fails with ELOOP unless O_PATH; O_CREAT|O_EXCL reports EEXIST.
      // A final symlink fails with ELOOP (O_NOFOLLOW), or ENOTDIR when O_DIRECTORY is asked.
      const int err = fd.error().sys_errno;
      if ((err == ELOOP || err == ENOTDIR) && request_.follow_final) {
        auto target = sys::read_link(current(), name.c_str());
        if (target) return expand_link(target.value());
      }
      return fd.error();
    }
    if (request_.flags & O_PATH) {
      auto st = sys::stat_fd(fd.value().get());
      if (!st) return st.error();
      if (S_ISLNK(st.value().st_mode) && request_.follow_final) {
        auto target = sys::read_link(fd.value().get(), "");
        if (!target) return target.error();
        return expand_link(target.value());
      }
    }
    result_ = std::move(fd.value());
    return ok_status();
  }

  Result<UniqueFd> reopen_current() {
    return sys::open_at(current(), ".", request_.flags, request_.mode);
  }

  int base_;
  const OpenRequest& request_;
  std::deque<std::string> pending_;
  std::vector<UniqueFd> stack_;
  UniqueFd result_;
  int links_ = 0;
};

Result<UniqueFd> open_with_walk(int base, const std::vector<std::string>& parts, std::size_t begin,
                                std::size_t end, const OpenRequest& request) {
  std::deque<std::string> pending(parts.begin() + static_cast<std::ptrdiff_t>(begin),
                                  parts.begin() + static_cast<std::ptrdiff_t>(end));
  return Walker(base, request).run(std::move(pending));
}

std::atomic<bool> cached_lookups_work{true};  // cleared when the kernel predates RESOLVE_CACHED

}  // namespace

std::optional<Result<UniqueFd>> open_beneath_cached(int base, const std::vector<std::string>& parts,
                                                    std::size_t begin, std::size_t end, int flags) {
  if (!openat2_supported() || !cached_lookups_work.load(std::memory_order_relaxed)) {
    return std::nullopt;
  }
  open_how how{};
  how.flags = static_cast<unsigned>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_CACHED;
  const std::string rel = join_relative(parts, begin, end);
  int fd = raw_openat2(base, rel.c_str(), &how);
  if (fd >= 0) return Result<UniqueFd>(UniqueFd(fd));
  if (errno == ENOENT) return Result<UniqueFd>(from_errno(SysOp::openat2, ENOENT));
  if (errno == EINVAL) cached_lookups_work.store(false, std::memory_order_relaxed);
  return std::nullopt;
}

bool openat2_supported() noexcept {
  static const bool supported = probe_openat2();
  return supported;
}

Result<UniqueFd> open_beneath(int base, const std::vector<std::string>& parts, std::size_t begin,
                              std::size_t end, const OpenRequest& request, ResolverKind kind) {
  if (end > parts.size()) end = parts.size();
  if (begin > end) begin = end;
  if (kind == ResolverKind::openat2 && !openat2_supported()) return Errc::unsupported;
  const bool use_kernel =
      kind == ResolverKind::openat2 || (kind == ResolverKind::automatic && openat2_supported());
  if (!use_kernel) return open_with_walk(base, parts, begin, end, request);

  KernelOpen opened = open_with_openat2(base, join_relative(parts, begin, end), request);
  if (opened.fd.valid()) return std::move(opened.fd);
  switch (opened.err) {
    // ELOOP covers loops, magic links and refused final links alike, ENOTDIR also stands for a
    // link where O_DIRECTORY was asked, and EAGAIN means the kernel gave up under rename
    // pressure: the walk tells these apart with the same rules.
    case ELOOP:
    case ENOTDIR:
    case EAGAIN: return open_with_walk(base, parts, begin, end, request);
    default: return from_errno(SysOp::openat2, opened.err);  // EXDEV: symlink_escape
  }
}

}  // namespace msb
