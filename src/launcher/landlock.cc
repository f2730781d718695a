#include "launcher/landlock.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "common/unique_fd.h"

namespace msb {
namespace {

// The uapi constants, spelled out so the launcher builds against older kernel headers and
// still uses what the running kernel offers.
constexpr std::uint64_t kExecute = 1ULL << 0;
constexpr std::uint64_t kWriteFile = 1ULL << 1;
constexpr std::uint64_t kReadFile = 1ULL << 2;
constexpr std::uint64_t kReadDir = 1ULL << 3;
constexpr std::uint64_t kRemoveDir = 1ULL << 4;
constexpr std::uint64_t kRemoveFile = 1ULL << 5;
constexpr std::uint64_t kMakeChar = 1ULL << 6;
constexpr std::uint64_t kMakeBlock = 1ULL << 11;
constexpr std::uint64_t kAbi1Rights = (1ULL << 13) - 1;
constexpr std::uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t kIoctlDev = 1ULL << 15;  // ABI 5
constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

constexpr std::uint64_t kBindTcp = 1ULL << 0;            // ABI 4
constexpr std::uint64_t kConnectTcp = 1ULL << 1;         // ABI 4
constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;        // ABI 6

constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::uint64_t handled_fs_rights(int abi) {
  std::uint64_t rights = kAbi1Rights;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

std::uint64_t rights_for(PathAccess access, std::uint64_t handled) {
  const std::uint64_t read = kExecute | kReadFile | kReadDir;
  const std::uint64_t write = handled & ~(kMakeChar | kMakeBlock);
  switch (access) {
    case PathAccess::read: return read;
    case PathAccess::write: return write;
    case PathAccess::write_keep: return write & ~(kRemoveDir | kRemoveFile);
    case PathAccess::device: return handled & (kReadFile | kWriteFile | kTruncate | kIoctlDev);
    case PathAccess::protect:
    case PathAccess::pin: return 0;
  }
  return 0;
}

// The ruleset attribute grew with the ABI; older kernels refuse the larger struct.
std::size_t ruleset_attr_size(int abi) {
  if (abi >= 6) return sizeof(RulesetAttr);
  if (abi >= 4) return offsetof(RulesetAttr, scoped);
  return offsetof(RulesetAttr, handled_access_net);
}

Status add_path_rule(int ruleset, PathAccess access, int fd, std::uint64_t handled) {
  std::uint64_t rights = rights_for(access, handled);
  if (rights == 0 || fd < 0) return ok_status();
  struct stat st {};
  if (::fstat(fd, &st) != 0) return sys_failure(SysOp::fstat, errno);
  if (!S_ISDIR(st.st_mode)) rights &= kFileRights;
  PathBeneathAttr attr{rights, fd};
  if (::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &attr, 0) != 0) {
    return sys_failure(SysOp::landlock_add_rule, errno);
  }
  return ok_status();
}

}  // namespace

int landlock_abi() noexcept {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

Result<LandlockResult> apply_landlock(const ExecPolicy& policy, const std::vector<UniqueFd>& fds,
                                      bool restrict_tcp) {
  LandlockResult result;
  result.abi = landlock_abi();
  if (result.abi < 1) return Errc::unsupported;
  RulesetAttr attr{handled_fs_rights(result.abi), 0, 0};
  if (restrict_tcp && result.abi >= 4) {
    attr.handled_access_net = kBindTcp | kConnectTcp;
    result.network = true;
  }
  if (result.abi >= 6) {
    // Abstract sockets have no file for the rules above to govern, and the network switch is about
    // reaching other hosts, not the host's own X11 or D-Bus: scoped in both modes.
    attr.scoped = kScopeSignal | kScopeAbstractUnix;
    result.signal_scope = true;
    result.abstract_unix = true;
  }
  UniqueFd ruleset(static_cast<int>(
      ::syscall(SYS_landlock_create_ruleset, &attr, ruleset_attr_size(result.abi), 0)));
  if (!ruleset.valid()) return sys_failure(SysOp::landlock_create_ruleset, errno);
  for (std::size_t i = 0; i < policy.paths.size() && i < fds.size(); ++i) {
    Status added =
        add_path_rule(ruleset.get(), policy.paths[i].access, fds[i].get(), attr.handled_access_fs);
    if (!added) return added.error();
  }
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0)
    return sys_failure(SysOp::landlock_restrict_self, errno);
  return result;
}

}  // namespace msb
