#include "launcher/host_identity.h"

#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>

#include "common/unique_fd.h"

namespace msb {
namespace {

// In the order of NotifyLimits::values: inotify's two first, then fanotify's (Linux 5.13+).
constexpr const char* kNotifyLimitFiles[] = {
    "/proc/sys/user/max_inotify_instances",
    "/proc/sys/user/max_inotify_watches",
    "/proc/sys/user/max_fanotify_groups",
    "/proc/sys/user/max_fanotify_marks",
};

long long read_number(const char* path) {
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return -1;
  char buf[32];
  const ssize_t n = ::read(fd.get(), buf, sizeof buf);
  if (n <= 0) return -1;
  long long value = -1;
  const auto [end, ec] = std::from_chars(buf, buf + n, value);
  return ec == std::errc() && value >= 0 ? value : -1;
}

bool write_number(const char* path, long long value) {
  UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  const std::string text = std::to_string(value);
  return ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// Both limits of a kind known and set to their share.
bool share_pair(const NotifyLimits& host, std::size_t first) {
  bool set = true;
  for (std::size_t i = first; i < first + 2; ++i) {
    const long long value = host.values[i];
    set = set && value >= 0 && write_number(kNotifyLimitFiles[i], value / 2);
  }
  return set;
}

}  // namespace

Status name_neutral_host() {
  if (::sethostname(kNeutralHostname, std::strlen(kNeutralHostname)) != 0)
    return sys_failure(SysOp::none, errno);
  constexpr const char* kNoDomain = "(none)";
  if (::setdomainname(kNoDomain, std::strlen(kNoDomain)) != 0)
    return sys_failure(SysOp::none, errno);
  return ok_status();
}

Status enter_cgroup_namespace() {
  if (::unshare(CLONE_NEWCGROUP) != 0) {
    Error e = from_errno(SysOp::unshare, errno);
    e.code = Errc::unsupported;
    return e;
  }
  return ok_status();
}

Status join_own_session_keyring() {
  // A null name: an anonymous keyring, new each time, which nothing else holds.
  if (::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr) < 0) {
    Error e = from_errno(SysOp::none, errno);
    e.code = Errc::unsupported;
    return e;
  }
  return ok_status();
}

NotifyLimits read_notify_limits() {
  NotifyLimits limits;
  for (std::size_t i = 0; i < limits.values.size(); ++i)
    limits.values[i] = read_number(kNotifyLimitFiles[i]);
  return limits;
}

NotifyLimitsSet share_notify_limits(const NotifyLimits& host) {
  return {share_pair(host, 0), share_pair(host, 2)};
}

}  // namespace msb
