// For commands: what under a writable source the host trusts next, found at any depth, so that
// sandbox.exec() binds it read-only before a run and settles what a run added: the entries the
// names cover (trusted_names.h), and every repository by git's layout (git/git_layout.h), a
// `.git` directory or a directory that is one under another name. A bounded walk by
// descriptors that never follows a link and never enters a repository's git directory: git's
// control files inside are the git scan's (src/git), which knows a repository's layout.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/error.h"
#include "fs/trusted_names.h"
#include "git/repo_settle.h"

namespace msb {

// How many entries the walk reads at most per source: past it the scan is truncated, and
// sandbox.exec() refuses the run rather than leave the rest unprotected (as the hard-link walk
// does at the same bound).
inline constexpr std::size_t kTrustedScanEntries = 500000;

struct TrustedScan {
  std::vector<std::string> found;  // host paths, beneath the source as it was named
  // Each repository's git directory (host path, identity, HEAD), and for a `.git` one the
  // directory holding it (its work tree).
  std::vector<git::RepositorySeen> repositories;
  std::vector<std::string> work_trees;
  bool truncated = false;  // max_entries entries were read before the end
};

// Walks `source` (an absolute host path of a directory) to any depth.
Result<TrustedScan> find_trusted_entries(const TrustedNames& names, const std::string& source,
                                         std::size_t max_entries = kTrustedScanEntries);

}  // namespace msb
