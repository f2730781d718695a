#include "fs/trusted_names.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>

#include "common/path.h"
#include "git/hooks_path.h"

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
      // git's own config for every repository of a user whose home is here (~/.gitconfig, and
      // the XDG config, attributes and ignore files).
      {".gitconfig", TrustedKind::git},
      {".config/git", TrustedKind::git},
      // Agent clients start the servers and hooks these name; editors run their tasks, and
      // a dev container's initializeCommand runs on the host.
      {".mcp.json", TrustedKind::client},
      {".vscode", TrustedKind::client},
      {".cursor", TrustedKind::client},
      {".claude", TrustedKind::client},
      {".idea", TrustedKind::client},
      {".zed", TrustedKind::client},
      {".gemini", TrustedKind::client},
      {"opencode.json", TrustedKind::client},
      {"opencode.jsonc", TrustedKind::client},
      {".opencode", TrustedKind::client},
      {".roo", TrustedKind::client},
      {".kilocode", TrustedKind::client},
      {".continue", TrustedKind::client},
      {".amazonq", TrustedKind::client},
      {".windsurf", TrustedKind::client},
      {".codex", TrustedKind::client},
      {".devcontainer", TrustedKind::client},
      {".devcontainer.json", TrustedKind::client},
      // Read by a shell or a login when the user next starts one here (a home directory).
      {".bashrc", TrustedKind::shell},
      {".bash_profile", TrustedKind::shell},
      {".bash_login", TrustedKind::shell},
      {".bash_logout", TrustedKind::shell},
      {".profile", TrustedKind::shell},
      {".zshrc", TrustedKind::shell},
      {".zshenv", TrustedKind::shell},
      {".zprofile", TrustedKind::shell},
      {".zlogin", TrustedKind::shell},
      {".ssh", TrustedKind::shell},
      {".config/fish", TrustedKind::shell},
      {".config/systemd/user", TrustedKind::shell},
      {".config/autostart", TrustedKind::shell},
      {".local/bin", TrustedKind::shell},
      // Read by a tool the user runs here, which then runs what they name: package managers
      // (yarn-path, node-options, a pnpmfile, bun's preload), cargo (rustc-wrapper, runners,
      // run by editors on opening a crate), pre-commit, direnv, Mercurial's hooks, ripgrep.
      {".npmrc", TrustedKind::tool},
      {".yarnrc", TrustedKind::tool},
      {".yarnrc.yml", TrustedKind::tool},
      {".pnpmfile.cjs", TrustedKind::tool},
      {"bunfig.toml", TrustedKind::tool},
      {".cargo/config", TrustedKind::tool},
      {".cargo/config.toml", TrustedKind::tool},
      {".pre-commit-config.yaml", TrustedKind::tool},
      {".envrc", TrustedKind::tool},
      {".direnv", TrustedKind::tool},
      {".hg/hgrc", TrustedKind::tool},
      {".ripgreprc", TrustedKind::tool},
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

constexpr std::string_view kAnyDepth = "**/";

// The entry without its "**/", and whether it had one.
std::pair<std::string_view, bool> split_any_depth(std::string_view entry) {
  if (entry.starts_with(kAnyDepth)) return {entry.substr(kAnyDepth.size()), true};
  return {entry, false};
}

// The host path a root-relative entry names: the source of the longest target that holds it.
std::optional<std::string> place_of(std::string_view entry,
                                    const std::vector<SourcePlace>& places) {
  std::string virtual_path = "/";
  virtual_path.append(entry);
  const SourcePlace* best = nullptr;
  for (const SourcePlace& p : places) {
    if (!within(virtual_path, p.target)) continue;
    if (best == nullptr || p.target.size() > best->target.size()) best = &p;
  }
  if (best == nullptr) return std::nullopt;
  const std::string rest =
      best->target == "/" ? virtual_path.substr(1) : virtual_path.substr(best->target.size() + 1);
  if (rest.empty()) return best->source;
  return (best->source == "/" ? "" : best->source) + "/" + rest;
}

}  // namespace

const char* trusted_kind_name(TrustedKind kind) noexcept {
  switch (kind) {
    case TrustedKind::git: return "git";
    case TrustedKind::sandbox: return "sandbox";
    case TrustedKind::client: return "client";
    case TrustedKind::shell: return "shell";
    case TrustedKind::named: return "named";
    case TrustedKind::tool: return "tool";
    case TrustedKind::none: break;
  }
  return "";
}

const std::vector<TrustedName>& trusted_builtin_names() {
  return builtin_list();
}

std::optional<TrustedEntryProblem> trusted_entry_problem(std::string_view entry) {
  auto problem = [](std::size_t offset, std::string reason) {
    return std::optional(TrustedEntryProblem{offset, std::move(reason)});
  };
  if (entry.empty()) return problem(0, "it is empty");
  if (entry.front() == '/') return problem(0, "it starts with /: paths are relative to the root");
  const auto [rest, any_depth] = split_any_depth(entry);
  const std::size_t base = entry.size() - rest.size();
  if (rest.empty()) return problem(base, "a name must follow **/");
  std::size_t at = base;
  for (std::string_view piece : split_at_slashes(rest)) {
    if (piece.empty()) return problem(at, "it has an empty part (//, or a trailing /)");
    if (piece == "." || piece == "..") return problem(at, "it has a . or .. part");
    for (std::size_t i = 0; i < piece.size(); ++i) {
      const char c = piece[i];
      if (c == '\0') return problem(at + i, "it holds a NUL byte");
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' || (c == '!' && at + i == 0)) {
        return problem(at + i, std::string("'") + c +
                                   "' is a glob character: name a path, or **/name for a name "
                                   "at any depth");
      }
    }
    at += piece.size() + 1;
  }
  return std::nullopt;
}

bool release_covers_protected(std::string_view entry, bool builtin,
                              const std::vector<std::string>& added) {
  auto parts = name_parts(split_any_depth(entry).first);
  if (!parts) return false;
  if (builtin) {
    for (const TrustedName& n : builtin_list()) {
      auto pattern = name_parts(n.name);
      if (pattern && covers(*pattern, *parts)) return true;
    }
  }
  for (const std::string& a : added) {
    const auto [text, any_depth] = split_any_depth(a);
    auto pattern = name_parts(text);
    if (!pattern) continue;
    if (any_depth ? covers(*pattern, *parts) : has_prefix(*parts, *pattern)) return true;
  }
  return false;
}

const std::vector<std::string_view>& sandbox_config_names() {
  static const std::vector<std::string_view> names = {
      "golem-forge.config.yaml", "golem-forge.config.yml", "golem-forge.config.json"};
  return names;
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
  for (const TrustedName& n : out.names_) {
    auto parts = name_parts(n.name);
    if (!parts) return Errc::invalid_config;
    out.pattern_parts_.push_back(std::move(*parts));
  }
  auto entry_of = [&](const std::string& text) -> std::optional<Entry> {
    if (trusted_entry_problem(text)) return std::nullopt;
    const auto [rest, any_depth] = split_any_depth(text);
    Entry entry;
    if (any_depth) {
      entry.any_depth = *name_parts(rest);
    } else if (auto host = place_of(rest, spec.places)) {
      entry.hosts.push_back(fold_name(*host));
      entry.place = std::move(*host);
    } else if (spec.places.empty()) {
      entry.any_depth = *name_parts(rest);  // no table to place it in: a bare TrustedNames
    } else {
      return std::nullopt;
    }
    return entry;
  };
  for (const std::string& name : spec.added) {
    auto entry = entry_of(name);
    if (!entry) return Errc::invalid_config;
    out.added_.push_back(std::move(*entry));
    out.names_.push_back({name, TrustedKind::named});
  }
  for (const std::string& name : spec.released) {
    auto entry = entry_of(name);
    if (!entry || !release_covers_protected(name, spec.builtin, spec.added)) {
      return Errc::invalid_config;
    }
    out.released_.push_back(std::move(*entry));
    out.released_text_.push_back(name);
  }
  for (const auto& parts : out.pattern_parts_) out.last_parts_.insert(parts.back());
  for (const Entry& a : out.added_) {
    if (a.any_depth.empty()) {
      out.judged_by_path_ = true;
    } else {
      out.last_parts_.insert(a.any_depth.back());
    }
  }
  out.last_parts_.insert(std::string(kGitDir));
  for (const std::string& host : spec.host_paths) {
    if (host.empty() || host.front() != '/' || host.find('\0') != std::string::npos) {
      return Errc::invalid_config;
    }
    out.host_paths_.push_back(host);
    out.folded_hosts_.push_back(fold_name(host));
  }
  return out;
}

void TrustedNames::resolve_host_paths(const std::vector<std::string>& sources) {
  const std::size_t given = host_paths_.size();
  for (std::size_t i = 0; i < given; ++i) {
    std::string real = real_name(host_paths_[i]);
    if (real == host_paths_[i]) continue;
    folded_hosts_.push_back(fold_name(real));
    host_paths_.push_back(std::move(real));
  }
  for (std::vector<Entry>* list : {&added_, &released_}) {
    for (Entry& entry : *list) {
      if (entry.place.empty()) continue;
      std::string real = fold_name(real_name(entry.place));
      if (real != entry.hosts.front()) entry.hosts.push_back(std::move(real));
    }
  }
  if (!builtin_) return;
  for (const std::string& source : sources) {
    for (std::string& dir : git::hooks_path_dirs(source)) {
      if (std::find(hook_dirs_.begin(), hook_dirs_.end(), dir) != hook_dirs_.end()) continue;
      const std::string real = real_name(dir);
      folded_hook_dirs_.push_back(fold_name(dir));
      if (real != dir) folded_hook_dirs_.push_back(fold_name(real));
      hook_dirs_.push_back(std::move(dir));
      judged_by_path_ = true;
    }
  }
}

bool TrustedNames::matches(const Entry& entry, const std::vector<std::string>& folded_parts,
                           const std::vector<std::string>& folded_hosts) {
  if (!entry.any_depth.empty()) return covers(entry.any_depth, folded_parts);
  for (const std::string& host : folded_hosts) {
    for (const std::string& at : entry.hosts) {
      if (within(host, at)) return true;
    }
  }
  return false;
}

namespace {

std::vector<std::string> folded_all(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const std::string& item : items) out.push_back(fold_name(item));
  return out;
}

}  // namespace

bool TrustedNames::released(const EntryPlace& place) const {
  const auto parts = folded_all(place.parts);
  const auto hosts = folded_all(place.hosts);
  for (const Entry& r : released_) {
    if (matches(r, parts, hosts)) return true;
  }
  return false;
}

bool TrustedNames::releases_below(const EntryPlace& place) const {
  const auto parts = folded_all(place.parts);
  const auto hosts = folded_all(place.hosts);
  for (const Entry& r : released_) {
    if (!r.any_depth.empty()) {
      // Some suffix of the entry's parts is a strict prefix of the pattern.
      for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::size_t tail = parts.size() - i;
        if (tail >= r.any_depth.size()) continue;
        bool all = true;
        for (std::size_t j = 0; j < tail && all; ++j) all = parts[i + j] == r.any_depth[j];
        if (all) return true;
      }
      continue;
    }
    for (const std::string& host : hosts) {
      for (const std::string& at : r.hosts) {
        if (at != host && within(at, host)) return true;
      }
    }
  }
  return false;
}

TrustedKind TrustedNames::kind_of(const EntryPlace& place, bool directory) const {
  const auto parts = folded_all(place.parts);
  const auto hosts = folded_all(place.hosts);
  for (const std::string& host : hosts) {
    for (const std::string& trusted : folded_hosts_) {
      if (within(host, trusted)) return TrustedKind::sandbox;
      if (!directory && within(trusted, host)) return TrustedKind::sandbox;
    }
  }
  if (parts.empty() || released(place)) return TrustedKind::none;
  // The directories on the way to a released name may be made: they hold nothing yet.
  if (directory && releases_below(place)) return TrustedKind::none;
  for (std::size_t i = 0; i < pattern_parts_.size(); ++i) {
    if (covers(pattern_parts_[i], parts)) return names_[i].kind;
  }
  for (const Entry& a : added_) {
    if (matches(a, parts, hosts)) return TrustedKind::named;
  }
  if (!builtin_) return TrustedKind::none;
  for (const std::string& host : hosts) {
    for (const std::string& dir : folded_hook_dirs_) {
      if (within(host, dir) || (!directory && within(dir, host))) return TrustedKind::git;
    }
  }
  if (!directory && parts.back() == kGitDir) return TrustedKind::git;
  return TrustedKind::none;
}

}  // namespace msb
