// msb-launch: applies an exec policy to itself, then execs the command.
//
// Started by lib/exec/exec.js with an empty environment and no arguments. File descriptor 4 carries
// the policy (JSON, read to its end, then closed); file descriptor 3 is the status channel back,
// one line per event:
//   ok <landlock abi> <layers applied> <layers missing>   confinement is in place
//   error <stage> <errno>                                  nothing was run
//   exec <errno>                                           the command could not be executed
//   status <wait status>                                   the command's end (PID namespace only)
//   cgroup <path>                                          the memory cgroup made for this command,
//                                                          for the caller to remove once we ended
// Both are close-on-exec, so the command never holds them. Nothing travels in argv, which every
// process on the host can read. With a policy that asks for listeners, file descriptor 5 is an
// AF_UNIX SOCK_SEQPACKET socket: they are sent over it (network_listeners.h), then it is closed,
// before the PID namespace's init or the command exist.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "common/fd_passing.h"
#include "launcher/change_layer.h"
#include "launcher/command_process.h"
#include "launcher/command_root.h"
#include "launcher/exec_policy.h"
#include "launcher/host_identity.h"
#include "launcher/landlock.h"
#include "launcher/launch_report.h"
#include "launcher/launch_stage.h"
#include "launcher/memory_cgroup.h"
#include "launcher/namespace_layer.h"
#include "launcher/network_listeners.h"
#include "launcher/privileges.h"
#include "launcher/run_scratch.h"
#include "launcher/seccomp_filter.h"
#include "launcher/shared_memory.h"

namespace {

using msb::fail;
using msb::kLaunchFailed;
using msb::kStatusFd;
using msb::report;
using Layers = msb::LaunchLayers;

constexpr int kPolicyFd = 4;
constexpr std::size_t kMaxPolicyBytes = 16 * 1024 * 1024;
constexpr int kExecFailed = 127;

std::string read_policy() {
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(kPolicyFd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(msb::LaunchStage::policy_read, errno, msb::SysOp::read);
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxPolicyBytes) fail(msb::LaunchStage::policy_size, 0);
  }
}

// The working directory, opened now and entered later by descriptor: a command running
// concurrently may swap a directory on the way for a symlink, and a name would follow it.
msb::UniqueFd open_cwd(const std::string& path, const msb::ExecPolicy& policy) {
  msb::UniqueFd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) fail(msb::LaunchStage::cwd, errno, msb::SysOp::open);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(msb::LaunchStage::cwd, errno, msb::SysOp::fstat);
  // In a copy-on-write layer a directory is the layer's inode, never the host's: whatever the
  // path leads to there lies in the command's own view, which it may enter anyway.
  if (policy.cwd_id && !msb::in_layer(policy, path) &&
      !(*policy.cwd_id == msb::FileId{st.st_dev, st.st_ino}))
    fail(msb::LaunchStage::cwd_changed, 0);
  return fd;
}

// Per process, inherited by everything the command starts.
void set_resource_limits(const msb::ExecLimits& limits) {
  auto limit = [](int resource, rlim_t value) {
    rlimit r{value, value};
    if (::setrlimit(resource, &r) != 0) fail(msb::LaunchStage::limits, errno);
  };
  if (limits.memory_bytes > 0) limit(RLIMIT_DATA, static_cast<rlim_t>(limits.memory_bytes));
  if (limits.cpu_seconds > 0) limit(RLIMIT_CPU, limits.cpu_seconds);
}

[[noreturn]] void exec_command(const msb::ExecPolicy& policy, const msb::UniqueFd& cwd) {
  if (::fchdir(cwd.get()) != 0) fail(msb::LaunchStage::cwd, errno, msb::SysOp::fchdir);
  if (msb::Status dropped = msb::drop_capabilities(); !dropped)
    fail(msb::LaunchStage::capabilities, dropped.error());
  set_resource_limits(policy.limits);
  int err = msb::exec_searching_path(policy.argv, policy.env);
  report("exec " + std::to_string(err));
  ::_exit(kExecFailed);
}

// Where Landlock alone would leave a read-only path writable, and for root, whose chmod/chown
// reach every file Landlock shows it, no option does without the namespace layer.
bool namespaces_indispensable(const msb::ExecPolicy& policy) {
  return msb::needs_read_only_binds(policy) || ::geteuid() == 0;
}

// What the namespace layer gave: nothing (`entered` false), or namespaces with or without a
// network namespace of the command's own.
struct Namespaces {
  bool entered = false;
  bool network = false;
};

// The host's name stays the host's where the kernel refused the UTS namespace (or its naming).
void name_host(bool own_uts, Layers& layers) {
  if (own_uts && msb::name_neutral_host())
    layers.apply("uts-namespace");
  else
    layers.miss("uts-namespace");
}

// Inotify and fanotify limits are the user's across the host: without a share of its own, one
// command could take them all and leave the user's other processes (editors, build watchers,
// systemd when it is root) none until it ends.
void share_notify_limits(const msb::NotifyLimits& host, Layers& layers) {
  const msb::NotifyLimitsSet set = msb::share_notify_limits(host);
  if (set.inotify)
    layers.apply("inotify-limit");
  else
    layers.miss("inotify-limit");
  if (set.fanotify)
    layers.apply("fanotify-limit");
  else
    layers.miss("fanotify-limit");
}

// Root is uid 0 of the namespaces enter_namespaces makes, and sets the System V limits there; any
// other caller makes the IPC namespace first (shared_memory.h).
msb::LimitedIpc limit_ipc_first(const msb::ExecPolicy& policy) {
  if (policy.limits.memory_bytes == 0 || ::geteuid() == 0) return {};
  auto ipc = msb::enter_limited_ipc_namespace(policy.limits.memory_bytes);
  if (!ipc) fail(msb::LaunchStage::namespaces, ipc.error());
  return ipc.value();
}

Namespaces enter_namespaces(const msb::ExecPolicy& policy, msb::LimitedIpc& ipc, Layers& layers) {
  int err = 0;
  if (policy.namespaces != msb::NamespaceMode::off) {
    // Read in the namespace we start in: the new one's own limits start unlimited (so before the
    // IPC namespace's user namespaces, too).
    const msb::NotifyLimits host_limits = msb::read_notify_limits();
    ipc = limit_ipc_first(policy);
    auto entered = msb::enter_namespaces(!policy.network, !ipc.entered);
    if (entered) {
      layers.apply("user-namespace");
      layers.apply("mount-namespace");
      layers.apply("pid-namespace");
      layers.apply("ipc-namespace");
      if (entered.value().network)
        layers.apply("network-namespace");
      else if (!policy.network)
        layers.miss("network-namespace");
      // Nested user namespaces would hand the command capabilities again (netlink, nf_tables).
      if (msb::forbid_nested_user_namespaces())
        layers.apply("no-nested-user-namespaces");
      else
        layers.miss("no-nested-user-namespaces");
      name_host(entered.value().uts, layers);
      share_notify_limits(host_limits, layers);
      return {true, entered.value().network};
    }
    if (entered.error().code != msb::Errc::unsupported)
      fail(msb::LaunchStage::namespaces, entered.error());
    err = entered.error().sys_errno;
  }
  // Without them read-only paths can be chmod'ed and processes outlive the command: only an
  // explicit "prefer" or "off" does without them.
  if (!policy.allow_weaker) {
    if (namespaces_indispensable(policy)) fail(msb::LaunchStage::namespaces_required, err);
    if (policy.namespaces == msb::NamespaceMode::require)
      fail(msb::LaunchStage::namespaces_unavailable, err);
  }
  layers.miss("namespaces");
  return {};
}

// Right after the namespaces are entered, while we hold the new user namespace's capabilities
// (so ports below 1024 bind). Without a network namespace of its own the command has no network
// at all (Landlock and seccomp refuse it sockets): none are made then, where allowed.
// Where the kernel refuses the redirect (no nf_tables or NAT here, or its modules not loaded),
// the command reaches allowed names on the captured ports alone, and the layer says so.
std::vector<msb::Listener> open_listeners(const msb::ExecPolicy& policy, bool own_network,
                                          const msb::UniqueFd& channel, Layers& layers) {
  std::vector<msb::Listener> listeners;
  if (!policy.listen) return listeners;
  if (!channel.valid()) fail(msb::LaunchStage::network_listeners, EBADF);
  if (own_network) {
    auto opened = msb::open_listeners(*policy.listen);
    if (!opened) fail(msb::LaunchStage::network_listeners, opened.error());
    listeners = std::move(opened.value());
    if (policy.listen->redirect) {
      if (msb::install_port_redirect(*policy.listen->redirect))
        layers.apply("network-every-port");
      else
        layers.miss("network-every-port");
    }
  } else if (!policy.allow_weaker) {
    fail(msb::LaunchStage::network_filter_unavailable, 0);
  }
  return listeners;
}

// What the caller takes back, then the end: the listeners, and the tmpfs holding the layers.
void hand_over(msb::UniqueFd& channel, std::vector<msb::Listener>& listeners,
               const msb::Scratch& scratch) {
  if (!channel.valid()) return;
  if (msb::Status sent = msb::hand_over_listeners(channel.get(), listeners); !sent)
    fail(msb::LaunchStage::network_listeners, sent.error());
  if (scratch.layers) {
    if (msb::Status sent = msb::send_fd(channel.get(), msb::kScratchLabel, scratch.root.get());
        !sent)
      fail(msb::LaunchStage::root, sent.error());
  }
  if (msb::Status sent = msb::send_fd(channel.get(), msb::kEndOfPassing, -1); !sent)
    fail(msb::LaunchStage::network_listeners, sent.error());
  channel.reset();
  listeners.clear();  // our copies
}

// Only with a memory limit and namespaces: without a PID namespace nothing would wait for the
// command's processes to remove the cgroup after them.
std::optional<msb::MemoryCgroup> join_memory_cgroup(const msb::ExecPolicy& policy) {
  if (policy.limits.memory_bytes == 0 || policy.namespaces == msb::NamespaceMode::off) return {};
  std::optional<msb::MemoryCgroup> cgroup = msb::join_memory_cgroup(policy.limits.memory_bytes);
  // A name the status line cannot carry is not kept.
  if (cgroup && cgroup->dir.find('\n') != std::string::npos) {
    msb::leave_memory_cgroup(*cgroup);
    return {};
  }
  if (cgroup) report("cgroup " + cgroup->dir);
  return cgroup;
}

// What holds shared memory, which RLIMIT_DATA does not count: the memory cgroup where there is
// one; the System V limits of the command's IPC namespace and tmpfs sizes (/tmp, /dev/shm) in any
// case. Without namespaces, none of these: the cgroup is left again.
void bound_shared_memory(msb::ExecPolicy& policy, bool entered, const msb::LimitedIpc& ipc,
                         std::optional<msb::MemoryCgroup>& cgroup, Layers& layers) {
  if (policy.limits.memory_bytes == 0) return;
  if (cgroup && !entered) {
    msb::leave_memory_cgroup(*cgroup);
    cgroup.reset();
  }
  if (cgroup)
    layers.apply("memory-cgroup");
  else
    layers.miss("memory-cgroup");
  if (!entered) {
    layers.miss("shm-limit");  // the host's IPC namespace
    return;
  }
  if (ipc.entered ? ipc.limited
                  : static_cast<bool>(msb::limit_system_v(policy.limits.memory_bytes)))
    layers.apply("shm-limit");
  else
    layers.miss("shm-limit");
}

// The command's /tmp on a tmpfs of its size (tmpBytes, memoryBytes), its copy-on-write layers too
// where the caller takes them back: only in a mount namespace of its own; without one /tmp is the
// host directory, unbounded, and the layer says so.
msb::Scratch bound_tmp(msb::ExecPolicy& policy, bool entered, bool handing_over, Layers& layers) {
  if (msb::tmp_size(policy.limits) == 0) return {};
  if (!entered) layers.miss("tmp-limit");
  if (!entered) return {};
  auto scratch = msb::make_scratch(policy, policy.scratch_layers && handing_over);
  if (!scratch) fail(msb::LaunchStage::root, scratch.error());
  layers.apply("tmp-limit");
  if (scratch.value().layers)
    layers.apply("copy-on-write-limit");
  else if (policy.scratch_layers && msb::has_layers(policy))
    layers.miss("copy-on-write-limit");
  return std::move(scratch.value());
}

// Last of the namespaces: its root is the cgroup the launcher is in when it is made.
void enter_cgroup_namespace(Layers& layers) {
  if (msb::enter_cgroup_namespace())
    layers.apply("cgroup-namespace");
  else
    layers.miss("cgroup-namespace");
}

// Before seccomp refuses keyctl: the command then possesses no key of the caller's session.
void join_own_session_keyring(Layers& layers) {
  if (msb::join_own_session_keyring())
    layers.apply("own-session-keyring");
  else
    layers.miss("own-session-keyring");
}

// A policy path that cannot be opened, or now names another inode than the sandbox pinned.
[[noreturn]] void fail_path_or(const msb::Error& e, msb::LaunchStage stage) {
  fail(e.code == msb::Errc::changed_underneath ? msb::LaunchStage::path_changed : stage, e);
}

[[noreturn]] void fail_path(const msb::Error& e) {
  fail_path_or(e, msb::LaunchStage::path);
}

std::vector<msb::UniqueFd> open_paths(const msb::ExecPolicy& policy) {
  auto fds = msb::open_policy_paths(policy);
  if (!fds) fail_path(fds.error());
  return std::move(fds.value());
}

void apply_landlock(const msb::ExecPolicy& policy, const std::vector<msb::UniqueFd>& fds,
                    bool own_network, Layers& layers) {
  auto landlock = msb::apply_landlock(policy, fds, !policy.network && !own_network);
  if (!landlock) {
    if (landlock.error().code != msb::Errc::unsupported)
      fail(msb::LaunchStage::landlock, landlock.error());
    if (!policy.allow_weaker) fail(msb::LaunchStage::landlock_unavailable, 0);
    layers.miss("landlock-fs");
    return;
  }
  layers.abi = landlock.value().abi;
  layers.apply("landlock-fs");
  if (landlock.value().network) layers.apply("landlock-net");
  if (landlock.value().signal_scope)
    layers.apply("landlock-signal-scope");
  else
    layers.miss("landlock-signal-scope");
  if (landlock.value().abstract_unix)
    layers.apply("landlock-abstract-unix-scope");
  else
    layers.miss("landlock-abstract-unix-scope");
}

// In a network namespace of its own the command may have sockets: only loopback is there.
void apply_seccomp(const msb::ExecPolicy& policy, bool own_network, Layers& layers) {
  msb::Status filtered = msb::apply_seccomp(policy.network || own_network);
  if (filtered) {
    layers.apply("seccomp");
    return;
  }
  if (filtered.error().code != msb::Errc::unsupported || !policy.allow_weaker) {
    fail(msb::LaunchStage::seccomp, filtered.error());
  }
  layers.miss("seccomp");
}

// Reported with the other layers; set by the command's own process just before the exec, so that
// neither we nor the PID namespace's init run under them.
void report_resource_limits(const msb::ExecLimits& limits, Layers& layers) {
  if (limits.memory_bytes > 0) layers.apply("memory-limit");
  if (limits.cpu_seconds > 0) layers.apply("cpu-limit");
}

// Landlock and seccomp, then the report: the last steps before the command starts.
void confine(const msb::ExecPolicy& policy, std::vector<msb::UniqueFd>& fds, bool own_network,
             Layers& layers) {
  apply_landlock(policy, fds, own_network, layers);
  fds.clear();
  apply_seccomp(policy, own_network, layers);
  report_resource_limits(policy.limits, layers);
  layers.apply("no-capabilities");
  report(layers.line());
}

// The process limit where the PID namespace's own pid_max could not be written (kernels before
// 6.14): RLIMIT_NPROC, counted per user namespace since 5.14, but never enforced for root.
void limit_processes(const msb::ExecPolicy& policy, bool by_pid_max, Layers& layers) {
  if (policy.limits.processes == 0) return;
  if (by_pid_max) {
    layers.apply("process-limit");
    return;
  }
  rlimit r{policy.limits.processes, policy.limits.processes};
  if (::geteuid() != 0 && ::setrlimit(RLIMIT_NPROC, &r) == 0)
    layers.apply("process-limit");
  else
    layers.miss("process-limit");
}

// Inside the built root, rules for what was made there rather than bound: the tmpfs root (its
// directories and /proc) readable, /dev/shm writable.
void add_root_rules(msb::ExecPolicy& policy, std::vector<msb::UniqueFd>& fds) {
  const std::pair<const char*, msb::PathAccess> made[] = {{"/", msb::PathAccess::read},
                                                          {"/dev/shm", msb::PathAccess::write}};
  for (const auto& [path, access] : made) {
    msb::UniqueFd fd(::open(path, O_PATH | O_CLOEXEC));
    if (!fd.valid()) fail(msb::LaunchStage::root, errno, msb::SysOp::open);
    policy.paths.push_back({path, access, std::nullopt, path, {}, {}, {}});
    fds.push_back(std::move(fd));
  }
}

// PID 1 of the new namespace: enters the built root, confines itself, runs the command as its
// child, reaps orphans and passes the command's wait status up. When it exits, the kernel kills
// whatever the command left behind.
[[noreturn]] void run_init(msb::ExecPolicy& policy, std::vector<msb::UniqueFd>& fds,
                           const msb::UniqueFd& root, bool own_network, Layers& layers,
                           int status_pipe) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The command could otherwise read our mappings, executable and environment in /proc/1 (where
  // the launcher is installed), were it to hold a capability; its own exec makes it dumpable again.
  if (::prctl(PR_SET_DUMPABLE, 0) != 0) fail(msb::LaunchStage::root, errno, msb::SysOp::prctl);
  pollfd parent_alive{status_pipe, POLLOUT, 0};
  if (::poll(&parent_alive, 1, 0) < 0 || (parent_alive.revents & POLLERR) != 0)
    ::_exit(kLaunchFailed);
  auto entered = msb::enter_root(root, policy.limits);
  if (!entered) fail(msb::LaunchStage::root, entered.error());
  layers.apply("private-root");
  // Without a procfs of its own, the host's would show every host process and its command line.
  if (entered.value().proc) {
    layers.apply("private-proc");
  } else {
    if (!policy.allow_weaker) fail(msb::LaunchStage::private_proc_unavailable, 0);
    layers.miss("private-proc");
  }
  limit_processes(policy, entered.value().process_limit, layers);
  msb::UniqueFd cwd = open_cwd(policy.cwd, policy);
  add_root_rules(policy, fds);
  confine(policy, fds, own_network, layers);
  pid_t command = ::fork();
  if (command < 0) fail(msb::LaunchStage::fork, errno);
  if (command == 0) exec_command(policy, cwd);
  ::close(kStatusFd);
  while (true) {
    int status = 0;
    pid_t got = msb::wait_for(-1, &status);
    if (got == command) {
      (void)!::write(status_pipe, &status, sizeof status);
      ::_exit(0);
    }
    if (got < 0) ::_exit(kLaunchFailed);
  }
}

[[noreturn]] void run_in_pid_namespace(msb::ExecPolicy& policy, std::vector<msb::UniqueFd>& fds,
                                       msb::UniqueFd& root, bool own_network, Layers& layers,
                                       std::optional<msb::MemoryCgroup>& cgroup) {
  // The descriptors of the host's cgroup directories: not for init, nor the command.
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) fail(msb::LaunchStage::pipe, errno);
  pid_t init = ::fork();
  if (init < 0) fail(msb::LaunchStage::fork, errno);
  if (init == 0) {
    ::close(pipe_fds[0]);
    cgroup.reset();
    run_init(policy, fds, root, own_network, layers, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  fds.clear();
  root.reset();
  int init_status = 0;
  msb::wait_for(init, &init_status);
  // The memory cgroup stays: we are in it, and leaving would cost a second migration (each waits
  // for an RCU grace period, milliseconds); the caller removes it once we have exited.
  int status = 0;
  if (::read(pipe_fds[0], &status, sizeof status) == static_cast<ssize_t>(sizeof status)) {
    report("status " + std::to_string(status));
  } else {
    report("status " + std::to_string(init_status));
  }
  ::_exit(0);
}

msb::UniqueFd build_root_or_fail(const msb::ExecPolicy& policy, std::vector<msb::UniqueFd>& fds,
                                 msb::Scratch& scratch, Layers& layers) {
  auto root = msb::build_root(policy, fds, scratch.layers ? scratch.root.get() : AT_FDCWD);
  scratch.root.reset();  // the caller's now: neither init nor the command holds it
  if (!root && msb::layer_unavailable(root.error()))
    fail(msb::LaunchStage::copy_on_write_unavailable, root.error());
  if (!root) fail_path_or(root.error(), msb::LaunchStage::root);
  if (msb::has_layers(policy)) layers.apply("copy-on-write");
  return std::move(root.value());
}

// Without the built root the command sees host paths: its temporary directory is the host's.
void point_home_at_host_tmp(msb::ExecPolicy& policy) {
  for (const msb::ExecPath& entry : policy.paths) {
    if (entry.target != "/tmp") continue;
    for (std::string& var : policy.env) {
      if (var == "HOME=/tmp" || var == "TMPDIR=/tmp")
        var = var.substr(0, var.find('=') + 1) + entry.path;
    }
  }
}

}  // namespace

int main(int argc, char**) {
  // If the caller dies, so do we (and with us, the PID namespace): nothing outlives it.
  const pid_t caller = ::getppid();
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != caller) return kLaunchFailed;
  if (::fcntl(kStatusFd, F_GETFD) < 0 || ::fcntl(kPolicyFd, F_GETFD) < 0) return kLaunchFailed;
  if (::fcntl(kStatusFd, F_SETFD, FD_CLOEXEC) != 0) fail(msb::LaunchStage::status_fd, errno);
  if (argc != 1) fail(msb::LaunchStage::usage, 0);
  const std::string json = read_policy();
  msb::UniqueFd listeners_channel = msb::keep_listeners_channel();
  msb::close_inherited_fds(kStatusFd, listeners_channel);
  auto parsed = msb::parse_exec_policy(json);
  if (!parsed) fail(msb::LaunchStage::policy, 0);
  msb::ExecPolicy& policy = parsed.value();
  // Nothing to hand over: the caller sees the channel's end at once.
  if (!policy.listen && !policy.scratch_layers) listeners_channel.reset();

  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(msb::LaunchStage::no_new_privs, errno);
  Layers layers;
  layers.apply("no-new-privs");
  join_own_session_keyring(layers);
  msb::note_system_links(policy);
  if (msb::Status canonical = msb::canonicalize_paths(policy); !canonical)
    fail_path(canonical.error());
  // Before enter_namespaces, and so before the cgroup namespace is made (it is rooted at the
  // command's cgroup): the PID namespace's init and the command inherit the cgroup.
  std::optional<msb::MemoryCgroup> cgroup = join_memory_cgroup(policy);
  msb::LimitedIpc ipc;
  const Namespaces ns = enter_namespaces(policy, ipc, layers);
  auto listeners = open_listeners(policy, ns.network, listeners_channel, layers);
  bound_shared_memory(policy, ns.entered, ipc, cgroup, layers);
  msb::Scratch scratch = bound_tmp(policy, ns.entered, listeners_channel.valid(), layers);
  hand_over(listeners_channel, listeners, scratch);
  // Moves into another cgroup (one of the command's own) belong above this line: the cgroup
  // namespace is rooted where the launcher is when it is entered.
  if (ns.entered) enter_cgroup_namespace(layers);
  msb::merge_duplicate_paths(policy, ns.entered);
  std::vector<msb::UniqueFd> fds = open_paths(policy);
  if (ns.entered) {
    msb::UniqueFd root = build_root_or_fail(policy, fds, scratch, layers);
    run_in_pid_namespace(policy, fds, root, ns.network, layers, cgroup);
  }
  // The caller decides whether to run again with direct writes: nothing has started.
  if (msb::has_layers(policy)) fail(msb::LaunchStage::copy_on_write_unavailable, 0);
  point_home_at_host_tmp(policy);
  msb::UniqueFd cwd = open_cwd(policy.host_cwd, policy);
  confine(policy, fds, false, layers);
  exec_command(policy, cwd);
}
