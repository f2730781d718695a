// The lines of a text that a pattern matches, found by RE2 (a linear-time engine: no pattern
// backtracks) over the whole text at once and widened to their lines, as ripgrep does, so a file
// without a match costs one pass of RE2's scanner and its literal prefilter.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace re2 {
class RE2;
}

namespace msb {

class LineMatcher {
 public:
  // invalid_pattern for a pattern refused as ripgrep refuses it, with Error::pattern_problem
  // saying why and Error::offset where (bytes into `pattern`): "line-break" (a "\n" written in
  // it: each line is matched on its own), "backreference", "lookaround", "too-large", or
  // "syntax" (anything else RE2's parser refuses: an unclosed group or set, a bad escape or
  // repetition); "empty" for an empty pattern.
  static Result<LineMatcher> compile(std::string_view pattern, bool literal, bool ignore_case);
  LineMatcher(LineMatcher&&) noexcept;
  LineMatcher& operator=(LineMatcher&&) noexcept;
  ~LineMatcher();

  // The byte offsets of the starts of the lines with a match, ascending, at most `limit`.
  std::vector<std::size_t> matching_lines(std::string_view text, std::size_t limit) const;

 private:
  LineMatcher() = default;
  std::unique_ptr<re2::RE2> regex_;
};

}  // namespace msb
