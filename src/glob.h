// Glob patterns over virtual paths, compiled once and matched one path component at a time, so
// a directory walk can prune every subtree no pattern can reach. Pure: no disk access.
//
// Syntax: "*" (any run of characters within a name), "?" (one character), "[abc]", "[a-z]",
// "[!x]" / "[^x]", "{a,b}" (alternatives, may span "/"), "\x" (x literally), and "**" as a whole
// component for zero or more directories. Names starting with "." are matched only by
// components that start with a literal ".", and "**" never passes through them. Patterns are
// virtual paths; a relative pattern is taken relative to "/".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "error.h"

namespace msb {

// Bounds that keep compilation and matching cheap whatever a worker sends: braces expand to at
// most this many alternatives, nested at most this deep.
inline constexpr std::size_t kMaxGlobAlternatives = 64;
inline constexpr std::size_t kMaxGlobBraceDepth = 4;
inline constexpr std::size_t kMaxGlobPatternBytes = 4096;

// One element of a component: a code point, "?", "*", or a bracket set.
struct GlobToken {
  enum class Kind : std::uint8_t { literal, any, star, set };
  Kind kind = Kind::literal;
  bool negated = false;                                         // set: matches what is not listed
  std::uint32_t code = 0;                                       // literal
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // set: inclusive ranges
};

// A component, compiled: either "**", a plain name, or tokens matched over code points.
struct GlobComponent {
  bool globstar = false;
  bool is_literal = false;  // no wildcard: compared byte for byte with `literal`
  bool dot_ok = false;      // starts with a literal '.', so it may match dot names
  std::string literal;
  std::vector<GlobToken> tokens;
  bool match(std::string_view name) const;
};

class GlobMatcher {
 public:
  // Where each alternative stands: its index and how many of its components are consumed.
  struct State {
    std::uint16_t alternative = 0;
    std::uint16_t component = 0;
    auto operator<=>(const State&) const = default;
  };
  using States = std::vector<State>;  // sorted, unique

  // invalid_pattern for empty or over-long patterns, NUL, ill-formed UTF-8, "..", unbalanced
  // brackets or braces, a trailing backslash, reversed ranges, and too many or too deeply
  // nested alternatives.
  static Result<GlobMatcher> compile(std::string_view pattern);

  // The directory every match lies in or below: the leading literal components all
  // alternatives share, never including an alternative's last component.
  const std::vector<std::string>& base() const noexcept { return base_; }
  // The states at base(), before any name below it is consumed.
  States start() const;
  // The states after descending into (or reaching) the entry `name` from `states`.
  States step(const States& states, std::string_view name) const;
  // True when the path that led to `states` matches.
  bool accepts(const States& states) const noexcept;
  // True when some path below the one that led to `states` could still match.
  bool can_descend(const States& states) const noexcept;

  // Whole-path answer for an absolute, normalized virtual path ("/" for the root).
  bool matches(std::string_view path) const;

 private:
  States close(States states) const;
  std::vector<std::vector<GlobComponent>> alternatives_;
  std::vector<std::string> base_;
};

}  // namespace msb
