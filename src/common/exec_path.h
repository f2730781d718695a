// One path of an exec policy: what the file sandbox hands the launcher for each mount source
// (Sandbox::exec_paths) and what the launcher places in the command's root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/file_id.h"

namespace msb {

// Where a command's name is searched when its environment has no PATH. lib/exec/exec.js gives every
// command this PATH by default; test/rules-once.test.js checks its copy against the addon's.
inline constexpr std::string_view kDefaultCommandPath = "/usr/local/bin:/usr/bin:/bin";

enum class PathAccess : std::uint8_t {
  read,        // read and execute (system directories, read-only mounts)
  write,       // everything but device nodes
  write_keep,  // write, but not remove (a mount whose deletes are blocked)
  protect,     // no access granted; made read-only where it lies inside a writable path
  device,      // a character device opened for reading and writing (/dev/null)
  pin,         // a directory inside a writable path, bound onto itself so it cannot be renamed
};

struct ExecPath {
  std::string path;  // absolute host path
  PathAccess access = PathAccess::read;
  // The inode the sandbox pinned for a mount source: the launcher refuses to run when the path
  // now names another one (a component swapped for a symlink since the sandbox was made).
  std::optional<FileId> id;
  // Where the path appears in the command's root (an absolute path there). Empty: it appears only
  // where it lies inside another path that has a target (protect and pin entries).
  std::string target;
  // Set by the launcher (note_system_links), never sent: the symlink to recreate at `target`.
  std::string link;
  // A writable path seen through a copy-on-write layer (launcher/change_layer.h): the host
  // directories that take the command's changes (upper) and overlayfs's scratch (work), both on
  // one filesystem and outside `path`. Empty: the path is bound as it is.
  std::string upper;
  std::string work;
};

// What one command may consume; 0 leaves a resource unlimited.
struct ExecLimits {
  unsigned processes = 0;          // processes and threads together
  std::uint64_t memory_bytes = 0;  // data segment of each process (RLIMIT_DATA)
  unsigned cpu_seconds = 0;        // CPU time of each process (RLIMIT_CPU)
  std::uint64_t tmp_bytes = 0;     // the size of the command's /tmp (a tmpfs); 0: unbounded
};

// The size of the command's /tmp: tmpBytes, no more than memoryBytes where that is given too;
// 0 (neither given) leaves /tmp the host's directory (launcher/run_scratch.h makes it).
inline std::uint64_t tmp_size(const ExecLimits& limits) {
  if (limits.tmp_bytes == 0) return limits.memory_bytes;
  if (limits.memory_bytes == 0) return limits.tmp_bytes;
  return limits.tmp_bytes < limits.memory_bytes ? limits.tmp_bytes : limits.memory_bytes;
}

}  // namespace msb
