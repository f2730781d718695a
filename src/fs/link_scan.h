// For commands: which regular files in the writable sources have names outside them (hard links
// made before the sandbox existed, into a read-only mount's source or anywhere else on the host).
// A command cannot make such a link (link() does not cross the mounts its view is made of), but
// it writes through one already there; sandbox.exec() binds these files read-only before a run.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/error.h"

namespace msb {

// How many entries the walk reads at most over all sources: a command cannot wait on an
// unbounded walk, and a tree past this is reported as truncated rather than half-judged.
inline constexpr std::size_t kLinkScanEntries = 500000;

struct LinkSource {
  std::string host;               // an absolute host path of a directory, writable in the view
  std::vector<std::string> skip;  // paths below it ("a/b") that another mount covers in the view
};

struct LinkScan {
  // Host paths, beneath a source as it was named: every name in the sources of a file with more
  // links than the walk found in all of them together.
  std::vector<std::string> found;
  bool truncated = false;  // the entry budget ran out: files not reached are not judged
};

// One walk by descriptors over every source, never following a link nor entering `skip`. A name
// found in two writable sources counts for both, so a link between them is not reported.
Result<LinkScan> find_shared_links(const std::vector<LinkSource>& sources,
                                   std::size_t max_entries = kLinkScanEntries);

}  // namespace msb
