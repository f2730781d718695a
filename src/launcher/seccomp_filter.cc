#include "launcher/seccomp_filter.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace msb {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
// x32 syscalls share the architecture tag and differ by this bit; none are allowed.
constexpr std::uint32_t kForeignSyscallBit = 0x40000000U;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
constexpr std::uint32_t kForeignSyscallBit = 0;
#else
constexpr std::uint32_t kArch = 0;
constexpr std::uint32_t kForeignSyscallBit = 0;
#endif

constexpr std::uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr std::uint32_t kKill = SECCOMP_RET_KILL_PROCESS;
constexpr std::uint32_t deny_with(int err) {
  return SECCOMP_RET_ERRNO | (static_cast<std::uint32_t>(err) & SECCOMP_RET_DATA);
}

// A tiny assembler: conditional jumps name the index of their target, resolved at the end
// (classic BPF only jumps forward, by at most 255).
class Program {
 public:
  void load(std::uint32_t offset) { emit(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void ret(std::uint32_t action) { emit(BPF_STMT(BPF_RET | BPF_K, action)); }
  // if (A == k) goto target; fall through otherwise.
  void jump_if_equal(std::uint32_t k, const char* target) { jump(BPF_JEQ, k, target); }
  void jump_if_at_least(std::uint32_t k, const char* target) { jump(BPF_JGE, k, target); }
  // if (A & mask) goto target.
  void jump_if_any_set(std::uint32_t mask, const char* target) { jump(BPF_JSET, mask, target); }
  void label(const char* name) { labels_.push_back({name, code_.size()}); }

  // Empty when a jump has no target, goes backwards or too far: the caller then refuses to run.
  std::vector<sock_filter> finish() {
    for (const Fixup& fix : fixups_) {
      const Label* target = nullptr;
      for (const Label& l : labels_) {
        if (std::string_view(l.name) == fix.target) target = &l;
      }
      if (target == nullptr || target->at <= fix.at || target->at - fix.at - 1 > 255) return {};
      code_[fix.at].jt = static_cast<std::uint8_t>(target->at - fix.at - 1);
    }
    return code_;
  }

 private:
  struct Label {
    const char* name;
    std::size_t at;
  };
  struct Fixup {
    std::size_t at;
    const char* target;
  };
  void emit(sock_filter insn) { code_.push_back(insn); }
  void jump(std::uint16_t op, std::uint32_t k, const char* target) {
    fixups_.push_back({code_.size(), target});
    emit(BPF_JUMP(BPF_JMP | op | BPF_K, k, 0, 0));
  }
  std::vector<sock_filter> code_;
  std::vector<Label> labels_;
  std::vector<Fixup> fixups_;
};

void deny_io_uring(Program& p) {
  for (std::uint32_t nr : {SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register}) {
    p.jump_if_equal(nr, "fall_back");
  }
}

// The caller's session keyring is inherited; its keys are not the command's.
void deny_keyrings(Program& p) {
  for (std::uint32_t nr : {SYS_keyctl, SYS_add_key, SYS_request_key})
    p.jump_if_equal(nr, "refused");
}

// The low 32 bits of a syscall argument (both supported ABIs are little-endian), enough for
// modes and open flags.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
constexpr std::uint32_t arg_offset(std::size_t index) {
  return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + index * sizeof(std::uint64_t));
}

// Calls newer than some headers; they have the same number on every architecture.
#ifdef SYS_fchmodat2
constexpr std::uint32_t kFchmodat2 = SYS_fchmodat2;
#else
constexpr std::uint32_t kFchmodat2 = 452;  // Linux 6.6
#endif
#ifdef SYS_open_tree_attr
constexpr int kOpenTreeAttr = SYS_open_tree_attr;
#else
constexpr int kOpenTreeAttr = 467;         // Linux 6.15
#endif
// The kernel's own O_TMPFILE bit, without the O_DIRECTORY that glibc's O_TMPFILE adds: a plain
// directory open passes no mode, so its mode argument must not be judged.
constexpr std::uint32_t kTmpfileBit = 020000000;
constexpr std::uint32_t kSetIdBits = S_ISUID | S_ISGID;

// A set-id bit stays on disk after the command ends, where nosuid mounts no longer apply: a host
// user running the file later would run it as its owner. So no call may set one, whatever the
// mount. Each call that takes a mode jumps to the block judging the argument that holds it.
void route_mode_calls(Program& p) {
#ifdef SYS_chmod
  for (std::uint32_t nr : {SYS_chmod, SYS_creat, SYS_mknod}) p.jump_if_equal(nr, "mode_in_arg1");
  p.jump_if_equal(SYS_open, "open_flags");
#endif
  p.jump_if_equal(SYS_fchmod, "mode_in_arg1");
  for (std::uint32_t nr : {std::uint32_t{SYS_fchmodat}, kFchmodat2, std::uint32_t{SYS_mknodat}})
    p.jump_if_equal(nr, "mode_in_arg2");
  p.jump_if_equal(SYS_openat, "openat_flags");
  // Its mode sits in a struct a filter cannot read; callers fall back to openat.
  p.jump_if_equal(SYS_openat2, "fall_back");
}

// After the allow of the main path: each block ends in its own return, because loading an
// argument has replaced the syscall number.
void judge_modes(Program& p) {
#ifdef SYS_open
  p.label("open_flags");
  p.load(arg_offset(1));
  p.jump_if_any_set(O_CREAT | kTmpfileBit, "mode_in_arg2");
  p.ret(kAllow);
#endif
  p.label("openat_flags");
  p.load(arg_offset(2));
  p.jump_if_any_set(O_CREAT | kTmpfileBit, "mode_in_arg3");
  p.ret(kAllow);
  struct ModeArg {
    const char* label;
    std::size_t index;
  };
  for (ModeArg mode :
       {ModeArg{"mode_in_arg1", 1}, ModeArg{"mode_in_arg2", 2}, ModeArg{"mode_in_arg3", 3}}) {
    p.label(mode.label);
    p.load(arg_offset(mode.index));
    p.jump_if_any_set(kSetIdBits, "refused");
    p.ret(kAllow);
  }
}

void deny_mount_api(Program& p) {
  for (std::uint32_t nr :
       {SYS_mount, SYS_umount2, SYS_pivot_root, SYS_open_tree, SYS_move_mount, SYS_fsopen,
        SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr, kOpenTreeAttr}) {
    p.jump_if_equal(nr, "refused");
  }
}

}  // namespace

std::vector<sock_filter> seccomp_program(bool network) {
  if (kArch == 0) return {};
  Program p;
  p.load(offsetof(seccomp_data, arch));
  p.jump_if_equal(kArch, "native");
  p.ret(kKill);  // another ABI (i386 on x86_64) would bypass every number below
  p.label("native");
  p.load(offsetof(seccomp_data, nr));
  if (kForeignSyscallBit != 0) p.jump_if_at_least(kForeignSyscallBit, "foreign");
  deny_io_uring(p);
  deny_mount_api(p);
  deny_keyrings(p);
  route_mode_calls(p);
  if (!network) p.jump_if_equal(SYS_socket, "no_socket");
  p.ret(kAllow);
  judge_modes(p);
  p.label("fall_back");
  p.ret(deny_with(ENOSYS));  // callers fall back to ordinary syscalls
  p.label("refused");
  p.ret(deny_with(EPERM));
  p.label("no_socket");
  p.ret(deny_with(EACCES));
  p.label("foreign");
  p.ret(kKill);
  return p.finish();
}

Status apply_seccomp(bool network) {
  std::vector<sock_filter> code = seccomp_program(network);
  if (code.empty()) return Errc::unsupported;
  sock_fprog program{static_cast<unsigned short>(code.size()), code.data()};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0)
    return sys_failure(SysOp::prctl, errno);
  return ok_status();
}

}  // namespace msb
