// The few file steps the git scan takes, on descriptors and single names: every lookup is
// O_NOFOLLOW, so a symbolic link is seen as itself and never followed.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/file_id.h"
#include "common/unique_fd.h"
#include "git/git_limits.h"

namespace msb::git {

// An absolute host path without symlinks, opened one component at a time from "/" (O_PATH,
// O_NOFOLLOW at each step): any symlink on the way fails with symlink_escape.
Result<UniqueFd> open_real_path(std::string_view path);

// lstat of `name` in `dir_fd`; nullopt when nothing is there (ENOENT, ENOTDIR, EACCES: what we
// cannot see, a command running as us cannot write either).
Result<std::optional<struct stat>> look(int dir_fd, const char* name);

// O_PATH|O_NOFOLLOW descriptor of the directory `name` in `dir_fd`, or an invalid one when it is
// missing or not a directory.
Result<UniqueFd> open_dir_at(int dir_fd, const char* name);

FileId id_of(const struct stat& st);

// The regular file `name` in `dir_fd` (never a FIFO or device: opened O_NONBLOCK|O_NOFOLLOW and
// checked), at most `limit` bytes: nullopt when missing or not a regular file; too_large above.
Result<std::optional<std::string>, GitRefusal> read_small_file(int dir_fd, const char* name,
                                                               std::uint64_t limit,
                                                               std::string_view what);

// The first line of a small file, CR trimmed ("" when missing or empty).
std::string first_line(int dir_fd, const char* name, std::uint64_t limit);

// Removes `name` in `dir_fd` and, for a directory, everything in it, never following a symlink
// (a symlink is removed itself) and making directories the command left without permissions
// (mode 000) removable first. At most `max_entries` entries; false when it could not finish.
bool remove_tree(int dir_fd, const std::string& name, std::size_t max_entries);

// Entry names of the directory an O_PATH descriptor names, unsorted, without "." and "..".
Result<std::vector<std::string>> list_dir(int path_fd);

// "/a/b" joined with "c".
std::string join(std::string_view dir, std::string_view name);

// True when `inner` is `outer` or lies below it.
bool within(std::string_view inner, std::string_view outer);

// `path` resolved lexically against `base` (absolute, "." and ".." applied, no lookups).
std::string resolve_lexically(std::string_view base, std::string_view path);

}  // namespace msb::git
