// ripgrep's Perl classes are Unicode-aware, RE2's are ASCII: `\w` must match "é", `\d` the
// Arabic-Indic and full-width digits, `\s` a no-break space. A pattern is rewritten before RE2
// compiles it, each class into the Unicode properties ripgrep's engine gives it:
//   \d  \p{Nd}                                 \D  \P{Nd}
//   \s  [\t\n\v\f\r\x{85}\p{Z}] (White_Space)  \S  its complement
//   \w  [\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}\x{24B6}-\x{24E9}] (Alphabetic, marks,
//       digits, connectors, join controls)     \W  its complement
// outside and inside a bracketed set alike (`[\w-]`), while `(?-u)` or `(?-u:...)` keeps
// RE2's ASCII classes where ripgrep's ASCII mode would.
//
// `\b` and `\B` take a word to be made of those `\w` characters too, which no RE2 pattern can
// say (RE2's boundaries are ASCII, and it has no look-around). A pattern with one is therefore
// given in three forms: RE2's own (exact on a line of ASCII text, where both definitions agree),
// a looser one for RE2 with the boundaries left out (it matches every line the pattern matches,
// and more), and one for PCRE2 with each boundary written as look-around on the `\w` class, which
// decides the lines of other text the loose form finds (line_matcher.h).
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"

namespace msb {

struct UnicodePattern {
  std::string re2;  // the classes rewritten; `\b` and `\B` RE2's (ASCII words)
  // Only where the pattern has a Unicode `\b` or `\B` (outside `(?-u)`), otherwise empty:
  std::string loose;  // for RE2, each such boundary left out (may leave it empty)
  std::string pcre2;  // for PCRE2 (UTF mode, no UCP), each such boundary as look-around on `\w`
  bool has_unicode_boundary() const noexcept { return !pcre2.empty(); }
};

// invalid_pattern, with Error::pattern_problem "negated-class-in-set" and its offset, for `\W`
// or `\S` inside a bracketed set (RE2 cannot take the complement of a union there; `[^\w...]`
// says the same); the rewritten pattern otherwise. Syntax errors are left for RE2 to report.
Result<UnicodePattern> with_unicode_classes(std::string_view pattern);

}  // namespace msb
