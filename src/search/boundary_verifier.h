// The last word on a line that the loose form of a pattern with Unicode `\b` or `\B` matched
// (unicode_classes.h): PCRE2, in UTF mode, with the boundaries written as look-around on `\w`.
// It runs only on such candidate lines of non-ASCII text, JIT-compiled where the CPU allows, and
// bounded by a match limit, so that no pattern can backtrack for long: a line it gives up on is
// counted, never guessed.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "search/match_span.h"

namespace msb {

enum class Verdict : std::uint8_t { match, no_match, gave_up };

class BoundaryVerifier {
 public:
  // invalid_pattern ("syntax") where PCRE2 refuses what RE2 took.
  static Result<BoundaryVerifier> compile(const std::string& pattern, bool ignore_case);
  BoundaryVerifier(BoundaryVerifier&&) noexcept;
  BoundaryVerifier& operator=(BoundaryVerifier&&) noexcept;
  ~BoundaryVerifier();

  // Whether `line` (no line ending) holds a match.
  Verdict matches(std::string_view line) const;
  // The spans of its matches, left to right, of capture group `group` (0: the whole match);
  // empty where it gave up.
  std::vector<MatchSpan> spans(std::string_view line, int group) const;

 private:
  struct Compiled;
  BoundaryVerifier() = default;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace msb
