// The lines of a text that a pattern matches, found by RE2 (a linear-time engine: no pattern
// backtracks) over the whole text at once and widened to their lines, as ripgrep does, so a file
// without a match costs one pass of RE2's scanner and its literal prefilter. A pattern with a
// Unicode word boundary is found by its loose form, and each line found is then decided by RE2's
// own form where the line is ASCII, by PCRE2 where it is not (unicode_classes.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "search/boundary_verifier.h"

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
  // `word`: only matches with no word character just before or after them (ripgrep's -w).
  static Result<LineMatcher> compile(std::string_view pattern, bool literal, bool ignore_case,
                                     bool word = false);
  LineMatcher(LineMatcher&&) noexcept;
  LineMatcher& operator=(LineMatcher&&) noexcept;
  ~LineMatcher();

  struct Lines {
    std::vector<std::size_t> starts;  // byte offsets, ascending
    std::uint64_t undecided = 0;      // lines PCRE2 gave up on (boundary_verifier.h)
  };
  // The starts of the lines with a match (`invert`: without one), at most `limit`.
  Lines matching_lines(std::string_view text, std::size_t limit, bool invert = false) const;

  // Where in `line` (no line ending) its matches lie, left to right; a word match without the
  // characters around it. Empty matches are left out.
  std::vector<MatchSpan> spans(std::string_view line) const;

 private:
  struct Line {
    std::size_t start;
    std::size_t end;  // its "\n", or the text's end
  };
  LineMatcher() = default;
  std::optional<Line> next_match(std::string_view text, std::size_t from,
                                 std::uint64_t& undecided) const;
  bool decided(std::string_view line, std::uint64_t& undecided) const;

  std::unique_ptr<re2::RE2> regex_;  // finds lines; the loose form where there is a verifier
  std::unique_ptr<re2::RE2> exact_;  // RE2's form, for ASCII lines, where there is a verifier
  std::unique_ptr<BoundaryVerifier> verifier_;
  int group_ = 0;  // the capture group that is the match (1 in a word search)
};

}  // namespace msb
