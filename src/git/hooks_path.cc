#include "git/hooks_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string_view>

#include "common/unique_fd.h"
#include "git/git_config.h"
#include "git/git_files.h"
#include "git/git_layout.h"

namespace msb::git {
namespace {

constexpr std::uint64_t kConfigBytes = 1u << 20;
constexpr std::size_t kMaxIncludes = 16;  // git itself stops at 10 levels
constexpr std::size_t kMaxClimb = 4096;

std::optional<std::string> read_host_file(const std::string& path) {
  UniqueFd dir(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  auto text = read_small_file(dir.get(), path.c_str() + 1, kConfigBytes, "config");
  if (!text || !text.value()) return std::nullopt;
  return *text.value();
}

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// A hooksPath or include path as git expands it: "~/" from HOME, else against `base`.
std::optional<std::string> expand(std::string_view value, const std::string& base) {
  if (value.empty()) return std::nullopt;
  if (value.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || home[0] != '/') return std::nullopt;
    return resolve_lexically(home, value.substr(2));
  }
  return resolve_lexically(base, value);
}

struct Repository {
  std::string git_dir;
  std::string work_top;  // where a relative hooksPath starts: the work tree, or the git dir
};

// gitdir: <path> in a `.git` file, against the directory holding it.
std::optional<std::string> gitfile_target(const std::string& file, const std::string& holder) {
  auto text = read_host_file(file);
  constexpr std::string_view kPrefix = "gitdir:";
  if (!text || !text->starts_with(kPrefix)) return std::nullopt;
  std::string_view line = std::string_view(*text).substr(kPrefix.size());
  line = line.substr(0, line.find('\n'));
  const auto first = line.find_first_not_of(" \t");
  const auto last = line.find_last_not_of(" \r");
  if (first == std::string_view::npos) return std::nullopt;
  return expand(line.substr(first, last - first + 1), holder);
}

bool repository_at(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  return fd.valid() && read_layout(fd.get()).repository();
}

std::optional<Repository> find_repository(const std::string& start) {
  std::string at = start;
  for (std::size_t i = 0; i < kMaxClimb; ++i) {
    const std::string dotgit = join(at, ".git");
    if (repository_at(dotgit)) return Repository{dotgit, at};
    if (auto target = gitfile_target(dotgit, at)) return Repository{*target, at};
    if (repository_at(at)) return Repository{at, at};
    if (at == "/") break;
    at = parent_of(at);
  }
  return std::nullopt;
}

void collect(const std::string& config, const std::string& top, std::size_t& budget,
             std::vector<std::string>& out) {
  if (budget == 0) return;
  --budget;
  auto text = read_host_file(config);
  if (!text) return;
  ConfigReader reader(*text, true);
  ConfigEntry entry;
  std::vector<std::string> includes;
  while (reader.next(entry) == ConfigStep::entry) {
    if (!entry.value) continue;
    if (entry.section == "core" && !entry.subsection && entry.key == "hookspath") {
      if (auto dir = expand(*entry.value, top)) out.push_back(*dir);
    } else if ((entry.section == "include" || entry.section == "includeif") &&
               entry.key == "path") {
      if (auto file = expand(*entry.value, parent_of(config))) includes.push_back(*file);
    }
  }
  for (const std::string& file : includes) collect(file, top, budget, out);
}

}  // namespace

std::vector<std::string> hooks_path_dirs(const std::string& dir) {
  std::vector<std::string> out;
  if (dir.empty() || dir.front() != '/') return out;
  auto repo = find_repository(resolve_lexically("/", dir));
  if (!repo) return out;
  // A linked work tree's config lives in the common directory its commondir names.
  std::string common = repo->git_dir;
  UniqueFd git_fd(::open(repo->git_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (git_fd.valid()) {
    const std::string line = first_line(git_fd.get(), "commondir", 4096);
    if (!line.empty()) common = resolve_lexically(repo->git_dir, line);
  }
  std::size_t budget = kMaxIncludes;
  collect(join(common, "config"), repo->work_top, budget, out);
  collect(join(repo->git_dir, "config.worktree"), repo->work_top, budget, out);
  return out;
}

}  // namespace msb::git
