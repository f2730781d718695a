// Settling a new sandbox's configured sources, all at once, before its first operation.
//
// A configured host path is trusted as the operator wrote it (symlinks in it are the operator's
// choice) except for the part that lies inside another writable source of the same sandbox: a
// model, or a command confined to the sandbox, can create entries there, so a symlink met there
// would let it choose what a mount pins. Such a source is refused (untrusted_source), whatever
// the link points at. "Inside" is judged on the directories the walk really passes through, not
// on spellings, so an alias of a writable source is seen through. A source on a
// pseudo-filesystem (procfs, sysfs, the device filesystem, ...: fd_io.h's pseudo_filesystem_of)
// is refused with pseudo_filesystem unless its anchor allows it.
#pragma once

#include <vector>

#include "fs/anchor.h"

namespace msb {

struct SourceToPin {
  Anchor* anchor;
  bool writable;  // the sandbox may create entries in it
};

// Settles every anchor: pinned, or refused with the reason (not_found for a source that does
// not exist, which stays refused; pseudo_filesystem for one on procfs and its like). With
// `create_missing`, missing directories are created first (mkdir -p, createMountSandboxAsync),
// never through a symlink inside a writable source.
void pin_sources(const std::vector<SourceToPin>& sources, bool create_missing);

}  // namespace msb
