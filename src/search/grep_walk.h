// The files a grep searches: a walk of a virtual directory through the sandbox (each directory
// listed by its own opens beneath its mount), passing over what ripgrep passes over by default
// (hidden entries, links, .git) and what the caller's globs and the ignore files exclude.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "fs/glob.h"
#include "fs/sandbox.h"

namespace msb {

// Whether the caller's flag (a SharedArrayBuffer's cell, polled between files and directories)
// asks the search to stop.
inline bool cancel_requested(const std::atomic<std::int32_t>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed) != 0;
}

// Directory entries one walk reads at most.
inline constexpr std::size_t kMaxGrepEntries = 4'000'000;

struct WalkFilters {
  std::vector<GlobMatcher> include;   // files; none: every file
  std::vector<GlobMatcher> exclude;   // files and directories
  std::vector<bool> include_by_name;  // parallel to include: matched against the name
  std::vector<bool> exclude_by_name;
  std::vector<GlobMatcher> types;  // files, by name; none: every file (file_types.h)
  bool ignore_files = false;
  bool hidden = false;
};

struct WalkResult {
  bool stopped_entries = false;
  bool cancelled = false;  // by `cancel`, or by the sink asking to stop
};

// Called with each file to search (a virtual path) as the walk finds it; false stops the walk.
using FileSink = std::function<bool(std::string)>;

// Walks `dir`, handing files to `sink` in path order (byte order of the whole virtual path), so
// that a search can start on the first ones while the walk goes on.
Result<WalkResult> walk_files(const Sandbox& sandbox, const std::string& dir,
                              const WalkFilters& filters, const std::atomic<std::int32_t>* cancel,
                              const FileSink& sink);

}  // namespace msb
