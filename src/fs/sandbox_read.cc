// The reading side of the file tools: whole files, ranges, attachments, stat, exists and
// directory listings, plus the attempts that never block the JS thread. A read checks the name's
// rules, opens the file beneath its mount, then checks its size on the opened descriptor.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "common/sys.h"
#include "fs/mount_rules.h"
#include "fs/sandbox.h"
#include "fs/sandbox_internal.h"

namespace msb {

using sandbox_internal::kPathFlags;

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY;

Result<Bytes> allocate(std::size_t size) {
  Bytes out;
  // Never malloc(0): callers hand the block to runtimes that expect a real pointer.
  out.data.reset(static_cast<std::uint8_t*>(std::malloc(size == 0 ? 1 : size)));
  if (!out.data) return Errc::io_error;
  return out;
}

Result<Bytes> read_at(int fd, std::uint64_t offset, std::size_t length) {
  auto out = allocate(length);
  if (!out) return out.error();
  auto got = sys::pread_full(fd, out.value().data.get(), length, offset);
  if (!got) return got.error();
  out.value().size = got.value();  // less where the file shrank since fstat
  return out;
}

}  // namespace

Result<ReadableFile> Sandbox::open_file_for_reading(const Target& t, int proc_fd_dir) const {
  auto looked_up = open(t, kPathFlags);
  if (!looked_up) {
    // A missing entry that a mount lies below is a directory of the virtual tree.
    if (looked_up.error().code == Errc::not_found && table_.holds_mount_point(t.path)) {
      return Errc::is_directory;
    }
    return looked_up.error();
  }
  return open_regular_file(looked_up.value().get(), proc_fd_dir);
}

std::optional<Result<Bytes>> Sandbox::read_now(std::string_view text) const {
  auto target = locate(text);
  if (!target) return Result<Bytes>(target.error());
  const Target& t = target.value();
  if (t.at.mount == nullptr) return std::nullopt;
  if (auto st = check_read_rules(t, 0); !st) return Result<Bytes>(st.error());
  // O_PATH first: it runs no filesystem open hook, so nothing here can wait on FUSE or NFS.
  auto path_fd = open_now(t, kPathFlags);
  if (!path_fd || !path_fd->ok()) return std::nullopt;  // refusals are classified when blocking
  // A file over a limit is left to read(), which reports the size and the limit.
  auto bytes =
      read_local_cached_file(path_fd->value().get(), std::min(read_limit(t), kMaxInlineReadBytes));
  if (!bytes) return std::nullopt;
  return Result<Bytes>(std::move(*bytes));
}

std::optional<Result<FileInfo>> Sandbox::stat_now(std::string_view text) const {
  auto target = locate(text);
  if (!target) return Result<FileInfo>(target.error());
  auto fd = open_now(target.value(), kPathFlags);
  if (!fd || !fd->ok()) return std::nullopt;
  auto info = stat_fd(fd->value().get(), true);
  if (!info) return std::nullopt;
  return info;
}

std::optional<Result<bool>> Sandbox::exists_now(std::string_view text) const {
  auto target = locate(text);
  if (!target) return Result<bool>(target.error());
  auto fd = open_now(target.value(), kPathFlags);
  if (!fd) return std::nullopt;
  if (fd->ok()) return Result<bool>(true);
  // A cached negative entry: the same answer exists() gives for not_found.
  return Result<bool>(table_.holds_mount_point(target.value().path));
}

Result<Bytes> Sandbox::read(std::string_view text, std::uint64_t cap, int proc_fd_dir) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (t.at.mount != nullptr) {
    if (auto st = check_read_rules(t, 0); !st) return st.error();
  }
  auto file = open_file_for_reading(t, proc_fd_dir);
  if (!file) return file.error();
  return read_regular_file(file.value(), std::min(read_limit(t), cap));
}

Result<ReadableFile> Sandbox::open_to_read(std::string_view text, int proc_fd_dir) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = require_mount(t); !st) return st.error();
  if (auto st = check_read_rules(t, 0); !st) return st.error();
  auto file = open_file_for_reading(t, proc_fd_dir);
  if (!file) return file.error();
  if (auto st = check_read_rules(t, file.value().size); !st) return st.error();
  return file;
}

Result<bool> Sandbox::exists(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  auto fd = open(target.value(), kPathFlags);
  if (fd) return true;
  const Errc code = fd.error().code;
  if (code == Errc::outside_sandbox) return false;  // nothing is there in the virtual tree
  if (code == Errc::not_found || code == Errc::not_directory) {
    return table_.holds_mount_point(target.value().path);
  }
  return fd.error();
}

Result<FileInfo> Sandbox::stat(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  auto fd = open(target.value(), kPathFlags);
  if (!fd) {
    if ((fd.error().code == Errc::not_found || fd.error().code == Errc::not_directory) &&
        table_.holds_mount_point(target.value().path)) {
      FileInfo synthetic;  // a directory that exists only because a mount lies below it
      synthetic.is_directory = true;
      synthetic.file_type = S_IFDIR;
      return synthetic;
    }
    return fd.error();
  }
  return stat_fd(fd.value().get());
}

Result<std::vector<DirEntry>> Sandbox::list_entries(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  std::vector<DirEntry> entries;
  // Mount points first: std::unique below keeps them over a same-named entry of the directory.
  for (std::string& name : table_.mount_entries_in(t.path)) {
    entries.push_back(DirEntry{std::move(name), sys::EntryType::directory});
  }
  const bool has_mounts = !entries.empty();
  auto fd = open(t, kDirFlags);
  if (fd) {
    auto read = read_dir_entries(fd.value().get());
    if (!read) return read.error();
    for (DirEntry& entry : read.value()) entries.push_back(std::move(entry));
  } else {
    const Errc code = fd.error().code;
    const bool virtual_dir = has_mounts && (code == Errc::not_found || code == Errc::not_directory);
    if (!virtual_dir) return fd.error();
  }
  std::size_t total = 0;
  for (const DirEntry& entry : entries) total += entry.name.size() + 1;
  if (total > kMaxListBytes) return too_large(total, kMaxListBytes);
  auto by_name = [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; };
  std::stable_sort(entries.begin(), entries.end(), by_name);
  auto same = [](const DirEntry& a, const DirEntry& b) { return a.name == b.name; };
  entries.erase(std::unique(entries.begin(), entries.end(), same), entries.end());
  return entries;
}

Result<std::vector<std::string>> Sandbox::list(std::string_view text) const {
  auto entries = list_entries(text);
  if (!entries) return entries.error();
  std::vector<std::string> names;
  names.reserve(entries.value().size());
  for (DirEntry& entry : entries.value()) names.push_back(std::move(entry.name));
  return names;
}

Result<Bytes> Sandbox::read_range(std::string_view text, std::uint64_t offset, std::uint64_t length,
                                  std::uint64_t cap) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = require_mount(t); !st) return st.error();
  // The name's rules first, as read() does: a refused suffix is refused whether or not the
  // file exists.
  if (auto st = check_read_rules(t, 0); !st) return st.error();
  auto file = open_file_for_reading(t);
  if (!file) return file.error();
  const std::uint64_t size = file.value().size;
  if (auto st = check_read_rules(t, size); !st) return st.error();
  const std::uint64_t want =
      offset >= size ? 0 : std::min({length, max_read_bytes_, size - offset});
  if (want > cap) return too_large(want, cap);
  return read_at(file.value().fd.get(), offset, static_cast<std::size_t>(want));
}

Result<std::vector<Bytes>> Sandbox::read_attachments(const std::vector<std::string>& paths,
                                                     const AttachmentPolicy& policy) const {
  if (paths.size() > policy.max_attachments) {
    Error e{Errc::too_many_attachments};
    e.size = paths.size();
    e.limit = policy.max_attachments;
    return e;
  }
  FilePolicy suffixes;
  if (!policy.allowed_suffixes.empty()) suffixes.allowed_suffixes = policy.allowed_suffixes;
  suffixes.denied_suffixes = policy.denied_suffixes;
  std::vector<Target> targets;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto target = locate(paths[i]);
    if (!target) return at_index(target.error(), i);
    const VirtualPath& path = target.value().path;
    if (!suffix_allowed(suffixes, path.is_root() ? std::string_view() : path.parts.back())) {
      return at_index(Error{Errc::suffix_not_allowed}, i);
    }
    targets.push_back(std::move(target.value()));
  }
  std::vector<ReadableFile> files;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Target& t = targets[i];
    if (auto st = require_mount(t); !st) return at_index(st.error(), i);
    auto file = open_file_for_reading(t);
    if (!file) return at_index(file.error(), i);
    const std::uint64_t size = file.value().size;
    if (auto st = check_read_rules(t, size); !st) return at_index(st.error(), i);
    // Judged as soon as it is exceeded, so later paths are not even opened.
    total = size > UINT64_MAX - total ? UINT64_MAX : total + size;
    if (total > policy.max_total_bytes) {
      Error e{Errc::attachments_too_large};
      e.size = total;
      e.limit = policy.max_total_bytes;
      return e;
    }
    if (size > max_read_bytes_) return at_index(too_large(size, max_read_bytes_), i);
    if (i < policy.size_caps.size() && size > policy.size_caps[i]) {
      return at_index(too_large(size, policy.size_caps[i]), i);
    }
    files.push_back(std::move(file.value()));
  }
  std::vector<Bytes> out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    // The checked size is the limit: a file that grew since fails rather than slipping past.
    auto bytes = read_regular_file(files[i].fd.get(), files[i].size);
    if (!bytes) return at_index(bytes.error(), i);
    out.push_back(std::move(bytes.value()));
  }
  return out;
}

}  // namespace msb
