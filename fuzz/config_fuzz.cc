// libFuzzer target for everything that reads untrusted text before a sandbox exists: the program
// config loaders (YAML and JSON), the worker file loader and the virtual path parsers. Besides
// the sanitizers' findings, it traps when a result breaks an invariant the rest of the core
// relies on.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/path.h"
#include "config/json_reader.h"
#include "config/program_config.h"
#include "config/worker_file.h"

namespace {

void require(bool condition) {
  if (!condition) __builtin_trap();
}

void check_config(const msb::Result<msb::ProgramConfig, msb::ConfigError>& parsed) {
  if (!parsed || !parsed.value().sandbox) return;
  const msb::ProgramSandbox& sandbox = *parsed.value().sandbox;
  require(sandbox.root.empty() == (sandbox.layout != msb::SandboxLayout::mounts));
  require(sandbox.zones.empty() || sandbox.zones.size() == sandbox.mounts.size());
  for (const msb::MountSpec& mount : sandbox.mounts) {
    require(!mount.source.empty() && mount.source.front() == '/');
    require(msb::parse_mount_target(mount.target).ok());
  }
}

void check_worker(const msb::Result<msb::WorkerDeclaration, msb::ConfigError>& parsed) {
  if (!parsed) return;
  const msb::WorkerDeclaration& worker = parsed.value();
  if (worker.restrict) require(msb::parse_virtual_path(*worker.restrict).ok());
  require(worker.zones.empty() == (worker.kind != msb::WorkerSandboxKind::zones));
}

void check_paths(std::string_view text) {
  const auto path = msb::parse_virtual_path(text);
  if (path.ok()) {
    // Normal form is a fixed point.
    const auto again = msb::parse_virtual_path(path.value().str());
    require(again.ok() && again.value().parts == path.value().parts);
  }
  const auto target = msb::parse_mount_target(text);
  if (target.ok()) {
    require(!target.value().parts.empty());
    require(path.ok() && path.value().parts == target.value().parts);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_config(
      msb::parse_program_config(text, "/fuzz/golem-forge.config.yaml", msb::ConfigFormat::yaml));
  check_config(
      msb::parse_program_config(text, "/fuzz/golem-forge.config.json", msb::ConfigFormat::json));
  // Whatever parse_json accepts, its parser checking syntax alone must accept too.
  if (msb::parse_json(text).ok()) {
    require(!msb::json_syntax_error(text));
  }
  check_worker(msb::parse_worker_file(text));
  check_paths(text);
  return 0;
}
