// Moves and copies: both ends located and checked (Error::index 0 = from, 1 = to), the source
// opened and sized before the destination's rules are judged, then a rename (an unlink when the
// destination is another link of the same file) or, across filesystems, a copy of exactly what
// was checked.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "common/sys.h"
#include "fs/sandbox.h"

namespace msb {

namespace {

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
    // The file keeps its own mode, owner, ACL and attributes, as a rename would: where the
    // destination cannot hold them, the move is refused (the destination's error) and the file
    // stays where it was.
    auto meta = read_metadata(file.value().fd.get());
    if (!meta) return at_index(meta.error(), 0);
    placed = install_file(to_dir, to, bytes.value().data.get(), bytes.value().size,
                          static_cast<std::uint32_t>(st.st_mode & 0777), overwrite, &meta.value());
  }
  if (!placed) return at_index(placed.error(), 1);
  if (auto gone = sys::unlink_at(from_dir, from.c_str()); !gone) return at_index(gone.error(), 0);
  return ok_status();
}

}  // namespace

Result<Sandbox::TransferEnds> Sandbox::locate_transfer(std::string_view from_text,
                                                       std::string_view to_text,
                                                       Transfer kind) const {
  auto from = locate(from_text);
  if (!from) return at_index(from.error(), 0);
  auto to = locate(to_text);
  if (!to) return at_index(to.error(), 1);
  // A move takes the name away from the source, so it needs delete rights there; a copy needs
  // only a file under a mount, whose read rules are judged once its size is known.
  const Status source =
      kind == Transfer::move ? check_delete_rules(from.value()) : require_mount(from.value());
  if (!source) return at_index(source.error(), 0);
  // The destination's rules need the source's size, so only its place is judged here; nothing
  // is created for it until its rules have passed.
  if (auto st = check_entry_changeable(to.value()); !st) return at_index(st.error(), 1);
  return TransferEnds{std::move(from.value()), std::move(to.value())};
}

Status Sandbox::move(std::string_view from_text, std::string_view to_text, bool overwrite) const {
  auto ends = locate_transfer(from_text, to_text, Transfer::move);
  if (!ends) return ends.error();
  const Target& f = ends.value().from;
  const Target& t = ends.value().to;
  const std::string& from_name = f.path.parts.back();
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
  // The source's side first, before a destination's parents are made; again below, under the
  // layout's turn (taken once the parents exist: making them takes it too).
  const auto taken = git::LayoutChange::removal();
  if (auto ok = check_layout_change(from_dir.value().get(), from_name, taken); !ok) {
    return at_index(ok.error(), 0);
  }
  auto to_dir = open_parent_for_change(t, true);
  if (!to_dir) return at_index(to_dir.error(), 1);
  const std::string& to_name = t.path.parts.back();
  const auto layout = layout_turn(from_name, to_name);
  if (auto ok = check_layout_change(from_dir.value().get(), from_name, taken); !ok) {
    return at_index(ok.error(), 0);
  }
  // What a moved HEAD says is not read: counted as whatever would be refused.
  const auto placed = git::LayoutChange::unknown(S_ISDIR(st.st_mode));
  if (auto ok = check_layout_change(to_dir.value().get(), to_name, placed); !ok) {
    return at_index(ok.error(), 1);
  }
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
  auto ends = locate_transfer(from_text, to_text, Transfer::copy);
  if (!ends) return ends.error();
  const Target& f = ends.value().from;
  const Target& t = ends.value().to;
  auto file = open_file_for_reading(f);
  if (!file) return at_index(file.error(), 0);
  const std::uint64_t size = file.value().size;
  if (auto st = check_read_rules(f, size); !st) return at_index(st.error(), 0);
  if (auto st = check_write_rules(t, size); !st) return at_index(st.error(), 1);
  // Bounded by what was checked: a file that grew since fails rather than slipping past.
  auto bytes = read_regular_file(file.value().fd.get(), std::min(size, read_limit(f)));
  if (!bytes) return at_index(bytes.error(), 0);
  auto dir = open_parent_for_change(t, true);
  if (!dir) return at_index(dir.error(), 1);
  const auto layout = layout_turn(t.path.parts.back());
  const auto copied = git::LayoutChange::file(std::string_view(
      reinterpret_cast<const char*>(bytes.value().data.get()), bytes.value().size));
  if (auto st = check_layout_change(dir.value().get(), t.path.parts.back(), copied); !st) {
    return at_index(st.error(), 1);
  }
  auto placed = install_file(dir.value().get(), t.path.parts.back(), bytes.value().data.get(),
                             bytes.value().size, file.value().mode, overwrite);
  if (!placed) return at_index(placed.error(), 1);
  return ok_status();
}

}  // namespace msb
