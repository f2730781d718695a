#include "common/fd_passing.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace msb {
namespace {

struct Pair {
  UniqueFd sender;
  UniqueFd receiver;
};

Pair seqpacket_pair() {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds), 0);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// A message as a misbehaving sender would write it: any payload, any number of descriptors.
void send_raw(int channel, const std::string& payload, const std::vector<int>& fds) {
  iovec iov{const_cast<char*>(payload.data()), payload.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ASSERT_EQ(::sendmsg(channel, &msg, MSG_NOSIGNAL), static_cast<ssize_t>(payload.size()));
}

// A pipe whose write end is passed: once the sender's copy is closed, the read end sees EOF only
// when the receiver closed its copy too.
struct Probe {
  UniqueFd read_end;
  UniqueFd write_end;
  Probe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
  }
  // True when no write end is open anywhere.
  bool all_closed() {
    char c;
    return ::read(read_end.get(), &c, 1) == 0;
  }
};

UniqueFd tcp_listener(std::uint16_t& port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(fd.get(), 4), 0);
  socklen_t size = sizeof addr;
  EXPECT_EQ(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &size), 0);
  port = ntohs(addr.sin_port);
  return fd;
}

constexpr int kShort = 2000;

TEST(FdPassing, AListeningSocketArrivesAndAcceptsConnections) {
  Pair pair = seqpacket_pair();
  std::uint16_t port = 0;
  {
    UniqueFd listener = tcp_listener(port);
    ASSERT_TRUE(send_fd(pair.sender.get(), "http", listener.get()).ok());
  }  // the sender's copy is gone: only the received one listens
  ASSERT_TRUE(send_fd(pair.sender.get(), kEndOfPassing, -1).ok());
  auto received = receive_all_fds(pair.receiver.get(), kShort);
  ASSERT_TRUE(received.ok());
  ASSERT_EQ(received.value().size(), 1u);
  const PassedFd& http = received.value()[0];
  EXPECT_EQ(http.label, "http");
  EXPECT_EQ(::fcntl(http.fd.get(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);

  UniqueFd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  UniqueFd accepted(::accept4(http.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(accepted.valid());
  ASSERT_EQ(::write(client.get(), "GET", 3), 3);
  char buf[4] = {};
  ASSERT_EQ(::read(accepted.get(), buf, 3), 3);
  EXPECT_STREQ(buf, "GET");
}

TEST(FdPassing, KeepsOrderAndStopsAtEndOrAtTheSendersClose) {
  Pair pair = seqpacket_pair();
  Probe a;
  Probe b;
  ASSERT_TRUE(send_fd(pair.sender.get(), "capture 80", a.write_end.get()).ok());
  ASSERT_TRUE(send_fd(pair.sender.get(), "capture 443", b.write_end.get()).ok());
  pair.sender.reset();  // no "end": the close ends it
  auto received = receive_all_fds(pair.receiver.get(), kShort);
  ASSERT_TRUE(received.ok());
  ASSERT_EQ(received.value().size(), 2u);
  EXPECT_EQ(received.value()[0].label, "capture 80");
  EXPECT_EQ(received.value()[1].label, "capture 443");

  Pair nothing = seqpacket_pair();
  ASSERT_TRUE(send_fd(nothing.sender.get(), kEndOfPassing, -1).ok());
  auto none = receive_all_fds(nothing.receiver.get(), kShort);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.value().empty());
}

TEST(FdPassing, SendRefusesLabelsTheReceiverWouldRefuse) {
  Pair pair = seqpacket_pair();
  EXPECT_EQ(send_fd(pair.sender.get(), "", -1).error().code, Errc::invalid_config);
  EXPECT_EQ(send_fd(pair.sender.get(), std::string(65, 'a'), -1).error().code,
            Errc::invalid_config);
  EXPECT_EQ(send_fd(pair.sender.get(), "a\nb", -1).error().code, Errc::invalid_config);
  EXPECT_TRUE(send_fd(pair.sender.get(), std::string(64, 'a'), -1).ok());
}

// Each malformed message fails the whole receive with EPROTO, and every descriptor that came with
// it or before it is closed.
void expect_refused(const std::string& payload, int fds_in_message) {
  SCOPED_TRACE(payload + " with " + std::to_string(fds_in_message) + " descriptors");
  Pair pair = seqpacket_pair();
  Probe earlier;
  Probe carried;
  ASSERT_TRUE(send_fd(pair.sender.get(), "http", earlier.write_end.get()).ok());
  std::vector<int> fds(static_cast<std::size_t>(fds_in_message), carried.write_end.get());
  send_raw(pair.sender.get(), payload, fds);
  ASSERT_TRUE(send_fd(pair.sender.get(), kEndOfPassing, -1).ok());
  earlier.write_end.reset();
  carried.write_end.reset();
  auto received = receive_all_fds(pair.receiver.get(), kShort);
  ASSERT_FALSE(received.ok());
  EXPECT_EQ(received.error().sys_errno, EPROTO);
  EXPECT_TRUE(earlier.all_closed());
  EXPECT_TRUE(carried.all_closed());
}

TEST(FdPassing, RefusesMalformedMessagesAndClosesWhatTheyCarried) {
  expect_refused("socks", 0);                   // a label without its descriptor
  expect_refused("end", 1);                     // the end with one
  expect_refused("socks", 2);                   // two descriptors in one message
  expect_refused(std::string(65, 'a'), 1);      // a payload longer than a label
  expect_refused(std::string(4096, 'a'), 1);    // far longer: cut by the kernel, still refused
  expect_refused("capture\n80", 1);             // not printable
  expect_refused(std::string("ht\0tp", 5), 1);  // NUL inside
  expect_refused("", 1);                        // no label, a descriptor: not the end either
}

TEST(FdPassing, RefusesMoreMessagesThanTheLimit) {
  Pair pair = seqpacket_pair();
  Probe probe;
  for (std::size_t i = 0; i < kMaxPassedMessages; ++i)
    ASSERT_TRUE(send_fd(pair.sender.get(), "capture 1", probe.write_end.get()).ok());
  probe.write_end.reset();
  auto received = receive_all_fds(pair.receiver.get(), kShort);
  ASSERT_FALSE(received.ok());
  EXPECT_EQ(received.error().sys_errno, EPROTO);
  // Of the ones not read, the socket holds copies until it goes.
  pair.receiver.reset();
  EXPECT_TRUE(probe.all_closed());

  Pair most = seqpacket_pair();
  Probe kept;
  for (std::size_t i = 0; i + 1 < kMaxPassedMessages; ++i)
    ASSERT_TRUE(send_fd(most.sender.get(), "capture 1", kept.write_end.get()).ok());
  ASSERT_TRUE(send_fd(most.sender.get(), kEndOfPassing, -1).ok());
  auto all = receive_all_fds(most.receiver.get(), kShort);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.value().size(), kMaxPassedMessages - 1);
}

TEST(FdPassing, ASenderThatNeverEndsTimesOutAndLosesWhatItSent) {
  Pair pair = seqpacket_pair();
  Probe probe;
  ASSERT_TRUE(send_fd(pair.sender.get(), "dns", probe.write_end.get()).ok());
  probe.write_end.reset();
  const long long start = monotonic_ms();
  auto received = receive_all_fds(pair.receiver.get(), 200);
  ASSERT_FALSE(received.ok());
  EXPECT_EQ(received.error().sys_errno, ETIMEDOUT);
  EXPECT_EQ(received.error().op, SysOp::poll);
  EXPECT_GE(monotonic_ms() - start, 200);
  EXPECT_TRUE(probe.all_closed());
}

TEST(FdPassing, AClosedChannelIsAFailedReceive) {
  UniqueFd not_a_socket(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  auto received = receive_all_fds(not_a_socket.get(), kShort);
  ASSERT_FALSE(received.ok());
  EXPECT_EQ(received.error().op, SysOp::recvmsg);
  EXPECT_EQ(received.error().sys_errno, ENOTSOCK);
}

}  // namespace
}  // namespace msb
