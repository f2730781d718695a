// ripgrep's Perl classes are Unicode-aware, RE2's are ASCII: `\w` must match "é", `\d` the
// Arabic-Indic and full-width digits, `\s` a no-break space. A pattern is rewritten before RE2
// compiles it, each class into the Unicode properties ripgrep's engine gives it:
//   \d  \p{Nd}                                 \D  \P{Nd}
//   \s  [\t\n\v\f\r\x{85}\p{Z}] (White_Space)  \S  its complement
//   \w  [\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}\x{24B6}-\x{24E9}] (Alphabetic, marks,
//       digits, connectors, join controls)     \W  its complement
// outside and inside a bracketed set alike (`[\w-]`), while `(?-u)` or `(?-u:...)` keeps
// RE2's ASCII classes where ripgrep's ASCII mode would. `\b` and `\B` stay RE2's (ASCII words).
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"

namespace msb {

// invalid_pattern, with Error::pattern_problem "negated-class-in-set" and its offset, for `\W`
// or `\S` inside a bracketed set (RE2 cannot take the complement of a union there; `[^\w...]`
// says the same); the rewritten pattern otherwise. Syntax errors are left for RE2 to report.
Result<std::string> with_unicode_classes(std::string_view pattern);

}  // namespace msb
