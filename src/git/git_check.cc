#include "git/git_check.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <set>

#include "common/unique_fd.h"
#include "git/git_config.h"
#include "git/git_files.h"

namespace msb::git {
namespace {

class Checker {
 public:
  Checker(const AfterRun& after, const GitLimits& limits) : after_(after), limits_(limits) {}

  AfterRunReport run() {
    for (const std::string& name : after_.absent) absent(name);
    for (const WatchedContainer& c : after_.containers) container(c);
    for (const WatchedWorktree& w : after_.worktrees) worktree(w);
    for (const std::string& root : after_.fresh) fresh(root);
    return std::move(report_);
  }

 private:
  void remove(int dir_fd, const std::string& name, const std::string& path) {
    // Outside the writable sources the command could not have made it: it is the host's.
    const bool inside =
        std::any_of(after_.roots.begin(), after_.roots.end(),
                    [&](const std::string& root) { return within(path, root) && path != root; });
    if (!inside) return;
    if (remove_tree(dir_fd, name, limits_.max_removed_entries)) {
      report_.removed.push_back(path);
    } else {
      report_.failed.push_back(path);
    }
  }

  static std::string parent_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == 0 ? "/" : path.substr(0, slash);
  }

  void absent(const std::string& path) {
    auto dir = open_real_path(parent_of(path));
    if (!dir) return;
    const std::string name = path.substr(path.rfind('/') + 1);
    auto st = look(dir.value().get(), name.c_str());
    if (st && st.value()) remove(dir.value().get(), name, path);
  }

  void container(const WatchedContainer& c) {
    auto fd = open_real_path(c.path);
    if (!fd) return;
    auto self = look(fd.value().get(), ".");
    if (!self || !self.value() || !(id_of(*self.value()) == c.id)) return;
    container_entries(fd.value().get(), c.path, 0);
  }

  // New entries go; known directories that only held git directories are looked into.
  void container_entries(int dir_fd, const std::string& path, std::size_t depth) {
    auto names = list_dir(dir_fd);
    if (!names) return;
    for (const std::string& name : names.value()) {
      auto st = look(dir_fd, name.c_str());
      if (!st || !st.value()) continue;
      const FileId id = id_of(*st.value());
      const std::string child = join(path, name);
      if (after_.known.count(id) == 0) {
        remove(dir_fd, name, child);
      } else if (after_.intermediate.count(id) != 0 && depth + 1 < limits_.max_depth) {
        auto sub = open_dir_at(dir_fd, name.c_str());
        if (sub && sub.value().valid()) container_entries(sub.value().get(), child, depth + 1);
      }
    }
  }

  void worktree(const WatchedWorktree& w) {
    auto top = open_real_path(w.top);
    if (!top) return;
    std::set<std::vector<std::string>> named(w.named.begin(), w.named.end());
    UniqueFd git_fd;
    if (!w.git_dir.empty()) {
      auto opened = open_real_path(w.git_dir);
      if (opened) git_fd = std::move(opened.value());
    }
    if (git_fd.valid()) symlinked_index(git_fd.get(), w.git_dir);
    auto now = named_paths(top.value().get(), git_fd.valid() ? git_fd.get() : -1, limits_);
    if (now) {
      named.insert(now.value().begin(), now.value().end());
    } else {
      report_.unchecked.push_back(join(now.error().what == "index" ? w.git_dir : w.top,
                                       now.error().what == "index" ? "index" : ".gitmodules"));
    }
    for (const auto& parts : named) named_path(top.value().get(), w.top, parts);
  }

  // Git follows a symlinked index; this check does not read through one: a link the command put
  // there goes (git then finds no index, as after a removal).
  void symlinked_index(int git_fd, const std::string& git_dir) {
    auto st = look(git_fd, "index");
    if (st && st.value() && S_ISLNK(st.value()->st_mode))
      remove(git_fd, "index", join(git_dir, "index"));
  }

  // Walks a named path without following symlinks: a new symlink on the way, or a new .git at
  // its end, was planted.
  void named_path(int top_fd, const std::string& top, const std::vector<std::string>& parts) {
    UniqueFd dir(::fcntl(top_fd, F_DUPFD_CLOEXEC, 0));
    std::string path = top;
    for (const std::string& part : parts) {
      auto st = look(dir.get(), part.c_str());
      if (!st || !st.value()) return;
      path = join(path, part);
      if (S_ISLNK(st.value()->st_mode)) {
        if (after_.known.count(id_of(*st.value())) == 0) remove(dir.get(), part, path);
        return;
      }
      auto next = open_dir_at(dir.get(), part.c_str());
      if (!next || !next.value().valid()) return;
      dir = std::move(next.value());
    }
    auto dot_git = look(dir.get(), ".git");
    if (!dot_git || !dot_git.value()) return;
    if (after_.known.count(id_of(*dot_git.value())) != 0) return;
    remove(dir.get(), ".git", join(path, ".git"));
  }

  // A `.git` file or symlink the command made at the top of a source that had none: it would
  // point the host's git in the project at a git directory anywhere. A `.git` directory made
  // there is a repository like any other the command makes: kept, with what runs taken out
  // (repo_settle.h), as is the source made a repository itself.
  void fresh(const std::string& root) {
    auto top = open_real_path(root);
    if (!top) return;
    auto st = look(top.value().get(), ".git");
    if (!st || !st.value() || S_ISDIR(st.value()->st_mode)) return;
    const std::size_t before = report_.removed.size();
    remove(top.value().get(), ".git", join(root, ".git"));
    if (report_.removed.size() > before) report_.repositories.push_back(join(root, ".git"));
  }

  const AfterRun& after_;
  const GitLimits& limits_;
  AfterRunReport report_;
};

}  // namespace

AfterRunReport check_after_run(const AfterRun& after, const GitLimits& limits) {
  return Checker(after, limits).run();
}

}  // namespace msb::git
