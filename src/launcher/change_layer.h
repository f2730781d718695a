// A writable path seen through a copy-on-write layer: overlayfs with the host directory as its
// only lower layer and the run's own upper and work directories, mounted in the command's user
// namespace (Linux 5.11+, with "userxattr": whiteouts and opaque marks are user.overlay.*
// attributes). The command sees its writes at once; the host directory stays as it was, and the
// upper directory holds the change set the caller judges after the run (src/changes/).
#pragma once

#include <string_view>

#include "common/error.h"
#include "common/exec_path.h"
#include "common/unique_fd.h"
#include "launcher/exec_policy.h"

namespace msb {

// The upper and work directories of a layered entry, opened (never through a symlink) before
// anything is mounted over the paths that lead to them: host paths (with `base` AT_FDCWD), or
// names beneath the run's tmpfs (run_scratch.h).
struct LayerDirs {
  UniqueFd upper;
  UniqueFd work;
};
Result<LayerDirs> open_layer_dirs(const ExecPath& entry, int base);

// Mounts the layer made of `dirs` over `lower`, an O_PATH descriptor of the entry's path, at
// `place` (nosuid, nodev), and returns a descriptor of the layer's root: the object Landlock
// grants the entry's rights on, since the host directory's inode is not what the command reaches
// there. Fails with io_error; Error::op is fsopen, fsconfig or fsmount where overlayfs refused
// (the caller reports the layer unavailable), move_mount or openat otherwise.
Result<UniqueFd> mount_change_layer(const LayerDirs& dirs, int lower, int place);

// Whether any path of the policy is to be seen through a layer; whether `path` (in the command's
// root) lies in one.
bool has_layers(const ExecPolicy& policy) noexcept;
bool in_layer(const ExecPolicy& policy, std::string_view path) noexcept;

// Whether an error of mount_change_layer (or of building a root that made one) says the layer
// itself is unavailable here, rather than that a path could not be reached.
bool layer_unavailable(const Error& e) noexcept;

}  // namespace msb
