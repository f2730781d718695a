// Opening a path beneath a pinned directory descriptor without ever leaving it. Two strategies
// with the same semantics: the kernel's openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), and a
// component walk with O_PATH | O_NOFOLLOW for kernels (or seccomp profiles) without openat2.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/unique_fd.h"

namespace msb {

enum class ResolverKind { automatic, openat2, walk };

// Probed once per process; false on ENOSYS (old kernels, gVisor, seccomp filters).
bool openat2_supported() noexcept;

struct OpenRequest {
  int flags = 0;             // O_CLOEXEC is always added
  mode_t mode = 0;           // with O_CREAT
  bool follow_final = true;  // false: a final symlink is opened as itself (O_PATH) or refused
  bool symlinks = true;      // false: any symlink on the way fails with symlink_escape
};

// Opens parts[begin..end) beneath `base`. Relative symlinks are followed while they stay beneath
// `base`; absolute symlinks, links that climb out, and /proc magic links fail with
// symlink_escape; more than 40 links fail with symlink_loop. An empty range opens `base` itself.
// With `request.symlinks` false no link is followed at all (each one fails with symlink_escape).
Result<UniqueFd> open_beneath(int base, const std::vector<std::string>& parts, std::size_t begin,
                              std::size_t end, const OpenRequest& request, ResolverKind kind);

// The same lookup as open_beneath with the openat2 resolver, but served from the kernel's dentry
// cache or not at all (RESOLVE_CACHED), so it never waits for I/O. Gives a descriptor, or
// not_found for a cached negative entry; std::nullopt whenever the kernel would have to block,
// refuses, or cannot promise either, and the caller must then take its blocking path.
std::optional<Result<UniqueFd>> open_beneath_cached(int base, const std::vector<std::string>& parts,
                                                    std::size_t begin, std::size_t end, int flags);

}  // namespace msb
