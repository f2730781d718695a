// Where a match lies in its line.
#pragma once

#include <cstddef>

namespace msb {

struct MatchSpan {
  std::size_t start = 0;  // bytes into the line
  std::size_t end = 0;
};

}  // namespace msb
