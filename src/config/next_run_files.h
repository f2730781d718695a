// What the next run trusts of a program config, found once in the core when a sandbox is made
// from it: the config itself, the config names discovery would find in its directory and each one
// above, and its worker directories. A command run in that sandbox must not change the ones that
// exist (sandbox.exec() binds them read-only) nor create the ones that do not (it removes what
// appears at them after the run); the file API refuses both (fs/trusted_names.h, kind sandbox).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/error.h"

namespace msb {

// How many entries the walk of worker directories reads at most (.worker files are looked for
// below a worker directory that holds a writable area).
inline constexpr std::size_t kMaxWorkerScanEntries = 100000;

struct NextRunFiles {
  // Host paths that exist: the config, each config name found as a file in its directory and
  // above, each worker directory (whole), or, for one that holds a writable area, its .worker
  // files (symbolic links not followed, node_modules skipped, as golem-forge's registry scans).
  std::vector<std::string> existing;
  // Host paths that do not exist yet, as the host will resolve them later (the nearest existing
  // directory's real path, then the rest as named): each config name missing in the config's
  // directory and above, and each worker directory that is missing or not a directory.
  std::vector<std::string> absent;
};

// `config_file`: the absolute path of the config; `worker_dirs`: its worker directories,
// absolute; `writable_areas`: where its sandbox lets commands write (absolute). too_large
// (size = entries read, limit = max_entries) past the walk's bound.
Result<NextRunFiles> next_run_files(const std::string& config_file,
                                    const std::vector<std::string>& worker_dirs,
                                    const std::vector<std::string>& writable_areas,
                                    std::size_t max_entries = kMaxWorkerScanEntries);

}  // namespace msb
