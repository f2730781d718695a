// The typed model of a program configuration file (golem-forge.config.yaml / .yml / .json), and
// the loader that fills it. Parsing and validation happen once, here; the model is what
// sandboxes are built from. The loader does no file I/O: it takes the text and the file's path
// (for relative paths and for error reports).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "config/config_error.h"
#include "config/network_setting.h"
#include "fs/mount_rules.h"
#include "fs/mount_table.h"
#include "fs/trusted_names.h"

namespace msb {

enum class ConfigFormat : std::uint8_t { yaml, json };

// The largest values a config may give; the addon exports them so that a config given to
// createMountSandbox is held to the same bounds.
inline constexpr std::uint64_t kMaxFileBytesLimit = std::uint64_t{1} << 53;  // exact in JavaScript
inline constexpr std::uint64_t kMaxDelegationDepth = 100;

// golem-forge's mount form (root + mounts) or seed 000's zone form (named zones mounted at
// /<name>, with no root of their own). In the zone form, sandboxed mode places zone paths under
// `root` (default ".sandbox"); direct mode takes them relative to the config file.
enum class SandboxLayout : std::uint8_t { mounts, zones_sandboxed, zones_direct };

struct ZoneInfo {
  std::string name;  // mounted at "/<name>"
};

struct ProgramSandbox {
  SandboxLayout layout = SandboxLayout::mounts;
  // Absolute, lexically normalized host path mounted at "/". Empty in the zone form: "/" then
  // only lists the zones.
  std::string root;
  bool readonly = false;
  ApprovalRule approval;                 // for the root mount
  FilePolicy policy;                     // for the root mount
  bool allow_pseudo_filesystem = false;  // for the root mount: see MountSpec
  // Absolute sources; zones appear here as mounts at "/<name>", in the order written.
  std::vector<MountSpec> mounts;
  // For the zone form, parallel to `mounts`: which zone each mount is.
  std::vector<ZoneInfo> zones;
  NetworkSetting network;  // what the sandbox's commands may reach
  // What becomes of its commands' changes by default: "apply", "review" or "direct"; empty when
  // the file does not say (lib/exec/exec.js, docs/exec.md "What lands").
  std::string changes;
  // The size of its commands' /tmp (tmpBytes), when the file says.
  std::optional<std::uint64_t> tmp_bytes;
  // trustedNames: { add, release } (host_paths and builtin are not the file's to say).
  TrustedNamesSpec trusted;
};

struct ProgramConfig {
  std::string file;  // as given to the loader
  std::string dir;   // absolute directory relative paths were resolved against
  // No `sandbox` section means no file access at all (seed 002).
  std::optional<ProgramSandbox> sandbox;
  std::uint32_t max_depth = 5;  // delegation.maxDepth
  // Where golem-forge looks for .worker files (workerPaths, default workers and .workers), as
  // absolute directories: their .worker files are protected from the commands a sandbox runs.
  std::vector<std::string> worker_paths;
};

// `file` must be absolute (relative paths in the config resolve against its directory).
Result<ProgramConfig, ConfigError> parse_program_config(std::string_view text,
                                                        std::string_view file, ConfigFormat format);

}  // namespace msb
