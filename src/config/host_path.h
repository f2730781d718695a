// Host paths written in a config file, resolved against a directory and normalized lexically:
// nothing here touches the disk. Internal to src/config.
#pragma once

#include <string>
#include <string_view>

namespace msb {

// `base` is absolute; `path` may be absolute or relative to it.
std::string resolve_host(std::string_view base, std::string_view path);

// The directory an absolute file path lies in.
std::string parent_dir(std::string_view file);

// Whether a relative path, read lexically, never climbs above its starting directory.
bool stays_inside(std::string_view relative);

}  // namespace msb
