// The submodule paths a .gitmodules file names: `path = <value>` lines, read in one pass over
// the text (linear in its size whatever it holds) and never interpreted further than git would.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msb::git {

// A submodule path as components, or nullopt when it is unusable as a name beneath the
// repository: absolute, empty, or holding "..", ".git" or a NUL (git refuses those too). "."
// and empty components are dropped, so `path = .` and `a/./b` are the top itself and "a/b".
std::optional<std::vector<std::string>> submodule_components(std::string_view path);

struct SubmodulePaths {
  std::vector<std::string> paths;  // values as written, unquoted; in file order, duplicates kept
  bool truncated = false;          // more than `max_paths` values: the rest were not returned
};

// Every `path` key's value in a git config text (any section: naming more is safe), read by the
// config reader (git_config.h) in its lenient mode: a line git would refuse is skipped, the
// rest still read, in one pass.
SubmodulePaths gitmodules_paths(std::string_view text, std::size_t max_paths);

}  // namespace msb::git
