#include "fs/trusted_scan.h"

#include <fcntl.h>
#include <strings.h>

#include <memory>
#include <utility>

#include "common/sys.h"
#include "common/unique_fd.h"
#include "fs/fd_io.h"
#include "git/git_layout.h"

namespace msb {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;

// A directory still to read, opened only when its turn comes: the walk goes depth first, so the
// descriptors held at once are those of the directories on the way down, not of every
// directory waiting.
struct PendingDir {
  std::shared_ptr<UniqueFd> parent;
  std::vector<std::string> parts;  // below the source; the last is the name in `parent`
  bool in_trusted = false;         // below a trusted directory walked for a release inside it
};

struct OpenDir {
  std::shared_ptr<UniqueFd> fd;
  std::vector<std::string> parts;
  bool in_trusted = false;
};

std::string host_of(const std::string& source, const std::vector<std::string>& parts) {
  std::string out = source == "/" ? "" : source;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

// A repository's identity and HEAD, when the directory `fd` is one.
std::optional<git::RepositorySeen> repository_at(int fd, std::string git_dir) {
  if (!git::read_layout(fd).repository()) return std::nullopt;
  auto st = sys::stat_fd(fd);
  if (!st) return std::nullopt;
  return git::RepositorySeen{std::move(git_dir), FileId{st.value().st_dev, st.value().st_ino},
                             git::valid_head_file(fd)};
}

// Whether a directory holds an entry git could read as its HEAD (compared folded, as git's
// layout is; "HEAD" has no letter that folds from outside ASCII), without a copy per entry.
bool names_layout(const std::vector<DirEntry>& entries) {
  for (const DirEntry& e : entries) {
    if (e.name.size() == 4 && ::strncasecmp(e.name.c_str(), "head", 4) == 0) return true;
  }
  return false;
}

class Walk {
 public:
  Walk(const TrustedNames& names, const std::string& source, std::size_t max_entries)
      : names_(names), source_(source), max_entries_(max_entries) {}

  Result<TrustedScan> run() {
    auto top = sys::open_at(AT_FDCWD, source_.c_str(), kDirFlags & ~O_NOFOLLOW);
    if (!top) return top.error();
    OpenDir first{std::make_shared<UniqueFd>(std::move(top.value())), {}};
    directory(first);
    while (!pending_.empty() && !scan_.truncated) {
      PendingDir next = std::move(pending_.back());
      pending_.pop_back();
      auto fd = sys::open_at(next.parent->get(), next.parts.back().c_str(), kDirFlags);
      next.parent.reset();
      if (!fd) continue;  // a link, a file of unknown type, or gone
      OpenDir dir{std::make_shared<UniqueFd>(std::move(fd.value())), std::move(next.parts),
                  next.in_trusted};
      directory(dir);
    }
    return std::move(scan_);
  }

 private:
  void directory(OpenDir& dir) {
    auto entries = read_dir_entries(dir.fd->get());
    if (!entries) return;  // unreadable: a command cannot plant through it either
    read_ += entries.value().size();
    if (read_ > max_entries_) {
      scan_.truncated = true;
      return;
    }
    // A repository under any name (a bare one, or a layout planted by hand): recorded, and
    // still entered, so that a layout planted over a tree cannot hide what lies below it.
    if (names_layout(entries.value())) {
      if (auto repo = repository_at(dir.fd->get(), host_of(source_, dir.parts))) {
        scan_.repositories.push_back(std::move(*repo));
      }
    }
    for (const DirEntry& entry : entries.value()) this->entry(dir, entry);
  }

  void entry(const OpenDir& dir, const DirEntry& entry) {
    const bool is_dir =
        entry.type == sys::EntryType::directory || entry.type == sys::EntryType::unknown;
    const std::string folded = fold_name(entry.name);
    // Most entries: nothing of the list ends with their name; walked past without building
    // their path.
    if (!dir.in_trusted && folded != ".git" && !names_.may_name(folded)) {
      if (is_dir) {
        std::vector<std::string> parts = dir.parts;
        parts.push_back(entry.name);
        pending_.push_back(PendingDir{dir.fd, std::move(parts)});
      }
      return;
    }
    EntryPlace place;
    place.parts = dir.parts;
    place.parts.push_back(entry.name);
    place.hosts.push_back(host_of(source_, place.parts));
    if (folded == ".git") {
      if (!is_dir) return;
      auto sub = sys::open_at(dir.fd->get(), entry.name.c_str(), kDirFlags);
      if (!sub) return;
      if (auto repo = repository_at(sub.value().get(), place.hosts.front())) {
        scan_.repositories.push_back(std::move(*repo));
        scan_.work_trees.push_back(host_of(source_, dir.parts));
      }
      return;
    }
    // A directory is judged as one (those on the way to a trusted place are walked, not bound
    // whole); the sandbox's own files are the facade's to bind (lib/next-run/protected.js).
    const TrustedKind kind = names_.kind_of(place, entry.type == sys::EntryType::directory);
    const bool split = entry.type == sys::EntryType::directory && names_.releases_below(place);
    if (kind != TrustedKind::none && kind != TrustedKind::sandbox && !split) {
      scan_.found.push_back(std::move(place.hosts.front()));
      return;  // bound whole, nothing below it needs finding
    }
    // Below a directory that holds a release, every entry is judged: the directory may be a
    // trusted one walked only to leave the released entry out.
    const bool in_trusted = dir.in_trusted || split;
    if (is_dir) pending_.push_back(PendingDir{dir.fd, std::move(place.parts), in_trusted});
  }

  const TrustedNames& names_;
  const std::string& source_;
  const std::size_t max_entries_;
  std::size_t read_ = 0;
  std::vector<PendingDir> pending_;
  TrustedScan scan_;
};

}  // namespace

Result<TrustedScan> find_trusted_entries(const TrustedNames& names, const std::string& source,
                                         std::size_t max_entries) {
  return Walk(names, source, max_entries).run();
}

}  // namespace msb
