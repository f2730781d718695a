#include "config/next_run_files.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/sys.h"
#include "common/unique_fd.h"
#include "fs/fd_io.h"
#include "fs/trusted_names.h"

namespace msb {
namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string joined(const std::string& dir, std::string_view name) {
  std::string out = dir == "/" ? "" : dir;
  out.append("/").append(name);
  return out;
}

// The directory itself, then each one above it up to "/".
std::vector<std::string> ancestors(const std::string& dir) {
  std::vector<std::string> out{dir};
  while (out.back() != "/") out.push_back(parent_of(out.back()));
  return out;
}

bool within(const std::string& inner, const std::string& outer) {
  if (inner.size() < outer.size() || inner.compare(0, outer.size(), outer) != 0) return false;
  return inner.size() == outer.size() || outer == "/" || inner[outer.size()] == '/';
}

bool is_file(const std::string& path) {  // symbolic links followed, as discovery reads them
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool entry_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Every *.worker file beneath `dir`, never through a symbolic link, node_modules skipped.
Status worker_files_under(const std::string& dir, std::size_t& budget,
                          std::vector<std::string>& out, std::size_t max_entries) {
  auto fd = sys::open_at(AT_FDCWD, dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (!fd) return ok_status();  // gone or unreadable: nothing a command could add there either
  auto entries = read_dir_entries(fd.value().get());
  if (!entries) return ok_status();
  for (const DirEntry& entry : entries.value()) {
    if (budget == 0) {
      Error e{Errc::too_large};
      e.limit = max_entries;
      return e;
    }
    --budget;
    const std::string path = joined(dir, entry.name);
    auto type = entry.type;
    if (type == sys::EntryType::unknown) {
      auto st = sys::stat_at(fd.value().get(), entry.name.c_str());
      if (!st) continue;
      type = S_ISDIR(st.value().st_mode)   ? sys::EntryType::directory
             : S_ISREG(st.value().st_mode) ? sys::EntryType::file
                                           : sys::EntryType::other;
    }
    if (type == sys::EntryType::directory && entry.name != "node_modules") {
      if (auto st = worker_files_under(path, budget, out, max_entries); !st) return st;
    } else if (type == sys::EntryType::file && entry.name.ends_with(".worker")) {
      out.push_back(path);
    }
  }
  return ok_status();
}

}  // namespace

Result<NextRunFiles> next_run_files(const std::string& config_file,
                                    const std::vector<std::string>& worker_dirs,
                                    const std::vector<std::string>& writable_areas,
                                    std::size_t max_entries) {
  NextRunFiles out;
  out.existing.push_back(config_file);
  for (const std::string& dir : ancestors(parent_of(config_file))) {
    for (std::string_view name : sandbox_config_names()) {
      const std::string file = joined(dir, name);
      if (is_file(file)) out.existing.push_back(file);
      if (!entry_exists(file)) out.absent.push_back(real_name(file));
    }
  }
  std::vector<std::string> real_areas;
  for (const std::string& area : writable_areas) real_areas.push_back(real_name(area));
  std::size_t budget = max_entries;
  for (const std::string& dir : worker_dirs) {
    if (!is_directory(dir)) {
      out.absent.push_back(real_name(dir));
      continue;
    }
    // A worker directory is protected whole (bound read-only it is a mount point a command
    // cannot rename away and recreate), unless it holds a writable area itself (workerPaths:
    // ["."]): then only its .worker files are.
    const std::string real = real_name(dir);
    const bool holds_area = std::any_of(real_areas.begin(), real_areas.end(),
                                        [&](const std::string& a) { return within(a, real); }) ||
                            std::any_of(writable_areas.begin(), writable_areas.end(),
                                        [&](const std::string& a) { return within(a, dir); });
    if (!holds_area) {
      out.existing.push_back(dir);
    } else if (auto st = worker_files_under(dir, budget, out.existing, max_entries); !st) {
      Error e = st.error();
      e.size = max_entries - budget;
      return e;
    }
  }
  for (std::vector<std::string>* list : {&out.existing, &out.absent}) {
    std::vector<std::string> unique;
    for (std::string& p : *list) {
      if (std::find(unique.begin(), unique.end(), p) == unique.end())
        unique.push_back(std::move(p));
    }
    *list = std::move(unique);
  }
  return out;
}

}  // namespace msb
