// Where a TCP connection was made to before the command's network namespace redirected it
// (src/launcher/port_redirect.h): the judge maps the address back to the name it stands for and
// judges the port the command asked for, not the listener's.
#pragma once

#include <cstdint>
#include <optional>

#include "common/error.h"

namespace msb {

struct Destination {
  std::uint32_t address = 0;  // IPv4, host byte order
  std::uint16_t port = 0;
};

// The connection's original destination (SO_ORIGINAL_DST), or nullopt when it was not
// redirected (made to the listener's own port). Fails with io_error (sys_errno, op getsockopt)
// for a descriptor that is not an IPv4 TCP socket.
Result<std::optional<Destination>> original_destination(int fd);

}  // namespace msb
