#include "fs/link_scan.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

#include "common/sys.h"
#include "common/unique_fd.h"
#include "fs/fd_io.h"

namespace msb {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;

struct PendingDir {
  UniqueFd fd;
  std::string rel;  // below the source, "" for the source itself
};

struct Names {
  nlink_t links = 0;
  std::vector<std::string> hosts;
};

using Inodes = std::map<std::pair<dev_t, ino_t>, Names>;

std::string joined(const std::string& rel, const std::string& name) {
  return rel.empty() ? name : rel + "/" + name;
}

std::string host_of(const std::string& source, const std::string& rel) {
  return source == "/" ? "/" + rel : source + "/" + rel;
}

bool skipped(const LinkSource& source, const std::string& rel) {
  return std::find(source.skip.begin(), source.skip.end(), rel) != source.skip.end();
}

// Records `name` when it is a regular file with more than one link; a directory (by its entry
// type, or by fstatat where the filesystem gives none) is queued instead.
void visit(const LinkSource& source, PendingDir& dir, const DirEntry& entry, Inodes& inodes,
           std::deque<PendingDir>& pending) {
  const std::string rel = joined(dir.rel, entry.name);
  bool directory = entry.type == sys::EntryType::directory;
  if (entry.type == sys::EntryType::file || entry.type == sys::EntryType::unknown) {
    auto st = sys::stat_at(dir.fd.get(), entry.name.c_str());
    if (!st) return;  // gone since the listing
    directory = S_ISDIR(st.value().st_mode);
    if (S_ISREG(st.value().st_mode) && st.value().st_nlink > 1) {
      Names& names = inodes[{st.value().st_dev, st.value().st_ino}];
      names.links = st.value().st_nlink;
      names.hosts.push_back(host_of(source.host, rel));
    }
  }
  if (!directory || skipped(source, rel)) return;
  auto sub = sys::open_at(dir.fd.get(), entry.name.c_str(), kDirFlags);
  if (sub) pending.push_back(PendingDir{std::move(sub.value()), rel});
}

// Walks one source breadth first; false once the budget of entries is spent.
bool walk(const LinkSource& source, Inodes& inodes, std::size_t& budget) {
  auto top = sys::open_at(AT_FDCWD, source.host.c_str(), kDirFlags & ~O_NOFOLLOW);
  if (!top) return true;  // a source that cannot be read holds nothing a command reaches
  std::deque<PendingDir> pending;
  pending.push_back(PendingDir{std::move(top.value()), ""});
  while (!pending.empty()) {
    PendingDir dir = std::move(pending.front());
    pending.pop_front();
    auto entries = read_dir_entries(dir.fd.get());
    if (!entries) continue;
    for (const DirEntry& entry : entries.value()) {
      if (budget == 0) return false;
      --budget;
      visit(source, dir, entry, inodes, pending);
    }
  }
  return true;
}

}  // namespace

Result<LinkScan> find_shared_links(const std::vector<LinkSource>& sources,
                                   std::size_t max_entries) {
  LinkScan scan;
  Inodes inodes;
  std::size_t budget = max_entries;
  for (const LinkSource& source : sources) {
    if (!walk(source, inodes, budget)) {
      scan.truncated = true;
      break;
    }
  }
  for (auto& [inode, names] : inodes) {
    if (names.hosts.size() >= names.links) continue;
    for (std::string& host : names.hosts) scan.found.push_back(std::move(host));
  }
  std::sort(scan.found.begin(), scan.found.end());
  scan.found.erase(std::unique(scan.found.begin(), scan.found.end()), scan.found.end());
  return scan;
}

}  // namespace msb
