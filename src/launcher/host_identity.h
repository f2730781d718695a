// What the command could learn of the host beyond its files (its name, its cgroup, the user's
// keys), and what kernel objects of the user it could take from the host's other processes: each
// step here is the launcher's own, applied before the command starts and inherited by it.
#pragma once

#include <array>

#include "common/error.h"

namespace msb {

// The machine's name inside the command's UTS namespace.
inline constexpr const char* kNeutralHostname = "sandbox";

// In a UTS namespace of our own: the hostname kNeutralHostname and the kernel's default domain
// name "(none)", so neither the host's name nor its NIS domain shows. Fails with io_error
// (sys_errno).
Status name_neutral_host();

// A cgroup namespace rooted at the cgroup we are in now, so /proc/<pid>/cgroup shows "/" for each
// hierarchy instead of the host's path. Its root is fixed when it is made: any move into another
// cgroup (one of the command's own) must come first. Fails with unsupported where the kernel
// refuses it.
Status enter_cgroup_namespace();

// A new, empty session keyring in place of the caller's, so the command possesses none of the
// keys its login session holds. Fails with unsupported without keyrings (or over the user's key
// quota).
Status join_own_session_keyring();

// The user's limits on inotify instances and watches and fanotify groups and marks, as the
// namespace we start in sets them (read before unsharing; -1 where the kernel has no such limit).
struct NotifyLimits {
  std::array<long long, 4> values{-1, -1, -1, -1};
};
NotifyLimits read_notify_limits();

// Which limits share_notify_limits set.
struct NotifyLimitsSet {
  bool inotify = false;
  bool fanotify = false;
};

// In our user namespace: each of `host`'s limits at half its value. The kernel counts the
// namespace's objects against its own limit and every one above it, so the command can take at
// most half of what the user may have, and the user's other processes keep the rest.
NotifyLimitsSet share_notify_limits(const NotifyLimits& host);

}  // namespace msb
