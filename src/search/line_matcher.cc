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

bool is_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// ripgrep's -w: a match with a non-word character, or the line's edge, on each side; the
// match itself is group 1.
constexpr std::string_view kWordBefore = "(?:^|\\W)(";
constexpr std::string_view kWordAfter = ")(?:$|\\W)";

std::string word_pattern(std::string_view pattern, bool literal) {
  std::string out(kWordBefore);
  out.append(literal ? RE2::QuoteMeta(re2::StringPiece(pattern.data(), pattern.size()))
                     : std::string(pattern));
  out.append(kWordAfter);
  return out;
}

std::unique_ptr<RE2> compiled(const std::string& text, const RE2::Options& options) {
  return std::make_unique<RE2>(text, options);
}

}  // namespace

Result<LineMatcher> LineMatcher::compile(std::string_view pattern, bool literal, bool ignore_case,
                                         bool word) {
  if (pattern.empty()) return refused("empty", Error::kNoIndex);
  if (auto at = line_feed_at(pattern, literal)) return refused("line-break", *at);
  RE2::Options options;
  options.set_case_sensitive(!ignore_case);
  options.set_log_errors(false);  // the core never prints
  options.set_never_nl(true);     // a match never spans a line ending
  options.set_max_mem(64 << 20);
  LineMatcher out;
  if (literal && !word) {
    options.set_literal(true);
    out.regex_ = compiled(std::string(pattern), options);
    if (!out.regex_->ok()) return re2_refusal(*out.regex_, pattern);
    return out;
  }
  const std::string source = word ? word_pattern(pattern, literal) : std::string(pattern);
  auto forms = with_unicode_classes(source);
  if (!forms) {
    Error e = forms.error();  // its offset in the caller's pattern, not in the word wrapping
    if (word && e.offset != Error::kNoIndex) e.offset -= kWordBefore.size();
    return e;
  }
  // Line by line, as grep: "^" and "$" at every line's start and end.
  const std::string mode(kLineMode);
  auto exact = compiled(mode + forms.value().re2, options);
  if (!exact->ok()) return re2_refusal(*exact, pattern);
  out.group_ = word ? 1 : 0;
  if (!forms.value().has_unicode_boundary()) {
    out.regex_ = std::move(exact);
    return out;
  }
  out.regex_ = compiled(mode + forms.value().loose, options);
  if (!out.regex_->ok()) return re2_refusal(*out.regex_, pattern);
  auto verifier = BoundaryVerifier::compile(forms.value().pcre2, ignore_case);
  if (!verifier) return verifier.error();
  out.exact_ = std::move(exact);
  out.verifier_ = std::make_unique<BoundaryVerifier>(std::move(verifier.value()));
  return out;
}

bool LineMatcher::decided(std::string_view line, std::uint64_t& undecided) const {
  if (is_ascii(line)) return RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *exact_);
  switch (verifier_->matches(line)) {
    case Verdict::match: return true;
    case Verdict::no_match: return false;
    case Verdict::gave_up: ++undecided; return false;
  }
  return false;
}

std::optional<LineMatcher::Line> LineMatcher::next_match(std::string_view text, std::size_t from,
                                                         std::uint64_t& undecided) const {
  const re2::StringPiece whole(text.data(), text.size());
  // Lines end at "\n"; the empty rest after a final "\n" is no line (ripgrep's count).
  while (from < text.size()) {
    re2::StringPiece found;
    if (!regex_->Match(whole, from, text.size(), RE2::UNANCHORED, &found, 1)) return std::nullopt;
    const auto at = static_cast<std::size_t>(found.data() - text.data());
    // An empty match after the final "\n" is in no line ("^$" on "a\n").
    if (at == text.size() && at > 0 && text[at - 1] == '\n') return std::nullopt;
    Line line{0, text.find('\n', at)};
    if (line.end == std::string_view::npos) line.end = text.size();
    if (at > 0) {
      const auto newline = text.rfind('\n', at - 1);
      if (newline != std::string_view::npos) line.start = newline + 1;
    }
    if (!verifier_ || decided(text.substr(line.start, line.end - line.start), undecided)) {
      return line;
    }
    from = line.end + 1;
  }
  return std::nullopt;
}

LineMatcher::Lines LineMatcher::matching_lines(std::string_view text, std::size_t limit,
                                               bool invert) const {
  Lines out;
  for (std::size_t from = 0; from < text.size() && out.starts.size() < limit;) {
    const auto line = next_match(text, from, out.undecided);
    if (!invert) {
      if (!line) break;
      out.starts.push_back(line->start);
    } else {
      // Every line from `from` up to the match's.
      const std::size_t stop = line ? line->start : text.size();
      for (std::size_t at = from; at < stop && out.starts.size() < limit;) {
        out.starts.push_back(at);
        const auto newline = text.find('\n', at);
        if (newline == std::string_view::npos) break;
        at = newline + 1;
      }
      if (!line) break;
    }
    from = line->end + 1;
  }
  return out;
}

std::vector<MatchSpan> LineMatcher::spans(std::string_view line) const {
  if (verifier_ && !is_ascii(line)) return verifier_->spans(line, group_);
  const RE2& regex = verifier_ ? *exact_ : *regex_;
  const re2::StringPiece whole(line.data(), line.size());
  re2::StringPiece found[2];
  std::vector<MatchSpan> out;
  for (std::size_t from = 0; from <= line.size();) {
    if (!regex.Match(whole, from, line.size(), RE2::UNANCHORED, found, group_ + 1)) break;
    const re2::StringPiece& match = found[group_];
    const auto start = static_cast<std::size_t>(match.data() - line.data());
    if (!match.empty()) out.push_back({start, start + match.size()});
    // On from the match's end (a word match's trailing non-word character may begin the next),
    // a character on past an empty match.
    std::size_t next = start + match.size();
    if (next <= from) {
      next = from + 1;
      while (next < line.size() && (static_cast<unsigned char>(line[next]) & 0xC0) == 0x80) ++next;
    }
    from = next;
  }
  return out;
}

}  // namespace msb
