#include "launcher/memory_cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <string_view>

#include "common/unique_fd.h"

namespace msb {
namespace {

// statfs f_type of the two cgroup filesystems, spelt out: older <linux/magic.h> lack the second.
constexpr long kCgroupV1Magic = 0x27e0eb;
constexpr long kCgroupV2Magic = 0x63677270;
constexpr std::string_view kV1Memory = "/sys/fs/cgroup/memory";
constexpr std::string_view kV2Root = "/sys/fs/cgroup";
constexpr std::size_t kMaxRead = 65536;

bool is_filesystem(std::string_view path, long magic) {
  struct statfs st {};
  return ::statfs(std::string(path).c_str(), &st) == 0 && static_cast<long>(st.f_type) == magic;
}

std::optional<std::string> read_small(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  std::string text;
  char buf[4096];
  while (text.size() <= kMaxRead) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
  }
  return std::nullopt;
}

bool write_text_at(int dir, const std::string& path, std::string_view text) {
  UniqueFd fd(::openat(dir, path.c_str(), O_WRONLY | O_CLOEXEC));
  return fd.valid() &&
         ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

bool write_text(const std::string& path, std::string_view text) {
  return write_text_at(AT_FDCWD, path, text);
}

UniqueFd open_directory(const std::string& path) {
  return UniqueFd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

// A limit file the kernel may lack (swap accounting is optional): absent is fine.
bool write_if_present(const std::string& path, std::string_view text) {
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return true;
  return write_text(path, text);
}

// `word` in a list separated by spaces, commas or newlines (cgroup.controllers, /proc/self/cgroup).
bool has_word(std::string_view list, std::string_view word) {
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find_first_of(" ,\n", start);
    if (end == std::string_view::npos) end = list.size();
    if (list.substr(start, end - start) == word) return true;
    start = end + 1;
  }
  return false;
}

std::string under(std::string_view mount, std::string_view path) {
  return path == "/" ? std::string(mount) : std::string(mount).append(path);
}

// Where the child goes and where we return: `home` is our own cgroup, `parent` the one the child
// is made in.
struct Placement {
  std::string home;
  std::string parent;
  bool v2 = false;
};

std::optional<Placement> find_placement() {
  std::optional<std::string> text = read_small("/proc/self/cgroup");
  if (!text) return std::nullopt;
  std::optional<CgroupMembership> member = memory_cgroup_membership(*text);
  if (!member) return std::nullopt;
  if (!member->v2) {
    if (!is_filesystem(kV1Memory, kCgroupV1Magic)) return std::nullopt;
    std::string home = under(kV1Memory, member->path);
    return Placement{home, home, false};
  }
  if (!is_filesystem(kV2Root, kCgroupV2Magic)) return std::nullopt;
  std::string home = under(kV2Root, member->path);
  std::string parent = member->path == "/" ? home : home.substr(0, home.rfind('/'));
  return Placement{home, parent, true};
}

// The parent's children get the memory controller: it has it and passes it down, or can be made
// to (a delegated subtree's slice may not have enabled it yet; a cgroup holding processes cannot).
bool memory_passed_down(const std::string& parent) {
  std::optional<std::string> controllers = read_small(parent + "/cgroup.controllers");
  if (!controllers || !has_word(*controllers, "memory")) return false;
  std::optional<std::string> enabled = read_small(parent + "/cgroup.subtree_control");
  if (enabled && has_word(*enabled, "memory")) return true;
  return write_text(parent + "/cgroup.subtree_control", "+memory");
}

// A directory left by a launcher with our pid that was killed with its caller is removed first.
bool make_directory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0) return true;
  return errno == EEXIST && ::rmdir(dir.c_str()) == 0 && ::mkdir(dir.c_str(), 0755) == 0;
}

// No swap either: memory pushed out to swap would otherwise escape the limit.
bool set_limits(const std::string& dir, std::uint64_t memory_bytes, bool v2) {
  const std::string bytes = std::to_string(memory_bytes);
  if (v2)
    return write_text(dir + "/memory.max", bytes) &&
           write_if_present(dir + "/memory.swap.max", "0");
  // v1 wants memory+swap at least memory, so memory first.
  return write_text(dir + "/memory.limit_in_bytes", bytes) &&
         write_if_present(dir + "/memory.memsw.limit_in_bytes", bytes);
}

// Where "0" moves us. Moving a whole process takes the kernel's thread-group lock for writing,
// which waits for an RCU grace period (milliseconds); moving the calling thread alone does not,
// and cgroup v1's "tasks" allows that. We are single-threaded, so the thread is the process.
// Cgroup v2 moves single threads only within threaded subtrees: there, the process.
const char* membership_file(bool v2) {
  return v2 ? "cgroup.procs" : "tasks";
}

void sleep_briefly() {
  timespec pause{0, 2'000'000};
  ::nanosleep(&pause, nullptr);
}

}  // namespace

std::optional<CgroupMembership> memory_cgroup_membership(std::string_view proc_self_cgroup) {
  std::optional<CgroupMembership> v2;
  std::string_view rest = proc_self_cgroup;
  while (!rest.empty()) {
    std::string_view line = rest.substr(0, rest.find('\n'));
    rest.remove_prefix(std::min(rest.size(), line.size() + 1));
    const std::size_t first = line.find(':');
    const std::size_t second = line.find(':', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) continue;
    std::string_view controllers = line.substr(first + 1, second - first - 1);
    std::string_view path = line.substr(second + 1);
    // Outside our cgroup namespace's root ("/.."), or not a path: nothing we can name.
    const bool usable = path.starts_with('/') && path.find("/..") == std::string_view::npos;
    if (has_word(controllers, "memory")) {
      if (!usable) return std::nullopt;
      return CgroupMembership{std::string(path), false};
    }
    if (line.substr(0, first) == "0" && controllers.empty() && usable)
      v2 = CgroupMembership{std::string(path), true};
  }
  return v2;
}

std::optional<MemoryCgroup> join_memory_cgroup(std::uint64_t memory_bytes) {
  std::optional<Placement> place = find_placement();
  if (!place) return std::nullopt;
  if (place->v2 && !memory_passed_down(place->parent)) return std::nullopt;
  MemoryCgroup cgroup;
  cgroup.name = "msb-" + std::to_string(::getpid());
  cgroup.dir = place->parent + "/" + cgroup.name;
  cgroup.parent = open_directory(place->parent);
  cgroup.home = open_directory(place->home);
  if (!cgroup.parent.valid() || !cgroup.home.valid() || !make_directory(cgroup.dir))
    return std::nullopt;
  // "0": the writing process itself.
  cgroup.v2 = place->v2;
  if (!set_limits(cgroup.dir, memory_bytes, place->v2) ||
      !write_text(cgroup.dir + "/" + membership_file(place->v2), "0")) {
    ::rmdir(cgroup.dir.c_str());
    return std::nullopt;
  }
  return cgroup;
}

void leave_memory_cgroup(const MemoryCgroup& cgroup) {
  write_text_at(cgroup.home.get(), membership_file(cgroup.v2), "0");
  // When init's wait returns, the kernel has ended every process of its namespace; a few may
  // still count as members for an instant.
  for (int attempt = 0; attempt < 250; ++attempt) {
    if (::unlinkat(cgroup.parent.get(), cgroup.name.c_str(), AT_REMOVEDIR) == 0 || errno != EBUSY)
      return;
    if (attempt == 0) write_text_at(cgroup.parent.get(), cgroup.name + "/cgroup.kill", "1");  // v2
    sleep_briefly();
  }
}

}  // namespace msb
