// A file's version: what tells, from outside, that an entry was replaced (device, inode, type) or
// changed in place (size, modification and change times) since someone looked at it. stat() hands
// it out as an opaque token; write and edit compare against it (ifVersion), and edit checks that
// the file it read is still the one at its name just before its replacement takes that name.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace msb {

struct FileVersion {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  std::uint32_t type = 0;  // the S_IFMT bits of the mode
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileVersion&) const = default;
};

FileVersion version_of(const struct stat& st) noexcept;
FileVersion version_of(const struct statx& sx) noexcept;

// 16 lowercase hex digits: SipHash-2-4 of every field under a fixed key. The same version gives the
// same token in any process; nothing of the host (inode, device, times) can be read back from it;
// two versions share a token with negligible probability (2^-64).
std::string version_token(const FileVersion& v);

// The version of what an open descriptor (O_PATH ones too) names.
Result<FileVersion> version_of_fd(int fd);
// The version of the entry `name` in `dir_fd` itself (a symlink is not followed); std::nullopt
// when there is none.
Result<std::optional<FileVersion>> version_of_entry(int dir_fd, const std::string& name);

}  // namespace msb
