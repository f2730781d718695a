#include "launcher/command_root.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "common/path.h"
#include "launcher/change_layer.h"
#include "launcher/host_identity.h"
#include "launcher/root_places.h"
#include "launcher/shared_memory.h"

namespace msb {
namespace {

// Our own /tmp, covered by the tmpfs in our mount namespace only; the host's stays as it was.
constexpr const char* kBuildDir = "/tmp";

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::string_view piece : split_at_slashes(path)) {
    if (!piece.empty()) out.push_back(piece);
  }
  return out;
}

std::size_t depth(std::string_view path) {
  return components(path).size();
}

// With the network off, /etc/hosts is one of the run's own: the host's often names the host
// (127.0.1.1 <hostname>), and only the command's loopback is there to reach. With listeners
// (a network allowlist), so is /etc/resolv.conf: names are asked of the caller's name server,
// which listens on the command's 127.0.0.1:53, and nothing else answers there.
constexpr std::string_view kHostsFile = "/etc/hosts";
constexpr std::string_view kResolvConf = "/etc/resolv.conf";
constexpr std::string_view kOwnResolvConf = "nameserver 127.0.0.1\noptions attempts:1 timeout:2\n";

bool replaced_by_own(const ExecPolicy& policy, const ExecPath& entry) {
  return (!policy.network && entry.target == kHostsFile) ||
         (policy.listen && entry.target == kResolvConf);
}

Status write_all(int fd, std::string_view text) {
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return sys_failure(SysOp::write, errno);
  return ok_status();
}

Status make_own_hosts_file(int root) {
  auto etc = open_place(root, "/etc", Create::directory);
  if (!etc) return etc.error();
  UniqueFd fd(::openat(etc.value().get(), "hosts",
                       O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644));
  // A host /etc bound whole (hostReadPaths) keeps the host's file.
  if (!fd.valid() && (errno == EEXIST || errno == EROFS)) return ok_status();
  if (!fd.valid()) return sys_failure(SysOp::openat, errno);
  return write_all(fd.get(), std::string("127.0.0.1\tlocalhost\n127.0.1.1\t") + kNeutralHostname +
                                 "\n::1\tlocalhost ip6-localhost ip6-loopback\n");
}

// A host /etc bound whole (hostReadPaths) holds the host's file, often a symlink into /run, which
// the root does not hold: a file of the root's tmpfs is bound over it, read-only (the mount API
// mounts on a symlink itself, never where it points), and its name removed again (the kernel
// binds no unlinked file, so it is made with a name first).
constexpr const char* kResolvConfSource = ".resolv.conf";

Status cover_resolv_conf(int root, int etc) {
  UniqueFd place(::openat(etc, "resolv.conf", O_PATH | O_NOFOLLOW | O_CLOEXEC));
  // None there: the resolver's default server is 127.0.0.1 already.
  if (!place.valid() && errno == ENOENT) return ok_status();
  if (!place.valid()) return sys_failure(SysOp::openat, errno);
  UniqueFd file(::openat(root, kResolvConfSource,
                         O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!file.valid()) return sys_failure(SysOp::openat, errno);
  Status bound = write_all(file.get(), kOwnResolvConf);
  if (bound) bound = attach(file.get(), place.get(), kReadOnly);
  if (::unlinkat(root, kResolvConfSource, 0) != 0 && bound)
    return sys_failure(SysOp::unlinkat, errno);
  return bound;
}

Status make_own_resolv_conf(int root) {
  auto etc = open_place(root, "/etc", Create::directory);
  if (!etc) return etc.error();
  UniqueFd fd(::openat(etc.value().get(), "resolv.conf",
                       O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid() && (errno == EEXIST || errno == EROFS))
    return cover_resolv_conf(root, etc.value().get());
  if (!fd.valid()) return sys_failure(SysOp::openat, errno);
  return write_all(fd.get(), kOwnResolvConf);
}

enum class Kind : std::uint8_t { bind, alias, pin };

struct Placement {
  std::string target;
  std::size_t entry = 0;
  Kind kind = Kind::bind;
  std::uint64_t attrs = 0;
  // An alias inside a copy-on-write layer: the place shows the layer's inode for the path, never
  // the host's, and the layer was made empty this run, so it is the host path by construction.
  bool in_layer = false;
};

bool placed(const ExecPath& entry, const UniqueFd& fd) {
  return !entry.target.empty() && entry.link.empty() && fd.valid();
}

// Landlock adds rights up the path, across mounts: a keep-files path inside a fully writable one
// would get its deletes back, so it is bound read-only instead.
bool inside_full_write(const ExecPolicy& policy, const ExecPath& inner) {
  return std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& outer) {
    if (outer.access != PathAccess::write || &outer == &inner) return false;
    return path_is_within(inner.path, outer.path) ||
           (!outer.target.empty() && !inner.target.empty() &&
            path_is_within(inner.target, outer.target));
  });
}

bool layered(const ExecPath& entry) {
  return !entry.upper.empty();
}

std::uint64_t direct_attrs(const ExecPolicy& policy, const ExecPath& entry) {
  switch (entry.access) {
    case PathAccess::device: return MOUNT_ATTR_NOSUID;
    case PathAccess::write: return kWritable;
    case PathAccess::write_keep: return inside_full_write(policy, entry) ? kReadOnly : kWritable;
    default: return kReadOnly;
  }
}

// What a path inside a writable one needs where it appears there: nothing when its own access is
// as wide, else read-only (or, for a pin, itself).
bool narrower_than(const ExecPath& inner, const ExecPath& outer) {
  switch (inner.access) {
    case PathAccess::read:
    case PathAccess::protect:
    case PathAccess::pin: return true;
    case PathAccess::write_keep: return outer.access == PathAccess::write;
    default: return false;
  }
}

// True when another placed target between `outer_target` and `place` covers the place: what is
// there is that mount's, not the outer one's.
bool shadowed(const ExecPolicy& policy, std::string_view place, std::string_view outer_target) {
  return std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& other) {
    return !other.target.empty() && other.target != outer_target &&
           path_is_within(other.target, outer_target) && path_is_within(place, other.target);
  });
}

void add_pins_between(std::vector<Placement>& plan, std::string_view outer, std::string_view place,
                      std::size_t entry) {
  std::string dir(outer);
  const std::vector<std::string_view> parts = components(place);
  for (std::size_t i = depth(outer); i + 1 < parts.size(); ++i) {
    if (dir.back() != '/') dir.push_back('/');
    dir.append(parts[i]);
    plan.push_back({dir, entry, Kind::pin, 0});
  }
}

std::string place_inside(const ExecPath& outer, const ExecPath& inner) {
  std::string place = outer.target;
  std::string_view rest =
      std::string_view(inner.path).substr(outer.path == "/" ? 0 : outer.path.size());
  if (place == "/") place.clear();
  return place.append(rest);
}

void add_aliases(const ExecPolicy& policy, const std::vector<UniqueFd>& fds,
                 const std::vector<std::uint64_t>& attrs, std::vector<Placement>& plan) {
  for (std::size_t i = 0; i < policy.paths.size(); ++i) {
    const ExecPath& inner = policy.paths[i];
    if (!fds[i].valid() || !inner.link.empty() || inner.access == PathAccess::device) continue;
    for (std::size_t j = 0; j < policy.paths.size(); ++j) {
      const ExecPath& outer = policy.paths[j];
      const bool writable = placed(outer, fds[j]) && (attrs[j] & MOUNT_ATTR_RDONLY) == 0 &&
                            outer.access != PathAccess::device;
      if (i == j || !writable || inner.path == outer.path ||
          !path_is_within(inner.path, outer.path) || !narrower_than(inner, outer)) {
        continue;
      }
      std::string place = place_inside(outer, inner);
      if (place == inner.target || shadowed(policy, place, outer.target)) continue;
      // Nothing a command does in a layer renames a host directory: no pins are needed there.
      if (layered(outer)) {
        if (inner.access != PathAccess::pin)
          plan.push_back({place, i, Kind::alias, kReadOnly, true});
        continue;
      }
      add_pins_between(plan, outer.target, place, i);
      if (inner.access == PathAccess::pin)
        plan.push_back({place, i, Kind::pin, 0});
      else
        plan.push_back({place, i, Kind::alias, kReadOnly});
    }
  }
}

// Outer places first, so inner ones land on top; at one depth binds before aliases and pins.
std::vector<Placement> plan_placements(const ExecPolicy& policy, const std::vector<UniqueFd>& fds) {
  std::vector<Placement> plan;
  std::vector<std::uint64_t> attrs(policy.paths.size(), kReadOnly);
  for (std::size_t i = 0; i < policy.paths.size(); ++i) {
    if (!placed(policy.paths[i], fds[i]) || replaced_by_own(policy, policy.paths[i])) continue;
    attrs[i] = direct_attrs(policy, policy.paths[i]);
    plan.push_back({policy.paths[i].target, i, Kind::bind, attrs[i]});
  }
  add_aliases(policy, fds, attrs, plan);
  std::stable_sort(plan.begin(), plan.end(), [](const Placement& a, const Placement& b) {
    const std::size_t da = depth(a.target);
    const std::size_t db = depth(b.target);
    return da != db ? da < db : a.kind < b.kind;
  });
  return plan;
}

// A layered entry's descriptor becomes its layer's root, for the rules applied later (Landlock).
Status apply(int root, const Placement& p, const ExecPath& entry, const LayerDirs* layer_dirs,
             UniqueFd& source) {
  if (p.kind == Kind::bind) {
    const Create create = is_directory(source.get()) ? Create::directory : Create::file;
    auto place = open_place(root, p.target, create);
    if (!place) return place.error();
    if (layer_dirs != nullptr && layered(entry) && (p.attrs & MOUNT_ATTR_RDONLY) == 0) {
      auto layer = mount_change_layer(*layer_dirs, source.get(), place.value().get());
      if (!layer) return layer.error();
      source = std::move(layer.value());
      return ok_status();
    }
    return attach(source.get(), place.value().get(), p.attrs);
  }
  auto place = open_place(root, p.target, Create::never);
  if (!place) return place.error();
  if (p.kind == Kind::pin) {
    if (!is_directory(place.value().get())) return ok_status();  // only directories can be moved
    return attach(place.value().get(), place.value().get(), 0);
  }
  if (!p.in_layer && !same_inode(place.value().get(), source.get()))
    return Errc::changed_underneath;
  return attach(source.get(), place.value().get(), p.attrs);
}

Status place_all(int root, const ExecPolicy& policy, std::vector<UniqueFd>& fds,
                 const std::vector<std::optional<LayerDirs>>& layers) {
  std::vector<std::string> pinned;
  for (const Placement& p : plan_placements(policy, fds)) {
    if (p.kind == Kind::pin) {
      if (std::find(pinned.begin(), pinned.end(), p.target) != pinned.end()) continue;
      pinned.push_back(p.target);
    }
    const auto& dirs = layers[p.entry];
    if (Status s = apply(root, p, policy.paths[p.entry], dirs ? &*dirs : nullptr, fds[p.entry]);
        !s) {
      Error e = s.error();
      e.index = p.entry;
      return e;
    }
  }
  return ok_status();
}

Status make_links(int root, const ExecPolicy& policy) {
  for (const ExecPath& entry : policy.paths) {
    if (entry.link.empty() || entry.target.empty() || replaced_by_own(policy, entry)) continue;
    const std::string target = entry.target;
    const std::size_t slash = target.rfind('/');
    auto dir = open_place(root, target.substr(0, slash), Create::directory);
    if (!dir) return dir.error();
    const std::string name = target.substr(slash + 1);
    if (::symlinkat(entry.link.c_str(), dir.value().get(), name.c_str()) != 0 && errno != EEXIST)
      return sys_failure(SysOp::symlinkat, errno);
  }
  return ok_status();
}

// /dev beyond the bound devices: shared memory (Python's multiprocessing needs it) and the
// links programs expect; /proc's mount point, filled in by enter_root.
Status make_skeleton(int root, std::uint64_t memory_bytes) {
  auto shm = open_place(root, "/dev/shm", Create::directory);
  if (!shm) return shm.error();
  // By path: nothing but us has been in this tmpfs.
  const std::string shm_path = std::string(kBuildDir) + "/dev/shm";
  const std::string options = "mode=1777," + shm_tmpfs_size(memory_bytes);
  if (::mount("tmpfs", shm_path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              options.c_str()) != 0) {
    return sys_failure(SysOp::mount, errno);
  }
  auto dev = open_place(root, "/dev", Create::never);
  if (!dev) return dev.error();
  const char* links[][2] = {{"/proc/self/fd", "fd"},
                            {"/proc/self/fd/0", "stdin"},
                            {"/proc/self/fd/1", "stdout"},
                            {"/proc/self/fd/2", "stderr"}};
  for (const auto& link : links) {
    if (::symlinkat(link[0], dev.value().get(), link[1]) != 0 && errno != EEXIST)
      return sys_failure(SysOp::symlinkat, errno);
  }
  auto proc = open_place(root, "/proc", Create::directory);
  return proc ? ok_status() : Status(proc.error());
}

Status write_at(const char* path, const std::string& text) {
  UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_failure(SysOp::open, errno);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return sys_failure(SysOp::write, errno);
  return ok_status();
}

Status set_read_only(const char* path) {
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_RDONLY;
  if (::mount_setattr(AT_FDCWD, path, 0, &attr, sizeof attr) != 0)
    return sys_failure(SysOp::mount_setattr, errno);
  return ok_status();
}

// What a procfs of the command's own still tells of the host: the boot id (the same for every
// process since the host booted) and the keys of every user whose uid is mapped, by description
// (the "user" key type lets its owner view it, whatever keyring holds it). Covered, as container
// runtimes do, by files made in the root's /proc directory before procfs hides them there.
constexpr const char* kHiddenBootId = "proc/.boot_id";
constexpr const char* kHiddenEmpty = "proc/.empty";

struct ProcMask {
  const char* target;  // in the mounted procfs
  bool boot_id;        // covered by the run's boot id, else by an empty file
};
constexpr ProcMask kProcMasks[] = {
    {"proc/sys/kernel/random/boot_id", true},
    {"proc/keys", false},
    {"proc/key-users", false},
};

// A version 4 UUID, new for each run, as the kernel formats a boot id.
std::string random_boot_id() {
  unsigned char bytes[16] = {};
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);
  constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < sizeof bytes; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(kHex[bytes[i] >> 4]);
    text.push_back(kHex[bytes[i] & 0x0f]);
  }
  text.push_back('\n');
  return text;
}

// Relative to the new root, still ours to write: it is made read-only once entered.
Status make_hidden_file(const char* path, const std::string& text) {
  UniqueFd fd(::open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444));
  if (!fd.valid()) return sys_failure(SysOp::open, errno);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return sys_failure(SysOp::write, errno);
  return ok_status();
}

Status make_proc_mask_files() {
  if (Status s = make_hidden_file(kHiddenBootId, random_boot_id()); !s) return s;
  return make_hidden_file(kHiddenEmpty, "");
}

// Where the procfs could not be mounted, the files would be all the command finds in /proc.
void remove_proc_mask_files() {
  ::unlink(kHiddenBootId);
  ::unlink(kHiddenEmpty);
}

// Read-only binds of the hidden files, from descriptors opened before the procfs covered them. An
// entry this kernel lacks (no keyrings) needs no mask.
Status mask_proc(const UniqueFd& boot_id, const UniqueFd& empty) {
  for (const ProcMask& mask : kProcMasks) {
    UniqueFd place(::open(mask.target, O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!place.valid() && errno == ENOENT) continue;
    if (!place.valid()) return sys_failure(SysOp::open, errno);
    const UniqueFd& source = mask.boot_id ? boot_id : empty;
    if (Status s = attach(source.get(), place.get(), kReadOnly); !s) return s;
  }
  return ok_status();
}

// The procfs, masked, with the process limit written into it and then read-only. False (and no
// trace left) where the kernel refuses a procfs here.
Result<bool> mount_private_proc(const ExecLimits& limits, RootEntered& entered) {
  if (Status s = make_proc_mask_files(); !s) return s.error();
  UniqueFd boot_id(::open(kHiddenBootId, O_PATH | O_NOFOLLOW | O_CLOEXEC));
  UniqueFd empty(::open(kHiddenEmpty, O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!boot_id.valid() || !empty.valid()) return sys_failure(SysOp::open, errno);
  // Before the host's root goes: the kernel mounts a procfs only where one is fully visible.
  if (::mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    remove_proc_mask_files();
    return false;
  }
  // PID namespaces have their own pid_max since Linux 6.14: the command's processes and
  // threads together, whoever it runs as (RLIMIT_NPROC spares root).
  if (limits.processes > 0) {
    entered.process_limit = static_cast<bool>(
        write_at("proc/sys/kernel/pid_max", std::to_string(limits.processes + 1)));
  }
  if (Status s = mask_proc(boot_id, empty); !s) return s.error();
  if (Status s = set_read_only("proc"); !s) return s.error();
  return true;
}

}  // namespace

void note_system_links(ExecPolicy& policy) {
  for (ExecPath& entry : policy.paths) {
    if (entry.target != entry.path || entry.access != PathAccess::read) continue;
    struct stat st {};
    if (::lstat(entry.path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) continue;
    char* resolved = ::realpath(entry.path.c_str(), nullptr);
    if (resolved == nullptr) continue;
    const std::string real(resolved);
    std::free(resolved);
    // /etc/resolv.conf -> /run/...: recreated, the link would dangle; the file is bound instead.
    const bool lands_in_view =
        std::any_of(policy.paths.begin(), policy.paths.end(), [&](const ExecPath& other) {
          return &other != &entry && other.target == other.path &&
                 other.access == PathAccess::read && path_is_within(real, other.path);
        });
    char buf[4096];
    ssize_t n = ::readlink(entry.path.c_str(), buf, sizeof buf);
    if (lands_in_view && n > 0 && static_cast<std::size_t>(n) < sizeof buf)
      entry.link.assign(buf, static_cast<std::size_t>(n));
  }
}

namespace {

// Before the build directory's tmpfs covers the paths that lead to them.
Result<std::vector<std::optional<LayerDirs>>> open_all_layer_dirs(const ExecPolicy& policy,
                                                                  int layer_base) {
  std::vector<std::optional<LayerDirs>> out(policy.paths.size());
  for (std::size_t i = 0; i < policy.paths.size(); ++i) {
    if (policy.paths[i].upper.empty()) continue;
    auto dirs = open_layer_dirs(policy.paths[i], layer_base);
    if (!dirs) {
      Error e = dirs.error();
      e.index = i;
      return e;
    }
    out[i] = std::move(dirs.value());
  }
  return out;
}

}  // namespace

Result<UniqueFd> build_root(const ExecPolicy& policy, std::vector<UniqueFd>& fds, int layer_base) {
  auto layers = open_all_layer_dirs(policy, layer_base);
  if (!layers) return layers.error();
  if (::mount("tmpfs", kBuildDir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return sys_failure(SysOp::mount, errno);
  UniqueFd root(::open(kBuildDir, O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return sys_failure(SysOp::open, errno);
  if (Status s = place_all(root.get(), policy, fds, layers.value()); !s) return s.error();
  if (Status s = make_links(root.get(), policy); !s) return s.error();
  if (Status s = make_skeleton(root.get(), policy.limits.memory_bytes); !s) return s.error();
  if (!policy.network) {
    if (Status s = make_own_hosts_file(root.get()); !s) return s.error();
  }
  if (policy.listen) {
    if (Status s = make_own_resolv_conf(root.get()); !s) return s.error();
  }
  return root;
}

Result<RootEntered> enter_root(const UniqueFd& root, const ExecLimits& limits) {
  RootEntered entered;
  if (::fchdir(root.get()) != 0) return sys_failure(SysOp::fchdir, errno);
  auto proc = mount_private_proc(limits, entered);
  if (!proc) return proc.error();
  entered.proc = proc.value();
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return sys_failure(SysOp::pivot_root, errno);
  if (::umount2(".", MNT_DETACH) != 0) return sys_failure(SysOp::umount2, errno);
  if (::chdir("/") != 0) return sys_failure(SysOp::chdir, errno);
  if (Status s = set_read_only("/"); !s) return s.error();
  return entered;
}

}  // namespace msb
