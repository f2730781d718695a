// The file tools beyond read/write/list: ranges, edits, moves and copies, mkdir -p and
// attachments. Same discipline as sandbox.cc: a virtual path is located in the mount table,
// checked against its mount's rules, then opened beneath the mount's pinned descriptor; every
// later step works on the descriptors so opened, never on a host path.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "common/path.h"
#include "common/sys.h"
#include "fs/policy.h"
#include "fs/sandbox.h"

namespace msb {
namespace {

// The regular file an O_PATH lookup found, opened for reading (only then, and only if it is
// one). A missing entry that a mount lies below is a directory, as read() reports it.
Result<ReadableFile> regular_file(Result<UniqueFd> looked_up, const MountTable& table,
                                  const VirtualPath& path) {
  if (!looked_up) {
    const Errc code = looked_up.error().code;
    if (code == Errc::not_found && table.holds_mount_point(path)) return Errc::is_directory;
    return looked_up.error();
  }
  return open_regular_file(looked_up.value().get());
}

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

std::string_view as_text(const Bytes& bytes) {
  return {reinterpret_cast<const char*>(bytes.data.get()), bytes.size};
}

struct Occurrences {
  std::size_t count = 0;
  std::size_t first = 0;
};

// Occurrences of a non-empty `needle`, overlapping ones included ("aa" occurs twice in "aaa":
// which one to replace would be a guess), by Knuth-Morris-Pratt: linear in both lengths, so no
// file and search text can make an edit quadratic.
Occurrences find_occurrences(std::string_view hay, std::string_view needle) {
  std::vector<std::size_t> border(needle.size(), 0);
  for (std::size_t i = 1, k = 0; i < needle.size(); ++i) {
    while (k > 0 && needle[i] != needle[k]) k = border[k - 1];
    if (needle[i] == needle[k]) ++k;
    border[i] = k;
  }
  Occurrences out;
  for (std::size_t i = 0, k = 0; i < hay.size(); ++i) {
    while (k > 0 && hay[i] != needle[k]) k = border[k - 1];
    if (hay[i] == needle[k]) ++k;
    if (k == needle.size()) {
      if (out.count++ == 0) out.first = i + 1 - k;
      k = border[k - 1];
    }
  }
  return out;
}

std::string splice(std::string_view text, std::size_t at, std::size_t removed,
                   std::string_view inserted) {
  std::string out;
  out.reserve(text.size() - removed + inserted.size());
  out.append(text.substr(0, at));
  out.append(inserted);
  out.append(text.substr(at + removed));
  return out;
}

// The entry a move would take from its directory: a file or a symlink, never a directory.
Result<struct stat> movable_entry(int dir_fd, const std::string& name) {
  auto found = sys::stat_at(dir_fd, name.c_str());
  if (!found) return found.error();
  const struct stat& st = found.value();
  if (S_ISDIR(st.st_mode)) return Errc::is_directory;
  if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return Errc::not_regular_file;
  return st;
}

// What already occupies a move's destination, if anything it may be replaced.
Result<std::optional<struct stat>> destination_entry(int dir_fd, const std::string& name,
                                                     bool overwrite) {
  auto found = sys::stat_at(dir_fd, name.c_str());
  if (!found) {
    if (found.error().code == Errc::not_found) return std::optional<struct stat>{};
    return at_index(found.error(), 1);
  }
  if (S_ISDIR(found.value().st_mode)) return at_index(Error{Errc::is_directory}, 1);
  if (!overwrite) return at_index(Error{Errc::already_exists}, 1);
  return std::optional<struct stat>{found.value()};
}

bool same_inode(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// rename() between two names of one inode does nothing and succeeds; a move must still drop
// the source name, unless both ends are the very same entry.
Status move_onto_own_link(int from_dir, const std::string& from, int to_dir,
                          const std::string& to) {
  auto from_id = file_id(from_dir);
  auto to_id = file_id(to_dir);
  if (!from_id) return at_index(from_id.error(), 0);
  if (!to_id) return at_index(to_id.error(), 1);
  if (from_id.value() == to_id.value() && from == to) return ok_status();
  if (auto st = sys::unlink_at(from_dir, from.c_str()); !st) return at_index(st.error(), 0);
  return ok_status();
}

// Which end a failed rename is about.
Error rename_error(Error e) {
  const int err = e.sys_errno;
  if (err == EEXIST || err == EISDIR || err == ENOTEMPTY) e.index = 1;
  if (err == ENOENT) e.index = 0;
  return e;
}

// A move between filesystems: the entry is recreated at the destination, then removed at the
// source. Only what the rules were checked against is moved: a file that grew since is refused.
Status move_across(int from_dir, const std::string& from, const struct stat& st, int to_dir,
                   const std::string& to, bool overwrite, std::uint64_t limit) {
  Status placed = ok_status();
  if (S_ISLNK(st.st_mode)) {
    auto text = sys::read_link(from_dir, from.c_str());
    if (!text) return at_index(text.error(), 0);
    placed = install_symlink(to_dir, to, text.value(), overwrite);
  } else {
    auto found = sys::open_at(from_dir, from.c_str(), O_PATH | O_NOFOLLOW);
    if (!found) return at_index(found.error(), 0);
    auto file = open_regular_file(found.value().get());
    if (!file) return at_index(file.error(), 0);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    auto bytes = read_regular_file(file.value().fd.get(), std::min(size, limit));
    if (!bytes) return at_index(bytes.error(), 0);
    placed = install_file(to_dir, to, bytes.value().data.get(), bytes.value().size,
                          static_cast<std::uint32_t>(st.st_mode & 0777), overwrite);
  }
  if (!placed) return at_index(placed.error(), 1);
  if (auto gone = sys::unlink_at(from_dir, from.c_str()); !gone) return at_index(gone.error(), 0);
  return ok_status();
}

}  // namespace

Result<Bytes> Sandbox::read_range(std::string_view text, std::uint64_t offset,
                                  std::uint64_t length) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = require_mount(t); !st) return st.error();
  // The name's rules first, as read() does: a refused suffix is refused whether or not the
  // file exists.
  if (auto st = check_read_rules(t, 0); !st) return st.error();
  auto file = regular_file(open(t, O_PATH), table_, t.path);
  if (!file) return file.error();
  const std::uint64_t size = file.value().size;
  if (auto st = check_read_rules(t, size); !st) return st.error();
  const std::uint64_t want =
      offset >= size ? 0 : std::min({length, max_read_bytes_, size - offset});
  return read_at(file.value().fd.get(), offset, static_cast<std::size_t>(want));
}

Status Sandbox::edit(std::string_view text, std::string_view old_text,
                     std::string_view new_text) const {
  if (old_text.empty()) return Errc::no_match;  // "" occurs everywhere: never what was meant
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = require_mount(t); !st) return st.error();
  auto file = regular_file(open(t, O_PATH), table_, t.path);
  if (!file) return file.error();
  if (auto st = check_read_rules(t, file.value().size); !st) return st.error();
  auto bytes = read_regular_file(file.value().fd.get(), read_limit(t));
  if (!bytes) return bytes.error();
  const std::string_view content = as_text(bytes.value());
  const Occurrences found = find_occurrences(content, old_text);
  if (found.count == 0) return Errc::no_match;
  if (found.count > 1) {
    Error e{Errc::ambiguous_match};
    e.size = found.count;
    return e;
  }
  const std::string updated = splice(content, found.first, old_text.size(), new_text);
  if (auto st = check_write_rules(t, updated.size()); !st) return st;
  auto dir = open_parent_for_change(t, false);
  if (!dir) return dir.error();
  return replace_file(dir.value().get(), t.path.parts.back(),
                      reinterpret_cast<const std::uint8_t*>(updated.data()), updated.size());
}

Status Sandbox::move(std::string_view from_text, std::string_view to_text, bool overwrite) const {
  auto from = locate(from_text);
  if (!from) return at_index(from.error(), 0);
  auto to = locate(to_text);
  if (!to) return at_index(to.error(), 1);
  const Target& f = from.value();
  const Target& t = to.value();
  if (auto st = check_delete_rules(f); !st) return at_index(st.error(), 0);
  const std::string& from_name = f.path.parts.back();
  // The destination's rules need the size, so the source is looked at first; nothing is
  // created for the destination until its rules have passed.
  if (auto st = writable(t); !st) return at_index(st.error(), 1);
  auto from_dir = open_parent_for_change(f, false, Change::remove);
  if (!from_dir) return at_index(from_dir.error(), 0);
  auto entry = movable_entry(from_dir.value().get(), from_name);
  if (!entry) return at_index(entry.error(), 0);
  const struct stat& st = entry.value();
  // What may not be read here may not be carried off to where it could be.
  if (auto ok = check_read_rules(f, static_cast<std::uint64_t>(st.st_size)); !ok) {
    return at_index(ok.error(), 0);
  }
  if (auto ok = check_write_rules(t, static_cast<std::uint64_t>(st.st_size)); !ok) {
    return at_index(ok.error(), 1);
  }
  auto to_dir = open_parent_for_change(t, true);
  if (!to_dir) return at_index(to_dir.error(), 1);
  const std::string& to_name = t.path.parts.back();
  auto existing = destination_entry(to_dir.value().get(), to_name, overwrite);
  if (!existing) return existing.error();
  if (existing.value() && same_inode(*existing.value(), st)) {
    return move_onto_own_link(from_dir.value().get(), from_name, to_dir.value().get(), to_name);
  }
  Status renamed = sys::rename_at(from_dir.value().get(), from_name.c_str(), to_dir.value().get(),
                                  to_name.c_str(), overwrite);
  if (renamed) return ok_status();
  if (renamed.error().sys_errno != EXDEV) return rename_error(renamed.error());
  return move_across(from_dir.value().get(), from_name, st, to_dir.value().get(), to_name,
                     overwrite, max_read_bytes_);
}

Status Sandbox::copy(std::string_view from_text, std::string_view to_text, bool overwrite) const {
  auto from = locate(from_text);
  if (!from) return at_index(from.error(), 0);
  auto to = locate(to_text);
  if (!to) return at_index(to.error(), 1);
  const Target& f = from.value();
  const Target& t = to.value();
  if (auto st = require_mount(f); !st) return at_index(st.error(), 0);
  if (auto st = writable(t); !st) return at_index(st.error(), 1);
  auto file = regular_file(open(f, O_PATH), table_, f.path);
  if (!file) return at_index(file.error(), 0);
  const std::uint64_t size = file.value().size;
  if (auto st = check_read_rules(f, size); !st) return at_index(st.error(), 0);
  if (auto st = check_write_rules(t, size); !st) return at_index(st.error(), 1);
  // Bounded by what was checked: a file that grew since fails rather than slipping past.
  auto bytes = read_regular_file(file.value().fd.get(), std::min(size, read_limit(f)));
  if (!bytes) return at_index(bytes.error(), 0);
  auto dir = open_parent_for_change(t, true);
  if (!dir) return at_index(dir.error(), 1);
  auto placed = install_file(dir.value().get(), t.path.parts.back(), bytes.value().data.get(),
                             bytes.value().size, file.value().mode, overwrite);
  if (!placed) return at_index(placed.error(), 1);
  return ok_status();
}

Status Sandbox::make_directory(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  // The root and directories the mount table provides exist whatever the disk holds.
  if (t.path.is_root() || table_.holds_mount_point(t.path)) return ok_status();
  if (auto st = require_mount(t); !st) return st;
  auto existing = open(t, O_PATH | O_DIRECTORY);
  if (existing) return ok_status();
  const Errc code = existing.error().code;
  if (code != Errc::not_found && code != Errc::not_directory) return existing.error();
  // Creating a directory is a write: the same refusals as for a file, minus the file rules.
  if (auto st = writable(t); !st) return st;
  if (t.at.mount->approval.write == Approval::blocked) return Errc::write_blocked;
  auto dir = open_parent_for_change(t, true);
  if (!dir) return dir.error();
  const std::string& name = t.path.parts.back();
  if (auto st = make_dir(dir.value().get(), name); !st) return st;
  auto made = sys::stat_at(dir.value().get(), name.c_str());
  if (!made) return made.error();
  if (!S_ISDIR(made.value().st_mode)) return Errc::already_exists;
  return ok_status();
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
    auto file = regular_file(open(t, O_PATH), table_, t.path);
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
