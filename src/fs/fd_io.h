// File operations on descriptors that the resolver already opened beneath a mount. Nothing here
// takes a path with more than one component: callers hand in a directory descriptor and a name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/file_id.h"
#include "common/sys.h"
#include "common/unique_fd.h"
#include "fs/file_version.h"
#include "fs/metadata.h"

namespace msb {

struct FreeDeleter {
  void operator()(std::uint8_t* p) const noexcept { std::free(p); }
};

// File contents in one malloc'ed block, so a binding can hand it to its runtime without a copy.
struct Bytes {
  std::unique_ptr<std::uint8_t, FreeDeleter> data;
  std::size_t size = 0;
};

struct FileInfo {
  std::uint64_t size = 0;
  bool is_directory = false;
  bool is_file = false;
  std::uint32_t file_type = 0;  // st_mode & S_IFMT: a FIFO, socket or device as it is
  double birth_ms = 0;          // creation time where the filesystem records it, else change time
  double modified_ms = 0;       // milliseconds since the epoch
  FileVersion version;          // what stat() hands out as its opaque version token
};

// A regular file opened for reading, with what fstat said when it was checked.
struct ReadableFile {
  UniqueFd fd;
  std::uint64_t size = 0;
  std::uint32_t mode = 0;  // permission bits
};

// Opens for reading the file an O_PATH descriptor names, only if it is a regular file:
// is_directory or not_regular_file otherwise, decided before anything is opened, because opening
// a FIFO or a device is itself an action (it releases a writer blocked in open(), runs a driver's
// open hook). The reopen goes through /proc/self/fd, so it is the very inode that was checked;
// without /proc mounted it fails with proc_unavailable rather than reopen by name (the name
// could lead to a FIFO swapped in since the check).
// `proc_fd_dir`, when given (open_proc_fd_dir), is where the reopen looks the descriptor up.
Result<ReadableFile> open_regular_file(int path_fd, int proc_fd_dir = -1);

// /proc/self/fd, opened once for the many reopens of a search: each then looks up one name in it
// rather than walking /proc/self/fd/N from the root (a quarter of a warm search's time). Opened
// per search, so whether /proc is there is still asked each time; invalid where it is not, and
// the reopens then fail as they would without it.
UniqueFd open_proc_fd_dir();

// Reads a regular file's whole contents from an fd opened O_RDONLY|O_NONBLOCK. Refuses anything
// that is not a regular file, and anything larger than `limit` before allocating for it.
Result<Bytes> read_regular_file(int fd, std::uint64_t limit);
// The same for a file open_regular_file opened, whose type and size it already read.
Result<Bytes> read_regular_file(const ReadableFile& file, std::uint64_t limit);

// `cached_only`: do not let network filesystems revalidate attributes (AT_STATX_DONT_SYNC).
Result<FileInfo> stat_fd(int fd, bool cached_only = false);

// Reads the small regular file an O_PATH descriptor names, without ever waiting: only on
// filesystems whose open and close never wait on a daemon or a server (ext4, xfs, btrfs, tmpfs:
// not FUSE, not NFS), never a device, reopened through /proc/self/fd so it is the inode that was
// checked, and only if all of it is in the page cache (RWF_NOWAIT). std::nullopt otherwise, and
// for empty files (procfs-like files report 0) or files larger than `limit`.
std::optional<Bytes> read_local_cached_file(int path_fd, std::uint64_t limit);

// The pseudo-filesystem `fd` (any descriptor, O_PATH included) lies on: procfs, sysfs, the device
// filesystem, devpts, debugfs, tracefs, securityfs, cgroup, bpf, mqueue, configfs, efivarfs,
// pstore and their like, whose files are views of the kernel, its processes and devices rather
// than data (/proc/self/environ is the process's environment, API keys included). Its name, a
// string literal ("proc", "sysfs", "devtmpfs", ...), or nullptr for a filesystem that holds data.
// Judged by fstatfs; the device filesystem, which reports tmpfs's magic, by being the
// filesystem mounted at /dev (devtmpfs is one instance however often it is mounted, and a
// container's /dev is the tmpfs its runtime fills with device nodes), so /dev/shm and every
// other tmpfs still hold data.
Result<const char*> pseudo_filesystem_of(int fd);

// Directory entry names (without "." and ".."), unsorted.
Result<std::vector<std::string>> read_dir_names(int dir_fd);

// A directory entry with its type as the directory records it (unknown where the filesystem
// does not say): enough to tell files from directories without a stat per entry.
struct DirEntry {
  std::string name;
  sys::EntryType type = sys::EntryType::unknown;
};

// Directory entries (without "." and ".."), unsorted.
Result<std::vector<DirEntry>> read_dir_entries(int dir_fd);

// Replaces `name` in `dir_fd` with a new regular file holding `data`: written to a temporary in
// the same directory, then renamed over the old entry, so readers see the old or the new
// contents, never a mix, and a hard link elsewhere to the old inode is never written through.
// The old file's permission bits, owner (where the process may), ACL and extended attributes are
// kept (fs/metadata.h); one that cannot be kept refuses the write (metadata_not_kept) with the old
// file untouched. Refuses to replace directories and special files.
// The temporary is unnamed (O_TMPFILE) where the filesystem allows, so a process killed midway
// leaves nothing behind; it gets a name only once complete (a new file is linked straight to
// `name`, a replacement under a random name that is at once renamed over the old entry).
// `precommit`, when given, runs last before the new file takes `name` (the rename, or the link of
// a new file): an error from it (a conflict) leaves `name` as it is and no temporary behind.
using Precommit = std::function<Status()>;
Status replace_file(int dir_fd, const std::string& name, const std::uint8_t* data, std::size_t size,
                    const Precommit& precommit = {});

// Removes a non-directory entry (a symlink itself, never what it points to).
Status remove_entry(int dir_fd, const std::string& name);

// mkdir that treats an existing directory as success.
Status make_dir(int dir_fd, const std::string& name);

Result<FileId> file_id(int fd);
// The path the kernel gives a descriptor's inode now (readlink of /proc/self/fd/N): where a
// resolved directory really is, for rules that name places on the host.
Result<std::string> descriptor_path(int fd);

// Like replace_file, but for copies and cross-device moves: a new file gets `new_mode`'s
// permission bits (masked by the umask, never set-id), and with `replace` false an existing
// `name` fails with already_exists, decided atomically by the final rename. With `carried`, the
// new file takes that metadata (a moved file's own) instead of the replaced file's or `new_mode`.
Status install_file(int dir_fd, const std::string& name, const std::uint8_t* data, std::size_t size,
                    std::uint32_t new_mode, bool replace, const FileMetadata* carried = nullptr,
                    const Precommit& precommit = {});

// install_file with the contents copied from the regular file `from` (its first `size` bytes),
// never held whole in memory: a command's change landed from its copy-on-write layer where the
// layer lies on another filesystem. A source that shrinks meanwhile fails with conflict.
Status install_file_copy(int dir_fd, const std::string& name, int from, std::uint64_t size,
                         std::uint32_t new_mode, bool replace,
                         const FileMetadata* carried = nullptr, const Precommit& precommit = {});

// Creates the symlink `name` -> `text` through a temporary, so an existing entry is replaced
// atomically (`replace`) or left alone with already_exists. Never replaces a directory.
Status install_symlink(int dir_fd, const std::string& name, const std::string& text, bool replace);

}  // namespace msb
