#include "fs/anchor.h"

#include <fcntl.h>

#include "common/path.h"
#include "fs/fd_io.h"

namespace msb {

std::shared_ptr<Anchor> Anchor::at_host_path(std::string host_path, bool allow_pseudo_filesystem) {
  std::shared_ptr<Anchor> anchor(new Anchor());
  anchor->host_path_ = std::move(host_path);
  anchor->allow_pseudo_filesystem_ = allow_pseudo_filesystem;
  return anchor;
}

Result<std::shared_ptr<Anchor>> Anchor::beneath(std::shared_ptr<Anchor> parent,
                                                std::vector<std::string> parts, ResolverKind kind) {
  if (parts.empty()) return parent;
  auto base = parent->fd();
  if (!base) return base.error();
  OpenRequest request{O_PATH | O_DIRECTORY, 0, true};
  request.symlinks = false;
  auto opened = open_beneath(base.value(), parts, 0, parts.size(), request, kind);
  if (!opened) return opened.error();
  auto id = file_id(opened.value().get());
  if (!id) return id.error();
  std::shared_ptr<Anchor> anchor(new Anchor());
  const std::string& host = parent->host_path_;
  anchor->host_path_ = (host == "/" ? "" : host) + "/" + join_relative(parts);
  anchor->below_origin_ = parent->below_origin_;
  anchor->below_origin_.insert(anchor->below_origin_.end(), parts.begin(), parts.end());
  anchor->parent_ = std::move(parent);
  anchor->pin(std::move(opened.value()), id.value());
  return anchor;
}

Result<int> Anchor::fd() const {
  if (!settled()) return Errc::io_error;
  if (!fd_.valid()) return refusal_;
  return fd_.get();
}

int Anchor::pinned_fd() const noexcept {
  return settled() ? fd_.get() : -1;
}

void Anchor::pin(UniqueFd fd, FileId id) {
  if (auto real = descriptor_path(fd.get())) real_path_ = std::move(real.value());
  fd_ = std::move(fd);
  id_ = id;
  settled_.store(true, std::memory_order_release);
}

void Anchor::refuse(Error error) {
  refusal_ = error;
  settled_.store(true, std::memory_order_release);
}

}  // namespace msb
