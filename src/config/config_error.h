// Where a config problem is: shared by the tree readers (YAML, JSON) and the typed model.
#pragma once

#include <cstdint>
#include <string>

namespace msb {

// Where a config problem is, and what was expected there. `line`/`column` are 1-based (0 when
// the problem has no single place, such as an unreadable file). `key_path` is written the way a
// user would point at it: "sandbox.mounts[1].target". `expected` is a short phrase completing
// "expected ...": "a boolean", "one of preApproved, ask, blocked", "no duplicate of /data".
struct ConfigError {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string key_path;
  std::string expected;
};

}  // namespace msb
