// A strict reader of git's config syntax, and the judgement of a repository's config that the
// command made: only keys that cannot make git run a program are accepted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msb::git {

// One `key = value` of a config text. Section and key are lowercased (git compares them so); a
// quoted subsection keeps its case, an old-style `[section.sub]` one is lowercased, as git does.
struct ConfigEntry {
  std::string section;
  std::optional<std::string> subsection;
  std::string key;
  std::optional<std::string> value;  // nullopt for a bare `key` line (git reads it as true)
};

enum class ConfigStep { entry, end, malformed };

// One forward pass over the text, every character looked at once (linear whatever it holds),
// following git's own parser: `[section "sub"]` headers (a key may follow on the same line),
// `#` and `;` comments, double quotes, the escapes \n \t \b \\ \" and a backslash before a
// newline continuing a value, CRLF read as LF. What git would refuse (an unknown escape, a
// newline inside quotes, a comment after a bare key, a byte-order mark) is `malformed`, and the
// reader stops there; a `lenient` reader (for .gitmodules, where naming more is safe) instead
// skips the rest of that line, still in one pass, and takes keys before any section too.
class ConfigReader {
 public:
  explicit ConfigReader(std::string_view text, bool lenient = false)
      : text_(text), lenient_(lenient) {}
  ConfigStep next(ConfigEntry& out);

 private:
  int peek() const;
  int take();
  bool header();
  bool extended_subsection();
  bool entry(ConfigEntry& out);
  bool value(std::string& out);
  void skip_rest_of_line();

  std::string_view text_;
  std::size_t at_ = 0;
  std::string section_;
  std::optional<std::string> subsection_;
  bool lenient_ = false;
  bool failed_ = false;
};

// True when a remote URL names no transport helper (`<helper>::<address>` runs
// git-remote-<helper>, and `ext::` runs any command) and cannot be read as an option.
bool plain_remote_url(std::string_view url);

// True when every entry of a config text is one git init, git config user.*, git remote add and
// an upstream branch write, none of which makes git run a program: core.repositoryformatversion,
// filemode, bare, logallrefupdates, ignorecase, precomposeunicode, symlinks;
// extensions.objectformat; init.defaultbranch; user.name and user.email; remote.<name>.url
// (a plain URL) and .fetch; branch.<name>.remote (a name or plain URL) and .merge. Anything
// else, include and includeIf among it, or a text the reader finds malformed, is false.
bool config_runs_nothing(std::string_view text);

// The same judgement for one entry. An allowlist, not a list of keys known to run programs: git
// adds such keys in new versions (core.fsmonitor came in 2.26, core.alternateRefsCommand in
// 2.20), and a denylist would miss the next one; a key this list lacks is only a setting lost.
bool entry_runs_nothing(const ConfigEntry& entry);

// A config text holding exactly `entries`, each under its own section header, every value
// quoted and escaped as git's reader takes it back.
std::string config_text(const std::vector<ConfigEntry>& entries);

}  // namespace msb::git
