// Places in the command's root as the launcher builds it: reached component by component from the
// root's descriptor, never through a symlink, and mount trees attached there by descriptor.
#pragma once

#include <sys/mount.h>

#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "common/unique_fd.h"

namespace msb {

inline constexpr std::uint64_t kReadOnly = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
inline constexpr std::uint64_t kWritable = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;

bool same_inode(int a, int b);
bool is_directory(int fd);

enum class Create : std::uint8_t { never, directory, file };

// `path` (absolute in the new root) beneath `root`, component by component. Intermediate
// directories are created with `create` != never; the last component is created as `create` says.
Result<UniqueFd> open_place(int root, std::string_view path, Create create);

// A copy of the mount tree at `source` (with everything mounted below it), flags added, never
// cleared (the host's locked ones could not be), attached at `place`. By descriptor on both
// sides, so it lands where it was checked, whatever the paths name by now.
Status attach(int source, int place, std::uint64_t attrs);

}  // namespace msb
