#include "git/git_scan.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>
#include <span>

#include "common/unique_fd.h"
#include "git/git_files.h"
#include "git/git_index.h"
#include "git/gitmodules.h"

namespace msb::git {
namespace {

// Control entries of a git directory: read-only where they exist.
constexpr const char* kControl[] = {"config", "info", "config.worktree", "commondir"};
// Names git reads when they appear: removed after the run when the command created them.
bool plantable(std::string_view name) {
  return name == "commondir" || name == "config.worktree";
}

GitRefusal io_refusal(std::string_view what, const Error& e) {
  return GitRefusal{GitRefusalKind::io, std::string(what), e.sys_errno};
}

GitRefusal symlink_refusal(std::string what) {
  return GitRefusal{GitRefusalKind::symlink, std::move(what), 0};
}

Result<std::vector<std::string>, GitRefusal> index_paths(int git_dir_fd, const char* name,
                                                         const GitLimits& limits,
                                                         std::string& shared) {
  auto bytes = read_small_file(git_dir_fd, name, limits.max_index_bytes, "index");
  if (!bytes) return std::move(bytes).error();
  if (!bytes.value()) return std::vector<std::string>{};
  const std::string& data = *bytes.value();
  auto read =
      index_gitlinks(std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()),
                     limits.max_index_entries, limits.max_submodules);
  if (!read) return std::move(read).error();
  shared = read.value().shared_index;
  return std::move(read.value().paths);
}

class Scanner {
 public:
  Scanner(const std::vector<std::string>& writable, const GitLimits& limits)
      : writable_(writable), limits_(limits), after_(std::make_shared<AfterRun>()) {}

  Result<GitScan, GitRefusal> run() {
    after_->roots = writable_;
    for (const std::string& root : writable_) {
      note_fresh(root);
      if (auto s = worktree(root, 0); !s) return std::move(s).error();
      if (auto s = bare(root); !s) return std::move(s).error();
      if (auto s = enclosing(root); !s) return std::move(s).error();
    }
    GitScan out;
    out.protect.assign(protect_.begin(), protect_.end());
    out.pin.assign(pin_.begin(), pin_.end());
    out.after = after_;
    return out;
  }

 private:
  using Step = Result<Unit, GitRefusal>;

  // The deepest writable directory holding `path`, or nullptr.
  const std::string* writable_root_of(const std::string& path) const {
    const std::string* best = nullptr;
    for (const std::string& root : writable_) {
      if (within(path, root) && (best == nullptr || root.size() > best->size())) best = &root;
    }
    return best;
  }

  // True when `path` lies in a writable directory or holds one.
  bool reaches_writable(const std::string& path) const {
    return std::any_of(writable_.begin(), writable_.end(), [&](const std::string& root) {
      return within(path, root) || within(root, path);
    });
  }

  // Every directory from below the writable root down to `dir`: renaming any of them would let
  // the command put a planted copy where git looks.
  void pin_down(const std::string& dir) {
    const std::string* root = writable_root_of(dir);
    if (root == nullptr) return;
    for (std::string at = dir; at != *root && within(at, *root);
         at = at.substr(0, std::max<std::size_t>(at.rfind('/'), 1))) {
      pin_.insert(at);
    }
  }

  // A source without a `.git` of its own: one the command makes there is judged after the run.
  void note_fresh(const std::string& root) {
    auto fd = open_real_path(root);
    if (!fd) return;
    auto dot_git = look(fd.value().get(), ".git");
    if (!dot_git || dot_git.value()) return;
    after_->fresh.push_back(root);
  }

  // What git itself checks (is_git_directory): a bare repository, or a git directory mounted alone.
  Step bare(const std::string& dir) {
    auto fd = open_real_path(dir);
    if (!fd) return Unit{};
    auto head = look(fd.value().get(), "HEAD");
    auto objects = look(fd.value().get(), "objects");
    auto refs = look(fd.value().get(), "refs");
    if (!head || !objects || !refs || !head.value() || !objects.value() || !refs.value())
      return Unit{};
    if (!S_ISREG(head.value()->st_mode) || !S_ISDIR(objects.value()->st_mode) ||
        !S_ISDIR(refs.value()->st_mode)) {
      return Unit{};
    }
    return git_dir(dir);  // a push runs its hooks
  }

  // A writable directory without a repository of its own may lie in one (a submodule path of it,
  // or above one): the nearest `.git` above, as git finds it, is watched too, since its index
  // and .gitmodules may name paths inside.
  Step enclosing(const std::string& root) {
    auto root_fd = open_real_path(root);
    if (!root_fd) return Unit{};
    auto own = look(root_fd.value().get(), ".git");
    if (!own || own.value()) return Unit{};
    for (std::string at = root; at != "/";) {
      at = at.substr(0, std::max<std::size_t>(at.rfind('/'), 1));
      auto fd = open_real_path(at);
      if (!fd) return Unit{};
      auto dot_git = look(fd.value().get(), ".git");
      if (!dot_git || !dot_git.value()) continue;
      if (S_ISLNK(dot_git.value()->st_mode)) return Unit{};
      if (writable_root_of(at) != nullptr) return Unit{};  // scanned as a worktree already
      return worktree(at, 0);
    }
    return Unit{};
  }

  // A worktree (or the top of a writable directory) that may hold `.git`.
  Step worktree(const std::string& top, std::size_t depth) {
    auto top_fd = open_real_path(top);
    if (!top_fd) return Unit{};  // gone, or reached through a symlink: git finds no repository
    auto top_st = look(top_fd.value().get(), ".");
    if (!top_st || !top_st.value() || !visited_.insert(id_of(*top_st.value())).second)
      return Unit{};
    auto dot_git = look(top_fd.value().get(), ".git");
    if (!dot_git) return io_refusal(".git", dot_git.error());
    if (!dot_git.value()) return Unit{};
    const struct stat st = *dot_git.value();
    if (S_ISLNK(st.st_mode)) return symlink_refusal(".git");
    after_->known.insert(id_of(st));
    pin_down(top);
    // A repository enclosing a writable directory is only read: the command cannot write it.
    const bool writable = writable_root_of(top) != nullptr;
    std::string git_dir_path;
    if (S_ISDIR(st.st_mode)) {
      git_dir_path = join(top, ".git");
      if (!writable) return submodules(top, top_fd.value().get(), git_dir_path, depth);
      if (auto s = git_dir(git_dir_path); !s) return s;
    } else if (S_ISREG(st.st_mode)) {
      // Else the command points it at a git directory of its own.
      if (writable) protect_.insert(join(top, ".git"));
      const std::string line = first_line(top_fd.value().get(), ".git", limits_.max_gitfile_bytes);
      if (line.starts_with("gitdir: ")) {
        auto named = foreign_git_dir(resolve_lexically(top, line.substr(8)));
        if (!named) return std::move(named).error();
        git_dir_path = std::move(named.value());
      }
    }
    return submodules(top, top_fd.value().get(), git_dir_path, depth);
  }

  Step submodules(const std::string& top, int top_fd, const std::string& git_dir_path,
                  std::size_t depth) {
    UniqueFd git_fd;
    if (!git_dir_path.empty()) {
      auto opened = open_real_path(git_dir_path);
      if (opened) git_fd = std::move(opened.value());
    }
    auto named = named_paths(top_fd, git_fd.valid() ? git_fd.get() : -1, limits_);
    if (!named) return std::move(named).error();
    after_->worktrees.push_back({top, git_dir_path, named.value()});
    if (depth >= limits_.max_depth) return Unit{};  // deeper submodules: documented cut-off
    for (const auto& parts : named.value()) {
      std::string path = top;
      for (const auto& part : parts) path = join(path, part);
      if (!reaches_writable(path)) continue;
      auto dir = walk_named(top_fd, parts);
      if (!dir) continue;
      if (auto s = worktree(path, depth + 1); !s) return s;
    }
    return Unit{};
  }

  // Follows a named path one directory at a time, noting each entry as there before the run;
  // nullopt where it ends (missing, a file, a symlink).
  std::optional<UniqueFd> walk_named(int top_fd, const std::vector<std::string>& parts) {
    UniqueFd dir(::fcntl(top_fd, F_DUPFD_CLOEXEC, 0));
    for (const std::string& part : parts) {
      auto st = look(dir.get(), part.c_str());
      if (!st || !st.value()) return std::nullopt;
      after_->known.insert(id_of(*st.value()));
      if (!S_ISDIR(st.value()->st_mode)) return std::nullopt;
      auto next = open_dir_at(dir.get(), part.c_str());
      if (!next || !next.value().valid()) return std::nullopt;
      dir = std::move(next.value());
    }
    return dir;
  }

  // A git directory named by a .git file or a commondir: protected only where the command can
  // write it, which its real path decides. The real path ("" when it does not exist).
  Result<std::string, GitRefusal> foreign_git_dir(const std::string& named) {
    char buf[PATH_MAX];
    if (::realpath(named.c_str(), buf) == nullptr) return std::string();
    std::string real(buf);
    if (writable_root_of(real) != nullptr) {
      if (auto s = git_dir(real); !s) return std::move(s).error();
    }
    return real;
  }

  Step git_dir(const std::string& dir) {
    auto fd = open_real_path(dir);
    if (!fd) return Unit{};
    auto self = look(fd.value().get(), ".");
    if (!self || !self.value()) return Unit{};
    if (!after_->git_dirs.insert(id_of(*self.value())).second) return Unit{};
    if (after_->git_dirs.size() > limits_.max_repositories)
      return GitRefusal{GitRefusalKind::too_many, "repositories", 0};
    pin_down(dir);
    const int dir_fd = fd.value().get();
    bool shared = false;
    for (const char* name : kControl) {
      auto st = look(dir_fd, name);
      if (!st) return io_refusal(std::string(".git/") + name, st.error());
      if (!st.value()) {
        if (plantable(name)) after_->absent.push_back(join(dir, name));
        continue;
      }
      if (S_ISLNK(st.value()->st_mode)) return symlink_refusal(std::string(".git/") + name);
      protect_.insert(join(dir, name));
      if (std::string_view(name) == "commondir") shared = true;
    }
    if (shared) {
      const std::string line = first_line(dir_fd, "commondir", limits_.max_gitfile_bytes);
      if (!line.empty()) {
        auto common = foreign_git_dir(resolve_lexically(dir, line));
        if (!common) return std::move(common).error();
      }
    }
    // Git takes hooks, info and modules from the common directory: only made there.
    for (const char* name : {"hooks", "info"}) {
      if (auto s = made_read_only(dir, dir_fd, name, !shared); !s) return s;
    }
    if (auto s = nested_git_dirs(dir, dir_fd, "modules", shared); !s) return s;
    return nested_git_dirs(dir, dir_fd, "worktrees", shared);
  }

  // Made when missing, as git init would have: otherwise the command could create it.
  Step made_read_only(const std::string& dir, int dir_fd, const char* name, bool make) {
    auto st = look(dir_fd, name);
    if (!st) return io_refusal(std::string(".git/") + name, st.error());
    if (!st.value() && !make) return Unit{};
    if (!st.value()) {
      if (::mkdirat(dir_fd, name, 0755) != 0 && errno != EEXIST)
        return GitRefusal{GitRefusalKind::io, std::string(".git/") + name, errno};
      st = look(dir_fd, name);
      if (!st || !st.value()) return GitRefusal{GitRefusalKind::io, std::string(".git/") + name, 0};
      if (S_ISDIR(st.value()->st_mode)) ::fchmodat(dir_fd, name, 0755, AT_SYMLINK_NOFOLLOW);
    }
    if (S_ISLNK(st.value()->st_mode)) return symlink_refusal(std::string(".git/") + name);
    if (S_ISDIR(st.value()->st_mode)) protect_.insert(join(dir, name));
    return Unit{};
  }

  // modules/ or worktrees/: a submodule named "a/b" lives in modules/a/b, and a directory without
  // HEAD only holds others. Everything there now is noted; what is new after the run goes.
  // A missing modules/ is made and bound read-only like hooks/ (no module git directory can be
  // planted); a missing worktrees/ is removed after the run if it appears.
  Step nested_git_dirs(const std::string& dir, int dir_fd, const char* name, bool shared) {
    const bool modules = std::string_view(name) == "modules";
    if (modules) {
      if (auto s = made_read_only(dir, dir_fd, name, !shared); !s) return s;
    }
    auto st = look(dir_fd, name);
    if (!st) return io_refusal(std::string(".git/") + name, st.error());
    const std::string path = join(dir, name);
    if (!st.value()) {
      if (!shared) after_->absent.push_back(path);
      return Unit{};
    }
    if (S_ISLNK(st.value()->st_mode)) return symlink_refusal(std::string(".git/") + name);
    if (!S_ISDIR(st.value()->st_mode)) return Unit{};
    pin_.insert(path);
    after_->containers.push_back({path, id_of(*st.value())});
    std::size_t found = 0;
    if (auto s = container_entries(path, 0, found); !s) return s;
    // One with git directories in it stays writable (their objects and refs); what is new in
    // it after the run is removed. An empty one is read-only.
    if (modules && found > 0) protect_.erase(path);
    return Unit{};
  }

  // Notes every entry below a container; a directory with HEAD is a git directory.
  Step container_entries(const std::string& path, std::size_t depth, std::size_t& found) {
    auto fd = open_real_path(path);
    if (!fd) return Unit{};
    auto names = list_dir(fd.value().get());
    if (!names) return io_refusal(".git/modules", names.error());
    for (const std::string& entry : names.value()) {
      if (++found > limits_.max_repositories * 4)
        return GitRefusal{GitRefusalKind::too_many, ".git/modules", 0};
      auto st = look(fd.value().get(), entry.c_str());
      if (!st || !st.value()) continue;
      after_->known.insert(id_of(*st.value()));
      if (!S_ISDIR(st.value()->st_mode)) continue;
      const std::string child = join(path, entry);
      UniqueFd child_fd(::openat(fd.value().get(), entry.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      auto head = child_fd.valid()
                      ? look(child_fd.get(), "HEAD")
                      : Result<std::optional<struct stat>>(std::optional<struct stat>());
      if (head && head.value()) {
        if (auto s = git_dir(child); !s) return s;
      } else if (depth + 1 < limits_.max_depth) {
        after_->intermediate.insert(id_of(*st.value()));
        if (auto s = container_entries(child, depth + 1, found); !s) return s;
      }
    }
    return Unit{};
  }

  const std::vector<std::string>& writable_;
  const GitLimits& limits_;
  std::shared_ptr<AfterRun> after_;
  std::set<std::string> protect_;
  std::set<std::string> pin_;
  IdSet visited_;
};

}  // namespace

Result<std::vector<std::vector<std::string>>, GitRefusal> named_paths(int top_fd, int git_dir_fd,
                                                                      const GitLimits& limits) {
  std::vector<std::string> texts;
  auto modules = read_small_file(top_fd, ".gitmodules", limits.max_gitmodules_bytes, ".gitmodules");
  if (!modules) return std::move(modules).error();
  if (modules.value()) {
    SubmodulePaths read = gitmodules_paths(*modules.value(), limits.max_submodules);
    if (read.truncated) return GitRefusal{GitRefusalKind::too_many, ".gitmodules", 0};
    texts = std::move(read.paths);
  }
  if (git_dir_fd >= 0) {
    std::string shared;
    auto links = index_paths(git_dir_fd, "index", limits, shared);
    if (!links) return std::move(links).error();
    texts.insert(texts.end(), links.value().begin(), links.value().end());
    if (!shared.empty()) {
      std::string unused;
      auto more = index_paths(git_dir_fd, shared.c_str(), limits, unused);
      if (!more) return std::move(more).error();
      texts.insert(texts.end(), more.value().begin(), more.value().end());
    }
  }
  std::set<std::vector<std::string>> unique;
  for (const std::string& text : texts) {
    auto parts = submodule_components(text);
    if (parts && !parts->empty()) unique.insert(std::move(*parts));
  }
  if (unique.size() > limits.max_submodules)
    return GitRefusal{GitRefusalKind::too_many, ".gitmodules", 0};
  return std::vector<std::vector<std::string>>(unique.begin(), unique.end());
}

Result<GitScan, GitRefusal> scan_writable(const std::vector<std::string>& writable,
                                          const GitLimits& limits) {
  return Scanner(writable, limits).run();
}

}  // namespace msb::git
