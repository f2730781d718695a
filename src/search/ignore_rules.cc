#include "search/ignore_rules.h"

#include <utility>

namespace msb {
namespace {

// A line without its unescaped trailing spaces, as git reads it.
std::string_view trimmed(std::string_view line) {
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  while (!line.empty() && line.back() == ' ' &&
         !(line.size() >= 2 && line[line.size() - 2] == '\\')) {
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

std::string rooted(std::string_view rel) {
  std::string out;
  out.reserve(rel.size() + 1);
  out.push_back('/');
  out.append(rel);
  return out;
}

IgnoreRules IgnoreRules::parse(std::string_view text) {
  IgnoreRules out;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = trimmed(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    Rule rule;
    if (line.front() == '!') {
      rule.negated = true;
      line.remove_prefix(1);
    } else if (line.front() == '\\' && line.size() > 1 && (line[1] == '#' || line[1] == '!')) {
      line.remove_prefix(1);
    }
    while (!line.empty() && line.back() == '/') {
      rule.dir_only = true;
      line.remove_suffix(1);
    }
    if (line.empty()) continue;
    rule.by_name = line.find('/') == std::string_view::npos;
    while (!line.empty() && line.front() == '/') line.remove_prefix(1);
    if (line.empty()) continue;
    auto matcher = GlobMatcher::compile(rooted(line), GlobMatcher::Dots::wildcards_too);
    if (!matcher) continue;
    rule.matcher = std::move(matcher.value());
    out.rules_.push_back(std::move(rule));
  }
  return out;
}

std::optional<bool> IgnoreRules::verdict(std::string_view rel, std::string_view name,
                                         bool is_dir) const {
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    const std::string path = rooted(it->by_name ? name : rel);
    if (it->matcher.matches(path)) return !it->negated;
  }
  return std::nullopt;
}

}  // namespace msb
