#include "glob.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "path.h"

namespace msb {
namespace {

constexpr std::size_t kNpos = std::string_view::npos;

Error invalid() {
  return Error{Errc::invalid_pattern};
}

std::size_t utf8_length(unsigned char lead) noexcept {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  return 4;
}

// Decodes the code point at `i` of text already checked to be valid UTF-8.
std::uint32_t next_code(std::string_view s, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  const std::size_t len = utf8_length(lead);
  std::uint32_t code = len == 1 ? lead : lead & (0x7Fu >> len);
  for (std::size_t k = 1; k < len && i + k < s.size(); ++k) {
    code = (code << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
  }
  i += len;
  return code;
}

std::vector<std::uint32_t> decode(std::string_view s) {
  std::vector<std::uint32_t> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) out.push_back(next_code(s, i));
  return out;
}

// The index of the ']' closing the set opened at `open`, or kNpos. A ']' right after the
// opening (or its negation) is a member, not the end.
std::size_t set_end(std::string_view s, std::size_t open) {
  std::size_t i = open + 1;
  if (i < s.size() && (s[i] == '!' || s[i] == '^')) ++i;
  if (i < s.size() && s[i] == ']') ++i;
  while (i < s.size()) {
    if (s[i] == '\\') {
      i += 2;
    } else if (s[i] == ']') {
      return i;
    } else {
      ++i;
    }
  }
  return kNpos;
}

bool opens_quote(char c) {
  return c == '\\' || c == '[';
}

// Moves `i` onto the last character of the escape or bracket set starting there; false for a
// malformed one. Braces and slashes inside either are not syntax.
bool skip_quoted(std::string_view s, std::size_t& i) {
  if (s[i] == '\\') {
    if (i + 1 >= s.size()) return false;
    i += 1;
    return true;
  }
  const std::size_t end = set_end(s, i);
  if (end == kNpos) return false;
  i = end;
  return true;
}

Status check_braces(std::string_view s) {
  std::size_t depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (opens_quote(s[i])) {
      if (!skip_quoted(s, i)) return invalid();
      continue;
    }
    if (s[i] == '{' && ++depth > kMaxGlobBraceDepth) return invalid();
    if (s[i] == '}') {
      if (depth == 0) return invalid();
      --depth;
    }
  }
  if (depth != 0) return invalid();
  return ok_status();
}

struct Group {
  std::size_t open = 0;
  std::size_t close = 0;
  std::vector<std::size_t> commas;  // top-level ones only
};

// The first brace group at or after `from`, which must not lie inside an escape or a set.
// Braces are known to be balanced.
std::optional<Group> first_group(std::string_view s, std::size_t from) {
  std::size_t i = from;
  for (; i < s.size(); ++i) {
    if (opens_quote(s[i])) {
      skip_quoted(s, i);
    } else if (s[i] == '{') {
      break;
    }
  }
  if (i >= s.size()) return std::nullopt;
  Group group;
  group.open = i;
  std::size_t depth = 0;
  for (; i < s.size(); ++i) {
    if (opens_quote(s[i])) {
      skip_quoted(s, i);
      continue;
    }
    if (s[i] == '{') ++depth;
    if (s[i] == ',' && depth == 1) group.commas.push_back(i);
    if (s[i] == '}' && --depth == 0) break;
  }
  group.close = i;
  return group;
}

// Every brace-free alternative of `s`, in order, without duplicates. Text before `from` holds
// no group, so each level only scans what its substitution changed.
Status expand(const std::string& s, std::size_t from, std::vector<std::string>& out) {
  const auto group = first_group(s, from);
  if (!group) {
    if (std::find(out.begin(), out.end(), s) != out.end()) return ok_status();
    if (out.size() == kMaxGlobAlternatives) return invalid();
    out.push_back(s);
    return ok_status();
  }
  if (group->close == group->open + 1) return invalid();  // "{}" is almost surely a mistake
  if (group->commas.size() >= kMaxGlobAlternatives) return invalid();
  const std::string prefix = s.substr(0, group->open);
  const std::string suffix = s.substr(group->close + 1);
  std::size_t begin = group->open + 1;
  std::vector<std::size_t> ends = group->commas;
  ends.push_back(group->close);
  for (const std::size_t end : ends) {
    const std::string next = prefix + s.substr(begin, end - begin) + suffix;
    if (auto st = expand(next, group->open, out); !st) return st;
    begin = end + 1;
  }
  return ok_status();
}

// Splits on unescaped slashes; escapes stay in place for the component compiler.
std::vector<std::string_view> split_components(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] == '\\') {
      ++i;
      continue;
    }
    if (i == s.size() || s[i] == '/') {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// One member of a set at `i` (escaped or not), advancing past it.
std::uint32_t set_member(std::string_view s, std::size_t& i) {
  if (s[i] == '\\') ++i;
  return next_code(s, i);
}

Result<GlobToken> compile_set(std::string_view s, std::size_t& i) {
  GlobToken token;
  token.kind = GlobToken::Kind::set;
  const std::size_t end = set_end(s, i);
  if (end == kNpos) return invalid();
  ++i;
  if (s[i] == '!' || s[i] == '^') {
    token.negated = true;
    ++i;
  }
  bool first = true;
  while (first || i < end) {
    first = false;
    const std::uint32_t low = set_member(s, i);
    std::uint32_t high = low;
    if (i + 1 < end && s[i] == '-') {
      ++i;
      high = set_member(s, i);
      if (high < low) return invalid();
    }
    token.ranges.emplace_back(low, high);
  }
  i = end + 1;
  return token;
}

Status add_token(std::string_view s, std::size_t& i, GlobComponent& c) {
  GlobToken token;
  if (s[i] == '*') {
    ++i;
    token.kind = GlobToken::Kind::star;
    if (!c.tokens.empty() && c.tokens.back().kind == token.kind) return ok_status();
  } else if (s[i] == '?') {
    ++i;
    token.kind = GlobToken::Kind::any;
  } else if (s[i] == '[') {
    auto set = compile_set(s, i);
    if (!set) return set.error();
    token = std::move(set.value());
  } else {
    if (s[i] == '\\') ++i;
    // An escaped slash would let a single base component name several directories.
    if (s[i] == '/') return invalid();
    const std::size_t begin = i;
    token.code = next_code(s, i);
    c.literal.append(s.substr(begin, i - begin));
  }
  c.tokens.push_back(std::move(token));
  return ok_status();
}

Result<GlobComponent> compile_component(std::string_view s) {
  GlobComponent c;
  if (s == "**") {
    c.globstar = true;
    return c;
  }
  for (std::size_t i = 0; i < s.size();) {
    if (auto st = add_token(s, i, c); !st) return st.error();
  }
  c.is_literal = std::all_of(c.tokens.begin(), c.tokens.end(),
                             [](const GlobToken& t) { return t.kind == GlobToken::Kind::literal; });
  c.dot_ok = c.tokens.front().kind == GlobToken::Kind::literal && c.tokens.front().code == '.';
  if (c.is_literal && (c.literal == ".." || c.literal.size() > NAME_MAX)) return invalid();
  if (!c.is_literal) c.literal.clear();
  return c;
}

Result<std::vector<GlobComponent>> compile_alternative(std::string_view s) {
  std::vector<GlobComponent> out;
  for (const std::string_view text : split_components(s)) {
    auto c = compile_component(text);
    if (!c) return c.error();
    if (c.value().is_literal && c.value().literal == ".") continue;
    out.push_back(std::move(c.value()));
  }
  return out;
}

bool token_matches(const GlobToken& t, std::uint32_t code) {
  switch (t.kind) {
    case GlobToken::Kind::literal: return t.code == code;
    case GlobToken::Kind::any: return true;
    case GlobToken::Kind::star: return false;
    case GlobToken::Kind::set: break;
  }
  bool in = false;
  for (const auto& [low, high] : t.ranges) in = in || (low <= code && code <= high);
  return in != t.negated;
}

// Greedy with a single resume point: a later "*" can absorb whatever an earlier one would
// have, so returning to the latest star suffices and the cost is at most tokens x name.
bool match_tokens(const std::vector<GlobToken>& tokens, const std::vector<std::uint32_t>& name) {
  std::size_t t = 0;
  std::size_t n = 0;
  std::size_t star = kNpos;
  std::size_t resume = 0;
  while (n < name.size()) {
    if (t < tokens.size() && tokens[t].kind == GlobToken::Kind::star) {
      star = t++;
      resume = n;
    } else if (t < tokens.size() && token_matches(tokens[t], name[n])) {
      ++t;
      ++n;
    } else if (star != kNpos) {
      t = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (t < tokens.size() && tokens[t].kind == GlobToken::Kind::star) ++t;
  return t == tokens.size();
}

std::size_t shared_base_length(const std::vector<std::vector<GlobComponent>>& alternatives) {
  std::size_t length = kNpos;
  for (const auto& a : alternatives) length = std::min(length, a.empty() ? 0 : a.size() - 1);
  const auto& first = alternatives.front();
  for (std::size_t i = 0; i < length; ++i) {
    for (const auto& a : alternatives) {
      if (!a[i].is_literal || a[i].literal != first[i].literal) return i;
    }
  }
  return length;
}

}  // namespace

bool GlobComponent::match(std::string_view name) const {
  if (name.empty() || (name.front() == '.' && !dot_ok)) return false;
  if (globstar) return true;
  if (is_literal) return name == literal;
  if (!is_valid_utf8(name)) return false;
  return match_tokens(tokens, decode(name));
}

Result<GlobMatcher> GlobMatcher::compile(std::string_view pattern) {
  if (pattern.empty() || pattern.size() > kMaxGlobPatternBytes) return invalid();
  if (pattern.find('\0') != kNpos || !is_valid_utf8(pattern)) return invalid();
  std::string text(pattern);
  if (text.front() != '/') text.insert(text.begin(), '/');
  if (auto st = check_braces(text); !st) return st.error();
  std::vector<std::string> expanded;
  if (auto st = expand(text, 0, expanded); !st) return st.error();
  GlobMatcher m;
  for (const std::string& alternative : expanded) {
    auto components = compile_alternative(alternative);
    if (!components) return components.error();
    m.alternatives_.push_back(std::move(components.value()));
  }
  const std::size_t base = shared_base_length(m.alternatives_);
  for (std::size_t i = 0; i < base; ++i) m.base_.push_back(m.alternatives_.front()[i].literal);
  return m;
}

GlobMatcher::States GlobMatcher::close(States states) const {
  // "**" may match no directory at all, so standing before one is also standing after it.
  const std::size_t n = states.size();
  for (std::size_t i = 0; i < n; ++i) {
    State s = states[i];
    const auto& a = alternatives_[s.alternative];
    while (s.component < a.size() && a[s.component].globstar) {
      ++s.component;
      states.push_back(s);
    }
  }
  std::sort(states.begin(), states.end());
  states.erase(std::unique(states.begin(), states.end()), states.end());
  return states;
}

GlobMatcher::States GlobMatcher::start() const {
  States states;
  const auto at = static_cast<std::uint16_t>(base_.size());
  for (std::size_t i = 0; i < alternatives_.size(); ++i) {
    states.push_back(State{static_cast<std::uint16_t>(i), at});
  }
  return close(std::move(states));
}

GlobMatcher::States GlobMatcher::step(const States& states, std::string_view name) const {
  States next;
  for (const State& s : states) {
    const auto& a = alternatives_[s.alternative];
    if (s.component == a.size() || !a[s.component].match(name)) continue;
    // "**" stays where it is to absorb further directories; anything else moves on.
    const bool stays = a[s.component].globstar;
    next.push_back(State{s.alternative, static_cast<std::uint16_t>(s.component + (stays ? 0 : 1))});
  }
  return close(std::move(next));
}

bool GlobMatcher::accepts(const States& states) const noexcept {
  return std::any_of(states.begin(), states.end(), [&](const State& s) {
    return s.component == alternatives_[s.alternative].size();
  });
}

bool GlobMatcher::can_descend(const States& states) const noexcept {
  return std::any_of(states.begin(), states.end(), [&](const State& s) {
    return s.component < alternatives_[s.alternative].size();
  });
}

bool GlobMatcher::matches(std::string_view path) const {
  States states;
  for (std::size_t i = 0; i < alternatives_.size(); ++i) {
    states.push_back(State{static_cast<std::uint16_t>(i), 0});
  }
  states = close(std::move(states));
  for (std::size_t start = 0; start <= path.size() && !states.empty();) {
    std::size_t slash = path.find('/', start);
    if (slash == kNpos) slash = path.size();
    if (slash > start) states = step(states, path.substr(start, slash - start));
    start = slash + 1;
  }
  return accepts(states);
}

}  // namespace msb
