// The files the host trusts to run things next: git's control files (hooks, config, its global
// config), the sandbox's own config and worker files, agent clients' and editors' project files
// (.mcp.json, .vscode/, .claude/, .devcontainer/, ...), shell and login files (.bashrc, .ssh/,
// .local/bin/, ...) and the files tools act on (.npmrc, .cargo/config.toml, .envrc, ...). An agent
// may read them but never change them, whichever way it tries: the file API refuses every change
// (Errc::host_trusted), and commands get the existing ones bound read-only and what they create
// removed after the run. One rule, decided here; lib/, bin/ and mcp/ only report it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/error.h"
#include "common/path.h"

namespace msb {

// Why an entry is trusted, a closed set the facade words for the model. `tool`: files a package
// manager, build tool or environment loader run here reads and acts on (.npmrc, .yarnrc.yml,
// .cargo/config.toml, .pre-commit-config.yaml, .envrc).
enum class TrustedKind : std::uint8_t { none = 0, git, sandbox, client, shell, named, tool };

// "git", "sandbox", "client", "shell", "named", "tool"; "" for none.
const char* trusted_kind_name(TrustedKind kind) noexcept;

// A mount of the sandbox's own table, for placing the operator's entries: its target ("/" for
// the root) and its source's host path.
struct SourcePlace {
  std::string target;
  std::string source;
};

// What the operator (never the agent) says about the set, beside the built-in names. Each entry
// of `added` and `released` is a path relative to the sandbox's root (".vscode/settings.json",
// "tools/deploy.sh": that place only, and what lies below it), or a name after an explicit
// "**/" ("**/deploy.sh": at any depth, as the built-in names match). Nothing else: no glob
// characters, no "", "." or ".." parts (trusted_entry_problem says which and where).
struct TrustedNamesSpec {
  bool builtin = true;  // the built-in names (trusted_builtin_names())
  std::vector<std::string> added;
  // Entries the built-in list (or `added`) no longer covers: an entry a release names, or lies
  // under, may change. A release must name something the list protects.
  std::vector<std::string> released;
  // Absolute host paths of the sandbox's own files: the config it came from, the config names
  // on the walk up from it, its worker directories and files. An entry that is one, lies under
  // one or lies on the way to one is trusted.
  std::vector<std::string> host_paths;
  // Where the sandbox's targets lie on the host, to place `added` and `released` entries; the
  // sandbox fills it from its mount table.
  std::vector<SourcePlace> places;
};

struct TrustedName {
  std::string name;  // "/"-separated, as written
  TrustedKind kind;
};

// The file names a program config may have: one planted at a sandbox's root, or on the walk up
// from its config, would be found by the next run's discovery.
const std::vector<std::string_view>& sandbox_config_names();

// What is wrong with an entry of `added` or `released`, and where (a byte offset into it).
struct TrustedEntryProblem {
  std::size_t offset = 0;
  std::string reason;
};
std::optional<TrustedEntryProblem> trusted_entry_problem(std::string_view entry);
inline constexpr std::string_view kTrustedNameRule =
    "a path relative to the sandbox's root like .vscode/settings.json, or **/name for a name at "
    "any depth (no leading /, no . or .. parts, no glob characters)";
// Whether a release names something the list protects: a built-in name (when `builtin`) or an
// added one covers it. A release of nothing is refused, never accepted and ignored.
bool release_covers_protected(std::string_view entry, bool builtin,
                              const std::vector<std::string>& added);

// The built-in list, in order, for reports (describe(), the CLI's check).
const std::vector<TrustedName>& trusted_builtin_names();

// Where an entry is, for a check: its path relative to the configured source that holds it,
// and the host paths it may be known by (as configured, and as the kernel resolves it).
struct EntryPlace {
  std::vector<std::string> parts;  // never empty: the entry is below its source
  std::vector<std::string> hosts;
};

class TrustedNames {
 public:
  // invalid_config for an entry trusted_entry_problem refuses, a release of nothing, an entry no
  // place holds, or a host path that is not absolute.
  static Result<TrustedNames> create(const TrustedNamesSpec& spec);

  // Why a change at `place` would change something the host trusts next, or none. `directory`:
  // the change only makes a directory there (a `.git` directory and directories on the way to
  // a sandbox file or a released entry may be made; files and links there may not).
  TrustedKind kind_of(const EntryPlace& place, bool directory) const;

  // For a walk from a source's top: whether an entry named `folded_name` (fold_name), none of
  // whose ancestors is trusted, can be anything but none. False for most names, so a walk asks
  // kind_of() only of the few whose name ends a name of the list, unless entries placed by path
  // (an added place, a core.hooksPath directory) must be judged everywhere.
  bool may_name(const std::string& folded_name) const {
    return judged_by_path_ || last_parts_.count(folded_name) != 0;
  }
  // Whether a release covers the entry at `place`.
  bool released(const EntryPlace& place) const;
  // Whether a released entry lies strictly below the entry at `place`: a command's bind of that
  // entry must then be made of its parts, leaving the released one out.
  bool releases_below(const EntryPlace& place) const;
  bool builtin() const noexcept { return builtin_; }
  const std::vector<TrustedName>& names() const noexcept { return names_; }
  const std::vector<std::string>& released_names() const noexcept { return released_text_; }
  const std::vector<std::string>& host_paths() const noexcept { return host_paths_; }
  // Directories git runs hooks from besides `.git/hooks`: each repository's core.hooksPath,
  // for the repositories at and above each source (read when the sandbox is made).
  const std::vector<std::string>& hook_dirs() const noexcept { return hook_dirs_; }
  // The host paths again, each as the kernel resolves it now (the nearest existing directory
  // by its real path, then the rest as named), and the hook directories the repositories at
  // and above `sources` name: filled once, when the sandbox is made.
  void resolve_host_paths(const std::vector<std::string>& sources);

 private:
  // An operator's entry: a place (host paths, folded) or a name at any depth (folded parts).
  struct Entry {
    std::string place;               // the host path a place entry names, as configured
    std::vector<std::string> hosts;  // folded: as configured, then as the kernel resolves it
    std::vector<std::string> any_depth;
  };
  static bool matches(const Entry& entry, const std::vector<std::string>& folded_parts,
                      const std::vector<std::string>& folded_hosts);

  bool builtin_ = false;
  std::vector<TrustedName> names_;                       // built-in (if on), then added
  std::vector<std::vector<std::string>> pattern_parts_;  // built-in names, folded, parallel
  std::vector<Entry> added_;
  std::vector<Entry> released_;
  std::vector<std::string> released_text_;
  std::vector<std::string> host_paths_;  // as given, then resolved ones appended
  std::vector<std::string> folded_hosts_;
  std::vector<std::string> hook_dirs_;          // as found, for reports
  std::unordered_set<std::string> last_parts_;  // the last part of each name matched anywhere
  bool judged_by_path_ = false;
  std::vector<std::string> folded_hook_dirs_;
};

// The real path of a host path that may not exist yet: the nearest existing directory's real
// path, then the rest as named (what the host will resolve it to when it looks later).
std::string real_name(const std::string& host_path);

}  // namespace msb
