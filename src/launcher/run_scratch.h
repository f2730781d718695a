// What a command writes outside the host, on one tmpfs of tmp_size() (common/exec_path.h): its /tmp
// and, where the caller can take them back, the upper and work directories of its copy-on-write
// layers (change_layer.h). One size then bounds both together, counted like memory (a cgroup
// charges the pages; without one the size caps them) rather than filling the host's disk, and
// whatever fills it gets ENOSPC. The layers' changes outlive the mount namespace: the caller
// receives a descriptor of the tmpfs (fd_passing.h), which keeps it alive until closed, and reads
// them beneath it (src/changes/).
#pragma once

#include "common/error.h"
#include "common/unique_fd.h"
#include "launcher/exec_policy.h"

namespace msb {

// The label the tmpfs is handed to the caller with.
inline constexpr const char* kScratchLabel = "layers";

struct Scratch {
  UniqueFd root;        // the tmpfs's root directory (O_RDONLY): the caller's, with the layers
  bool layers = false;  // the layers are in it: each layered entry's upper and work now name
                        // directories beneath `root` (one component each), not host paths
};

// In the command's new mount namespace, before the policy's paths are opened: the private temp
// directory (the path placed at /tmp) is covered by the tmpfs. With `with_layers`, where this
// tmpfs takes user.* attributes (overlayfs's marks with "userxattr"; Linux 6.6+), the tmpfs's
// root holds "tmp", bound over the private temp directory, and for each layered entry the
// directories named as its upper and work directories end (the caller's "<i>u" and "<i>w");
// otherwise the tmpfs is /tmp alone and the layers stay on the host. The few small regular files
// the caller put in its temp directory before the launch are copied in; the host's directory gets
// nothing more. Nothing where tmp_size() is 0 or no path is placed at /tmp. Fails with io_error
// (sys_errno, op); invalid_config for an upper or work directory named "tmp" or twice.
Result<Scratch> make_scratch(ExecPolicy& policy, bool with_layers);

}  // namespace msb
