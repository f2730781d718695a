#include "common/fd_passing.h"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstring>

namespace msb {
namespace {

// Room for more descriptors than a well-formed message carries, so that a message with too many
// is seen as such (and all of them closed) rather than cut short by the kernel.
constexpr std::size_t kControlFds = 8;

Error malformed() {
  return sys_failure(SysOp::none, EPROTO);
}

// Takes ownership of every descriptor the control messages carry; false for anything else there.
bool collect_fds(msghdr& msg, std::vector<UniqueFd>& fds) {
  bool only_rights = true;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
      only_rights = false;
      continue;
    }
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      fds.emplace_back(fd);
    }
  }
  return only_rights;
}

// Waits for a message until the deadline.
Status wait_readable(int channel, long long deadline_ms) {
  while (true) {
    const long long left = deadline_ms - monotonic_ms();
    if (left <= 0) return sys_failure(SysOp::poll, ETIMEDOUT);
    pollfd p{channel, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left > 60000 ? 60000 : left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_failure(SysOp::poll, errno);
    if (n == 0) continue;  // the loop's head says whether the deadline passed
    if ((p.revents & POLLNVAL) != 0) return sys_failure(SysOp::poll, EBADF);
    return ok_status();
  }
}

}  // namespace

bool valid_passed_label(std::string_view label) noexcept {
  if (label.empty() || label.size() > kMaxPassedLabelBytes) return false;
  for (char c : label) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

long long monotonic_ms() noexcept {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

Status send_fd(int channel, std::string_view label, int fd) {
  if (!valid_passed_label(label)) return Error{Errc::invalid_config};
  iovec iov{const_cast<char*>(label.data()), label.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  while (true) {
    const ssize_t n = ::sendmsg(channel, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_failure(SysOp::sendmsg, errno);
    if (static_cast<std::size_t>(n) != label.size()) return sys_failure(SysOp::sendmsg, EMSGSIZE);
    return ok_status();
  }
}

Result<std::optional<PassedFd>> receive_fd(int channel, long long deadline_ms) {
  if (Status ready = wait_readable(channel, deadline_ms); !ready) return ready.error();
  char payload[kMaxPassedLabelBytes + 1];
  iovec iov{payload, sizeof payload};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kControlFds)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(channel, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return sys_failure(SysOp::recvmsg, errno);
  std::vector<UniqueFd> fds;  // closed on every way out but the one that hands the fd over
  const bool only_rights = collect_fds(msg, fds);
  if (n == 0 && fds.empty() && only_rights && (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) == 0)
    return std::optional<PassedFd>();
  const std::string_view label(payload, static_cast<std::size_t>(n));
  if (!only_rights || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ||
      !valid_passed_label(label) || fds.size() != (label == kEndOfPassing ? 0U : 1U))
    return malformed();
  PassedFd passed{std::string(label), {}};
  if (!fds.empty()) passed.fd = std::move(fds.front());
  return std::optional<PassedFd>(std::move(passed));
}

Result<std::vector<PassedFd>> receive_all_fds(int channel, int timeout_ms) {
  const long long deadline = monotonic_ms() + timeout_ms;
  std::vector<PassedFd> received;
  while (true) {
    auto next = receive_fd(channel, deadline);
    if (!next) return next.error();  // `received` goes, and closes what it holds
    if (!next.value() || next.value()->label == kEndOfPassing) return received;
    if (received.size() + 1 >= kMaxPassedMessages) return malformed();
    received.push_back(std::move(*next.value()));
  }
}

}  // namespace msb
