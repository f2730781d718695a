// The sockets through which a command with a network allowlist reaches anything: made by the
// launcher inside the command's own network namespace (where only loopback exists), then handed
// to the caller, which judges every connection made to them. Nothing else leaves the namespace.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "common/unique_fd.h"
#include "launcher/exec_policy.h"

namespace msb {

// The descriptor lib/exec/exec.js passes for them (and for the tmpfs holding the layers,
// run_scratch.h): one end of an AF_UNIX SOCK_SEQPACKET pair.
inline constexpr int kListenersFd = 5;

struct Listener {
  std::string label;  // "http", "socks", "dns", "capture <port>", "redirect"
  UniqueFd fd;
};

// In the network namespace the listeners are for, while holding its user namespace's
// capabilities (ports below 1024). Every socket close-on-exec with SO_REUSEADDR; TCP listening
// with a backlog of 128. Fails with io_error (sys_errno, op).
Result<std::vector<Listener>> open_listeners(const NetworkListen& listen);

// Sends each listener (fd_passing.h); the caller sends "end" after whatever else it hands over
// (run_scratch.h). Fails like send_fd.
Status hand_over_listeners(int channel, const std::vector<Listener>& listeners);

}  // namespace msb
