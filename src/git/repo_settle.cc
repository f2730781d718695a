#include "git/repo_settle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "common/sys.h"
#include "common/unique_fd.h"
#include "git/git_config.h"
#include "git/git_files.h"
#include "git/git_layout.h"

namespace msb::git {
namespace {

constexpr const char* kTempName = ".msb-settle.tmp";

// A git directory may be a source itself (a layout planted at its top): its files are settled,
// never the source.
bool inside(const std::string& path, const std::vector<std::string>& roots) {
  return std::any_of(roots.begin(), roots.end(),
                     [&](const std::string& root) { return within(path, root); });
}

// Replaces `name` in `dir_fd` with `text` (0644 or the old file's mode), by a temp file renamed
// over it: a crash leaves the old file or the new one, never half of each.
bool replace_small_file(int dir_fd, const char* name, const std::string& text, mode_t mode) {
  (void)::unlinkat(dir_fd, kTempName, 0);
  auto fd = sys::open_at(dir_fd, kTempName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  if (!fd) return false;
  const bool written =
      sys::write_all(fd.value().get(), reinterpret_cast<const std::uint8_t*>(text.data()),
                     text.size()) &&
      ::fsync(fd.value().get()) == 0;
  if (!written || ::renameat(dir_fd, kTempName, dir_fd, name) != 0) {
    (void)::unlinkat(dir_fd, kTempName, 0);
    return false;
  }
  return true;
}

void remove_entry(int dir_fd, const std::string& name, const std::string& path,
                  const GitLimits& limits, SettleReport& report) {
  if (remove_tree(dir_fd, name, limits.max_removed_entries)) {
    report.taken_out.push_back(path);
  } else {
    report.failed.push_back(path);
  }
}

void settle_config(int git_fd, const char* name, const std::string& git_dir,
                   const GitLimits& limits, SettleReport& report) {
  auto st = look(git_fd, name);
  if (!st || !st.value()) return;
  const std::string path = join(git_dir, name);
  if (!S_ISREG(st.value()->st_mode)) return remove_entry(git_fd, name, path, limits, report);
  auto text = read_small_file(git_fd, name, limits.max_config_bytes, name);
  if (!text || !text.value()) return remove_entry(git_fd, name, path, limits, report);
  ConfigReader reader(*text.value());
  ConfigEntry entry;
  std::vector<ConfigEntry> kept;
  std::vector<std::string> dropped;
  ConfigStep step;
  while ((step = reader.next(entry)) == ConfigStep::entry) {
    if (entry_runs_nothing(entry)) {
      kept.push_back(entry);
    } else {
      dropped.push_back(path + ": " + entry.section +
                        (entry.subsection ? "." + *entry.subsection : "") + "." + entry.key);
    }
  }
  if (step == ConfigStep::malformed) dropped.push_back(path + ": the rest, which git would refuse");
  if (dropped.empty()) return;
  if (!replace_small_file(git_fd, name, config_text(kept), st.value()->st_mode & 0777)) {
    report.failed.push_back(path);
    return;
  }
  report.taken_out.insert(report.taken_out.end(), dropped.begin(), dropped.end());
}

void settle_hooks(int git_fd, const std::string& git_dir, const GitLimits& limits,
                  SettleReport& report) {
  auto st = look(git_fd, "hooks");
  if (!st || !st.value()) return;
  const std::string hooks_path = join(git_dir, "hooks");
  if (!S_ISDIR(st.value()->st_mode))
    return remove_entry(git_fd, "hooks", hooks_path, limits, report);
  auto hooks = open_dir_at(git_fd, "hooks");
  if (!hooks || !hooks.value().valid()) return;
  auto names = list_dir(hooks.value().get());
  if (!names) return;
  auto opened = sys::open_at(hooks.value().get(), ".", O_RDONLY | O_DIRECTORY);
  if (!opened) return;
  const int fd = opened.value().get();
  for (const std::string& name : names.value()) {
    auto entry = look(fd, name.c_str());
    const bool sample =
        name.ends_with(".sample") && entry && entry.value() && S_ISREG(entry.value()->st_mode);
    if (!sample) remove_entry(fd, name, join(hooks_path, name), limits, report);
  }
}

// Each git directory below `dir_fd` (modules/ or worktrees/): submodules nest (modules/a/b for
// the path a/b, modules/a/modules/c), so a directory that is not one is looked into.
void settle_below(int dir_fd, const std::string& path, const GitLimits& limits,
                  SettleReport& report, bool worktrees, std::size_t depth) {
  auto names = list_dir(dir_fd);
  if (!names || depth >= limits.max_depth) return;
  for (const std::string& name : names.value()) {
    auto sub = open_dir_at(dir_fd, name.c_str());
    if (!sub || !sub.value().valid()) continue;
    const std::string child = join(path, name);
    if (read_layout(sub.value().get()).repository()) {
      take_out_runners(sub.value().get(), child, limits, report, worktrees, depth + 1);
    } else {
      settle_below(sub.value().get(), child, limits, report, worktrees, depth + 1);
    }
  }
}

void settle_nested(int git_fd, const char* container, const std::string& git_dir,
                   const GitLimits& limits, SettleReport& report, std::size_t depth) {
  auto dir = open_dir_at(git_fd, container);
  if (!dir || !dir.value().valid()) return;
  settle_below(dir.value().get(), join(git_dir, container), limits, report,
               std::string_view(container) == "worktrees", depth);
}

// Puts back the HEAD a repository had, when the command took it away or made it invalid.
void restore_head(const RepositorySeen& seen, SettleReport& report) {
  auto fd = open_real_path(seen.git_dir);
  if (!fd) return;  // gone or moved: nothing left there for git to find
  auto self = look(fd.value().get(), ".");
  if (!self || !self.value() || !(id_of(*self.value()) == seen.id)) return;
  if (read_layout(fd.value().get()).head || seen.head.empty()) return;
  auto dir = sys::open_at(fd.value().get(), ".", O_RDONLY | O_DIRECTORY);
  const std::string path = join(seen.git_dir, "HEAD");
  if (dir) {
    auto st = look(dir.value().get(), "HEAD");
    if (st && st.value() && S_ISDIR(st.value()->st_mode)) {
      (void)remove_tree(dir.value().get(), "HEAD", GitLimits{}.max_removed_entries);
    }
    if (replace_small_file(dir.value().get(), "HEAD", seen.head, 0644)) {
      report.restored.push_back(path);
      return;
    }
  }
  report.failed.push_back(path);
}

}  // namespace

void take_out_runners(int git_fd, const std::string& git_dir, const GitLimits& limits,
                      SettleReport& report, bool linked_worktree, std::size_t depth) {
  auto opened = sys::open_at(git_fd, ".", O_RDONLY | O_DIRECTORY);
  if (!opened) return;
  const int fd = opened.value().get();
  settle_config(fd, "config", git_dir, limits, report);
  settle_config(fd, "config.worktree", git_dir, limits, report);
  settle_hooks(fd, git_dir, limits, report);
  for (const char* name : {"rebase-merge", "rebase-apply", "sequencer"}) {
    auto st = look(fd, name);
    if (st && st.value()) remove_entry(fd, name, join(git_dir, name), limits, report);
  }
  if (!linked_worktree) {
    auto st = look(fd, "commondir");
    if (st && st.value()) remove_entry(fd, "commondir", join(git_dir, "commondir"), limits, report);
  }
  settle_nested(fd, "modules", git_dir, limits, report, depth);
  settle_nested(fd, "worktrees", git_dir, limits, report, depth);
}

SettleReport settle_repositories(const std::vector<RepositorySeen>& before,
                                 const std::vector<RepositorySeen>& after,
                                 const std::vector<std::string>& roots, const GitLimits& limits) {
  SettleReport report;
  auto known = [&](const RepositorySeen& r) {
    return std::any_of(before.begin(), before.end(), [&](const RepositorySeen& b) {
      return b.id == r.id && b.git_dir == r.git_dir;
    });
  };
  for (const RepositorySeen& r : after) {
    if (known(r) || !inside(r.git_dir, roots)) continue;
    auto fd = open_real_path(r.git_dir);
    if (!fd) continue;
    take_out_runners(fd.value().get(), r.git_dir, limits, report);
  }
  for (const RepositorySeen& b : before) {
    const bool still = std::any_of(after.begin(), after.end(), [&](const RepositorySeen& r) {
      return r.id == b.id && r.git_dir == b.git_dir;
    });
    if (!still && inside(b.git_dir, roots)) restore_head(b, report);
  }
  return report;
}

}  // namespace msb::git
