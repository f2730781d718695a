#include "search/line_matcher.h"

#include <re2/re2.h>

#include <utility>

namespace msb {

LineMatcher::LineMatcher(LineMatcher&&) noexcept = default;
LineMatcher& LineMatcher::operator=(LineMatcher&&) noexcept = default;
LineMatcher::~LineMatcher() = default;

Result<LineMatcher> LineMatcher::compile(std::string_view pattern, bool literal, bool ignore_case) {
  if (pattern.empty()) return Errc::invalid_pattern;
  RE2::Options options;
  options.set_literal(literal);
  options.set_case_sensitive(!ignore_case);
  options.set_log_errors(false);  // the core never prints
  options.set_never_nl(true);     // a match never spans a line ending
  options.set_max_mem(64 << 20);
  LineMatcher out;
  // Line by line, as grep: "^" and "$" at every line's start and end.
  std::string text = literal ? std::string(pattern) : "(?m)" + std::string(pattern);
  if (!literal) options.set_posix_syntax(false);
  out.regex_ = std::make_unique<RE2>(text, options);
  if (!out.regex_->ok()) return Errc::invalid_pattern;
  return out;
}

std::vector<std::size_t> LineMatcher::matching_lines(std::string_view text,
                                                     std::size_t limit) const {
  std::vector<std::size_t> starts;
  const re2::StringPiece whole(text.data(), text.size());
  std::size_t from = 0;
  // Lines end at "\n"; the empty rest after a final "\n" is no line (ripgrep's count).
  while (from < text.size() && starts.size() < limit) {
    re2::StringPiece found;
    if (!regex_->Match(whole, from, text.size(), RE2::UNANCHORED, &found, 1)) break;
    const auto at = static_cast<std::size_t>(found.data() - text.data());
    // An empty match after the final "\n" is in no line ("^$" on "a\n").
    if (at == text.size() && at > 0 && text[at - 1] == '\n') break;
    std::size_t start = 0;
    if (at > 0) {
      const auto newline = text.rfind('\n', at - 1);
      if (newline != std::string_view::npos) start = newline + 1;
    }
    starts.push_back(start);
    const auto line_end = text.find('\n', at + found.size());
    if (line_end == std::string_view::npos) break;
    from = line_end + 1;
  }
  return starts;
}

}  // namespace msb
