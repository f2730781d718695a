#include "launcher/network_listeners.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>

#include "common/fd_passing.h"

namespace msb {
namespace {

constexpr int kBacklog = 128;
constexpr std::uint16_t kDnsPort = 53;

Result<UniqueFd> bound_socket(int type, in_addr_t address, std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return sys_failure(SysOp::socket, errno);
  const int on = 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0)
    return sys_failure(SysOp::setsockopt, errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(address);
  addr.sin_port = htons(port);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    return sys_failure(SysOp::bind, errno);
  if (type == SOCK_STREAM && ::listen(fd.get(), kBacklog) != 0)
    return sys_failure(SysOp::listen, errno);
  return fd;
}

Status add(std::vector<Listener>& out, std::string label, int type, in_addr_t address,
           std::uint16_t port) {
  auto fd = bound_socket(type, address, port);
  if (!fd) return fd.error();
  out.push_back({std::move(label), std::move(fd.value())});
  return ok_status();
}

}  // namespace

Result<std::vector<Listener>> open_listeners(const NetworkListen& listen) {
  std::vector<Listener> out;
  if (listen.http) {
    if (Status s = add(out, "http", SOCK_STREAM, INADDR_LOOPBACK, *listen.http); !s)
      return s.error();
  }
  if (listen.socks) {
    if (Status s = add(out, "socks", SOCK_STREAM, INADDR_LOOPBACK, *listen.socks); !s)
      return s.error();
  }
  if (listen.dns) {
    if (Status s = add(out, "dns", SOCK_DGRAM, INADDR_LOOPBACK, kDnsPort); !s) return s.error();
  }
  // Every address of 127.0.0.0/8 arrives here: the caller's name server hands out one per name
  // and tells the names apart by the address a connection was made to.
  for (std::uint16_t port : listen.capture) {
    if (Status s = add(out, "capture " + std::to_string(port), SOCK_STREAM, INADDR_ANY, port); !s)
      return s.error();
  }
  if (listen.redirect) {
    if (Status s = add(out, "redirect", SOCK_STREAM, INADDR_ANY, listen.redirect->port); !s)
      return s.error();
  }
  return out;
}

Status hand_over_listeners(int channel, const std::vector<Listener>& listeners) {
  for (const Listener& listener : listeners) {
    if (Status s = send_fd(channel, listener.label, listener.fd.get()); !s) return s;
  }
  return ok_status();
}

}  // namespace msb
