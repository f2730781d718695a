// msb-launch: applies an exec policy to itself, then execs the command.
//
//   msb-launch '<policy JSON>'      (started by lib/exec.js with an empty environment)
//
// File descriptor 3 is the status channel back to the caller, one line per event:
//   ok <landlock abi> <layers applied> <layers missing>   confinement is in place
//   error <stage> <errno>                                  nothing was run
//   exec <errno>                                           the command could not be executed
//   status <wait status>                                   the command's end (PID namespace only)
// It is close-on-exec, so the command never holds it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <string>
#include <string_view>
#include <vector>

#include "exec_policy.h"
#include "landlock.h"
#include "namespace_layer.h"
#include "seccomp_filter.h"

namespace {

constexpr int kStatusFd = 3;
constexpr int kLaunchFailed = 125;
constexpr int kExecFailed = 127;

void report(const std::string& line) {
  std::string text = line;
  text.push_back('\n');
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(kStatusFd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

[[noreturn]] void fail(std::string_view stage, int err) {
  std::string line = "error ";
  line.append(stage).append(" ").append(std::to_string(err));
  report(line);
  ::_exit(kLaunchFailed);
}

// Descriptors the caller leaked to us (anything but stdio and the status channel) would carry
// access Landlock cannot revoke.
void close_inherited_fds() {
  if (::close_range(kStatusFd + 1, ~0U, 0) == 0) return;
  long max = ::sysconf(_SC_OPEN_MAX);
  for (long fd = kStatusFd + 1; fd < (max > 0 ? max : 65536); ++fd) ::close(static_cast<int>(fd));
}

std::string_view env_value(const std::vector<std::string>& env, std::string_view name) {
  for (const std::string& entry : env) {
    std::string_view e = entry;
    if (e.size() > name.size() && e.starts_with(name) && e[name.size()] == '=') {
      return e.substr(name.size() + 1);
    }
  }
  return {};
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// execvpe's search, but in the command's PATH rather than ours (we have none).
[[noreturn]] void exec_command(const msb::ExecPolicy& policy) {
  if (::chdir(policy.cwd.c_str()) != 0) fail("cwd", errno);
  std::vector<char*> argv = c_strings(policy.argv);
  std::vector<char*> envp = c_strings(policy.env);
  const std::string& file = policy.argv.front();
  int err = ENOENT;
  if (file.find('/') != std::string::npos) {
    ::execve(file.c_str(), argv.data(), envp.data());
    err = errno;
  } else {
    std::string_view search = env_value(policy.env, "PATH");
    if (search.empty()) search = "/usr/local/bin:/usr/bin:/bin";
    bool denied = false;
    while (true) {
      std::size_t colon = search.find(':');
      std::string dir(search.substr(0, colon));
      std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + file;
      ::execve(candidate.c_str(), argv.data(), envp.data());
      if (errno == EACCES)
        denied = true;
      else if (errno != ENOENT && errno != ENOTDIR) {
        err = errno;
        break;
      }
      if (colon == std::string_view::npos) {
        err = denied ? EACCES : ENOENT;
        break;
      }
      search.remove_prefix(colon + 1);
    }
  }
  report("exec " + std::to_string(err));
  ::_exit(kExecFailed);
}

pid_t wait_for(pid_t pid, int* status) {
  pid_t got;
  do {
    got = ::waitpid(pid, status, 0);
  } while (got < 0 && errno == EINTR);
  return got;
}

// PID 1 of the new namespace: runs the command as its child, reaps orphans, and passes the
// command's wait status up. When it exits, the kernel kills whatever the command left behind.
[[noreturn]] void run_init(const msb::ExecPolicy& policy, int status_pipe) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  pollfd parent_alive{status_pipe, POLLOUT, 0};
  if (::poll(&parent_alive, 1, 0) < 0 || (parent_alive.revents & POLLERR) != 0)
    ::_exit(kLaunchFailed);
  pid_t command = ::fork();
  if (command < 0) fail("fork", errno);
  if (command == 0) exec_command(policy);
  ::close(kStatusFd);
  while (true) {
    int status = 0;
    pid_t got = wait_for(-1, &status);
    if (got == command) {
      (void)!::write(status_pipe, &status, sizeof status);
      ::_exit(0);
    }
    if (got < 0) ::_exit(kLaunchFailed);
  }
}

[[noreturn]] void run_in_pid_namespace(const msb::ExecPolicy& policy) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) fail("pipe", errno);
  pid_t init = ::fork();
  if (init < 0) fail("fork", errno);
  if (init == 0) {
    ::close(pipe_fds[0]);
    run_init(policy, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  int init_status = 0;
  wait_for(init, &init_status);
  int status = 0;
  if (::read(pipe_fds[0], &status, sizeof status) == static_cast<ssize_t>(sizeof status)) {
    report("status " + std::to_string(status));
  } else {
    report("status " + std::to_string(init_status));
  }
  ::_exit(0);
}

struct Layers {
  std::string applied;
  std::string missing;
  static void add(std::string& list, std::string_view name) {
    if (!list.empty()) list.push_back(',');
    list.append(name);
  }
  void apply(std::string_view name) { add(applied, name); }
  void miss(std::string_view name) { add(missing, name); }
};

// Namespaces are required where Landlock alone would leave a read-only path writable, and for
// root, whose chmod/chown reach every file Landlock lets it see.
bool namespaces_required(const msb::ExecPolicy& policy) {
  return policy.namespaces == msb::NamespaceMode::require || msb::needs_read_only_binds(policy) ||
         ::geteuid() == 0;
}

bool apply_namespaces(const msb::ExecPolicy& policy, Layers& layers) {
  if (policy.namespaces == msb::NamespaceMode::off) {
    if (namespaces_required(policy) && !policy.allow_weaker) fail("namespaces-required", 0);
    layers.miss("namespaces");
    return false;
  }
  msb::Status entered = msb::enter_namespaces();
  if (entered) {
    layers.apply("user-namespace");
    layers.apply("mount-namespace");
    layers.apply("pid-namespace");
    return true;
  }
  if (entered.error().code != msb::Errc::unsupported) fail("namespaces", entered.error().sys_errno);
  if (namespaces_required(policy) && !policy.allow_weaker)
    fail("namespaces-unavailable", entered.error().sys_errno);
  layers.miss("namespaces");
  return false;
}

std::vector<msb::UniqueFd> open_paths(const msb::ExecPolicy& policy) {
  auto fds = msb::open_policy_paths(policy);
  if (!fds) {
    const msb::Error& e = fds.error();
    fail(e.code == msb::Errc::symlink_escape ? "path-changed " + std::to_string(e.index)
                                             : "path " + std::to_string(e.index),
         e.sys_errno);
  }
  return std::move(fds.value());
}

void apply_landlock(const msb::ExecPolicy& policy, const std::vector<msb::UniqueFd>& fds,
                    Layers& layers, int& abi) {
  auto landlock = msb::apply_landlock(policy, fds);
  if (!landlock) {
    if (landlock.error().code != msb::Errc::unsupported)
      fail("landlock", landlock.error().sys_errno);
    if (!policy.allow_weaker) fail("landlock-unavailable", 0);
    layers.miss("landlock-fs");
    if (!policy.network) layers.miss("landlock-net");
    return;
  }
  abi = landlock.value().abi;
  layers.apply("landlock-fs");
  if (landlock.value().network) layers.apply("landlock-net");
  if (!policy.network && !landlock.value().network) {
    if (!policy.allow_weaker) fail("network-unenforceable", 0);
    layers.miss("landlock-net");
  }
  if (landlock.value().signal_scope)
    layers.apply("landlock-signal-scope");
  else
    layers.miss("landlock-signal-scope");
  if (landlock.value().abstract_unix) layers.apply("landlock-abstract-unix-scope");
}

void apply_seccomp(const msb::ExecPolicy& policy, Layers& layers) {
  msb::Status filtered = msb::apply_seccomp(policy.network);
  if (filtered) {
    layers.apply("seccomp");
    return;
  }
  if (filtered.error().code != msb::Errc::unsupported || !policy.allow_weaker) {
    fail("seccomp", filtered.error().sys_errno);
  }
  layers.miss("seccomp");
}

}  // namespace

int main(int argc, char** argv) {
  if (::fcntl(kStatusFd, F_GETFD) < 0) return kLaunchFailed;  // not started by lib/exec.js
  close_inherited_fds();
  if (::fcntl(kStatusFd, F_SETFD, FD_CLOEXEC) != 0) fail("status-fd", errno);
  if (argc != 2) fail("usage", 0);
  auto parsed = msb::parse_exec_policy(argv[1]);
  if (!parsed) fail("policy", 0);
  const msb::ExecPolicy& policy = parsed.value();

  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no-new-privs", errno);
  Layers layers;
  layers.apply("no-new-privs");
  const bool in_namespaces = apply_namespaces(policy, layers);
  std::vector<msb::UniqueFd> fds = open_paths(policy);
  if (in_namespaces) {
    msb::Status remounted = msb::remount(policy, fds);
    if (!remounted) fail("remount", remounted.error().sys_errno);
  }
  int abi = 0;
  apply_landlock(policy, fds, layers, abi);
  fds.clear();  // the command must not inherit them (they are close-on-exec too)
  apply_seccomp(policy, layers);
  report("ok " + std::to_string(abi) + " " + (layers.applied.empty() ? "-" : layers.applied) + " " +
         (layers.missing.empty() ? "-" : layers.missing));
  if (in_namespaces) run_in_pid_namespace(policy);
  exec_command(policy);
}
