#include "changes/change_set.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <algorithm>
#include <map>
#include <utility>

#include "common/sys.h"
#include "fs/fd_io.h"
#include "fs/file_version.h"

namespace msb::changes {
namespace {

// overlayfs's marks in a layer mounted with "userxattr": a deletion is a 0/0 character device
// (a whiteout); a directory that replaced the lower one, or was made new, is opaque.
constexpr const char* kOpaque = "user.overlay.opaque";

bool is_whiteout(const struct stat& st) {
  return S_ISCHR(st.st_mode) && st.st_rdev == 0;
}

bool is_opaque(int dir_fd) {
  char value[2] = {};
  const ssize_t n = ::fgetxattr(dir_fd, kOpaque, value, sizeof value);
  return n == 1 && value[0] == 'y';
}

std::string child_path(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

using HostEntries = std::map<std::string, sys::EntryType>;

ChangeVerdict change_at(std::string path, ChangeKind kind, std::uint64_t size = 0) {
  ChangeVerdict out;
  out.path = std::move(path);
  out.kind = kind;
  out.size = size;
  return out;
}

class Lander {
 public:
  Lander(const Sandbox& sandbox, const LandOptions& options)
      : sandbox_(sandbox), options_(options) {}

  Status walk(int upper_dir, const std::string& vdir) {
    auto names = read_dir_entries(upper_dir);
    if (!names) return names.error();
    std::vector<std::string> sorted;
    for (const DirEntry& e : names.value()) sorted.push_back(e.name);
    std::sort(sorted.begin(), sorted.end());
    HostEntries host = host_entries(vdir);
    for (const std::string& name : sorted) {
      if (full()) return ok_status();
      auto st = sys::stat_at(upper_dir, name.c_str());
      if (!st) return st.error();
      if (auto s = visit(upper_dir, vdir, name, st.value(), host); !s) return s;
    }
    return ok_status();
  }

  LandReport report;

 private:
  Status visit(int upper_dir, const std::string& vdir, const std::string& name,
               const struct stat& st, const HostEntries& host) {
    const std::string path = child_path(vdir, name);
    const auto found = host.find(name);
    const bool host_dir = found != host.end() && found->second == sys::EntryType::directory;
    const bool host_any = found != host.end();
    if (is_whiteout(st)) {
      if (host_any) remove_tree(path, host_dir);
      return ok_status();
    }
    const LayerEntry entry{upper_dir, name, st};
    if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
      if (host_dir) remove_tree(path, true);
      const bool file = S_ISREG(st.st_mode);
      decide(change_at(path, file ? ChangeKind::file : ChangeKind::symlink,
                       file ? static_cast<std::uint64_t>(st.st_size) : 0),
             [&] {
               return file ? sandbox_.land_file(path, entry, options_.rules)
                           : sandbox_.land_symlink(path, entry, options_.rules);
             });
      return ok_status();
    }
    if (!S_ISDIR(st.st_mode)) {  // a FIFO, socket or device: nothing the file tools make
      decide(change_at(path, ChangeKind::file),
             [] { return Result<Landed>(Errc::not_regular_file); });
      return ok_status();
    }
    auto dir = sys::open_at(upper_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (!dir) return dir.error();
    if (host_any && !host_dir) remove_tree(path, false);
    if (!host_dir) {
      decide(change_at(path, ChangeKind::directory),
             [&] { return sandbox_.land_directory(path, st.st_mode, options_.rules); });
    } else if (is_opaque(dir.value().get())) {
      remove_replaced(dir.value().get(), path);
    }
    return walk(dir.value().get(), path);
  }

  // The host's entries of a directory the command replaced whole (rm -rf, then made again) that
  // its new one does not hold.
  void remove_replaced(int upper_dir, const std::string& path) {
    // Its own descriptor: reading the directory moves the offset of the one walk() reads next.
    auto own = sys::open_at(upper_dir, ".", O_RDONLY | O_DIRECTORY);
    if (!own) return;
    auto names = read_dir_entries(own.value().get());
    if (!names) return;
    for (const auto& [name, type] : host_entries(path)) {
      const bool kept = std::any_of(names.value().begin(), names.value().end(),
                                    [&](const DirEntry& e) { return e.name == name; });
      if (!kept) remove_tree(child_path(path, name), type == sys::EntryType::directory);
    }
  }

  // A host entry the command removed: a directory's entries one by one (each judged), then it.
  void remove_tree(const std::string& path, bool directory) {
    if (directory) {
      for (const auto& [name, type] : host_entries(path)) {
        if (full()) return;
        remove_tree(child_path(path, name), type == sys::EntryType::directory);
      }
    }
    decide(change_at(path, ChangeKind::removal),
           [&] { return sandbox_.land_removal(path, options_.rules); });
  }

  HostEntries host_entries(const std::string& vdir) const {
    HostEntries out;
    auto entries = sandbox_.list_entries(vdir);
    if (!entries) return out;
    for (DirEntry& e : entries.value()) out.emplace(std::move(e.name), e.type);
    return out;
  }

  bool full() {
    if (report.changes.size() < options_.max_changes) return false;
    report.truncated = true;
    return true;
  }

  // Asked for: the path, or a directory holding it, is among `only` (or no `only` was given).
  bool selected(const std::string& path) const {
    if (!options_.only) return true;
    for (std::string at = path;;) {
      if (options_.only->count(at) != 0) return true;
      const std::size_t slash = at.rfind('/');
      if (slash == std::string::npos || at == "/") return false;
      at = slash == 0 ? "/" : at.substr(0, slash);
    }
  }

  template <typename Land>
  void decide(ChangeVerdict verdict, const Land& land) {
    if (full()) return;
    const Change change = verdict.kind == ChangeKind::removal ? Change::remove : Change::write;
    auto approval = sandbox_.approval_for(verdict.path, change);
    verdict.approval = approval ? approval.value() : Approval::blocked;
    if (auto was = sandbox_.stat(verdict.path))
      verdict.replaces = version_token(was.value().version);
    if (!selected(verdict.path) || (options_.hold_ask && verdict.approval == Approval::ask)) {
      verdict.outcome = Outcome::pending;
      report.changes.push_back(std::move(verdict));
      return;
    }
    Result<Landed> landed = land();
    if (landed && landed.value() == Landed::unchanged) return;
    if (!landed) {
      verdict.error = landed.error();
      verdict.outcome =
          landed.error().code == Errc::conflict ? Outcome::conflict : Outcome::refused;
    }
    report.changes.push_back(std::move(verdict));
  }

  const Sandbox& sandbox_;
  const LandOptions& options_;
};

}  // namespace

Result<LandReport> land_layers(const Sandbox& sandbox, const std::vector<Layer>& layers,
                               const LandOptions& options) {
  Lander lander(sandbox, options);
  for (const Layer& layer : layers) {
    auto upper = sys::open_at(layer.base, layer.upper.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (!upper) return upper.error();
    if (auto st = lander.walk(upper.value().get(), layer.target); !st) return st.error();
  }
  return std::move(lander.report);
}

}  // namespace msb::changes
