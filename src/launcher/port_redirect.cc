#include "launcher/port_redirect.h"

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/unique_fd.h"

namespace msb {
namespace {

constexpr std::string_view kTable = "msb";
constexpr std::string_view kChain = "redirect";
constexpr std::uint32_t kNatPriority = static_cast<std::uint32_t>(-100);  // NF_IP_PRI_NAT_DST
constexpr std::uint8_t kTcp = IPPROTO_TCP;

// One batch of nf_tables netlink messages, built in place: each message a header, nfgenmsg and
// attributes, every piece padded to 4 bytes as netlink wants.
class Batch {
 public:
  // Starts a message; returns where it begins, for end().
  std::size_t begin(std::uint16_t type, std::uint16_t flags, std::uint8_t family,
                    std::uint16_t res_id) {
    const std::size_t at = bytes_.size();
    nlmsghdr header{};
    header.nlmsg_type = type;
    header.nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
    header.nlmsg_seq = ++seq_;
    append(&header, sizeof header);
    nfgenmsg generic{};
    generic.nfgen_family = family;
    generic.version = NFNETLINK_V0;
    generic.res_id = htons(res_id);
    append(&generic, sizeof generic);
    return at;
  }

  void end(std::size_t at) { set_length<nlmsghdr>(at); }

  void put(std::uint16_t type, const void* data, std::size_t size) {
    nlattr attr{};
    attr.nla_type = type;
    attr.nla_len = static_cast<std::uint16_t>(NLA_HDRLEN + size);
    append(&attr, sizeof attr);
    append(data, size);
  }

  void put_string(std::uint16_t type, std::string_view text) {
    std::vector<char> terminated(text.begin(), text.end());
    terminated.push_back('\0');
    put(type, terminated.data(), terminated.size());
  }

  // nf_tables' numbers are big-endian on the wire.
  void put_u32(std::uint16_t type, std::uint32_t value) {
    const std::uint32_t wire = htonl(value);
    put(type, &wire, sizeof wire);
  }

  std::size_t nest(std::uint16_t type) {
    const std::size_t at = bytes_.size();
    nlattr attr{};
    attr.nla_type = static_cast<std::uint16_t>(type | NLA_F_NESTED);
    append(&attr, sizeof attr);
    return at;
  }

  void close(std::size_t at) { set_length<nlattr>(at); }

  // A value in a nested NFTA_DATA_VALUE, as cmp, bitwise and immediate take their data.
  void put_data(std::uint16_t type, const void* data, std::size_t size) {
    const std::size_t at = nest(type);
    put(NFTA_DATA_VALUE, data, size);
    close(at);
  }

  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::uint32_t last_seq() const { return seq_; }

 private:
  void append(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
    bytes_.resize(NLMSG_ALIGN(bytes_.size()), 0);
  }

  template <typename Header>
  void set_length(std::size_t at) {
    const auto length = bytes_.size() - at;
    if constexpr (std::is_same_v<Header, nlmsghdr>) {
      const auto value = static_cast<std::uint32_t>(length);
      std::memcpy(bytes_.data() + at + offsetof(nlmsghdr, nlmsg_len), &value, sizeof value);
    } else {
      const auto value = static_cast<std::uint16_t>(length);
      std::memcpy(bytes_.data() + at + offsetof(nlattr, nla_len), &value, sizeof value);
    }
  }

  std::vector<std::uint8_t> bytes_;
  std::uint32_t seq_ = 0;
};

constexpr std::uint16_t nft_type(std::uint16_t message) {
  return static_cast<std::uint16_t>((NFNL_SUBSYS_NFTABLES << 8) | message);
}

// One expression of a rule: its name, then what `data` puts in its NFTA_EXPR_DATA.
template <typename Data>
void expression(Batch& batch, std::string_view name, Data data) {
  const std::size_t element = batch.nest(NFTA_LIST_ELEM);
  batch.put_string(NFTA_EXPR_NAME, name);
  const std::size_t body = batch.nest(NFTA_EXPR_DATA);
  data();
  batch.close(body);
  batch.close(element);
}

void compare_equal(Batch& batch, const void* value, std::size_t size) {
  expression(batch, "cmp", [&] {
    batch.put_u32(NFTA_CMP_SREG, NFT_REG_1);
    batch.put_u32(NFTA_CMP_OP, NFT_CMP_EQ);
    batch.put_data(NFTA_CMP_DATA, value, size);
  });
}

void add_rule(Batch& batch, const PortRedirect& redirect) {
  const std::size_t rule = batch.begin(nft_type(NFT_MSG_NEWRULE),
                                       NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, NFPROTO_IPV4, 0);
  batch.put_string(NFTA_RULE_TABLE, kTable);
  batch.put_string(NFTA_RULE_CHAIN, kChain);
  const std::size_t list = batch.nest(NFTA_RULE_EXPRESSIONS);
  // ip daddr & mask == network
  expression(batch, "payload", [&] {
    batch.put_u32(NFTA_PAYLOAD_DREG, NFT_REG_1);
    batch.put_u32(NFTA_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
    batch.put_u32(NFTA_PAYLOAD_OFFSET, offsetof(iphdr, daddr));
    batch.put_u32(NFTA_PAYLOAD_LEN, 4);
  });
  const std::uint32_t mask = htonl(redirect.prefix == 0 ? 0 : ~0U << (32 - redirect.prefix));
  const std::uint32_t zero = 0;
  expression(batch, "bitwise", [&] {
    batch.put_u32(NFTA_BITWISE_SREG, NFT_REG_1);
    batch.put_u32(NFTA_BITWISE_DREG, NFT_REG_1);
    batch.put_u32(NFTA_BITWISE_LEN, 4);
    batch.put_data(NFTA_BITWISE_MASK, &mask, sizeof mask);
    batch.put_data(NFTA_BITWISE_XOR, &zero, sizeof zero);
  });
  const std::uint32_t network = htonl(redirect.network) & mask;
  compare_equal(batch, &network, sizeof network);
  // meta l4proto == tcp
  expression(batch, "meta", [&] {
    batch.put_u32(NFTA_META_DREG, NFT_REG_1);
    batch.put_u32(NFTA_META_KEY, NFT_META_L4PROTO);
  });
  compare_equal(batch, &kTcp, sizeof kTcp);
  // redirect to :port
  const std::uint16_t port = htons(redirect.port);
  expression(batch, "immediate", [&] {
    batch.put_u32(NFTA_IMMEDIATE_DREG, NFT_REG_1);
    batch.put_data(NFTA_IMMEDIATE_DATA, &port, sizeof port);
  });
  expression(batch, "redir", [&] { batch.put_u32(NFTA_REDIR_REG_PROTO_MIN, NFT_REG_1); });
  batch.close(list);
  batch.end(rule);
}

Batch redirect_batch(const PortRedirect& redirect) {
  Batch batch;
  batch.end(batch.begin(NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES));
  const std::size_t table =
      batch.begin(nft_type(NFT_MSG_NEWTABLE), NLM_F_CREATE | NLM_F_ACK, NFPROTO_IPV4, 0);
  batch.put_string(NFTA_TABLE_NAME, kTable);
  batch.end(table);
  const std::size_t chain =
      batch.begin(nft_type(NFT_MSG_NEWCHAIN), NLM_F_CREATE | NLM_F_ACK, NFPROTO_IPV4, 0);
  batch.put_string(NFTA_CHAIN_TABLE, kTable);
  batch.put_string(NFTA_CHAIN_NAME, kChain);
  const std::size_t hook = batch.nest(NFTA_CHAIN_HOOK);
  batch.put_u32(NFTA_HOOK_HOOKNUM, NF_INET_LOCAL_OUT);
  batch.put_u32(NFTA_HOOK_PRIORITY, kNatPriority);
  batch.close(hook);
  batch.put_string(NFTA_CHAIN_TYPE, "nat");
  batch.end(chain);
  add_rule(batch, redirect);
  batch.end(batch.begin(NFNL_MSG_BATCH_END, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES));
  return batch;
}

// Reads the kernel's answers to the batch: an acknowledgement (error 0) for each of its three
// messages, or the first error. The kernel answers while send() runs, so nothing is waited for.
Status read_acknowledgements(int fd, std::uint32_t last_seq) {
  std::vector<std::uint8_t> buffer(8192);
  std::uint32_t acknowledged = 0;
  while (acknowledged < 3) {
    const ssize_t got = ::recv(fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (got < 0) return sys_failure(SysOp::recvmsg, errno == EAGAIN ? EPROTO : errno);
    auto remaining = static_cast<std::size_t>(got);
    for (auto* header = reinterpret_cast<nlmsghdr*>(buffer.data()); NLMSG_OK(header, remaining);
         header = NLMSG_NEXT(header, remaining)) {
      if (header->nlmsg_type != NLMSG_ERROR || header->nlmsg_seq > last_seq) continue;
      const auto* answer = static_cast<const nlmsgerr*>(NLMSG_DATA(header));
      if (answer->error != 0) return sys_failure(SysOp::sendmsg, -answer->error);
      ++acknowledged;
    }
  }
  return ok_status();
}

}  // namespace

Status install_port_redirect(const PortRedirect& redirect) {
  if (redirect.prefix == 0 || redirect.prefix > 32 || redirect.port == 0)
    return Error{Errc::invalid_config};
  UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER));
  if (!fd.valid()) return sys_failure(SysOp::socket, errno);
  const Batch batch = redirect_batch(redirect);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  const ssize_t sent = ::sendto(fd.get(), batch.bytes().data(), batch.bytes().size(), 0,
                                reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel);
  if (sent < 0) return sys_failure(SysOp::sendmsg, errno);
  if (static_cast<std::size_t>(sent) != batch.bytes().size())
    return sys_failure(SysOp::sendmsg, EMSGSIZE);
  return read_acknowledgements(fd.get(), batch.last_seq());
}

}  // namespace msb
