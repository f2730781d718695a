// The JSON reader for config files: simdjson's on-demand parser, walked into the located tree of
// config_tree.h.
#pragma once

#include <optional>
#include <string_view>

#include "common/error.h"
#include "config/config_error.h"
#include "config/config_tree.h"

namespace msb {

// Rejects input over kMaxConfigBytes, nesting deeper than kMaxConfigDepth, duplicate keys,
// strings with NUL or ill-formed UTF-8 and numbers that overflow a double. A leading UTF-8 byte
// order mark is skipped. Syntax errors have key_path "".
Result<ConfigNode, ConfigError> parse_json(std::string_view text);

// The first place where `text` is not JSON (RFC 8259), without regard to size, depth or content:
// parse_json's walk checking syntax alone. parse_json reports this error, when there is one,
// before any about content (duplicate keys, NUL, depth, numbers out of range). Past 2048 levels
// of nesting the walk stops: simdjson's verdict is had there, placed at the level it stopped at.
std::optional<ConfigError> json_syntax_error(std::string_view text);

}  // namespace msb
