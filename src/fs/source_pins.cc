#include "fs/source_pins.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <optional>
#include <string>

#include "common/path.h"
#include "common/sys.h"
#include "fs/fd_io.h"

namespace msb {
namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's own MAXSYMLINKS

void push_components(std::deque<std::string>& pending, const std::string& text) {
  std::vector<std::string> pieces;
  for (std::string_view piece : split_at_slashes(text)) {
    if (!piece.empty()) pieces.emplace_back(piece);
  }
  pending.insert(pending.begin(), pieces.begin(), pieces.end());
}

struct Walked {
  UniqueFd fd;
  FileId id;
  // Every directory that held, or lay above, a symlink the walk followed.
  std::vector<FileId> link_dirs;
};

// Resolves a host path from "/" one component at a time with O_PATH | O_NOFOLLOW, following
// symlinks itself, so it knows which real directories each link was found under. Holding the
// chain of directories from "/" means ".." is always the real parent of where the walk is.
class HostPathWalk {
 public:
  // `untrusted`: directories under which a symlink is refused on the spot rather than followed.
  HostPathWalk(const std::vector<FileId>& untrusted, bool create)
      : untrusted_(untrusted), create_(create) {}

  Result<Walked> run(const std::string& host_path) {
    auto root = sys::open_at(AT_FDCWD, "/", O_PATH | O_DIRECTORY);
    if (!root) return root.error();
    auto id = file_id(root.value().get());
    if (!id) return id.error();
    stack_.push_back(Dir{std::move(root.value()), id.value()});
    push_components(pending_, host_path);
    while (!pending_.empty()) {
      const std::string name = std::move(pending_.front());
      pending_.pop_front();
      if (name == ".") continue;
      if (name == "..") {
        if (stack_.size() > 1) stack_.pop_back();
        continue;
      }
      if (auto st = step(name); !st) return st.error();
    }
    return Walked{std::move(stack_.back().fd), stack_.back().id, std::move(link_dirs_)};
  }

 private:
  struct Dir {
    UniqueFd fd;
    FileId id;
  };

  Result<UniqueFd> open_entry(const std::string& name) {
    const int dir = stack_.back().fd.get();
    auto fd = sys::open_at(dir, name.c_str(), O_PATH | O_NOFOLLOW);
    if (fd || fd.error().code != Errc::not_found || !create_) return fd;
    Status made = sys::make_dir_at(dir, name.c_str(), 0777);
    if (!made && made.error().code != Errc::already_exists) return made.error();
    return sys::open_at(dir, name.c_str(), O_PATH | O_NOFOLLOW);
  }

  Status step(const std::string& name) {
    auto fd = open_entry(name);
    if (!fd) return fd.error();
    auto stat = sys::stat_fd(fd.value().get());
    if (!stat) return stat.error();
    const struct stat& st = stat.value();
    if (S_ISLNK(st.st_mode)) return follow(fd.value().get());
    if (!S_ISDIR(st.st_mode)) return Error{Errc::not_directory, ENOTDIR};
    stack_.push_back(Dir{std::move(fd.value()), FileId{st.st_dev, st.st_ino}});
    return ok_status();
  }

  Status follow(int link_fd) {
    for (const Dir& dir : stack_) {
      if (std::find(untrusted_.begin(), untrusted_.end(), dir.id) != untrusted_.end()) {
        return Errc::untrusted_source;
      }
      link_dirs_.push_back(dir.id);
    }
    if (++links_ > kMaxSymlinks) return Errc::symlink_loop;
    auto text = sys::read_link(link_fd, "");
    if (!text) return text.error();
    if (text.value().empty()) return Errc::not_found;
    if (text.value().front() == '/') stack_.resize(1);
    push_components(pending_, text.value());
    return ok_status();
  }

  const std::vector<FileId>& untrusted_;
  bool create_;
  std::vector<Dir> stack_;
  std::deque<std::string> pending_;
  std::vector<FileId> link_dirs_;
  int links_ = 0;
};

using Outcome = std::optional<Result<Walked>>;

std::vector<FileId> writable_ids(const std::vector<SourceToPin>& sources,
                                 const std::vector<Outcome>& outcomes) {
  std::vector<FileId> ids;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].writable && outcomes[i]->ok()) ids.push_back(outcomes[i]->value().id);
  }
  return ids;
}

bool missing(const Outcome& outcome) {
  return !outcome->ok() && outcome->error().code == Errc::not_found;
}

// mkdir -p for the missing sources, shortest path first so that a source nested in another
// missing one finds it made (and trusted as writable) before its own walk.
void create_missing(const std::vector<SourceToPin>& sources, std::vector<Outcome>& outcomes) {
  std::vector<FileId> untrusted = writable_ids(sources, outcomes);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (missing(outcomes[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return sources[a].anchor->host_path().size() < sources[b].anchor->host_path().size();
  });
  for (const std::size_t i : order) {
    outcomes[i] = HostPathWalk(untrusted, true).run(sources[i].anchor->host_path());
    if (sources[i].writable && outcomes[i]->ok()) untrusted.push_back(outcomes[i]->value().id);
  }
}

bool reached_through_untrusted_link(const Walked& walked, const std::vector<FileId>& untrusted) {
  return std::any_of(walked.link_dirs.begin(), walked.link_dirs.end(), [&](const FileId& id) {
    return std::find(untrusted.begin(), untrusted.end(), id) != untrusted.end();
  });
}

// A source on procfs, sysfs, the device filesystem, ... is refused unless its mount allows it:
// the operator named it, but nobody means to show a model the host process's environment.
Status holds_data(const Anchor& anchor, int fd) {
  if (anchor.allows_pseudo_filesystem()) return ok_status();
  auto pseudo = pseudo_filesystem_of(fd);
  if (!pseudo) return pseudo.error();
  if (pseudo.value() != nullptr) return pseudo_filesystem(pseudo.value());
  return ok_status();
}

}  // namespace

void pin_sources(const std::vector<SourceToPin>& sources, bool create) {
  // First every source as it stands, following links and creating nothing: only once all are
  // open is it known which directories are writable, and so where a link may have been planted.
  std::vector<Outcome> outcomes(sources.size());
  const std::vector<FileId> none;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    outcomes[i] = HostPathWalk(none, false).run(sources[i].anchor->host_path());
  }
  if (create) create_missing(sources, outcomes);
  const std::vector<FileId> untrusted = writable_ids(sources, outcomes);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    Result<Walked>& outcome = *outcomes[i];
    if (!outcome) {
      sources[i].anchor->refuse(outcome.error());
    } else if (reached_through_untrusted_link(outcome.value(), untrusted)) {
      sources[i].anchor->refuse(Error{Errc::untrusted_source});
    } else if (Status real = holds_data(*sources[i].anchor, outcome.value().fd.get()); !real) {
      sources[i].anchor->refuse(real.error());
    } else {
      sources[i].anchor->pin(std::move(outcome.value().fd), outcome.value().id);
    }
  }
}

}  // namespace msb
