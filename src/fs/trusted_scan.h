// For commands: which entries under a writable source are names the host trusts next
// (trusted_names.h), so that sandbox.exec() binds them read-only before a run and removes what a
// run added. A bounded walk by descriptors that never follows a link. git's own control files
// are the git scan's (src/git), which knows a repository's layout; this walk skips them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/error.h"
#include "fs/trusted_names.h"

namespace msb {

// How deep below a source the walk looks (sandbox-runtime looks as deep for its deny list), and
// how many directories it reads at most per source.
inline constexpr std::size_t kTrustedScanDepth = 3;
inline constexpr std::size_t kTrustedScanDirs = 10000;

struct TrustedScan {
  std::vector<std::string> found;  // host paths, beneath the source as it was named
  bool truncated = false;          // kTrustedScanDirs directories were read before the end
};

// Walks `source` (an absolute host path of a directory) down to `depth` levels. Directories named
// .git or node_modules are not entered: what clients and shells trust lies in a project, not in
// its git objects or its dependencies.
Result<TrustedScan> find_trusted_entries(const TrustedNames& names, const std::string& source,
                                         std::size_t depth = kTrustedScanDepth);

}  // namespace msb
