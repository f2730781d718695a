// What in the writable mounts decides which programs the host's git runs later, found before a
// command runs (scan_writable) and checked again once it has ended (check_after_run, in
// git_check.h). The launcher binds `protect` read-only and `pin` onto itself; names that do not
// exist yet cannot be bound, so the check removes what appeared at them.
//
// Where it looks: `.git` at the top of each writable directory (or the directory itself when it
// is a bare repository), the repository that encloses a writable directory without one (its
// named submodule paths may lie inside), and in each submodule a repository names
// (`.gitmodules` paths and index gitlinks), recursively; never elsewhere (a directory walk on every
// run costs too much), never through a symlink, and never by asking git (the host's git reading a
// repository the command wrote is the very danger).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/file_id.h"
#include "git/git_limits.h"

namespace msb::git {

struct FileIdLess {
  bool operator()(const FileId& a, const FileId& b) const noexcept {
    return a.dev != b.dev ? a.dev < b.dev : a.ino < b.ino;
  }
};
using IdSet = std::set<FileId, FileIdLess>;

// A repository's worktree: where .gitmodules and the index name submodule paths.
struct WatchedWorktree {
  std::string top;                              // host path, no symlinks
  std::string git_dir;                          // where its index is ("" when none was found)
  std::vector<std::vector<std::string>> named;  // submodule paths named before the run
};

// .git/modules or .git/worktrees as it was: entries not in `known` are new.
struct WatchedContainer {
  std::string path;
  FileId id;
};

// Everything the check after the run needs.
struct AfterRun {
  std::vector<std::string> roots;   // the writable sources: nothing outside them is removed
  std::vector<std::string> absent;  // names git would follow that did not exist
  // Writable sources with no `.git` at their top: a `.git` file or link made there goes.
  std::vector<std::string> fresh;
  std::vector<WatchedWorktree> worktrees;
  std::vector<WatchedContainer> containers;
  IdSet known;         // every entry seen at a watched place before the run
  IdSet intermediate;  // directories under a container that only hold git directories
  IdSet git_dirs;      // git directories protected before the run
};

struct GitScan {
  std::vector<std::string> protect;
  std::vector<std::string> pin;
  std::shared_ptr<AfterRun> after;
};

// `writable` are real host paths (no symlinks) of the writable mount sources. Makes a missing
// `hooks`, `info` and `modules` in each repository's own git directory (0755, empty, as git init
// would) so that they can be bound read-only. Refuses (GitRefusal) a control entry that is a
// symlink, a .gitmodules or index over its bound, more repositories or submodules than the bounds.
Result<GitScan, GitRefusal> scan_writable(const std::vector<std::string>& writable,
                                          const GitLimits& limits = {});

}  // namespace msb::git

namespace msb::git {

// The submodule paths a worktree's .gitmodules and its git directory's index (with a split
// index's shared part) name, as components, duplicates removed. `git_dir_fd` may be -1.
Result<std::vector<std::vector<std::string>>, GitRefusal> named_paths(int top_fd, int git_dir_fd,
                                                                      const GitLimits& limits);

}  // namespace msb::git
