// ripgrep's file types for the common languages (its -t): a name for a set of file-name globs,
// matched against a file's name. The table follows ripgrep 14's defaults, so that `type: 'js'`
// searches what `rg -t js` searches (.mjs and .cjs included).
#pragma once

#include <span>
#include <string_view>

namespace msb {

struct FileType {
  std::string_view name;
  std::string_view globs;  // separated by ","
};

// Every type, by name.
std::span<const FileType> file_types() noexcept;

// The type named `name`, or nullptr.
const FileType* find_file_type(std::string_view name) noexcept;

}  // namespace msb
