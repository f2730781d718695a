#include "fs/trusted_names.h"

#include <climits>
#include <cstdlib>
#include <memory>

#include "common/path.h"

namespace msb {
namespace {

// Inside a repository's git directory, what decides which programs git runs: its config (core.
// fsmonitor, pagers, editors, filters, credential helpers), hooks, info/ (attributes that name
// filters), the submodules' and worktrees' own git directories, and commondir (which moves all
// of them). Objects, refs, logs, the index and HEAD stay writable.
const std::vector<TrustedName>& builtin_list() {
  static const std::vector<TrustedName> names = {
      {".git/config", TrustedKind::git},
      {".git/config.worktree", TrustedKind::git},
      {".git/commondir", TrustedKind::git},
      {".git/hooks", TrustedKind::git},
      {".git/info", TrustedKind::git},
      {".git/modules", TrustedKind::git},
      {".git/worktrees", TrustedKind::git},
      // Agent clients start the servers and hooks these name; editors run their tasks.
      {".mcp.json", TrustedKind::client},
      {".vscode", TrustedKind::client},
      {".cursor", TrustedKind::client},
      {".claude", TrustedKind::client},
      {".idea", TrustedKind::client},
      {".zed", TrustedKind::client},
      // Read by a shell, git, ripgrep or direnv when the user next starts one here.
      {".bashrc", TrustedKind::shell},
      {".bash_profile", TrustedKind::shell},
      {".bash_login", TrustedKind::shell},
      {".bash_logout", TrustedKind::shell},
      {".profile", TrustedKind::shell},
      {".zshrc", TrustedKind::shell},
      {".zshenv", TrustedKind::shell},
      {".zprofile", TrustedKind::shell},
      {".zlogin", TrustedKind::shell},
      {".gitconfig", TrustedKind::shell},
      {".ripgreprc", TrustedKind::shell},
      {".envrc", TrustedKind::shell},
  };
  return names;
}

// A file or link named .git makes the directory holding it a repository whose git directory is
// wherever the file says: never made or changed by an agent. A directory of that name may be
// made; what decides what git runs inside it is covered by the names above.
constexpr std::string_view kGitDir = ".git";

std::optional<std::vector<std::string>> name_parts(std::string_view text) {
  if (text.empty() || text.front() == '/' || text.find('\0') != std::string_view::npos) {
    return std::nullopt;
  }
  std::vector<std::string> parts;
  for (std::string_view piece : split_at_slashes(text)) {
    if (piece.empty() || piece == "." || piece == "..") return std::nullopt;
    parts.push_back(fold_name(piece));
  }
  return parts;
}

// Whether `pattern` occurs in `parts` as a run of whole components: the entry is the named one
// or lies under it, at any depth.
bool covers(const std::vector<std::string>& pattern, const std::vector<std::string>& parts) {
  if (pattern.empty() || pattern.size() > parts.size()) return false;
  for (std::size_t i = 0; i + pattern.size() <= parts.size(); ++i) {
    bool all = true;
    for (std::size_t j = 0; j < pattern.size() && all; ++j) all = parts[i + j] == pattern[j];
    if (all) return true;
  }
  return false;
}

bool within(std::string_view inner, std::string_view outer) {
  if (inner.size() < outer.size() || inner.compare(0, outer.size(), outer) != 0) return false;
  return inner.size() == outer.size() || outer == "/" || inner[outer.size()] == '/';
}

}  // namespace

const char* trusted_kind_name(TrustedKind kind) noexcept {
  switch (kind) {
    case TrustedKind::git: return "git";
    case TrustedKind::sandbox: return "sandbox";
    case TrustedKind::client: return "client";
    case TrustedKind::shell: return "shell";
    case TrustedKind::named: return "named";
    case TrustedKind::none: break;
  }
  return "";
}

const std::vector<TrustedName>& trusted_builtin_names() {
  return builtin_list();
}

bool valid_trusted_name(std::string_view name) {
  return name_parts(name).has_value();
}

const std::vector<std::string_view>& sandbox_config_names() {
  static const std::vector<std::string_view> names = {
      "golem-forge.config.yaml", "golem-forge.config.yml", "golem-forge.config.json"};
  return names;
}

std::string fold_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (name.compare(i, 3, "\xE2\x84\xAA") == 0) {  // U+212A KELVIN SIGN
      out.push_back('k');
      i += 2;
    } else if (name.compare(i, 2, "\xC5\xBF") == 0) {  // U+017F LATIN SMALL LETTER LONG S
      out.push_back('s');
      i += 1;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string real_name(const std::string& host_path) {
  std::string dir = host_path;
  std::string rest;
  while (!dir.empty()) {
    std::unique_ptr<char, decltype(&std::free)> real(::realpath(dir.c_str(), nullptr), &std::free);
    if (real) {
      std::string out(real.get());
      if (!rest.empty()) out += (out == "/" ? "" : "/") + rest;
      return out;
    }
    const auto slash = dir.find_last_of('/');
    if (slash == std::string::npos || dir == "/") break;
    const std::string name = dir.substr(slash + 1);
    rest = rest.empty() ? name : name + "/" + rest;
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return host_path;
}

Result<TrustedNames> TrustedNames::create(const TrustedNamesSpec& spec) {
  TrustedNames out;
  out.builtin_ = spec.builtin;
  if (spec.builtin) out.names_ = builtin_list();
  for (const std::string& name : spec.added) out.names_.push_back({name, TrustedKind::named});
  for (const TrustedName& n : out.names_) {
    auto parts = name_parts(n.name);
    if (!parts) return Errc::invalid_config;
    out.pattern_parts_.push_back(std::move(*parts));
  }
  for (const std::string& name : spec.released) {
    auto parts = name_parts(name);
    if (!parts) return Errc::invalid_config;
    out.released_parts_.push_back(std::move(*parts));
    out.released_text_.push_back(name);
  }
  for (const std::string& host : spec.host_paths) {
    if (host.empty() || host.front() != '/' || host.find('\0') != std::string::npos) {
      return Errc::invalid_config;
    }
    out.host_paths_.push_back(host);
    out.folded_hosts_.push_back(fold_name(host));
  }
  return out;
}

void TrustedNames::resolve_host_paths() {
  const std::size_t given = host_paths_.size();
  for (std::size_t i = 0; i < given; ++i) {
    std::string real = real_name(host_paths_[i]);
    if (real == host_paths_[i]) continue;
    folded_hosts_.push_back(fold_name(real));
    host_paths_.push_back(std::move(real));
  }
}

bool TrustedNames::released(const std::vector<std::string>& parts) const {
  for (const auto& r : released_parts_) {
    if (covers(r, parts)) return true;
  }
  return false;
}

bool TrustedNames::releases_below(const std::vector<std::string>& parts) const {
  for (const auto& r : released_parts_) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::size_t tail = parts.size() - i;
      if (tail >= r.size()) continue;
      bool all = true;
      for (std::size_t j = 0; j < tail && all; ++j) all = parts[i + j] == r[j];
      if (all) return true;
    }
  }
  return false;
}

TrustedKind TrustedNames::kind_of(const EntryPlace& place, bool directory) const {
  std::vector<std::string> parts;
  parts.reserve(place.parts.size());
  for (const std::string& p : place.parts) parts.push_back(fold_name(p));
  for (const std::string& host : place.hosts) {
    const std::string folded = fold_name(host);
    for (const std::string& trusted : folded_hosts_) {
      if (within(folded, trusted)) return TrustedKind::sandbox;
      if (!directory && within(trusted, folded)) return TrustedKind::sandbox;
    }
  }
  if (parts.empty() || released(parts)) return TrustedKind::none;
  // The directories on the way to a released name may be made: they hold nothing yet.
  if (directory && releases_below(parts)) return TrustedKind::none;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (covers(pattern_parts_[i], parts)) return names_[i].kind;
  }
  if (!directory && builtin_ && parts.back() == kGitDir) return TrustedKind::git;
  return TrustedKind::none;
}

}  // namespace msb
