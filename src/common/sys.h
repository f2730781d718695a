// The system calls the file sandbox makes, each once: retried on EINTR where the kernel may
// interrupt it, and failing with an Error that names the call (Error::op) and maps its errno to
// the sandbox's refusals (from_errno). Names are single components relative to a directory
// descriptor, or "" with AT_EMPTY_PATH: nothing here resolves a path of its own.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/unique_fd.h"

namespace msb::sys {

// openat(dir_fd, name, flags | O_CLOEXEC, mode).
Result<UniqueFd> open_at(int dir_fd, const char* name, int flags, mode_t mode = 0);

Result<struct stat> stat_fd(int fd);
// fstatat without following a final symlink.
Result<struct stat> stat_at(int dir_fd, const char* name);

// `flags` is 0 or AT_REMOVEDIR.
Status unlink_at(int dir_fd, const char* name, int flags = 0);
// An existing entry is already_exists like any other failure: callers decide what it means.
Status make_dir_at(int dir_fd, const char* name, mode_t mode);
Status symlink_at(const char* text, int dir_fd, const char* name);
Status link_at(int from_dir, const char* from, int to_dir, const char* to, int flags = 0);

// Renames `from` to `to`, over whatever `to` is with `replace`, else only where there is
// nothing (already_exists otherwise), decided atomically by the kernel: renameat2's
// RENAME_NOREPLACE, or on filesystems without it link() (which never replaces either) and then
// unlink() of `from`.
Status rename_at(int from_dir, const char* from, int to_dir, const char* to, bool replace);

// rename_at's fallback where the filesystem has no RENAME_NOREPLACE: link() `to`, then unlink()
// `from`. Refuses an existing `to` (already_exists) like renameat2 would.
Status rename_by_link(int from_dir, const char* from, int to_dir, const char* to);

// The text of the symlink `name` in `dir_fd` ("" with the link's own O_PATH descriptor).
Result<std::string> read_link(int dir_fd, const char* name);

// Writes all of `data`, however many write() calls it takes.
Status write_all(int fd, const std::uint8_t* data, std::size_t size);

// pread() until `size` bytes or the end of the file: how many were read.
Result<std::size_t> pread_full(int fd, std::uint8_t* data, std::size_t size, std::uint64_t offset);

// What a directory says an entry is. `unknown` where the filesystem does not say: ask fstatat.
// `other`: a FIFO, socket or device; `file`: a regular file (appended: the values are closed).
enum class EntryType : std::uint8_t { unknown, directory, symlink, other, file };

// Reads one getdents64 batch from `dir_fd`, handing each entry but "." and ".." to `on_entry`
// with its type as the directory records it (so a walk need not stat every file); false once
// the directory is exhausted. A caller can so bound the work it does per call on huge directories.
Result<bool> read_dir_batch(int dir_fd,
                            const std::function<void(std::string_view, EntryType)>& on_entry);

}  // namespace msb::sys
