// The mount sources as host paths: creating them for createMountSandboxAsync, and handing them,
// pinned, to the exec launcher, which confines a command to them.
#include <cstddef>
#include <vector>

#include "fs/sandbox.h"

namespace msb {

Status Sandbox::create_sources() const {
  pin_sources_once(true);
  const std::vector<Mount>& mounts = table_.mounts();
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    auto fd = mounts[i].anchor->fd();
    if (!fd) return at_index(fd.error(), i);
  }
  return ok_status();
}

namespace {

PathAccess exec_access(const Mount& mount) {
  if (mount.readonly || mount.approval.write == Approval::blocked) return PathAccess::read;
  if (mount.approval.remove == Approval::blocked) return PathAccess::write_keep;
  return PathAccess::write;
}

}  // namespace

Result<std::vector<ExecPath>> Sandbox::exec_paths() const {
  pin_sources_once();
  std::vector<ExecPath> out;
  const std::vector<Mount>& mounts = table_.mounts();
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    const PathAccess access = exec_access(mounts[i]);
    auto fd = mounts[i].anchor->fd();
    // A writable source that does not exist yet grants nothing. A read-only one must exist: a
    // command could otherwise create it, inside a writable source, and write there.
    if (!fd && fd.error().code == Errc::not_found && access != PathAccess::read) continue;
    if (!fd) return at_index(fd.error(), i);
    out.push_back({mounts[i].anchor->host_path(),
                   access,
                   mounts[i].anchor->id(),
                   mounts[i].target.str(),
                   {},
                   {},
                   {}});
  }
  const std::vector<Mount>& hidden = table_.hidden();
  for (std::size_t i = 0; i < hidden.size(); ++i) {
    auto fd = hidden[i].anchor->fd();
    if (!fd) return at_index(fd.error(), mounts.size() + i);
    out.push_back({hidden[i].anchor->host_path(),
                   PathAccess::protect,
                   hidden[i].anchor->id(),
                   {},
                   {},
                   {},
                   {}});
  }
  return out;
}

}  // namespace msb
