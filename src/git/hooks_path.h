// Where git looks for hooks besides `.git/hooks`: a repository's core.hooksPath (husky sets it to
// `.husky/_`, pre-commit frameworks to others), often a directory inside the work tree that
// `git status` does not show. A file written there with its executable bit runs on the user's
// next commit, so the directory is as trusted as `.git/hooks`.
#pragma once

#include <string>
#include <vector>

namespace msb::git {

// The directories (absolute host paths, resolved lexically) that core.hooksPath names in the
// repository git finds from `dir` (walking up from it, as git's discovery does: a `.git`
// directory or gitdir file, or a directory that is a repository by its layout). Every value
// found is returned, in the repository's config, its config.worktree and the files their
// include.path and includeIf.*.path name (whatever their condition: naming more is safe), so a
// later setting cannot hide an earlier one. Missing or unreadable files give nothing; nothing is
// ever written.
std::vector<std::string> hooks_path_dirs(const std::string& dir);

}  // namespace msb::git
