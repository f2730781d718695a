// What the files implementing Sandbox (sandbox*.cc) share and nothing else may use. The error
// factories they need (at_index, too_large) and the syscalls are common's (error.h, sys.h).
#pragma once

#include <fcntl.h>

#include "git/git_layout.h"

namespace msb::sandbox_internal {

// A lookup that only names an entry: O_PATH runs no filesystem open hook, so it cannot wait on
// FUSE or NFS, and it grants no access to what it found.
inline constexpr int kPathFlags = O_PATH;

// A directory made at a name of git's layout: never a valid HEAD, a present objects or refs.
inline constexpr git::LayoutChange kDirectoryPlaced = git::LayoutChange::unknown(true);

}  // namespace msb::sandbox_internal
