// The files a grep searches: a walk of a virtual directory through the sandbox (each directory
// listed by its own opens beneath its mount), passing over what ripgrep passes over by default
// (hidden entries, links, .git) and what the caller's globs and the ignore files exclude.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "fs/glob.h"
#include "fs/sandbox.h"

namespace msb {

// Directory entries one walk reads at most.
inline constexpr std::size_t kMaxGrepEntries = 4'000'000;

struct WalkFilters {
  std::vector<GlobMatcher> include;   // files; none: every file
  std::vector<GlobMatcher> exclude;   // files and directories
  std::vector<bool> include_by_name;  // parallel to include: matched against the name
  std::vector<bool> exclude_by_name;
  bool ignore_files = false;
  bool hidden = false;
};

struct WalkResult {
  std::vector<std::string> files;  // virtual paths, sorted
  bool stopped_entries = false;
  bool cancelled = false;
};

Result<WalkResult> files_to_search(const Sandbox& sandbox, const std::string& dir,
                                   const WalkFilters& filters,
                                   const std::atomic<std::int32_t>* cancel);

}  // namespace msb
