#include "fs/fd_io.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "common/sys.h"
#include "fs/metadata.h"

namespace msb {
namespace {

double to_ms(const statx_timestamp& t) {
  return static_cast<double>(t.tv_sec) * 1000.0 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Unpredictable names, so another user of the directory cannot squat on the next one.
std::string temp_name() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char buf[32];
  std::snprintf(buf, sizeof(buf), ".msb-%016llx.tmp", static_cast<unsigned long long>(random()));
  return buf;
}

// Created owner-only: until its permissions are set, the temporary must not let anyone else
// read what is about to replace a private file.
Result<UniqueFd> create_temp(int dir_fd, mode_t mode, std::string& name_out) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    name_out = temp_name();
    auto fd =
        sys::open_at(dir_fd, name_out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    if (fd || fd.error().sys_errno != EEXIST) return fd;
  }
  return from_errno(SysOp::openat, EEXIST);
}

// "/proc/self/fd/N": the magic link through which a descriptor's own inode can be reopened.
struct ProcFdPath {
  char text[32];
};

ProcFdPath proc_fd_path(int fd) {
  ProcFdPath out;
  std::snprintf(out.text, sizeof(out.text), "/proc/self/fd/%d", fd);
  return out;
}

}  // namespace

Result<std::string> descriptor_path(int fd) {
  auto text = sys::read_link(AT_FDCWD, proc_fd_path(fd).text);
  if (!text) return text.error();
  // A directory whose inode was removed reads " (deleted)" after its old path: it is nowhere.
  const std::string& path = text.value();
  if (path.empty() || path.front() != '/') return Errc::not_found;
  constexpr std::string_view kDeleted = " (deleted)";
  if (path.size() >= kDeleted.size() &&
      path.compare(path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0) {
    return Errc::not_found;
  }
  return text;
}

namespace {

// Filesystem magics (statfs f_type) of the kernel's pseudo-filesystems, spelt out rather than
// taken from <linux/magic.h>, whose older versions lack some and which lacks others entirely.
struct PseudoFilesystem {
  unsigned long magic;
  const char* name;
};

constexpr PseudoFilesystem kPseudoFilesystems[] = {
    {0x9fa0, "proc"},         {0x62656572, "sysfs"},
    {0x1cd1, "devpts"},       {0x64626720, "debugfs"},
    {0x74726163, "tracefs"},  {0x73636673, "securityfs"},
    {0x27e0eb, "cgroup"},     {0x63677270, "cgroup2"},
    {0xcafe4a11, "bpf"},      {0x19800202, "mqueue"},
    {0x62656570, "configfs"}, {0xde5e81e4, "efivarfs"},
    {0x6165676c, "pstore"},   {0x42494e4d, "binfmt_misc"},
    {0x65735543, "fusectl"},  {0xf97cff8c, "selinuxfs"},
    {0x43415d53, "smackfs"},  {0x5a3c69f0, "apparmorfs"},
    {0x6e736673, "nsfs"},     {0x9fa2, "usbfs"},
    {0x9fa1, "openpromfs"},   {0x7655821, "resctrl"},
    {0x6c6f6f70, "binder"},   {0x50495045, "pipefs"},
    {0x534f434b, "sockfs"},   {0x09041934, "anon_inodefs"},
};

constexpr unsigned long kTmpfsMagic = 0x01021994;

// Whether `dev` is the filesystem mounted at /dev: a mount of its own (not a directory of "/")
// with tmpfs's magic, as devtmpfs and a container's /dev tmpfs both report.
bool is_device_filesystem(dev_t dev) {
  struct stat root;
  struct stat devdir;
  struct statfs devfs;
  if (::stat("/", &root) != 0) return false;
  UniqueFd fd(::open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid() || ::fstat(fd.get(), &devdir) != 0 || ::fstatfs(fd.get(), &devfs) != 0) {
    return false;
  }
  return devdir.st_dev != root.st_dev && static_cast<unsigned long>(devfs.f_type) == kTmpfsMagic &&
         devdir.st_dev == dev;
}

}  // namespace

Result<const char*> pseudo_filesystem_of(int fd) {
  struct statfs fsinfo;
  while (::fstatfs(fd, &fsinfo) != 0) {
    if (errno != EINTR) return from_errno(SysOp::fstatfs, errno);
  }
  const auto magic = static_cast<unsigned long>(fsinfo.f_type);
  for (const PseudoFilesystem& pseudo : kPseudoFilesystems) {
    if (pseudo.magic == magic) return pseudo.name;
  }
  if (magic != kTmpfsMagic) return static_cast<const char*>(nullptr);
  auto st = sys::stat_fd(fd);
  if (!st) return st.error();
  return is_device_filesystem(st.value().st_dev) ? "devtmpfs" : nullptr;
}

UniqueFd open_proc_fd_dir() {
  return UniqueFd(::open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC));
}

Result<ReadableFile> open_regular_file(int path_fd, int proc_fd_dir) {
  auto stat = sys::stat_fd(path_fd);
  if (!stat) return stat.error();
  const struct stat& st = stat.value();
  if (S_ISDIR(st.st_mode)) return Errc::is_directory;
  if (!S_ISREG(st.st_mode)) return Errc::not_regular_file;
  constexpr int kReopenFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  UniqueFd fd;
  if (proc_fd_dir >= 0) {
    char name[16];
    std::snprintf(name, sizeof name, "%d", path_fd);
    fd = UniqueFd(::openat(proc_fd_dir, name, kReopenFlags));
  } else {
    fd = UniqueFd(::open(proc_fd_path(path_fd).text, kReopenFlags));
  }
  if (!fd.valid()) {
    // The descriptor is open, so its entry exists in any /proc of this process: ENOENT means
    // there is none now (never mounted, unmounted since, or another PID namespace's). Asked on
    // every call, since /proc can come and go.
    Error e = from_errno(SysOp::open, errno);
    if (e.sys_errno == ENOENT) e.code = Errc::proc_unavailable;
    return e;
  }
  return ReadableFile{std::move(fd), static_cast<std::uint64_t>(st.st_size),
                      static_cast<std::uint32_t>(st.st_mode & 0777)};
}

Result<FileInfo> stat_fd(int fd, bool cached_only) {
  struct statx sx;
  const int flags = AT_EMPTY_PATH | (cached_only ? AT_STATX_DONT_SYNC : 0);
  if (::statx(fd, "", flags, STATX_BASIC_STATS | STATX_BTIME, &sx) != 0) {
    return from_errno(SysOp::statx, errno);
  }
  FileInfo info;
  info.size = sx.stx_size;
  info.is_directory = S_ISDIR(sx.stx_mode);
  info.is_file = S_ISREG(sx.stx_mode);
  info.file_type = sx.stx_mode & S_IFMT;
  info.modified_ms = to_ms(sx.stx_mtime);
  info.birth_ms = (sx.stx_mask & STATX_BTIME) ? to_ms(sx.stx_btime) : to_ms(sx.stx_ctime);
  info.version = version_of(sx);
  return info;
}

std::optional<Bytes> read_local_cached_file(int path_fd, std::uint64_t limit) {
  struct stat st;
  if (::fstat(path_fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0 || size > limit) return std::nullopt;
  struct statfs fsinfo;
  if (::fstatfs(path_fd, &fsinfo) != 0) return std::nullopt;
  switch (static_cast<unsigned long>(fsinfo.f_type)) {
    case EXT4_SUPER_MAGIC:
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case TMPFS_MAGIC: break;
    default: return std::nullopt;
  }
  UniqueFd fd(::open(proc_fd_path(path_fd).text, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  Bytes out;
  // One spare byte: a file that grew since fstat is left to the blocking path.
  out.data.reset(static_cast<std::uint8_t*>(std::malloc(static_cast<std::size_t>(size) + 1)));
  if (!out.data) return std::nullopt;
  iovec iov{out.data.get(), static_cast<std::size_t>(size) + 1};
  ssize_t n = ::preadv2(fd.get(), &iov, 1, 0, RWF_NOWAIT);
  if (n < 0 || static_cast<std::uint64_t>(n) != size) return std::nullopt;
  out.size = static_cast<std::size_t>(n);
  return out;
}

Result<FileId> file_id(int fd) {
  auto st = sys::stat_fd(fd);
  if (!st) return st.error();
  return FileId{st.value().st_dev, st.value().st_ino};
}

namespace {

// Reads up to `limit` bytes of a regular file whose fstat reported `reported` bytes.
Result<Bytes> read_contents(int fd, std::uint64_t reported, std::uint64_t limit) {
  if (reported > limit) return too_large(reported, limit);
  // One spare byte tells us whether the file grew after fstat; files that report size 0
  // (procfs-like) grow the buffer in steps, still bounded by `limit`.
  std::size_t capacity = static_cast<std::size_t>(reported) + 1;
  if (reported == 0) capacity = 4096;
  Bytes out;
  out.data.reset(static_cast<std::uint8_t*>(std::malloc(capacity)));
  if (!out.data) return Errc::io_error;
  for (;;) {
    if (out.size == capacity) {
      if (out.size > limit) return too_large(out.size, limit);
      std::size_t grown = capacity * 2;
      if (grown > limit + 1) grown = static_cast<std::size_t>(limit) + 1;
      auto* p = static_cast<std::uint8_t*>(std::realloc(out.data.get(), grown));
      if (!p) return Errc::io_error;
      out.data.release();
      out.data.reset(p);
      capacity = grown;
    }
    ssize_t n = ::read(fd, out.data.get() + out.size, capacity - out.size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return from_errno(SysOp::read, errno);
    }
    if (n == 0) break;
    out.size += static_cast<std::size_t>(n);
    // A regular file read short of the spare byte, at its reported size, was at its end: the
    // read that would return 0 to say so is one system call per file a search need not make.
    if (reported > 0 && out.size == reported) break;
  }
  if (out.size > limit) return too_large(out.size, limit);
  return out;
}

}  // namespace

Result<Bytes> read_regular_file(int fd, std::uint64_t limit) {
  auto st = sys::stat_fd(fd);
  if (!st) return st.error();
  if (S_ISDIR(st.value().st_mode)) return Errc::is_directory;
  if (!S_ISREG(st.value().st_mode)) return Errc::not_regular_file;
  return read_contents(fd, static_cast<std::uint64_t>(st.value().st_size), limit);
}

Result<Bytes> read_regular_file(const ReadableFile& file, std::uint64_t limit) {
  return read_contents(file.fd.get(), file.size, limit);
}

Result<std::vector<std::string>> read_dir_names(int dir_fd) {
  std::vector<std::string> names;
  auto add = [&names](std::string_view name, sys::EntryType) { names.emplace_back(name); };
  for (;;) {
    auto more = sys::read_dir_batch(dir_fd, add);
    if (!more) return more.error();
    if (!more.value()) return names;
  }
}

Result<std::vector<DirEntry>> read_dir_entries(int dir_fd) {
  std::vector<DirEntry> entries;
  auto add = [&entries](std::string_view name, sys::EntryType type) {
    entries.push_back(DirEntry{std::string(name), type});
  };
  for (;;) {
    auto more = sys::read_dir_batch(dir_fd, add);
    if (!more) return more.error();
    if (!more.value()) return entries;
  }
}

Status replace_file(int dir_fd, const std::string& name, const std::uint8_t* data, std::size_t size,
                    const Precommit& precommit) {
  return install_file(dir_fd, name, data, size, 0666, true, nullptr, precommit);
}

Status remove_entry(int dir_fd, const std::string& name) {
  auto st = sys::stat_at(dir_fd, name.c_str());
  if (!st) return st.error();
  if (S_ISDIR(st.value().st_mode)) return Errc::is_directory;
  return sys::unlink_at(dir_fd, name.c_str());
}

Status make_dir(int dir_fd, const std::string& name) {
  Status made = sys::make_dir_at(dir_fd, name.c_str(), 0777);
  if (!made && made.error().sys_errno == EEXIST) return ok_status();
  return made;
}

namespace {

// Puts a finished temporary in place: over whatever `name` is (`replace`), or only where
// there is nothing, which the kernel decides atomically.
Status commit_temp(int dir_fd, const std::string& temp, const std::string& name, bool replace) {
  return sys::rename_at(dir_fd, temp.c_str(), dir_fd, name.c_str(), replace);
}

// What `name` holds now, if anything, when a new entry is about to take its place.
Result<std::optional<struct stat>> entry_to_replace(int dir_fd, const std::string& name,
                                                    bool replace) {
  auto found = sys::stat_at(dir_fd, name.c_str());
  if (!found) {
    if (found.error().code != Errc::not_found) return found.error();
    return std::optional<struct stat>{};
  }
  const struct stat& st = found.value();
  if (S_ISDIR(st.st_mode)) return Errc::is_directory;
  if (!replace) return Errc::already_exists;
  if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return Errc::not_regular_file;
  return std::optional<struct stat>{st};
}

// An unnamed regular file in `dir_fd` (O_TMPFILE), or std::nullopt where the filesystem does
// not offer one: the caller then names its temporary.
std::optional<Result<UniqueFd>> create_unnamed(int dir_fd, mode_t mode) {
  auto fd = sys::open_at(dir_fd, ".", O_TMPFILE | O_WRONLY, mode);
  const int err = fd ? 0 : fd.error().sys_errno;
  if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL) return std::nullopt;
  return fd;
}

// Cleared where linkat(AT_EMPTY_PATH) is refused to us: before Linux 6.10 it needs
// CAP_DAC_READ_SEARCH, since then only that or having opened the file with the same credentials.
std::atomic<bool> empty_path_links_work{true};

// 0, or the errno of linking the unnamed file `fd` in as `name` (never replacing anything).
// Through the descriptor itself where the kernel allows (no path to look up, no /proc needed),
// else through /proc/self/fd.
int link_unnamed(int fd, int dir_fd, const std::string& name) {
  const bool try_empty_path = empty_path_links_work.load(std::memory_order_relaxed);
  if (try_empty_path) {
    if (::linkat(fd, "", dir_fd, name.c_str(), AT_EMPTY_PATH) == 0) return 0;
    if (errno != ENOENT) return errno;  // EEXIST and the like: an answer about `name`
  }
  if (::linkat(AT_FDCWD, proc_fd_path(fd).text, dir_fd, name.c_str(), AT_SYMLINK_FOLLOW) != 0) {
    return errno;
  }
  // ENOENT came from the refusal, not from the directory: ask /proc from now on.
  if (try_empty_path) empty_path_links_work.store(false, std::memory_order_relaxed);
  return 0;
}

// linkat() errors that say the unnamed file cannot be linked in here, not that the write failed:
// no way to name it (ENOENT: AT_EMPTY_PATH refused and no /proc, which can be unmounted at any
// time), or no link allowed (EPERM: a filesystem without hard links, or fs.protected_hardlinks
// once the file was given to the old file's owner without CAP_FOWNER). A named temporary needs
// neither.
bool link_unavailable(int err) {
  return err == ENOENT || err == EPERM;
}

// The caller's last check before the new file takes the name, if it has one.
Status run_precommit(const Precommit& precommit) {
  return precommit ? precommit() : ok_status();
}

// Names the finished unnamed file: linked straight to `name` where nothing is there, else (with
// `replace`) linked under a random name and at once renamed over the old entry. std::nullopt,
// with nothing named, where it cannot be linked in at all.
std::optional<Status> commit_unnamed(int fd, int dir_fd, const std::string& name, bool replace,
                                     bool occupied, const Precommit& precommit) {
  if (!occupied) {
    if (auto st = run_precommit(precommit); !st) return st;
    const int err = link_unnamed(fd, dir_fd, name);
    if (err == 0) return ok_status();
    if (link_unavailable(err)) return std::nullopt;
    if (err != EEXIST) return Status(from_errno(SysOp::linkat, err));
    if (!replace) return Status(from_errno(SysOp::linkat, EEXIST));  // created meanwhile
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string temp = temp_name();
    const int err = link_unnamed(fd, dir_fd, temp);
    if (err == EEXIST) continue;
    if (link_unavailable(err)) return std::nullopt;
    if (err != 0) return Status(from_errno(SysOp::linkat, err));
    Status st = run_precommit(precommit);
    if (st) st = commit_temp(dir_fd, temp, name, true);
    if (!st) ::unlinkat(dir_fd, temp.c_str(), 0);
    return st;
  }
  return Status(from_errno(SysOp::linkat, EEXIST));
}

// Writes a new file's contents into the descriptor it is given.
using Contents = std::function<Status(int fd)>;

// The new file's metadata where it takes another file's (set first, so the data never sits in a
// file more open than the one it replaces), then its contents.
Status fill(int fd, const FileMetadata* meta, const Contents& contents) {
  if (meta) {
    if (auto st = apply_metadata(fd, *meta); !st) return st;
  }
  return contents(fd);
}

// Copies `size` bytes of `from` from its start: in the kernel where it can (copy_file_range
// shares extents on filesystems that can), else through a buffer.
Status copy_contents(int from, int to, std::uint64_t size) {
  std::uint64_t done = 0;
  while (done < size) {
    loff_t in = static_cast<loff_t>(done);
    const ssize_t n = ::copy_file_range(from, &in, to, nullptr, size - done, 0);
    if (n > 0) {
      done += static_cast<std::uint64_t>(n);
      continue;
    }
    if (n == 0) return Errc::conflict;  // the source shrank while it was copied
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != EINVAL && errno != EOPNOTSUPP && errno != ENOSYS)
      return from_errno(SysOp::write, errno);
    break;
  }
  std::vector<std::uint8_t> buffer(std::min<std::uint64_t>(size - done, 1 << 20));
  while (done < size) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - done));
    auto got = sys::pread_full(from, buffer.data(), want, done);
    if (!got) return got.error();
    if (got.value() == 0) return Errc::conflict;
    if (auto st = sys::write_all(to, buffer.data(), got.value()); !st) return st;
    done += got.value();
  }
  return ok_status();
}

Status install_with(int dir_fd, const std::string& name, const Contents& contents,
                    std::uint32_t new_mode, bool replace, const FileMetadata* carried,
                    const Precommit& precommit);

}  // namespace

Status install_file(int dir_fd, const std::string& name, const std::uint8_t* data, std::size_t size,
                    std::uint32_t new_mode, bool replace, const FileMetadata* carried,
                    const Precommit& precommit) {
  const Contents contents = [&](int fd) { return sys::write_all(fd, data, size); };
  return install_with(dir_fd, name, contents, new_mode, replace, carried, precommit);
}

Status install_file_copy(int dir_fd, const std::string& name, int from, std::uint64_t size,
                         std::uint32_t new_mode, bool replace, const FileMetadata* carried,
                         const Precommit& precommit) {
  const Contents contents = [&](int fd) { return copy_contents(from, fd, size); };
  return install_with(dir_fd, name, contents, new_mode, replace, carried, precommit);
}

namespace {

Status install_with(int dir_fd, const std::string& name, const Contents& contents,
                    std::uint32_t new_mode, bool replace, const FileMetadata* carried,
                    const Precommit& precommit) {
  auto existing = entry_to_replace(dir_fd, name, replace);
  if (!existing) return existing.error();
  const auto& old = existing.value();
  // The replaced file's mode, owner, ACL and attributes, read before anything is created: one
  // that cannot be read refuses the write with nothing to clean up.
  std::optional<FileMetadata> kept;
  if (!carried && old && S_ISREG(old->st_mode)) {
    auto read = read_metadata_at(dir_fd, name.c_str(), *old);
    if (!read) return read.error();
    kept = std::move(read.value());
  }
  const FileMetadata* meta = carried ? carried : kept ? &*kept : nullptr;
  // A file that takes another's metadata starts private until it has it.
  const mode_t mode = meta ? 0600 : static_cast<mode_t>(new_mode & 0777);
  if (auto unnamed = create_unnamed(dir_fd, mode)) {
    if (!*unnamed) return unnamed->error();
    const UniqueFd fd = std::move(unnamed->value());
    if (auto st = fill(fd.get(), meta, contents); !st) return st;  // nothing named to clean up
    if (auto committed =
            commit_unnamed(fd.get(), dir_fd, name, replace, old.has_value(), precommit)) {
      return *committed;
    }
    // It cannot be linked in here: written again, into a named temporary. Only a process
    // without /proc (which cannot read files either) or under the EPERM rule pays twice.
  }
  std::string temp;
  auto created = create_temp(dir_fd, mode, temp);
  if (!created) return created.error();
  Status st = fill(created.value().get(), meta, contents);
  if (st) st = run_precommit(precommit);
  if (st) st = commit_temp(dir_fd, temp, name, replace);
  if (!st) ::unlinkat(dir_fd, temp.c_str(), 0);
  return st;
}

}  // namespace

Status install_symlink(int dir_fd, const std::string& name, const std::string& text, bool replace) {
  auto existing = entry_to_replace(dir_fd, name, replace);
  if (!existing) return existing.error();
  std::string temp;
  for (int attempt = 0;; ++attempt) {
    temp = temp_name();
    Status made = sys::symlink_at(text.c_str(), dir_fd, temp.c_str());
    if (made) break;
    if (made.error().sys_errno != EEXIST || attempt == 15) return made;
  }
  Status st = commit_temp(dir_fd, temp, name, replace);
  if (!st) ::unlinkat(dir_fd, temp.c_str(), 0);
  return st;
}

}  // namespace msb
