// glob(): a directory walk over virtual paths, pruned by the compiled pattern (glob.h). Same
// discipline as sandbox.cc: the base is opened beneath its mount's pinned descriptor, every
// subdirectory from its parent's descriptor, never through a symlink.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <functional>
#include <utility>

#include "glob.h"
#include "path.h"
#include "sandbox.h"

namespace msb {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY;
// A glob visits at most this many directories, at most this deep below its base; beyond
// either the result is marked truncated.
constexpr std::size_t kMaxGlobDirectories = 100000;
constexpr std::size_t kMaxGlobDepth = 64;

Error from_errno() {
  return Error{errc_from_errno(errno), errno};
}

// Codes a glob walk treats as "nothing to see here" for a subdirectory: it vanished, turned
// into something else, or is closed to us. Anything else is reported.
bool skippable(Errc code) {
  return code == Errc::not_found || code == Errc::not_directory || code == Errc::access_denied ||
         code == Errc::symlink_loop || code == Errc::symlink_escape;
}

// A directory inside the one `dir_fd` holds, refused if it is (or has just become) a symlink.
Result<UniqueFd> open_subdirectory(int dir_fd, const std::string& name) {
  UniqueFd fd(::openat(dir_fd, name.c_str(), kDirFlags | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return from_errno();
  return fd;
}

// Opens a mount's own directory (the base, or a mount target the walk reaches) through the
// Sandbox. An invalid descriptor, and no error, stands for a directory that exists only
// because mounts lie below it.
using DirOpener = std::function<Result<UniqueFd>(const VirtualPath&)>;

struct WalkEntry {
  std::string name;
  EntryType type = EntryType::unknown;
  bool from_table = false;  // a mount target, or a directory above one
};

// Depth-first over virtual paths, pruned by the matcher's states. Subdirectories are opened
// from their parent's descriptor, never following a symlink; only a mount target switches to
// its own mount's descriptor. Directories that hold mount targets list those like list() does.
class GlobWalk {
 public:
  GlobWalk(const GlobMatcher& matcher, const MountTable& table, std::size_t limit,
           DirOpener open_dir)
      : matcher_(matcher), table_(table), limit_(limit), open_dir_(std::move(open_dir)) {}

  Status visit(const VirtualPath& dir, int fd, const GlobMatcher::States& states,
               std::size_t depth);
  bool add(std::string path);
  GlobResult finish();

 private:
  Status visit_entry(const VirtualPath& dir, int fd, const GlobMatcher::States& states,
                     std::size_t depth, const WalkEntry& entry);
  Result<std::vector<WalkEntry>> entries(const VirtualPath& dir, int fd) const;
  Result<UniqueFd> open_entry(const VirtualPath& child, int fd, const WalkEntry& entry) const;
  void stop() {
    result_.truncated = true;
    stopped_ = true;
  }

  const GlobMatcher& matcher_;
  const MountTable& table_;
  std::size_t limit_;
  DirOpener open_dir_;
  GlobResult result_;
  std::size_t directories_ = 0;
  bool stopped_ = false;
};

bool GlobWalk::add(std::string path) {
  if (result_.paths.size() == limit_) {
    stop();
    return false;
  }
  result_.paths.push_back(std::move(path));
  return true;
}

GlobResult GlobWalk::finish() {
  std::sort(result_.paths.begin(), result_.paths.end());
  return std::move(result_);
}

Result<std::vector<WalkEntry>> GlobWalk::entries(const VirtualPath& dir, int fd) const {
  std::vector<WalkEntry> out;
  for (std::string& name : table_.mount_entries_in(dir)) {
    out.push_back(WalkEntry{std::move(name), EntryType::directory, true});
  }
  if (fd >= 0) {
    auto host = read_dir_entries(fd);
    if (!host && !skippable(host.error().code)) return host.error();
    if (host) {
      for (DirEntry& e : host.value()) out.push_back(WalkEntry{std::move(e.name), e.type, false});
    }
  }
  // Sorted so that a truncated result is the same prefix of the walk every time. Where the
  // table and the disk both name an entry, the table's wins: the mount hides the disk's.
  std::sort(out.begin(), out.end(), [](const WalkEntry& a, const WalkEntry& b) {
    return a.name != b.name ? a.name < b.name : a.from_table > b.from_table;
  });
  auto same = [](const WalkEntry& a, const WalkEntry& b) { return a.name == b.name; };
  out.erase(std::unique(out.begin(), out.end(), same), out.end());
  return out;
}

// Whether the walk may descend into `entry`: a real directory, never a symlink to one.
bool is_directory(int dir_fd, const WalkEntry& entry) {
  if (entry.from_table || entry.type == EntryType::directory) return true;
  if (entry.type != EntryType::unknown) return false;
  struct stat st;
  return ::fstatat(dir_fd, entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(st.st_mode);
}

Result<UniqueFd> GlobWalk::open_entry(const VirtualPath& child, int fd,
                                      const WalkEntry& entry) const {
  if (!entry.from_table) return open_subdirectory(fd, entry.name);
  const Location at = table_.locate(child);
  if (at.mount != nullptr && at.rest_begin == child.parts.size()) return open_dir_(child);
  // Above a mount target: whatever host directory there is belongs to the parent's mount.
  if (fd < 0) return UniqueFd();
  auto sub = open_subdirectory(fd, entry.name);
  if (!sub && skippable(sub.error().code)) return UniqueFd();
  return sub;
}

Status GlobWalk::visit(const VirtualPath& dir, int fd, const GlobMatcher::States& states,
                       std::size_t depth) {
  if (++directories_ > kMaxGlobDirectories) {
    stop();
    return ok_status();
  }
  auto listed = entries(dir, fd);
  if (!listed) return listed.error();
  for (const WalkEntry& entry : listed.value()) {
    if (stopped_) break;
    if (auto st = visit_entry(dir, fd, states, depth, entry); !st) return st;
  }
  return ok_status();
}

Status GlobWalk::visit_entry(const VirtualPath& dir, int fd, const GlobMatcher::States& states,
                             std::size_t depth, const WalkEntry& entry) {
  // Names no virtual path can carry are left out rather than reported mangled.
  if (!is_valid_utf8(entry.name)) return ok_status();
  const GlobMatcher::States next = matcher_.step(states, entry.name);
  if (next.empty()) return ok_status();
  const bool accept = matcher_.accepts(next);
  const bool descend = matcher_.can_descend(next) && is_directory(fd, entry);
  if (!accept && !descend) return ok_status();
  VirtualPath child = dir;
  child.parts.push_back(entry.name);
  std::string text = child.str();
  if (text.size() >= PATH_MAX) return ok_status();
  if (accept && !add(std::move(text))) return ok_status();
  if (!descend) return ok_status();
  if (depth + 1 > kMaxGlobDepth) {
    result_.truncated = true;
    return ok_status();
  }
  auto sub = open_entry(child, fd, entry);
  if (!sub) return skippable(sub.error().code) ? ok_status() : sub.error();
  return visit(child, sub.value().get(), next, depth + 1);
}

}  // namespace

Result<GlobResult> Sandbox::glob(std::string_view pattern, std::size_t limit) const {
  auto matcher = GlobMatcher::compile(pattern);
  if (!matcher) return matcher.error();
  const GlobMatcher& m = matcher.value();
  limit = std::min(limit == 0 ? kDefaultGlobLimit : limit, kMaxGlobLimit);
  Target base{VirtualPath{m.base()}, {}};
  base.at = table_.locate(base.path);
  if (auto st = require_mount(base); !st && st.error().code != Errc::is_directory) {
    return st.error();
  }
  auto open_dir = [this](const VirtualPath& path) -> Result<UniqueFd> {
    const Target t{path, table_.locate(path)};
    const bool provided = path.is_root() || table_.holds_mount_point(path);
    if (t.at.mount == nullptr) return UniqueFd();
    auto fd = open(t, kDirFlags);
    if (!fd && provided &&
        (fd.error().code == Errc::not_found || fd.error().code == Errc::not_directory)) {
      return UniqueFd();
    }
    return fd;
  };
  auto base_fd = open_dir(base.path);
  if (!base_fd) {
    const Errc code = base_fd.error().code;
    if (code == Errc::not_found || code == Errc::not_directory) return GlobResult{};
    return base_fd.error();
  }
  GlobWalk walk(m, table_, limit, open_dir);
  const GlobMatcher::States states = m.start();
  // "/src/**" matches "/src" itself; "/" is never a result.
  if (m.accepts(states) && !base.path.is_root()) walk.add(base.path.str());
  if (m.can_descend(states)) {
    auto st = walk.visit(base.path, base_fd.value().get(), states, 0);
    if (!st) return st.error();
  }
  return walk.finish();
}

}  // namespace msb
