// The typed model of a worker's sandbox declaration (the frontmatter of a .worker file), and the
// loader that fills it. Parsing and validation happen once, here. The loader does no file I/O.
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

namespace msb {

// What a worker's frontmatter asks for. `inherit`: no sandbox section (the parent's sandbox, as
// golem-forge's call_worker does). `none`: `sandbox: false` or `zones: []`, a pure function with
// no file access. `restrict`: golem-forge's { restrict, readonly, approval }. `zones`: seed 000's
// { zones: [{ name, mode }] }.
enum class WorkerSandboxKind : std::uint8_t { inherit, none, restrict, zones };

struct ZoneRequest {
  std::string name;
  bool readonly = false;  // mode: ro; "rw" (the default) is false
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct WorkerDeclaration {
  std::string name;  // frontmatter `name`, or empty
  WorkerSandboxKind kind = WorkerSandboxKind::inherit;
  std::optional<std::string> restrict;  // virtual path, starts with '/'
  std::optional<bool> readonly;
  std::optional<Approval> approve_write;
  std::optional<Approval> approve_delete;
  std::vector<ZoneRequest> zones;
  NetworkSetting network;  // narrows the parent's; unset keeps it
};

// A .worker file: YAML frontmatter between "---" lines, then the instructions. Only the
// `sandbox` key (and `name`) is interpreted; other keys belong to the agent framework. Line
// numbers in errors count from the file's first line.
Result<WorkerDeclaration, ConfigError> parse_worker_file(std::string_view text);

}  // namespace msb
