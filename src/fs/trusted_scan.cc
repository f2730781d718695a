#include "fs/trusted_scan.h"

#include <fcntl.h>

#include <deque>
#include <utility>

#include "common/sys.h"
#include "common/unique_fd.h"
#include "fs/fd_io.h"

namespace msb {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;

struct PendingDir {
  UniqueFd fd;
  std::vector<std::string> parts;  // below the source
};

bool never_entered(const std::string& name) {
  return name == ".git" || name == "node_modules";
}

std::string host_of(const std::string& source, const std::vector<std::string>& parts) {
  std::string out = source == "/" ? "" : source;
  for (const std::string& p : parts) out += "/" + p;
  return out;
}

}  // namespace

Result<TrustedScan> find_trusted_entries(const TrustedNames& names, const std::string& source,
                                         std::size_t depth) {
  TrustedScan scan;
  auto top = sys::open_at(AT_FDCWD, source.c_str(), kDirFlags & ~O_NOFOLLOW);
  if (!top) return top.error();
  std::deque<PendingDir> pending;
  pending.push_back(PendingDir{std::move(top.value()), {}});
  std::size_t read = 0;
  while (!pending.empty()) {
    if (read++ == kTrustedScanDirs) {
      scan.truncated = true;
      break;
    }
    PendingDir dir = std::move(pending.front());
    pending.pop_front();
    auto entries = read_dir_entries(dir.fd.get());
    if (!entries) continue;  // unreadable: a command cannot plant through it either
    for (const DirEntry& entry : entries.value()) {
      EntryPlace place;
      place.parts = dir.parts;
      place.parts.push_back(entry.name);
      place.hosts.push_back(host_of(source, place.parts));
      // git's own control files are the git scan's, which knows a repository's layout.
      if (fold_name(entry.name) == ".git") continue;
      const TrustedKind kind = names.kind_of(place, false);
      const bool split = entry.type == sys::EntryType::directory && names.releases_below(place);
      if (kind != TrustedKind::none && !split) {
        scan.found.push_back(host_of(source, place.parts));
        continue;  // bound whole, nothing below it needs finding
      }
      if (place.parts.size() >= depth || never_entered(entry.name)) continue;
      if (entry.type != sys::EntryType::directory && entry.type != sys::EntryType::unknown) {
        continue;
      }
      auto sub = sys::open_at(dir.fd.get(), entry.name.c_str(), kDirFlags);
      if (!sub) continue;  // a link, a file of unknown type, or gone
      pending.push_back(PendingDir{std::move(sub.value()), std::move(place.parts)});
    }
  }
  return scan;
}

}  // namespace msb
