// After a command: the repositories in its writable sources, as git's layout defines them
// (git_layout.h), settled against what they were before it ran. A repository the command made
// (`git init`, `git init --bare`, or a layout planted by hand under any name) is kept, with what
// could make the host's git run a program taken out of it; a repository that was there keeps its
// HEAD (put back when the command removed it or made it invalid). Only sound once no process of
// the command is left (the caller's rule: a PID namespace); nothing here follows a symlink.
#pragma once

#include <string>
#include <vector>

#include "common/file_id.h"
#include "git/git_limits.h"

namespace msb::git {

// A repository found by a walk: its git directory (a real host path), its identity, and the
// HEAD it had ("" when it could not be read as a valid one).
struct RepositorySeen {
  std::string git_dir;
  FileId id;
  std::string head;
};

struct SettleReport {
  // What was taken out: "<git dir>/config: core.fsmonitor", "<git dir>/hooks/pre-commit", ...
  std::vector<std::string> taken_out;
  std::vector<std::string> restored;  // "<git dir>/HEAD" put back
  std::vector<std::string> failed;    // host paths of what could not be settled
};

// Every repository of `after` not in `before` (by identity) has its runners taken out; every
// repository of `before` that is no longer one gets its HEAD back. Nothing outside `roots` (the
// writable sources) is changed.
SettleReport settle_repositories(const std::vector<RepositorySeen>& before,
                                 const std::vector<RepositorySeen>& after,
                                 const std::vector<std::string>& roots,
                                 const GitLimits& limits = {});

// What a new repository may not keep, taken out of the git directory `git_fd` (named
// `git_dir` in the report): config and config.worktree keep only the entries
// entry_runs_nothing() accepts (a file that is not a regular one, or one over the bound, goes
// whole); hooks other than git's regular *.sample files; commondir; a rebase or sequencer
// left under way (its todo list may `exec`); and the same, recursively, in each git directory
// under modules/ and worktrees/ (a worktree's commondir, which points back, stays).
void take_out_runners(int git_fd, const std::string& git_dir, const GitLimits& limits,
                      SettleReport& report, bool linked_worktree = false, std::size_t depth = 0);

}  // namespace msb::git
