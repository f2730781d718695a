// What one confined command may do: decided by the Node side from a sandbox's mount table,
// sent to the launcher as JSON and applied there before exec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/exec_path.h"
#include "common/unique_fd.h"
#include "launcher/port_redirect.h"

namespace msb {

enum class NamespaceMode : std::uint8_t {
  off,      // never enter namespaces
  prefer,   // use them when the kernel lets us; required only where Landlock alone falls short
  require,  // refuse to run without them
};

// The listening sockets the launcher makes inside the command's own network namespace and hands
// to the caller over descriptor 5 (network_listeners.h): the command's only way out.
struct NetworkListen {
  std::optional<std::uint16_t> http;   // TCP 127.0.0.1:<port>, "http"
  std::optional<std::uint16_t> socks;  // TCP 127.0.0.1:<port>, "socks"
  bool dns = false;                    // UDP 127.0.0.1:53, "dns"
  std::vector<std::uint16_t> capture;  // TCP 0.0.0.0:<port> each, "capture <port>"
  // TCP 0.0.0.0:<port>, "redirect": every TCP port of the network brought there (port_redirect.h).
  std::optional<PortRedirect> redirect;
};

// A label and the count of messages must fit what the receiver takes (fd_passing.h): http, socks,
// dns and the end leave 60 for capture ports.
inline constexpr std::size_t kMaxCapturePorts = 60;

struct ExecPolicy {
  std::vector<std::string> argv;  // argv[0] is looked up in the PATH of `env` when it has no '/'
  std::vector<std::string> env;   // "NAME=value", the command's whole environment
  std::string cwd;                // absolute path in the command's root
  std::string host_cwd;           // the same directory on the host, for a launch without the root
  std::optional<FileId> cwd_id;   // the directory both must name
  std::vector<ExecPath> paths;
  ExecLimits limits;
  bool network = false;
  // Only with `network` false: the command's network namespace gets these listeners, and its
  // /etc/resolv.conf and /etc/hosts are the run's own.
  std::optional<NetworkListen> listen;
  NamespaceMode namespaces = NamespaceMode::prefer;
  // Run even when a required layer is missing (the launcher still reports what it applied).
  bool allow_weaker = false;
  // The caller takes the layers back over descriptor 5 (run_scratch.h): they may go on /tmp's
  // tmpfs, bounded with it.
  bool scratch_layers = false;
};

// Fails with invalid_config for malformed JSON, unknown keys, relative paths, empty argv,
// strings holding NUL, and a `listen` that is malformed (ports outside 1..65535, one port twice
// among http, socks and capture, more than kMaxCapturePorts) or given with `network` true.
Result<ExecPolicy> parse_exec_policy(std::string_view json);

// Replaces each path by the one the kernel reports for it (symlinks resolved), so containment
// between paths can be judged on strings. Fails like open_policy_paths; a path with an id that
// does not exist is io_error with sys_errno ENOENT.
Status canonicalize_paths(ExecPolicy& policy);

// Gives every entry of a path the most restrictive access given to that path (read-only wins, as
// in the file API: a directory mounted both read-only and writable must not be bound writable
// at either target, nor have Landlock rights added up), then keeps one entry per path, or per
// path and target when `by_target` (a built root places each target). Devices and pins are
// left as they are. Run after canonicalize_paths.
void merge_duplicate_paths(ExecPolicy& policy, bool by_target);

// Opens every path of the policy as an O_PATH descriptor (same order; an invalid descriptor
// for a system path that does not exist here). Fails with changed_underneath when a path with
// an id now names another inode, io_error (sys_errno, op) otherwise; Error::index names the path.
Result<std::vector<UniqueFd>> open_policy_paths(const ExecPolicy& policy);

// True when `inner` is `outer` or lies below it (both absolute, normalized).
bool path_is_within(std::string_view inner, std::string_view outer) noexcept;

}  // namespace msb
