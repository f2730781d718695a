// The YAML reader for config and worker files: yaml-cpp's parse events built into the located
// tree of config_tree.h.
#pragma once

#include <string_view>

#include "common/error.h"
#include "config/config_error.h"
#include "config/config_tree.h"

namespace msb {

// Rejects input over kMaxConfigBytes, nesting deeper than kMaxConfigDepth, duplicate and
// non-string keys, strings with NUL or ill-formed UTF-8, anchors, aliases, several documents and
// tags other than !!str. A leading UTF-8 byte order mark is skipped. An empty document is a null
// node at line 1, column 1. Syntax errors have key_path "".
Result<ConfigNode, ConfigError> parse_yaml(std::string_view text);

}  // namespace msb
