// The check after a command has ended: what appeared at a name git would follow is removed.
// Only sound when no process of the command is left (the caller's rule: a PID namespace), so
// nothing can swap a directory for a symlink meanwhile; still, nothing here follows a symlink.
#pragma once

#include <string>
#include <vector>

#include "git/git_limits.h"
#include "git/git_scan.h"

namespace msb::git {

struct AfterRunReport {
  std::vector<std::string> removed;       // host paths of what was removed
  std::vector<std::string> unchecked;     // host paths of files the check could not read in bounds
  std::vector<std::string> failed;        // host paths of planted entries it could not remove
  std::vector<std::string> repositories;  // of `removed`: `.git` files or links made at a top
};

// Re-reads each watched repository's .gitmodules and index (the command may have changed both)
// and removes: a `.git` at a submodule path named before or after the run that was not there
// before (by identity), a symlink on the way to one that was not there before, what the
// command created at an absent name (commondir, config.worktree, worktrees), new entries in
// .git/modules and .git/worktrees, and a `.git` file or symlink made at the top of a source that
// had none. A repository the command made is kept and settled (repo_settle.h).
AfterRunReport check_after_run(const AfterRun& after, const GitLimits& limits = {});

}  // namespace msb::git
