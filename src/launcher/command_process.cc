#include "launcher/command_process.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "common/exec_path.h"
#include "launcher/network_listeners.h"

namespace msb {
namespace {

void close_fds(unsigned first, unsigned last) {
  if (::close_range(first, last, 0) == 0) return;
  const long max = ::sysconf(_SC_OPEN_MAX);
  const unsigned long limit = max > 0 ? static_cast<unsigned long>(max) : 65536;
  for (unsigned long fd = first; fd <= last && fd < limit; ++fd) ::close(static_cast<int>(fd));
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

}  // namespace

UniqueFd keep_listeners_channel() {
  int type = 0;
  socklen_t size = sizeof type;
  if (::getsockopt(kListenersFd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 ||
      type != SOCK_SEQPACKET || ::fcntl(kListenersFd, F_SETFD, FD_CLOEXEC) != 0)
    return {};
  return UniqueFd(kListenersFd);
}

void close_inherited_fds(int status_fd, const UniqueFd& channel) {
  const auto first = static_cast<unsigned>(status_fd + 1);
  if (!channel.valid()) {
    close_fds(first, ~0U);
    return;
  }
  close_fds(first, static_cast<unsigned>(kListenersFd - 1));
  close_fds(static_cast<unsigned>(kListenersFd + 1), ~0U);
}

int exec_searching_path(const std::vector<std::string>& argv_text,
                        const std::vector<std::string>& env) {
  std::vector<char*> argv = c_strings(argv_text);
  std::vector<char*> envp = c_strings(env);
  const std::string& file = argv_text.front();
  if (file.find('/') != std::string::npos) {
    ::execve(file.c_str(), argv.data(), envp.data());
    return errno;
  }
  std::string_view search = env_value(env, "PATH");
  if (search.empty()) search = kDefaultCommandPath;
  bool denied = false;
  while (true) {
    std::size_t colon = search.find(':');
    std::string dir(search.substr(0, colon));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + file;
    ::execve(candidate.c_str(), argv.data(), envp.data());
    if (errno == EACCES)
      denied = true;
    else if (errno != ENOENT && errno != ENOTDIR)
      return errno;
    if (colon == std::string_view::npos) return denied ? EACCES : ENOENT;
    search.remove_prefix(colon + 1);
  }
}

pid_t wait_for(pid_t pid, int* status) {
  pid_t got;
  do {
    got = ::waitpid(pid, status, 0);
  } while (got < 0 && errno == EINTR);
  return got;
}

}  // namespace msb
