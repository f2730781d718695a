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

#include "common/error.h"

namespace msb {

// Bounds that keep compilation and matching cheap whatever a worker sends: braces expand to at
// most this many alternatives, nested at most this deep, from at most this many groups, into at
// most this many bytes in all. Expansion then costs at most groups x bytes, however the groups
// repeat (2^k spellings of one name are never enumerated) or nest.
inline constexpr std::size_t kMaxGlobAlternatives = 64;
inline constexpr std::size_t kMaxGlobBraceDepth = 4;
inline constexpr std::size_t kMaxGlobPatternBytes = 4096;
inline constexpr std::size_t kMaxGlobBraceGroups = 64;
inline constexpr std::size_t kMaxGlobExpandedBytes = 8192;

// One element of a component: a code point, "?", "*", or a bracket set.
struct GlobToken {
  enum class Kind : std::uint8_t { literal, any, star, set };
  Kind kind = Kind::literal;
  bool negated = false;                                         // set: matches what is not listed
  std::uint32_t code = 0;                                       // literal
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // set: inclusive ranges
};

// A component, compiled: either "**", a plain name, or tokens matched over code points. The
// last component of each alternative is an `end` marker: a state standing there has matched.
struct GlobComponent {
  bool globstar = false;
  bool is_literal = false;  // no wildcard: compared byte for byte with `literal`
  bool dot_ok = false;      // starts with a literal '.', so it may match dot names
  bool end = false;
  std::string literal;
  std::vector<GlobToken> tokens;
  bool match(std::string_view name) const;
};

// Matching is a set of states stepped one name at a time: each name costs one test per state,
// and there are never more states than components (consecutive "**" are one), so no pattern
// makes a name's cost grow faster than the pattern's size times the name's.
class GlobMatcher {
 public:
  // Positions in the compiled components (all alternatives in one array), sorted, unique.
  using States = std::vector<std::uint32_t>;

  // invalid_pattern for empty or over-long patterns, NUL, ill-formed UTF-8, "..", unbalanced
  // brackets or braces, a trailing backslash, reversed ranges, components no name can match
  // (longer than NAME_MAX), and braces beyond the bounds above.
  // `dots`: literal_only (glob's rule above) or wildcards_too, git's wildmatch, where "*", "?",
  // a set and "**" match names starting with "." as any other (.gitignore files).
  enum class Dots : std::uint8_t { literal_only, wildcards_too };
  static Result<GlobMatcher> compile(std::string_view pattern, Dots dots = Dots::literal_only);

  // The directory every match lies in or below: the leading literal components all
  // alternatives share, never including an alternative's last component.
  const std::vector<std::string>& base() const noexcept { return base_; }
  // The states at base(), before any name below it is consumed.
  States start() const;
  // The states after descending into (or reaching) the entry `name` from `states`. `work`, if
  // given, grows by the number of elementary steps the match took, for callers that budget.
  States step(const States& states, std::string_view name, std::size_t* work = nullptr) const;
  // True when the path that led to `states` matches.
  bool accepts(const States& states) const noexcept;
  // True when some path below the one that led to `states` could still match.
  bool can_descend(const States& states) const noexcept;

  // Whole-path answer for an absolute, normalized virtual path ("/" for the root).
  bool matches(std::string_view path) const;

 private:
  States starting_at(std::size_t component) const;
  void enter(States& states, std::uint32_t at) const;
  std::vector<GlobComponent> components_;
  std::vector<std::uint32_t> alternatives_;  // where each alternative begins in components_
  std::vector<std::string> base_;
};

}  // namespace msb
