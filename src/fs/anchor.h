// A mount source pinned as an O_PATH directory descriptor. Every later lookup is relative to the
// same inode, whatever happens to the host path string afterwards. An anchor never opens
// anything by itself: configured sources are settled together by pin_sources() (source_pins.h)
// before a sandbox's first operation, and a subtree is resolved and pinned when the child
// sandbox that names it is made. Once settled, an anchor's answer never changes: a source that
// was missing or refused stays so, so nothing planted later can become a mount.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_id.h"
#include "common/unique_fd.h"
#include "fs/resolver.h"

namespace msb {

class Anchor {
 public:
  // A configured source: an absolute host path, unsettled until pin_sources() runs. Pinned only
  // on a filesystem that holds data, unless `allow_pseudo_filesystem` (see pseudo_filesystem_of).
  static std::shared_ptr<Anchor> at_host_path(std::string host_path,
                                              bool allow_pseudo_filesystem = false);
  // A subtree of a settled anchor, as restrict() produces: resolved beneath the parent's
  // descriptor with no symlinks at all, and pinned now, so the child sees exactly the directory
  // that was there when it was made and can never climb back up.
  static Result<std::shared_ptr<Anchor>> beneath(std::shared_ptr<Anchor> parent,
                                                 std::vector<std::string> parts, ResolverKind kind);

  Anchor(const Anchor&) = delete;
  Anchor& operator=(const Anchor&) = delete;
  ~Anchor() = default;

  // The pinned descriptor, or why there is none (io_error while still unsettled).
  Result<int> fd() const;
  // The descriptor if pinned, else -1: for callers that must not block.
  int pinned_fd() const noexcept;
  // Identity of the pinned directory; valid once fd() has succeeded.
  FileId id() const noexcept { return id_; }
  const std::string& host_path() const noexcept { return host_path_; }
  // Whether the operator allowed this source on procfs, sysfs, the device filesystem, ...
  bool allows_pseudo_filesystem() const noexcept { return allow_pseudo_filesystem_; }
  // The configured source this anchor was cut from (itself when it is one). A restricted root
  // is only a subtree of that source, not a boundary of its own.
  const Anchor& origin() const noexcept { return parent_ ? parent_->origin() : *this; }
  // Where this anchor lies in its origin: empty for a configured source.
  const std::vector<std::string>& parts_below_origin() const noexcept { return below_origin_; }
  // The pinned directory's path as the kernel reported it when it was pinned ("" when it could
  // not say): what a path beneath it is compared with to know where that path really is.
  const std::string& real_path() const noexcept { return real_path_; }

  // Settling, done once by whoever pins (pin_sources() under its sandbox's lock).
  bool settled() const noexcept { return settled_.load(std::memory_order_acquire); }
  void pin(UniqueFd fd, FileId id);
  void refuse(Error error);

 private:
  Anchor() = default;

  std::string host_path_;
  bool allow_pseudo_filesystem_ = false;
  std::shared_ptr<Anchor> parent_;
  std::vector<std::string> below_origin_;
  std::string real_path_;
  UniqueFd fd_;
  FileId id_;
  Error refusal_{Errc::io_error};
  std::atomic<bool> settled_{false};
};

}  // namespace msb
