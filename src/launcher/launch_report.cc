#include "launcher/launch_report.h"

#include <unistd.h>

#include <cerrno>

namespace msb {

void report(const std::string& line) {
  std::string text = line;
  text.push_back('\n');
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(kStatusFd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void fail(LaunchStage stage, int err, SysOp op) {
  std::string line = "error ";
  line.append(stage_name(stage)).append(" ");
  if (op != SysOp::none) line.append(sysop_name(op)).append(" ");
  line.append(std::to_string(err));
  report(line);
  ::_exit(kLaunchFailed);
}

void fail(LaunchStage stage, const Error& e) {
  fail(stage, e.sys_errno, e.op);
}

std::string LaunchLayers::line() const {
  return "ok " + std::to_string(abi) + " " + (applied.empty() ? "-" : applied) + " " +
         (missing.empty() ? "-" : missing);
}

void LaunchLayers::add(std::string& list, std::string_view name) {
  if (!list.empty()) list.push_back(',');
  list.append(name);
}

}  // namespace msb
