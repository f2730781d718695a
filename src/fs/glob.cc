#include "fs/glob.h"

#include <algorithm>
#include <climits>
#include <iterator>
#include <optional>
#include <set>

#include "common/path.h"

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
  std::size_t groups = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (opens_quote(s[i])) {
      if (!skip_quoted(s, i)) return invalid();
      continue;
    }
    if (s[i] == '{' && (++depth > kMaxGlobBraceDepth || ++groups > kMaxGlobBraceGroups)) {
      return invalid();
    }
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

// Every brace-free alternative of `text`, without duplicates, in no particular order. One group
// is expanded per round in every string still holding one, and duplicates are dropped as soon as
// they appear, so "{a,a}" repeated k times costs k rounds over one string, not 2^k. Each round
// removes one group from every string, so there are at most kMaxGlobBraceGroups rounds, each over
// at most kMaxGlobExpandedBytes. Strings still holding groups count towards the bounds too.
Result<std::vector<std::string>> expand(const std::string& text) {
  std::vector<std::string> done;
  std::size_t done_bytes = 0;
  std::vector<std::string> pending{text};
  while (!pending.empty()) {
    std::set<std::string> next;
    std::size_t next_bytes = 0;
    for (const std::string& s : pending) {
      const auto group = first_group(s, 0);
      if (!group) {
        if (std::find(done.begin(), done.end(), s) != done.end()) continue;
        done_bytes += s.size();
        done.push_back(s);
        continue;
      }
      if (group->close == group->open + 1) return invalid();  // "{}" is almost surely a mistake
      if (group->commas.size() >= kMaxGlobAlternatives) return invalid();
      const std::string_view whole = s;
      const std::string_view prefix = whole.substr(0, group->open);
      const std::string_view suffix = whole.substr(group->close + 1);
      std::size_t begin = group->open + 1;
      std::vector<std::size_t> ends = group->commas;
      ends.push_back(group->close);
      for (const std::size_t end : ends) {
        std::string alternative;
        alternative.reserve(prefix.size() + (end - begin) + suffix.size());
        alternative.append(prefix).append(whole.substr(begin, end - begin)).append(suffix);
        begin = end + 1;
        const std::size_t size = alternative.size();
        if (next.insert(std::move(alternative)).second) next_bytes += size;
      }
      if (done.size() + next.size() > kMaxGlobAlternatives ||
          done_bytes + next_bytes > kMaxGlobExpandedBytes) {
        return invalid();
      }
    }
    pending.assign(std::make_move_iterator(next.begin()), std::make_move_iterator(next.end()));
  }
  return done;
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
  // Every token but a star takes a code point, so a name can meet no more than NAME_MAX of them;
  // this also bounds how far the matcher ever backtracks.
  const auto width = std::count_if(c.tokens.begin(), c.tokens.end(), [](const GlobToken& t) {
    return t.kind != GlobToken::Kind::star;
  });
  if (static_cast<std::size_t>(width) > NAME_MAX) return invalid();
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
    // "**/**" matches what "**" does: one state instead of many, whatever the repetition.
    if (c.value().globstar && !out.empty() && out.back().globstar) continue;
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
// have, so returning to the latest star suffices. The span matched since that star is at most
// the component's width, so the cost is at most the name's length times NAME_MAX. `work` counts
// the steps.
bool match_tokens(const std::vector<GlobToken>& tokens, const std::vector<std::uint32_t>& name,
                  std::size_t& work) {
  std::size_t t = 0;
  std::size_t n = 0;
  std::size_t star = kNpos;
  std::size_t resume = 0;
  while (n < name.size()) {
    ++work;
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

// One name as the components see it: decoded once, however many states test it.
class Name {
 public:
  explicit Name(std::string_view text) : text_(text) {}
  std::string_view text() const noexcept { return text_; }
  // The code points, or nullptr for a name that is not valid UTF-8 (no wildcard matches it).
  const std::vector<std::uint32_t>* codes() {
    if (!decoded_) {
      decoded_ = true;
      valid_ = is_valid_utf8(text_);
      if (valid_) codes_ = decode(text_);
    }
    return valid_ ? &codes_ : nullptr;
  }

 private:
  std::string_view text_;
  bool decoded_ = false;
  bool valid_ = false;
  std::vector<std::uint32_t> codes_;
};

bool component_matches(const GlobComponent& c, Name& name, std::size_t& work) {
  const std::string_view text = name.text();
  ++work;
  if (c.end || text.empty() || (text.front() == '.' && !c.dot_ok)) return false;
  if (c.globstar) return true;
  if (c.is_literal) return text == c.literal;
  const auto* codes = name.codes();
  return codes != nullptr && match_tokens(c.tokens, *codes, work);
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

bool GlobComponent::match(std::string_view text) const {
  Name name(text);
  std::size_t work = 0;
  return component_matches(*this, name, work);
}

Result<GlobMatcher> GlobMatcher::compile(std::string_view pattern, Dots dots) {
  if (pattern.empty() || pattern.size() > kMaxGlobPatternBytes) return invalid();
  if (pattern.find('\0') != kNpos || !is_valid_utf8(pattern)) return invalid();
  std::string text(pattern);
  if (text.front() != '/') text.insert(text.begin(), '/');
  if (auto st = check_braces(text); !st) return st.error();
  auto expanded = expand(text);
  if (!expanded) return expanded.error();
  std::vector<std::vector<GlobComponent>> alternatives;
  for (const std::string& alternative : expanded.value()) {
    auto components = compile_alternative(alternative);
    if (!components) return components.error();
    alternatives.push_back(std::move(components.value()));
  }
  GlobMatcher m;
  const std::size_t base = shared_base_length(alternatives);
  for (std::size_t i = 0; i < base; ++i) m.base_.push_back(alternatives.front()[i].literal);
  for (auto& components : alternatives) {
    m.alternatives_.push_back(static_cast<std::uint32_t>(m.components_.size()));
    for (auto& c : components) {
      if (dots == Dots::wildcards_too) c.dot_ok = true;
      m.components_.push_back(std::move(c));
    }
    GlobComponent end;
    end.end = true;
    m.components_.push_back(std::move(end));
  }
  return m;
}

// Adds the state `at` to sorted, unique `states`, and the one after it when `at` is a "**",
// which may match no directory at all. Callers add states in nearly ascending order (each at
// most two places behind the largest so far), so the insertion point is found in a step or two.
void GlobMatcher::enter(States& states, std::uint32_t at) const {
  const bool skips = components_[at].globstar;
  for (std::uint32_t s = at; s <= at + (skips ? 1u : 0u); ++s) {
    auto it = states.end();
    while (it != states.begin() && *(it - 1) > s) --it;
    if (it != states.begin() && *(it - 1) == s) continue;
    states.insert(it, s);
  }
}

GlobMatcher::States GlobMatcher::starting_at(std::size_t component) const {
  States states;
  for (const std::uint32_t begin : alternatives_) {
    enter(states, begin + static_cast<std::uint32_t>(component));
  }
  return states;
}

GlobMatcher::States GlobMatcher::start() const {
  return starting_at(base_.size());
}

GlobMatcher::States GlobMatcher::step(const States& states, std::string_view text,
                                      std::size_t* work) const {
  States next;
  Name name(text);
  std::size_t steps = 0;
  for (const std::uint32_t s : states) {
    const GlobComponent& c = components_[s];
    if (!component_matches(c, name, steps)) continue;
    // "**" stays where it is to absorb further directories; anything else moves on.
    enter(next, c.globstar ? s : s + 1);
  }
  if (work != nullptr) *work += steps;
  return next;
}

bool GlobMatcher::accepts(const States& states) const noexcept {
  return std::any_of(states.begin(), states.end(),
                     [&](std::uint32_t s) { return components_[s].end; });
}

bool GlobMatcher::can_descend(const States& states) const noexcept {
  return std::any_of(states.begin(), states.end(),
                     [&](std::uint32_t s) { return !components_[s].end; });
}

bool GlobMatcher::matches(std::string_view path) const {
  States states = starting_at(0);
  for (std::string_view name : split_at_slashes(path)) {
    if (states.empty()) break;
    if (!name.empty()) states = step(states, name);
  }
  return accepts(states);
}

}  // namespace msb
