// Descriptors handed from one process to another over an AF_UNIX SOCK_SEQPACKET socket: one
// message per descriptor, its payload a short label saying what the descriptor is, and a last
// message "end" without one. The exec launcher sends the listening sockets it made inside the
// command's network namespace this way; the addon receives them for the Node side to serve.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/unique_fd.h"

namespace msb {

// A label is 1..64 bytes of printable ASCII; at most 64 messages, the last one included.
inline constexpr std::size_t kMaxPassedLabelBytes = 64;
inline constexpr std::size_t kMaxPassedMessages = 64;
inline constexpr std::string_view kEndOfPassing = "end";

// What the sender may put in a label (and the receiver accepts).
bool valid_passed_label(std::string_view label) noexcept;

// One message: `label`, with `fd` attached when it is >= 0. Retries EINTR. Fails with io_error
// (op sendmsg); invalid_config for a label that is not valid_passed_label.
Status send_fd(int channel, std::string_view label, int fd);

struct PassedFd {
  std::string label;
  UniqueFd fd;  // invalid for "end"
};

// One message, waiting until `deadline_ms` (CLOCK_MONOTONIC milliseconds) at most; nullopt when
// the sender closed its end. The descriptor arrives close-on-exec. A message that is not a label
// with exactly one descriptor, or "end" with none, is malformed: io_error with EPROTO, and
// whatever descriptors it carried are closed. A deadline passed: io_error with ETIMEDOUT (op poll).
Result<std::optional<PassedFd>> receive_fd(int channel, long long deadline_ms);

// Every message up to "end" or the sender's close, within `timeout_ms` in all. On any failure
// (see receive_fd; more than kMaxPassedMessages: EPROTO) every descriptor received is closed.
Result<std::vector<PassedFd>> receive_all_fds(int channel, int timeout_ms);

// CLOCK_MONOTONIC now, in milliseconds.
long long monotonic_ms() noexcept;

}  // namespace msb
