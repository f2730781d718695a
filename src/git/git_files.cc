#include "git/git_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "common/sys.h"

namespace msb::git {
namespace {

bool absent_errno(int err) {
  return err == ENOENT || err == ENOTDIR || err == EACCES;
}

std::vector<std::string_view> parts_of(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// A directory the command left without permissions: ours to make removable (it ran as us).
// Also one left read-only (0500): its entries could not be unlinked.
UniqueFd open_removable_dir(int parent, const std::string& name) {
  (void)::fchmodat(parent, name.c_str(), 0700, AT_SYMLINK_NOFOLLOW);  // it goes anyway
  return UniqueFd(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// Unlinks every entry that is not a directory; the first subdirectory's name, or "" when none.
bool empty_files(int dir, std::string& subdir, std::size_t& budget) {
  subdir.clear();
  std::vector<std::string> files;
  for (bool more = true; more;) {
    auto batch = sys::read_dir_batch(dir, [&](std::string_view name, sys::EntryType type) {
      bool directory = type == sys::EntryType::directory;
      if (type == sys::EntryType::unknown) {
        struct stat st {};
        const std::string n(name);
        directory = ::fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      if (!directory) {
        files.emplace_back(name);
      } else if (subdir.empty()) {
        subdir = name;
      }
    });
    if (!batch || files.size() > budget) return false;  // memory bounded too
    more = batch.value();
  }
  for (const std::string& file : files) {
    if (budget == 0 || ::unlinkat(dir, file.c_str(), 0) != 0) return false;
    --budget;
  }
  return true;
}

}  // namespace

FileId id_of(const struct stat& st) {
  return FileId{st.st_dev, st.st_ino};
}

Result<UniqueFd> open_real_path(std::string_view path) {
  UniqueFd dir(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return from_errno(SysOp::open, errno);
  for (std::string_view part : parts_of(path)) {
    const std::string name(part);
    UniqueFd next(::openat(dir.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return from_errno(SysOp::openat, errno);
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return from_errno(SysOp::fstat, errno);
    if (S_ISLNK(st.st_mode)) return Errc::symlink_escape;
    dir = std::move(next);
  }
  return dir;
}

Result<std::optional<struct stat>> look(int dir_fd, const char* name) {
  struct stat st {};
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) return std::optional(st);
  if (absent_errno(errno)) return std::optional<struct stat>();
  return from_errno(SysOp::fstatat, errno);
}

Result<UniqueFd> open_dir_at(int dir_fd, const char* name) {
  UniqueFd fd(::openat(dir_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.valid() || absent_errno(errno) || errno == ELOOP) return fd;
  return from_errno(SysOp::openat, errno);
}

Result<std::optional<std::string>, GitRefusal> read_small_file(int dir_fd, const char* name,
                                                               std::uint64_t limit,
                                                               std::string_view what) {
  UniqueFd fd(::openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) {
    if (absent_errno(errno) || errno == ELOOP || errno == ENXIO)
      return std::optional<std::string>();
    return GitRefusal{GitRefusalKind::io, std::string(what), errno};
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return GitRefusal{GitRefusalKind::io, std::string(what), errno};
  if (!S_ISREG(st.st_mode)) return std::optional<std::string>();
  if (static_cast<std::uint64_t>(st.st_size) > limit)
    return GitRefusal{GitRefusalKind::too_large, std::string(what), 0};
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  auto got =
      sys::pread_full(fd.get(), reinterpret_cast<std::uint8_t*>(text.data()), text.size(), 0);
  if (!got) return GitRefusal{GitRefusalKind::io, std::string(what), got.error().sys_errno};
  text.resize(got.value());
  return std::optional(std::move(text));
}

std::string first_line(int dir_fd, const char* name, std::uint64_t limit) {
  auto text = read_small_file(dir_fd, name, limit, name);
  if (!text || !text.value()) return {};
  std::string line = text.value()->substr(0, text.value()->find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

bool remove_tree(int dir_fd, const std::string& name, std::size_t max_entries) {
  if (::unlinkat(dir_fd, name.c_str(), 0) == 0) return true;  // a file or a symlink
  if (errno != EISDIR && errno != EPERM) return errno == ENOENT;
  // Depth-first with one open directory at a time, so depth costs no descriptors: descend
  // into the first subdirectory, remove what holds no directories, climb back through "..".
  std::size_t budget = max_entries;
  std::vector<std::string> trail{name};
  UniqueFd dir = open_removable_dir(dir_fd, name);
  std::string subdir;
  while (dir.valid()) {
    if (!empty_files(dir.get(), subdir, budget)) return false;
    if (!subdir.empty()) {
      if (budget-- == 0) return false;
      dir = open_removable_dir(dir.get(), subdir);
      trail.push_back(subdir);
      continue;
    }
    if (trail.size() == 1) break;
    UniqueFd up(::openat(dir.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!up.valid() || ::unlinkat(up.get(), trail.back().c_str(), AT_REMOVEDIR) != 0) return false;
    trail.pop_back();
    dir = std::move(up);
  }
  if (!dir.valid()) return false;
  dir.reset();
  return ::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) == 0;
}

Result<std::vector<std::string>> list_dir(int path_fd) {
  UniqueFd dir(::openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return from_errno(SysOp::openat, errno);
  std::vector<std::string> names;
  for (bool more = true; more;) {
    auto batch = sys::read_dir_batch(
        dir.get(), [&](std::string_view name, sys::EntryType) { names.emplace_back(name); });
    if (!batch) return std::move(batch).error();
    more = batch.value();
  }
  return names;
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out.push_back('/');
  return out.append(name);
}

bool within(std::string_view inner, std::string_view outer) {
  if (outer == "/") return !inner.empty() && inner.front() == '/';
  if (!inner.starts_with(outer)) return false;
  return inner.size() == outer.size() || inner[outer.size()] == '/';
}

std::string resolve_lexically(std::string_view base, std::string_view path) {
  std::vector<std::string_view> parts =
      path.starts_with('/') ? std::vector<std::string_view>{} : parts_of(base);
  for (std::string_view part : parts_of(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view part : parts) out.append("/").append(part);
  return out.empty() ? "/" : out;
}

}  // namespace msb::git
