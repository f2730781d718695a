// The rules of one .gitignore or .ignore file, as git reads them: a pattern without a "/" (but a
// trailing one) matches a name at any depth below the file's directory, one with a "/" the path
// from that directory; a trailing "/" matches directories only; "!" re-includes; the last rule
// that matches decides. Patterns are the core's globs (glob.h) with git's rule for dots: "*"
// matches a leading "." as any other character (`*.bak` covers `.x.bak`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fs/glob.h"

namespace msb {

// "/" + `rel`: a path below some directory, as the glob matcher takes paths.
std::string rooted(std::string_view rel);

class IgnoreRules {
 public:
  // Lines that are not patterns the glob compiler takes are passed over, as git passes over
  // what it cannot use.
  static IgnoreRules parse(std::string_view text);

  // For the entry at `rel` (below the file's directory, "/"-separated) named `name`: true when
  // ignored, false when re-included, std::nullopt when no rule speaks of it.
  std::optional<bool> verdict(std::string_view rel, std::string_view name, bool is_dir) const;
  bool empty() const noexcept { return rules_.empty(); }

 private:
  struct Rule {
    GlobMatcher matcher;
    bool negated = false;
    bool dir_only = false;
    bool by_name = false;
  };
  std::vector<Rule> rules_;
};

}  // namespace msb
