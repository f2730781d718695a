// A command's changes, landed from its copy-on-write layer by the rules the file tools obey: each
// entry is located as its virtual path, judged as a write, a mkdir or a removal there (read-only
// mounts and sources, approvals that block, suffix and size policies, names the host trusts,
// git's layout), made in its turn on the entry (FileTurns) and never over a host entry that
// changed while the command ran.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/path.h"
#include "common/sys.h"
#include "fs/file_turns.h"
#include "fs/file_version.h"
#include "fs/metadata.h"
#include "fs/sandbox.h"
#include "fs/sandbox_internal.h"

namespace msb {

using sandbox_internal::kDirectoryPlaced;
using sandbox_internal::kPathFlags;

namespace {

// Only HEAD's contents decide git's layout; a HEAD longer than this is no valid one either.
constexpr std::size_t kMaxHeadBytes = 4096;

bool is_head(std::string_view name) {
  return fold_name(name) == "head";
}

std::int64_t ctime_ns(const FileVersion& v) {
  return v.ctime_ns;
}

// The host entry at `name`, if any, for the conflict rule: a file, link or other entry changed
// after the command started was changed by someone else. A directory's own times change with its
// entries, which are judged one by one.
Result<std::optional<FileVersion>> host_entry(int dir_fd, const std::string& name,
                                              const LandRules& rules) {
  auto entry = version_of_entry(dir_fd, name);
  if (!entry) return entry.error();
  const auto& found = entry.value();
  if (found && !S_ISDIR(found->type) && ctime_ns(*found) > rules.since_ns) return Errc::conflict;
  return entry;
}

Result<bool> same_bytes(int a, int b, std::uint64_t size) {
  std::vector<std::uint8_t> left(64 << 10);
  std::vector<std::uint8_t> right(64 << 10);
  for (std::uint64_t at = 0; at < size;) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(left.size(), size - at));
    auto x = sys::pread_full(a, left.data(), want, at);
    if (!x) return x.error();
    auto y = sys::pread_full(b, right.data(), want, at);
    if (!y) return y.error();
    if (x.value() != want || y.value() != want) return false;
    if (std::memcmp(left.data(), right.data(), want) != 0) return false;
    at += want;
  }
  return true;
}

// Whether the regular file `name` in `dir_fd` already has the layer file's permission bits and
// bytes: a file the command only opened for writing, touched or rewrote the same is no change.
bool host_file_matches(int dir_fd, const std::string& name, int layer_fd, const struct stat& st) {
  auto host = sys::stat_at(dir_fd, name.c_str());
  if (!host || !S_ISREG(host.value().st_mode)) return false;
  if (host.value().st_size != st.st_size || (host.value().st_mode & 07777) != (st.st_mode & 0777))
    return false;
  auto fd = sys::open_at(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (!fd) return false;
  auto same = same_bytes(fd.value().get(), layer_fd, static_cast<std::uint64_t>(st.st_size));
  return same && same.value();
}

// What overlayfs wrote for itself (user.overlay.*) and what xattr_carried never carries (file
// capabilities, integrity hashes) leave the layer's file before it becomes the host's.
Status strip_layer_attributes(int fd) {
  std::array<char, 65536> names{};
  const ssize_t n = ::flistxattr(fd, names.data(), names.size());
  if (n < 0) return errno == ENOTSUP ? ok_status() : Status(from_errno(SysOp::flistxattr, errno));
  for (ssize_t at = 0; at < n;) {
    const std::string name(names.data() + at);
    at += static_cast<ssize_t>(name.size()) + 1;
    const bool overlay_own = name.rfind("user.overlay.", 0) == 0;
    if ((overlay_own || !xattr_carried(name)) && ::fremovexattr(fd, name.c_str()) != 0)
      return from_errno(SysOp::fremovexattr, errno);
  }
  return ok_status();
}

// Renames the layer's file over `name` (or to it, where nothing is there): no byte is copied.
// With a file replaced, the new one takes its owner, ACL and attributes, as write() keeps them,
// with the command's permission bits. EXDEV: the layer is on another filesystem.
Status rename_into_place(int dir_fd, const std::string& name, const LayerEntry& from, int file_fd,
                         const std::optional<FileVersion>& replaced) {
  if (auto st = strip_layer_attributes(file_fd); !st) return st;
  const mode_t bits = from.st.st_mode & 0777;
  std::optional<FileMetadata> kept;
  if (replaced && S_ISREG(replaced->type)) {
    auto old = sys::stat_at(dir_fd, name.c_str());
    if (!old) return old.error();
    auto meta = read_metadata_at(dir_fd, name.c_str(), old.value());
    if (!meta) return meta.error();
    kept = std::move(meta.value());
  }
  if (kept) {
    kept->mode = bits;
    if (auto st = apply_metadata(file_fd, *kept); !st) return st;
  } else if (::fchmod(file_fd, bits) != 0) {
    return from_errno(SysOp::fchmod, errno);
  }
  return sys::rename_at(from.dir_fd, from.name.c_str(), dir_fd, name.c_str(), replaced.has_value());
}

Status copy_into_place(int dir_fd, const std::string& name, const LayerEntry& from, int file_fd,
                       const std::optional<FileVersion>& replaced) {
  const mode_t bits = from.st.st_mode & 0777;
  std::optional<FileMetadata> kept;
  if (replaced && S_ISREG(replaced->type)) {
    auto old = sys::stat_at(dir_fd, name.c_str());
    if (!old) return old.error();
    auto meta = read_metadata_at(dir_fd, name.c_str(), old.value());
    if (!meta) return meta.error();
    if (meta.value()) {
      kept = std::move(*meta.value());
      kept->mode = bits;
    }
  }
  return install_file_copy(dir_fd, name, file_fd, static_cast<std::uint64_t>(from.st.st_size), bits,
                           replaced.has_value(), kept ? &*kept : nullptr);
}

Result<std::string> head_text(int file_fd, const struct stat& st) {
  if (static_cast<std::uint64_t>(st.st_size) > kMaxHeadBytes)
    return std::string(kMaxHeadBytes + 1, 'x');
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  auto got = sys::pread_full(file_fd, reinterpret_cast<std::uint8_t*>(text.data()), text.size(), 0);
  if (!got) return got.error();
  text.resize(got.value());
  return text;
}

// The entry's turn (FileTurns), as write() takes it: no other change of it lands meanwhile.
Result<Turn> take_turn(int dir_fd, const std::string& name) {
  auto id = file_id(dir_fd);
  if (!id) return id.error();
  return FileTurns::shared().take(EntryKey{id.value(), name});
}

}  // namespace

Result<std::optional<UniqueFd>> Sandbox::open_landing_dir(const Target& t, Change change,
                                                          bool directory, bool dry_run) const {
  if (!dry_run) {
    auto dir = open_parent_for_change(t, change == Change::write, change, directory);
    if (!dir) return dir.error();
    return std::optional<UniqueFd>(std::move(dir.value()));
  }
  auto dir = open_parent(t);
  // Not made yet: the lexical rules have judged it; its directories are judged as they are made.
  if (!dir && dir.error().code == Errc::not_found) return std::optional<UniqueFd>();
  if (!dir) return dir.error();
  if (auto st = check_enclosing_source_allows(dir.value().get(), *t.at.mount, change); !st)
    return st.error();
  if (auto st = check_trusted_at(dir.value().get(), t, t.path.parts.back(), directory); !st)
    return st.error();
  return std::optional<UniqueFd>(std::move(dir.value()));
}

Result<Landed> Sandbox::land_file(std::string_view text, const LayerEntry& from,
                                  const LandRules& rules) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = require_mount(t); !st) return st.error();
  auto file = sys::open_at(from.dir_fd, from.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (!file) return file.error();
  const int file_fd = file.value().get();
  // A file the command only touched or rewrote the same is no change, wherever it is: judged
  // before the rules, so that it is not reported refused where nothing would change.
  if (auto parent = open_parent(t);
      parent && host_file_matches(parent.value().get(), t.path.parts.back(), file_fd, from.st)) {
    return Landed::unchanged;
  }
  if (auto st = check_write_rules(t, static_cast<std::uint64_t>(from.st.st_size)); !st)
    return st.error();
  auto opened = open_landing_dir(t, Change::write, false, rules.dry_run);
  if (!opened) return opened.error();
  if (!opened.value()) return Landed::landed;
  const int dir = opened.value()->get();
  const std::string& name = t.path.parts.back();
  auto turn = take_turn(dir, name);
  if (!turn) return turn.error();
  if (host_file_matches(dir, name, file_fd, from.st)) return Landed::unchanged;  // in its turn
  const auto layout = layout_turn(name);
  std::string head;
  if (is_head(name)) {
    auto read = head_text(file_fd, from.st);
    if (!read) return read.error();
    head = std::move(read.value());
  }
  if (auto st = check_layout_change(dir, name, git::LayoutChange::file(head)); !st)
    return st.error();
  auto replaced = host_entry(dir, name, rules);
  if (!replaced) return replaced.error();
  if (replaced.value() && S_ISDIR(replaced.value()->type)) return Errc::is_directory;
  if (rules.dry_run) return Landed::landed;
  Status placed = rename_into_place(dir, name, from, file_fd, replaced.value());
  if (!placed && placed.error().sys_errno == EXDEV) {
    placed = copy_into_place(dir, name, from, file_fd, replaced.value());
    // Landed: a later apply() of the same layer must not find it waiting still.
    if (placed) ::unlinkat(from.dir_fd, from.name.c_str(), 0);
  }
  if (!placed && placed.error().sys_errno == EEXIST) return Errc::conflict;  // made meanwhile
  if (!placed) return placed.error();
  return Landed::landed;
}

Result<Landed> Sandbox::land_symlink(std::string_view text, const LayerEntry& from,
                                     const LandRules& rules) const {
  auto link = sys::read_link(from.dir_fd, from.name.c_str());
  if (!link) return link.error();
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = require_mount(t); !st) return st.error();
  if (auto st = check_write_rules(t, 0); !st) return st.error();
  auto opened = open_landing_dir(t, Change::write, false, rules.dry_run);
  if (!opened) return opened.error();
  if (!opened.value()) return Landed::landed;
  const int dir = opened.value()->get();
  const std::string& name = t.path.parts.back();
  auto turn = take_turn(dir, name);
  if (!turn) return turn.error();
  auto now = sys::read_link(dir, name.c_str());
  if (now && now.value() == link.value()) return Landed::unchanged;
  const auto layout = layout_turn(name);
  if (auto st = check_layout_change(dir, name, git::LayoutChange::unknown(false)); !st)
    return st.error();
  auto replaced = host_entry(dir, name, rules);
  if (!replaced) return replaced.error();
  if (rules.dry_run) return Landed::landed;
  if (auto st = install_symlink(dir, name, link.value(), true); !st) return st.error();
  ::unlinkat(from.dir_fd, from.name.c_str(), 0);
  return Landed::landed;
}

Result<Landed> Sandbox::land_directory(std::string_view text, mode_t mode,
                                       const LandRules& rules) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (t.path.is_root() || table_.holds_mount_point(t.path)) return Landed::unchanged;
  if (auto st = require_mount(t); !st) return st.error();
  if (open(t, kPathFlags | O_DIRECTORY)) return Landed::unchanged;
  if (auto st = check_entry_changeable(t, true); !st) return st.error();
  if (t.at.mount->approval.write == Approval::blocked) return Errc::write_blocked;
  if (rules.dry_run) {
    auto opened = open_landing_dir(t, Change::write, true, true);
    if (!opened) return opened.error();
    if (opened.value()) {
      const auto layout = layout_turn(t.path.parts.back());
      if (auto st =
              check_layout_change(opened.value()->get(), t.path.parts.back(), kDirectoryPlaced);
          !st) {
        return st.error();
      }
    }
    return Landed::landed;
  }
  if (auto st = make_directory(text); !st) return st.error();
  // The command's permission bits (a private directory stays private), never set-id or sticky.
  auto made = open(t, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (made && ::fchmod(made.value().get(), mode & 0777) != 0)
    return from_errno(SysOp::fchmod, errno);
  return Landed::landed;
}

Result<Landed> Sandbox::land_removal(std::string_view text, const LandRules& rules) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = check_delete_rules(t); !st) return st.error();
  auto opened = open_landing_dir(t, Change::remove, false, rules.dry_run);
  if (!opened && opened.error().code == Errc::not_found) return Landed::unchanged;
  if (!opened) return opened.error();
  if (!opened.value()) return Landed::unchanged;
  const int dir = opened.value()->get();
  const std::string& name = t.path.parts.back();
  auto turn = take_turn(dir, name);
  if (!turn) return turn.error();
  const auto layout = layout_turn(name);
  if (auto st = check_layout_change(dir, name, git::LayoutChange::removal()); !st)
    return st.error();
  auto found = host_entry(dir, name, rules);
  if (!found) return found.error();
  if (!found.value()) return Landed::unchanged;  // gone already
  if (rules.dry_run) return Landed::landed;
  if (S_ISDIR(found.value()->type)) {
    if (::unlinkat(dir, name.c_str(), AT_REMOVEDIR) != 0) return from_errno(SysOp::unlinkat, errno);
    return Landed::landed;
  }
  if (auto st = remove_entry(dir, name); !st) return st.error();
  return Landed::landed;
}

}  // namespace msb
