// What the files implementing Sandbox (sandbox*.cc) share and nothing else may use: the open
// flags of a lookup and the few error shapes more than one of them builds.
#pragma once

#include <fcntl.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "common/error.h"

namespace msb::sandbox_internal {

// A lookup that only names an entry: O_PATH runs no filesystem open hook, so it cannot wait on
// FUSE or NFS, and it grants no access to what it found.
inline constexpr int kPathFlags = O_PATH;

inline Error from_errno() {
  return Error{errc_from_errno(errno), errno};
}

// Which input of several (move/copy ends, attachments) the error is about.
inline Error at_index(Error e, std::size_t index) {
  e.index = index;
  return e;
}

inline Error too_large(std::uint64_t size, std::uint64_t limit) {
  Error e{Errc::too_large};
  e.size = size;
  e.limit = limit;
  return e;
}

}  // namespace msb::sandbox_internal
