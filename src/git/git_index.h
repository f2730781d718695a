// The gitlinks (mode 160000 entries: submodules) a git index records, versions 2, 3 and 4 (4
// compresses each path against the one before). Read in one pass, bounded in entries and in the
// length each path may reach; nothing but the paths of gitlinks is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "git/git_limits.h"

namespace msb::git {

struct IndexGitlinks {
  std::vector<std::string> paths;  // as recorded, '/'-separated
  std::string shared_index;        // "sharedindex.<hash>" for a split index, else ""
};

// The index's bytes (the whole file). Refuses malformed data and more than `max_entries`
// entries or `max_gitlinks` gitlinks (GitRefusal::what is "index"). The object names may be
// SHA-1 or SHA-256: the index does not say which, so both are tried and the reading that parses
// to the end wins.
Result<IndexGitlinks, GitRefusal> index_gitlinks(std::span<const std::uint8_t> data,
                                                 std::size_t max_entries, std::size_t max_gitlinks);

}  // namespace msb::git
