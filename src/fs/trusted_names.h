// The files the host trusts to run things next: git's control files (hooks, config), the
// sandbox's own config and worker files, agent clients' and editors' project files (.mcp.json,
// .vscode/, .claude/, ...) and shell and tool start-up files (.bashrc, .envrc, ...). An agent may
// read them but never change them, whichever way it tries: the file API refuses every change
// (Errc::host_trusted), and commands get the existing ones bound read-only and what they create
// removed after the run. One rule, decided here; lib/, bin/ and mcp/ only report it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace msb {

// Why an entry is trusted, a closed set the facade words for the model.
enum class TrustedKind : std::uint8_t { none = 0, git, sandbox, client, shell, named };

// "git", "sandbox", "client", "shell", "named"; "" for none.
const char* trusted_kind_name(TrustedKind kind) noexcept;

// What the operator (never the agent) says about the set, beside the built-in names.
struct TrustedNamesSpec {
  bool builtin = true;  // the built-in names (trusted_builtin_names())
  // Names or relative paths ("tools/deploy.sh") trusted at any depth, as the built-in ones are.
  std::vector<std::string> added;
  // Names or relative paths the built-in list no longer covers (".vscode/settings.json"): an
  // entry a released name covers, or lies under, may change.
  std::vector<std::string> released;
  // Absolute host paths of the sandbox's own files: the config it came from, the config names
  // on the walk up from it, its worker directories and files. An entry that is one, lies under
  // one or lies on the way to one is trusted.
  std::vector<std::string> host_paths;
};

struct TrustedName {
  std::string name;  // "/"-separated, as written
  TrustedKind kind;
};

// The file names a program config may have: one planted at a sandbox's root, or on the walk up
// from its config, would be found by the next run's discovery.
const std::vector<std::string_view>& sandbox_config_names();

// Whether `name` is one a TrustedNamesSpec takes in `added` or `released`: relative,
// "/"-separated, with no "", "." or ".." component and no NUL.
bool valid_trusted_name(std::string_view name);
inline constexpr std::string_view kTrustedNameRule =
    "a relative name like .vscode/settings.json (no leading /, no . or .. parts)";

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
  // invalid_config for a name that is empty, absolute, or holds "", "." or ".." components or
  // a NUL; for a host path that is not absolute.
  static Result<TrustedNames> create(const TrustedNamesSpec& spec);

  // Why a change at `place` would change something the host trusts next, or none. `directory`:
  // the change only makes a directory there (a `.git` directory and directories on the way to
  // a sandbox file may be made; files and links there may not).
  TrustedKind kind_of(const EntryPlace& place, bool directory) const;

  // The names to look for under a writable source (built-in and added, minus the released),
  // each split into folded components, for commands (find_trusted_entries).
  const std::vector<std::vector<std::string>>& patterns() const noexcept { return pattern_parts_; }
  bool released(const std::vector<std::string>& parts) const;
  // Whether a released name lies strictly below the entry at `parts` (folded): a command's
  // bind of that entry must then be made of its parts, leaving the released one out.
  bool releases_below(const std::vector<std::string>& parts) const;
  const std::vector<TrustedName>& names() const noexcept { return names_; }
  const std::vector<std::string>& released_names() const noexcept { return released_text_; }
  const std::vector<std::string>& host_paths() const noexcept { return host_paths_; }
  // The host paths again, each as the kernel resolves it now (the nearest existing directory
  // by its real path, then the rest as named): filled once, when the sandbox pins its sources.
  void resolve_host_paths();

 private:
  bool builtin_ = false;
  std::vector<TrustedName> names_;                       // built-in (if on), then added
  std::vector<std::vector<std::string>> pattern_parts_;  // names_, folded, parallel
  std::vector<std::vector<std::string>> released_parts_;
  std::vector<std::string> released_text_;
  std::vector<std::string> host_paths_;  // as given, then resolved ones appended
  std::vector<std::string> folded_hosts_;
};

// Names compare as a case-folding directory compares them, everywhere: ASCII letters to lower
// case, and the two non-ASCII letters Unicode folds onto ASCII ones (KELVIN SIGN to "k", LONG S
// to "s"). On a case-sensitive directory this refuses a few more names than it must; it never
// refuses fewer on one that folds (ext4 casefold, vfat, a mounted macOS volume).
std::string fold_name(std::string_view name);

// The real path of a host path that may not exist yet: the nearest existing directory's real
// path, then the rest as named (what the host will resolve it to when it looks later).
std::string real_name(const std::string& host_path);

}  // namespace msb
