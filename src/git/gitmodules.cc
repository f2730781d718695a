#include "git/gitmodules.h"

#include <cctype>

namespace msb::git {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

bool key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
}

bool key_is_path(std::string_view key) {
  static constexpr std::string_view kPath = "path";
  if (key.size() != kPath.size()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(key[i])) != kPath[i]) return false;
  }
  return true;
}

// One forward pass over a config text, as git's own parser reads it: each character is looked
// at once, so the time is linear in the text whatever it holds.
class ConfigScanner {
 public:
  explicit ConfigScanner(std::string_view text) : text_(text) {}

  // The next `path` value, or nullopt at the end.
  std::optional<std::string> next_path() {
    while (at_ < text_.size()) {
      skip_blanks();
      if (at_ == text_.size()) break;
      const char c = text_[at_];
      if (c == '\n') {
        ++at_;
      } else if (c == '#' || c == ';') {
        skip_line();
      } else if (c == '[') {
        skip_header();  // a key may follow on the same line
      } else if (auto value = entry()) {
        return value;
      }
    }
    return std::nullopt;
  }

 private:
  void skip_blanks() {
    while (at_ < text_.size() && blank(text_[at_])) ++at_;
  }
  void skip_line() {
    while (at_ < text_.size() && text_[at_] != '\n') ++at_;
  }
  void skip_header() {
    bool quoted = false;
    for (++at_; at_ < text_.size() && text_[at_] != '\n'; ++at_) {
      const char c = text_[at_];
      if (c == '\\' && quoted && at_ + 1 < text_.size() && text_[at_ + 1] != '\n') {
        ++at_;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ']' && !quoted) {
        ++at_;
        return;
      }
    }
  }

  // `key = value`: the value when the key is `path`; any other line is skipped.
  std::optional<std::string> entry() {
    const std::size_t key_start = at_;
    while (at_ < text_.size() && key_char(text_[at_])) ++at_;
    const std::string_view key = text_.substr(key_start, at_ - key_start);
    skip_blanks();
    if (key.empty() || at_ == text_.size() || text_[at_] != '=') {
      skip_line();
      return std::nullopt;
    }
    ++at_;
    skip_blanks();
    std::string value = read_value();
    if (!key_is_path(key)) return std::nullopt;
    return value;
  }

  // Quotes removed, escapes applied (a backslash before a newline continues the value on the
  // next line), cut at a comment, trailing blanks trimmed outside quotes.
  std::string read_value() {
    std::string out;
    std::size_t keep = 0;  // `out` up to its last character that is not a trailing blank
    bool quoted = false;
    for (; at_ < text_.size() && text_[at_] != '\n'; ++at_) {
      const char c = text_[at_];
      if (c == '"') {
        quoted = !quoted;
        keep = out.size();
      } else if (!quoted && (c == ';' || c == '#')) {
        skip_line();
        break;
      } else if (c == '\\' && at_ + 1 < text_.size()) {
        const char next = text_[++at_];
        if (next == '\n') continue;
        out.push_back(next == 't' ? '\t' : next == 'n' ? '\n' : next == 'b' ? '\b' : next);
        keep = out.size();
      } else {
        out.push_back(c);
        if (quoted || !blank(c)) keep = out.size();
      }
    }
    out.resize(keep);
    return out;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

std::optional<std::vector<std::string>> submodule_components(std::string_view path) {
  if (path.empty() || path.front() == '/') return std::nullopt;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string_view part = path.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == ".." || part == ".git" || part.find('\0') != std::string_view::npos)
      return std::nullopt;
    parts.emplace_back(part);
  }
  return parts;
}

SubmodulePaths gitmodules_paths(std::string_view text, std::size_t max_paths) {
  SubmodulePaths out;
  ConfigScanner scanner(text);
  while (auto value = scanner.next_path()) {
    if (out.paths.size() == max_paths) {
      out.truncated = true;
      break;
    }
    out.paths.push_back(std::move(*value));
  }
  return out;
}

}  // namespace msb::git
