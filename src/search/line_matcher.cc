#include "search/line_matcher.h"

#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "search/unicode_classes.h"

namespace msb {

LineMatcher::LineMatcher(LineMatcher&&) noexcept = default;
LineMatcher& LineMatcher::operator=(LineMatcher&&) noexcept = default;
LineMatcher::~LineMatcher() = default;

namespace {

constexpr std::string_view kLineMode = "(?m)";

Error refused(const char* problem, std::size_t offset) {
  Error e{Errc::invalid_pattern};
  e.pattern_problem = problem;
  e.offset = offset;
  return e;
}

bool octal_line_feed(std::string_view digits) {
  std::size_t n = 0;
  while (n < digits.size() && n < 3 && digits[n] >= '0' && digits[n] <= '7') ++n;
  // \1 to \9 alone are backreferences; \12 and \012 are octal 10.
  return (n == 2 && digits.substr(0, 2) == "12") || (n == 3 && digits.substr(0, 3) == "012");
}

bool hex_line_feed(std::string_view rest) {
  std::size_t from = 0;
  std::size_t to = 0;
  if (!rest.empty() && rest.front() == '{') {
    from = 1;
    to = rest.find('}');
    if (to == std::string_view::npos) return false;
  } else {
    to = std::min<std::size_t>(2, rest.size());
  }
  std::string_view hex = rest.substr(from, to - from);
  while (hex.size() > 1 && hex.front() == '0') hex.remove_prefix(1);
  return hex == "a" || hex == "A";
}

// Where the pattern writes a line feed (a raw one, "\n", "\x0a", "\x{a}", "\012"), outside
// a \Q...\E quotation: such a pattern could only match across lines, which no line can hold.
std::optional<std::size_t> line_feed_at(std::string_view pattern, bool literal) {
  if (literal) {
    const auto at = pattern.find('\n');
    return at == std::string_view::npos ? std::nullopt : std::optional<std::size_t>(at);
  }
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\n') return i;
    if (pattern[i] != '\\' || i + 1 == pattern.size()) continue;
    const char next = pattern[i + 1];
    const std::string_view rest = pattern.substr(i + 2);
    if (next == 'n' || (next == 'x' && hex_line_feed(rest)) ||
        (next >= '0' && next <= '7' && octal_line_feed(pattern.substr(i + 1)))) {
      return i;
    }
    if (next == 'Q') {
      const auto end = pattern.find("\\E", i + 2);
      const auto quoted = pattern.substr(i + 2, end == std::string_view::npos ? end : end - i - 2);
      if (const auto raw = quoted.find('\n'); raw != std::string_view::npos) return i + 2 + raw;
      if (end == std::string_view::npos) break;
      i = end + 1;
      continue;
    }
    ++i;  // the escaped character is no escape itself
  }
  return std::nullopt;
}

// RE2's refusal as ripgrep words it: its fragment located in the pattern as written.
Error re2_refusal(const RE2& regex, std::string_view pattern) {
  std::string_view fragment = regex.error_arg();
  // What compile() put before the pattern is not the caller's.
  if (fragment.starts_with(kLineMode)) fragment.remove_prefix(kLineMode.size());
  // RE2 names a Perl operator by its first three bytes: the one it refused is the first of them
  // that is not a named group.
  if (fragment == "(?P") fragment = "(?P=";
  if (fragment == "(?<") {
    const auto ahead = pattern.find("(?<=");
    const auto behind = pattern.find("(?<!");
    fragment = ahead < behind ? "(?<=" : "(?<!";
  }
  const auto found = fragment.empty() ? std::string_view::npos : pattern.find(fragment);
  const std::size_t at = found == std::string_view::npos ? Error::kNoIndex : found;
  switch (regex.error_code()) {
    case RE2::ErrorBadEscape:
      if (fragment.size() == 2 && fragment[1] >= '1' && fragment[1] <= '9')
        return refused("backreference", at);
      break;
    case RE2::ErrorBadPerlOp:
      if (at == Error::kNoIndex) break;  // "(?<name>": not a look-behind
      if (fragment == "(?=" || fragment == "(?!" || fragment == "(?<=" || fragment == "(?<!")
        return refused("lookaround", at);
      if (fragment == "(?P=") return refused("backreference", at);
      break;
    case RE2::ErrorPatternTooLarge: return refused("too-large", Error::kNoIndex);
    default: break;
  }
  return refused("syntax", at);
}

}  // namespace

Result<LineMatcher> LineMatcher::compile(std::string_view pattern, bool literal, bool ignore_case) {
  if (pattern.empty()) return refused("empty", Error::kNoIndex);
  if (auto at = line_feed_at(pattern, literal)) return refused("line-break", *at);
  RE2::Options options;
  options.set_literal(literal);
  options.set_case_sensitive(!ignore_case);
  options.set_log_errors(false);  // the core never prints
  options.set_never_nl(true);     // a match never spans a line ending
  options.set_max_mem(64 << 20);
  LineMatcher out;
  // Line by line, as grep: "^" and "$" at every line's start and end.
  std::string text;
  if (literal) {
    text = std::string(pattern);
  } else {
    auto unicode = with_unicode_classes(pattern);
    if (!unicode) return unicode.error();
    text = std::string(kLineMode) + unicode.value();
  }
  if (!literal) options.set_posix_syntax(false);
  out.regex_ = std::make_unique<RE2>(text, options);
  if (!out.regex_->ok()) return re2_refusal(*out.regex_, pattern);
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
