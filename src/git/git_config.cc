#include "git/git_config.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace msb::git {
namespace {

constexpr int kEnd = -1;

bool space(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool alpha(int c) {
  return c >= 0 && std::isalpha(c) != 0;
}
bool key_char(int c) {
  return c >= 0 && (std::isalnum(c) != 0 || c == '-');
}
char lower(int c) {
  return static_cast<char>(std::tolower(c));
}

}  // namespace

int ConfigReader::peek() const {
  if (at_ >= text_.size()) return kEnd;
  if (text_[at_] == '\r' && at_ + 1 < text_.size() && text_[at_ + 1] == '\n') return '\n';
  return static_cast<unsigned char>(text_[at_]);
}

int ConfigReader::take() {
  const int c = peek();
  if (c == kEnd) return c;
  at_ += (text_[at_] == '\r' && c == '\n') ? 2 : 1;
  return c;
}

ConfigStep ConfigReader::next(ConfigEntry& out) {
  if (failed_) return ConfigStep::malformed;
  for (;;) {
    const int c = peek();
    if (c == kEnd) return ConfigStep::end;
    bool ok = true;
    if (space(c)) {
      take();
      continue;
    } else if (c == '#' || c == ';') {
      while (peek() != kEnd && take() != '\n') {
      }
      continue;
    } else if (c == '[') {
      take();
      ok = header();
    } else if (alpha(c) && (lenient_ || !section_.empty())) {
      if (entry(out)) return ConfigStep::entry;
      ok = false;
    } else {
      take();  // a key before any section, or a byte no key starts with
      ok = false;
    }
    if (!ok && lenient_) {
      skip_rest_of_line();
    } else if (!ok) {
      failed_ = true;
      return ConfigStep::malformed;
    }
  }
}

// After a malformed line: on to the next one, unless the newline that ended it is taken already.
void ConfigReader::skip_rest_of_line() {
  if (at_ > 0 && text_[at_ - 1] == '\n') return;
  while (peek() != kEnd && take() != '\n') {
  }
}

// `[section]`, `[section.sub]` or `[section "sub"]`; the `[` is taken.
bool ConfigReader::header() {
  subsection_.reset();
  std::string name;
  for (;;) {
    const int c = take();
    if (c == ']') break;
    if (space(c) && c != '\n') {
      if (!extended_subsection()) return false;
      break;
    }
    if (!key_char(c) && c != '.') return false;
    name.push_back(lower(c));
  }
  if (subsection_ && name.find('.') != std::string::npos) return false;
  const std::size_t dot = name.find('.');
  if (dot != std::string::npos) {
    subsection_ = name.substr(dot + 1);
    name.resize(dot);
  }
  if (name.empty()) return false;
  section_ = std::move(name);
  return true;
}

// ` "sub"]` after the section name: blanks, a quoted name with \x escapes, then `]` at once.
bool ConfigReader::extended_subsection() {
  while (peek() == ' ' || peek() == '\t') take();
  if (take() != '"') return false;
  std::string sub;
  for (;;) {
    int c = take();
    if (c == kEnd || c == '\n') return false;
    if (c == '"') break;
    if (c == '\\') {
      c = take();
      if (c == kEnd || c == '\n') return false;
    }
    sub.push_back(static_cast<char>(c));
  }
  if (take() != ']') return false;
  subsection_ = std::move(sub);
  return true;
}

// `key`, `key = value`: the key's first character is a letter (checked by the caller).
bool ConfigReader::entry(ConfigEntry& out) {
  out.section = section_;
  out.subsection = subsection_;
  out.key.clear();
  while (key_char(peek())) out.key.push_back(lower(take()));
  while (peek() == ' ' || peek() == '\t') take();
  const int c = take();
  if (c == kEnd || c == '\n') {
    out.value.reset();
    return true;
  }
  if (c != '=') return false;
  out.value.emplace();
  return value(*out.value);
}

// Up to the end of the line: blanks inside kept only before more text or inside quotes.
bool ConfigReader::value(std::string& out) {
  bool quoted = false;
  std::size_t pending_blanks = 0;
  for (;;) {
    int c = take();
    if (c == kEnd || c == '\n') return !quoted;
    if (!quoted && (c == '#' || c == ';')) {
      while (peek() != kEnd && take() != '\n') {
      }
      return true;
    }
    if (!quoted && space(c)) {
      if (!out.empty()) ++pending_blanks;
      continue;
    }
    out.append(pending_blanks, ' ');
    pending_blanks = 0;
    if (c == '"') {
      quoted = !quoted;
      continue;
    }
    if (c == '\\') {
      c = take();
      switch (c) {
        case '\n': continue;
        case 't': c = '\t'; break;
        case 'b': c = '\b'; break;
        case 'n': c = '\n'; break;
        case '\\':
        case '"': break;
        default: return false;
      }
    }
    out.push_back(static_cast<char>(c));
  }
}

bool plain_remote_url(std::string_view url) {
  if (url.empty() || url.front() == '-') return false;
  if (url.find("::") != std::string_view::npos) return false;
  return std::none_of(url.begin(), url.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

namespace {

bool one_of(std::string_view key, std::initializer_list<std::string_view> keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Settings git init, git clone, git config and everyday use write that make git run nothing
// (no program, no path it executes or loads config from).
bool plain_entry_allowed(const ConfigEntry& e) {
  if (e.section == "core") {
    return one_of(e.key, {"repositoryformatversion", "filemode", "bare", "logallrefupdates",
                          "ignorecase", "precomposeunicode", "symlinks", "autocrlf", "eol",
                          "safecrlf", "quotepath", "abbrev", "checkstat", "trustctime",
                          "sparsecheckout", "sparsecheckoutcone", "compression"});
  }
  if (e.section == "extensions") return e.key == "objectformat";
  if (e.section == "init") return e.key == "defaultbranch";
  if (e.section == "user") return e.key == "name" || e.key == "email";
  if (e.section == "pull") return e.key == "rebase" || e.key == "ff";
  if (e.section == "push") return e.key == "default" || e.key == "autosetupremote";
  if (e.section == "fetch") return e.key == "prune";
  if (e.section == "merge") return e.key == "ff";
  if (e.section == "i18n") return e.key == "commitencoding" || e.key == "logoutputencoding";
  if (e.section == "status") return e.key == "showuntrackedfiles";
  return false;
}

bool named_entry_allowed(const ConfigEntry& e) {
  const std::string_view value = e.value ? std::string_view(*e.value) : std::string_view();
  if (e.section == "remote") {
    if (e.key == "url") return plain_remote_url(value);
    return e.key == "fetch";
  }
  if (e.section == "branch") {
    if (e.key == "remote") return plain_remote_url(value);  // a name, or a URL git fetches
    return e.key == "merge";
  }
  // git submodule add writes these; `update` may be `!command`, so it is not among them.
  if (e.section == "submodule") {
    if (e.key == "url") return plain_remote_url(value);
    return e.key == "active";
  }
  return false;
}

std::string quoted(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      default: out.push_back(c);
    }
  }
  return out + "\"";
}

}  // namespace

bool config_runs_nothing(std::string_view text) {
  ConfigReader reader(text);
  ConfigEntry e;
  for (;;) {
    switch (reader.next(e)) {
      case ConfigStep::end: return true;
      case ConfigStep::malformed: return false;
      case ConfigStep::entry: break;
    }
    if (!entry_runs_nothing(e)) return false;
  }
}

bool entry_runs_nothing(const ConfigEntry& e) {
  if (!e.value) return false;  // a bare key is `true`: none of ours is written so
  return e.subsection ? named_entry_allowed(e) : plain_entry_allowed(e);
}

std::string config_text(const std::vector<ConfigEntry>& entries) {
  std::string out;
  for (const ConfigEntry& e : entries) {
    out.append("[").append(e.section);
    if (e.subsection) out.append(" ").append(quoted(*e.subsection));
    out.append("]\n\t").append(e.key).append(" = ");
    out.append(quoted(e.value.value_or("true"))).append("\n");
  }
  return out;
}

}  // namespace msb::git
