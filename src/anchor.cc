#include "anchor.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "path.h"

namespace msb {

std::shared_ptr<Anchor> Anchor::at_host_path(std::string host_path) {
  std::shared_ptr<Anchor> anchor(new Anchor());
  anchor->host_path_ = std::move(host_path);
  return anchor;
}

std::shared_ptr<Anchor> Anchor::beneath(std::shared_ptr<Anchor> parent,
                                        std::vector<std::string> parts) {
  if (parts.empty()) return parent;
  std::shared_ptr<Anchor> anchor(new Anchor());
  const std::string& base = parent->host_path_;
  anchor->host_path_ = (base == "/" ? "" : base) + "/" + join_relative(parts);
  anchor->parent_ = std::move(parent);
  anchor->parts_ = std::move(parts);
  return anchor;
}

Anchor::~Anchor() {
  int fd = fd_.load();
  if (fd >= 0) ::close(fd);
}

Result<UniqueFd> Anchor::open(ResolverKind kind) const {
  const OpenRequest request{O_PATH | O_DIRECTORY, 0, true};
  if (!parent_) {
    UniqueFd fd(::open(host_path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return Error{errc_from_errno(errno), errno};
    return fd;
  }
  auto base = parent_->fd(kind);
  if (!base) return base.error();
  return open_beneath(base.value(), parts_, 0, parts_.size(), request, kind);
}

Result<int> Anchor::fd(ResolverKind kind) const {
  int fd = fd_.load(std::memory_order_acquire);
  if (fd >= 0) return fd;
  std::lock_guard<std::mutex> lock(mutex_);
  fd = fd_.load(std::memory_order_relaxed);
  if (fd >= 0) return fd;
  auto opened = open(kind);
  if (!opened) return opened.error();
  struct stat st;
  if (::fstat(opened.value().get(), &st) != 0) return Error{errc_from_errno(errno), errno};
  id_ = FileId{st.st_dev, st.st_ino};
  fd = opened.value().release();
  fd_.store(fd, std::memory_order_release);
  return fd;
}

}  // namespace msb
