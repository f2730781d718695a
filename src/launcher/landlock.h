// Landlock for the launcher: restricts the calling thread (and everything it execs) to the
// policy's paths, and when asked, TCP. Never used inside the Node process: it binds
// only the calling thread and cannot be undone.
#pragma once

#include "common/error.h"
#include "launcher/exec_policy.h"

namespace msb {

// The kernel's Landlock ABI version, 0 when Landlock is missing or disabled.
int landlock_abi() noexcept;

struct LandlockResult {
  int abi = 0;
  bool network = false;        // TCP bind/connect denied (ABI 4+, when asked)
  bool signal_scope = false;   // signals only to processes inside the domain (ABI 6+)
  bool abstract_unix = false;  // abstract unix sockets only inside the domain (ABI 6+)
};

// Fails with unsupported when the kernel has no Landlock; io_error (sys_errno set) when the
// kernel refuses a rule or the ruleset.
// `fds` are the policy's paths, opened by open_policy_paths. `restrict_tcp`: the network is off
// and the command shares the host's network namespace.
Result<LandlockResult> apply_landlock(const ExecPolicy& policy, const std::vector<UniqueFd>& fds,
                                      bool restrict_tcp);

}  // namespace msb
