#include "common/original_destination.h"

#include <arpa/inet.h>
#include <linux/netfilter_ipv4.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>

namespace msb {

Result<std::optional<Destination>> original_destination(int fd) {
  sockaddr_in original{};
  socklen_t size = sizeof original;
  if (::getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, &original, &size) != 0) {
    // No conntrack entry with a NAT for it: the connection came to the listener's own port.
    if (errno == ENOENT) return std::optional<Destination>{};
    return sys_failure(SysOp::getsockopt, errno);
  }
  if (original.sin_family != AF_INET) return sys_failure(SysOp::getsockopt, EAFNOSUPPORT);
  return std::optional<Destination>{
      Destination{ntohl(original.sin_addr.s_addr), ntohs(original.sin_port)}};
}

}  // namespace msb
