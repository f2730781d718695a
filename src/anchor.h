// A mount source pinned as an O_PATH directory descriptor. Opened on first use (so a sandbox can
// be described before its directories exist) and then kept: every later lookup is relative to
// the same inode, whatever happens to the host path string afterwards.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "error.h"
#include "file_id.h"
#include "resolver.h"
#include "unique_fd.h"

namespace msb {

class Anchor {
 public:
  // A configured source: an absolute host path, trusted as written (symlinks in it are the
  // operator's choice).
  static std::shared_ptr<Anchor> at_host_path(std::string host_path);
  // A subtree of another anchor, as restrict() produces: opened beneath the parent, so it can
  // never be redirected outside it, and then pinned so the child cannot climb back up.
  static std::shared_ptr<Anchor> beneath(std::shared_ptr<Anchor> parent,
                                         std::vector<std::string> parts);

  Anchor(const Anchor&) = delete;
  Anchor& operator=(const Anchor&) = delete;
  ~Anchor();

  // The pinned descriptor, opening it if this is the first use. A failure is not remembered:
  // the directory may be created later.
  Result<int> fd(ResolverKind kind) const;
  // The descriptor if already pinned, else -1: for callers that must not block.
  int pinned_fd() const noexcept { return fd_.load(std::memory_order_acquire); }
  // Identity of the pinned directory; valid once fd() has succeeded.
  FileId id() const noexcept { return id_; }
  const std::string& host_path() const noexcept { return host_path_; }
  // The configured source this anchor was cut from (itself when it is one). A restricted root
  // is only a subtree of that source, not a boundary of its own.
  const Anchor& origin() const noexcept { return parent_ ? parent_->origin() : *this; }

 private:
  Anchor() = default;
  Result<UniqueFd> open(ResolverKind kind) const;

  std::string host_path_;
  std::shared_ptr<Anchor> parent_;
  std::vector<std::string> parts_;
  mutable std::mutex mutex_;
  mutable std::atomic<int> fd_{-1};
  mutable FileId id_;
};

}  // namespace msb
