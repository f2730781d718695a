// What msb-launch tells its caller on the status channel (descriptor 3; launcher_main.cc lists
// the lines): the layers it applied and missed, or the stage where it stopped.
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"
#include "launcher/launch_stage.h"

namespace msb {

inline constexpr int kStatusFd = 3;
inline constexpr int kLaunchFailed = 125;  // our exit status when nothing was run

// One line, written whole (retrying short writes); nothing when the caller is gone.
void report(const std::string& line);

// "error <stage> [<syscall>] <errno>": the call's name only where one failed. Then exits with
// kLaunchFailed.
[[noreturn]] void fail(LaunchStage stage, int err, SysOp op = SysOp::none);
[[noreturn]] void fail(LaunchStage stage, const Error& e);

// The layers for the "ok" line, each list comma-separated in the order they were added.
struct LaunchLayers {
  int abi = 0;  // Landlock's
  std::string applied;
  std::string missing;
  void apply(std::string_view name) { add(applied, name); }
  void miss(std::string_view name) { add(missing, name); }
  // "ok <landlock abi> <layers applied> <layers missing>", "-" for an empty list.
  std::string line() const;

 private:
  static void add(std::string& list, std::string_view name);
};

}  // namespace msb
