// The changing side of the file tools: write, edit, remove and mkdir -p. Every change opens the
// directory that will hold the entry beneath its mount, creating missing parents one checked
// step at a time, and asks the directory's nearest enclosing source whether it may change there.
#include <fcntl.h>
#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/sys.h"
#include "fs/file_turns.h"
#include "fs/file_version.h"
#include "fs/sandbox.h"
#include "fs/sandbox_internal.h"

namespace msb {

using sandbox_internal::kDirectoryPlaced;
using sandbox_internal::kPathFlags;

namespace {

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

// Prepares a change and runs it, blocking the calling thread for its turn (callers without an
// event loop); prepared again for where the path leads now when its directory was replaced while
// it waited (PendingChange::moved).
template <typename Prepare>
Status run_in_turn(const Prepare& prepare) {
  for (int attempt = 1;; ++attempt) {
    auto change = prepare();
    if (!change) return change.error();
    std::optional<Turn> turn;
    if (change.value()->key()) turn.emplace(FileTurns::shared().take(*change.value()->key()));
    Status st = change.value()->run();
    if (!change.value()->moved() || attempt == kPrepareAttempts) return st;
  }
}

// What a change saw of its target before it made the new contents, to be found the same just
// before the replacement takes the name (check_unchanged).
struct Observed {
  std::optional<FileVersion> entry;  // the name itself, not followed (std::nullopt: nothing)
  FileVersion file;                  // the file the path led to, as it was read or checked
  int file_fd = -1;                  // still open on that file
};

Status check_unchanged(int dir_fd, const std::string& name, const Observed& seen) {
  auto entry = version_of_entry(dir_fd, name);
  if (!entry) return entry.error();
  if (entry.value() != seen.entry) return Errc::conflict;  // replaced, changed or removed
  auto file = version_of_fd(seen.file_fd);
  if (!file) return file.error();
  if (file.value() != seen.file) return Errc::conflict;  // changed in place (through a link too)
  // A regular file at the name must be the one that was read, not one put there between the
  // look at the name and the open.
  if (seen.entry && S_ISREG(seen.entry->type) &&
      (seen.entry->dev != seen.file.dev || seen.entry->ino != seen.file.ino)) {
    return Errc::conflict;
  }
  return ok_status();
}

// A caller's version that names nothing any more is out of date, not a missing file.
Error stale_if_gone(Error e, std::string_view if_version) {
  if (!if_version.empty() && e.code == Errc::not_found) return Error{Errc::conflict};
  return e;
}

}  // namespace

// A change of the entry `name` in the directory it was prepared with (`dir_`, which its turn is
// keyed by), reached by the path `target_`.
class ChangeInDir : public PendingChange {
 protected:
  ChangeInDir(const Sandbox& sandbox, Sandbox::Target target, UniqueFd dir)
      : sandbox_(sandbox), target_(std::move(target)), dir_(std::move(dir)) {}

  // Whether the path still leads to dir_. Not when someone replaced the directory (renamed it
  // away and made a new one, the file moved into it) while the change waited for its turn: the
  // change would then land in, or judge the name in, a directory the path no longer reaches, and
  // hold the turn of an entry that is not the one it changes. Then moved_ (conflict): it is
  // prepared again for where the path leads now.
  Status still_here() {
    auto now = sandbox_.open_parent(target_);
    auto id = now ? file_id(now.value().get()) : Result<FileId>(now.error());
    if (id && key_ && id.value() == key_->dir) return ok_status();
    moved_ = true;
    return Errc::conflict;
  }

  const Sandbox& sandbox_;
  Sandbox::Target target_;
  UniqueFd dir_;
};

class WriteChange final : public ChangeInDir {
 public:
  WriteChange(const Sandbox& sandbox, Sandbox::Target target, UniqueFd dir, EntryKey key,
              const std::uint8_t* data, std::size_t size, std::string_view if_version)
      : ChangeInDir(sandbox, std::move(target), std::move(dir)),
        data_(data),
        size_(size),
        if_version_(if_version) {
    key_ = std::move(key);
  }

  Status run() override {
    const std::string& name = target_.path.parts.back();
    if (auto st = still_here(); !st) return st;
    const auto layout = Sandbox::layout_turn(name);
    const auto placed =
        git::LayoutChange::file(std::string_view(reinterpret_cast<const char*>(data_), size_));
    if (auto st = sandbox_.check_layout_change(dir_.get(), name, placed); !st) return st;
    if (if_version_.empty()) return replace_file(dir_.get(), name, data_, size_);
    // The caller's version is of what stat() shows: the file the path leads to.
    auto entry = version_of_entry(dir_.get(), name);
    if (!entry) return entry.error();
    auto file = sandbox_.open(target_, kPathFlags);
    if (!file) return stale_if_gone(file.error(), if_version_);
    auto current = version_of_fd(file.value().get());
    if (!current) return current.error();
    if (version_token(current.value()) != if_version_) return Errc::conflict;
    const Observed seen{entry.value(), current.value(), file.value().get()};
    return replace_file(dir_.get(), name, data_, size_, [&]() -> Status {
      if (auto st = check_unchanged(dir_.get(), name, seen); !st) return st;
      return still_here();
    });
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::string_view if_version_;
};

class EditChange final : public ChangeInDir {
 public:
  // `dir` invalid: the directory could not be opened, so reading the file fails the same way.
  EditChange(const Sandbox& sandbox, Sandbox::Target target, UniqueFd dir,
             std::optional<EntryKey> key, std::string_view old_text, std::string_view new_text,
             std::string_view if_version)
      : ChangeInDir(sandbox, std::move(target), std::move(dir)),
        old_text_(old_text),
        new_text_(new_text),
        if_version_(if_version) {
    key_ = std::move(key);
  }

  Status run() override {
    if (!dir_.valid()) {
      auto file = sandbox_.open_file_for_reading(target_);
      if (!file) return stale_if_gone(file.error(), if_version_);
      moved_ = true;  // its directory appeared since it was looked for: prepared again
      return Errc::conflict;
    }
    for (int attempt = 1;; ++attempt) {
      Status st = attempt_once();
      if (st || st.error().code != Errc::conflict || moved_) return st;
      // Someone else changed the file between the read and the replacement: read it again,
      // unless the caller's version said which contents it meant.
      if (!if_version_.empty() || attempt == kEditAttempts) return st;
    }
  }

 private:
  Status attempt_once() {
    const Sandbox::Target& t = target_;
    const std::string& name = t.path.parts.back();
    // The file is read through the path, the new one made in dir_: they must be one directory.
    if (auto st = still_here(); !st) return st;
    auto entry = version_of_entry(dir_.get(), name);
    if (!entry) return entry.error();
    auto file = sandbox_.open_file_for_reading(t);
    if (!file) return stale_if_gone(file.error(), if_version_);
    if (auto st = sandbox_.check_read_rules(t, file.value().size); !st) return st.error();
    const int fd = file.value().fd.get();
    auto before = version_of_fd(fd);
    if (!before) return before.error();
    if (!if_version_.empty() && version_token(before.value()) != if_version_) {
      return Errc::conflict;
    }
    auto bytes = read_regular_file(fd, sandbox_.read_limit(t));
    if (!bytes) return bytes.error();
    // Changed while it was read: the text may be half old, half new. Judge no match on it never.
    auto after = version_of_fd(fd);
    if (!after) return after.error();
    if (after.value() != before.value()) return Errc::conflict;
    const std::string_view content = as_text(bytes.value());
    const Occurrences found = find_occurrences(content, old_text_);
    if (found.count == 0) return Errc::no_match;
    if (found.count > 1) {
      Error e{Errc::ambiguous_match};
      e.size = found.count;
      return e;
    }
    const std::string updated = splice(content, found.first, old_text_.size(), new_text_);
    if (auto st = sandbox_.check_write_rules(t, updated.size()); !st) return st;
    if (auto st = sandbox_.check_enclosing_source_allows(dir_.get(), *t.at.mount, Change::write);
        !st) {
      return st;
    }
    if (auto st = sandbox_.check_trusted_at(dir_.get(), t, name, false); !st) return st;
    const auto layout = Sandbox::layout_turn(name);
    if (auto st = sandbox_.check_layout_change(dir_.get(), name, git::LayoutChange::file(updated));
        !st) {
      return st;
    }
    const Observed seen{entry.value(), before.value(), fd};
    return replace_file(dir_.get(), name, reinterpret_cast<const std::uint8_t*>(updated.data()),
                        updated.size(), [&]() -> Status {
                          if (auto st = check_unchanged(dir_.get(), name, seen); !st) return st;
                          return still_here();
                        });
  }

  std::string_view old_text_;
  std::string_view new_text_;
  std::string_view if_version_;
};

Result<std::unique_ptr<PendingChange>> Sandbox::prepare_write(std::string_view text,
                                                              const std::uint8_t* data,
                                                              std::size_t size,
                                                              std::string_view if_version) const {
  auto target = locate(text);
  if (!target) return target.error();
  Target& t = target.value();
  if (auto st = check_write_rules(t, size); !st) return st.error();
  auto dir = open_parent_for_change(t, true);
  if (!dir) return dir.error();
  auto dir_id = file_id(dir.value().get());
  if (!dir_id) return dir_id.error();
  EntryKey key{dir_id.value(), t.path.parts.back()};
  return std::unique_ptr<PendingChange>(std::make_unique<WriteChange>(
      *this, std::move(t), std::move(dir.value()), std::move(key), data, size, if_version));
}

Result<std::unique_ptr<PendingChange>> Sandbox::prepare_edit(std::string_view text,
                                                             std::string_view old_text,
                                                             std::string_view new_text,
                                                             std::string_view if_version) const {
  if (old_text.empty()) return Errc::no_match;  // "" occurs everywhere: never what was meant
  auto target = locate(text);
  if (!target) return target.error();
  Target& t = target.value();
  if (auto st = require_mount(t); !st) return st.error();
  // Nothing of a file the host trusts is read for a change it could never take.
  if (!t.at.mount->readonly) {
    if (auto st = check_trusted(t, false); !st) return st.error();
  }
  // Refusals keep the order they had before edits took turns: whatever reading the file meets
  // first (a missing directory, a directory, a symlink out), then the match, then the write
  // rules. So the directory is only looked up here, and checked for writing after the match.
  UniqueFd dir;
  std::optional<EntryKey> key;
  if (t.at.rest_begin < t.path.parts.size()) {  // not "/" or a mount's own target: a directory
    if (auto opened = open_parent(t)) {
      auto dir_id = file_id(opened.value().get());
      if (!dir_id) return dir_id.error();
      key = EntryKey{dir_id.value(), t.path.parts.back()};
      dir = std::move(opened.value());
    }
  }
  return std::unique_ptr<PendingChange>(std::make_unique<EditChange>(
      *this, std::move(t), std::move(dir), std::move(key), old_text, new_text, if_version));
}

Status Sandbox::write(std::string_view text, const std::uint8_t* data, std::size_t size,
                      std::string_view if_version) const {
  return run_in_turn([&] { return prepare_write(text, data, size, if_version); });
}

Status Sandbox::remove(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = check_delete_rules(t); !st) return st;
  auto dir = open_parent_for_change(t, false, Change::remove);
  if (!dir) return dir.error();
  const auto layout = layout_turn(t.path.parts.back());
  const auto removed = git::LayoutChange::removal();
  if (auto st = check_layout_change(dir.value().get(), t.path.parts.back(), removed); !st) {
    return st;
  }
  return remove_entry(dir.value().get(), t.path.parts.back());
}

Status Sandbox::edit(std::string_view text, std::string_view old_text, std::string_view new_text,
                     std::string_view if_version) const {
  return run_in_turn([&] { return prepare_edit(text, old_text, new_text, if_version); });
}

Status Sandbox::make_directory(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  // The root and directories the mount table provides exist whatever the disk holds.
  if (t.path.is_root() || table_.holds_mount_point(t.path)) return ok_status();
  if (auto st = require_mount(t); !st) return st;
  auto existing = open(t, kPathFlags | O_DIRECTORY);
  if (existing) return ok_status();
  const Errc code = existing.error().code;
  if (code != Errc::not_found && code != Errc::not_directory) return existing.error();
  // Creating a directory is a write: the same refusals as for a file, minus the file rules.
  if (auto st = check_entry_changeable(t, true); !st) return st;
  if (t.at.mount->approval.write == Approval::blocked) return Errc::write_blocked;
  auto dir = open_parent_for_change(t, true, Change::write, true);
  if (!dir) return dir.error();
  const std::string& name = t.path.parts.back();
  const auto layout = layout_turn(name);
  if (auto st = check_layout_change(dir.value().get(), name, kDirectoryPlaced); !st) return st;
  if (auto st = make_dir(dir.value().get(), name); !st) return st;
  auto made = sys::stat_at(dir.value().get(), name.c_str());
  if (!made) return made.error();
  if (!S_ISDIR(made.value().st_mode)) return Errc::already_exists;
  return ok_status();
}

Result<UniqueFd> Sandbox::open_parent_for_change(const Target& t, bool create_missing,
                                                 Change change, bool directory) const {
  const Mount& mount = *t.at.mount;
  pin_sources_once();
  auto base = mount.anchor->fd();
  if (!base) return base.error();
  const std::size_t end = t.path.parts.size() - 1;
  const OpenRequest dir_request{kPathFlags | O_DIRECTORY, 0, true};
  auto dir = open_beneath(base.value(), t.path.parts, t.at.rest_begin, end, dir_request, resolver_);
  if (!dir && dir.error().code == Errc::not_found && create_missing) {
    dir = make_parents(t, base.value(), end);
  }
  if (!dir) return dir.error();
  if (auto st = check_enclosing_source_allows(dir.value().get(), mount, change); !st) {
    return st.error();
  }
  if (auto st = check_trusted_at(dir.value().get(), t, t.path.parts.back(), directory); !st) {
    return st.error();
  }
  return dir;
}

Result<UniqueFd> Sandbox::open_parent(const Target& t) const {
  pin_sources_once();
  auto base = t.at.mount->anchor->fd();
  if (!base) return base.error();
  const OpenRequest dir_request{kPathFlags | O_DIRECTORY, 0, true};
  return open_beneath(base.value(), t.path.parts, t.at.rest_begin, t.path.parts.size() - 1,
                      dir_request, resolver_);
}

Result<UniqueFd> Sandbox::make_parents(const Target& t, int base, std::size_t end) const {
  const Mount& mount = *t.at.mount;
  const std::vector<std::string>& parts = t.path.parts;
  const std::size_t begin = t.at.rest_begin;
  const OpenRequest dir_request{kPathFlags | O_DIRECTORY, 0, true};
  // Each prefix is resolved from the mount's own descriptor, so symlinks get exactly the
  // treatment they get on the normal path; every directory we create in is checked first.
  Result<UniqueFd> dir = Errc::not_found;
  for (std::size_t i = begin; i < end; ++i) {
    auto next = open_beneath(base, parts, begin, i + 1, dir_request, resolver_);
    if (!next && next.error().code == Errc::not_found) {
      auto parent = open_beneath(base, parts, begin, i, dir_request, resolver_);
      if (!parent) return parent.error();
      if (auto st = check_enclosing_source_allows(parent.value().get(), mount, Change::write);
          !st) {
        return st.error();
      }
      if (auto st = check_trusted_at(parent.value().get(), t, parts[i], true); !st) {
        return st.error();
      }
      const auto layout = layout_turn(parts[i]);
      if (auto st = check_layout_change(parent.value().get(), parts[i], kDirectoryPlaced); !st) {
        return st.error();
      }
      if (auto st = make_dir(parent.value().get(), parts[i]); !st) return st.error();
      next = open_beneath(base, parts, begin, i + 1, dir_request, resolver_);
    }
    if (!next) return next.error();
    dir = std::move(next);
  }
  return dir;
}

namespace {

// How far up check_enclosing_source_allows climbs before giving up: deeper than any real tree.
constexpr int kMaxParentWalk = 4096;

// What a mount's own rules say about a change in it: read-only before blocked.
Errc change_verdict(const Mount& m, Change change) {
  if (m.readonly) return Errc::read_only;
  const Approval approval = change == Change::write ? m.approval.write : m.approval.remove;
  if (approval == Approval::blocked) {
    return change == Change::write ? Errc::write_blocked : Errc::delete_blocked;
  }
  return Errc::ok;
}

struct SourceRule {
  FileId id;
  Errc verdict;
};

// The strictest verdict recorded for a directory, or nullopt when it is no source.
std::optional<Errc> verdict_for(const std::vector<SourceRule>& rules, const FileId& id) {
  std::optional<Errc> out;
  for (const SourceRule& r : rules) {
    if (!(r.id == id)) continue;
    if (!out || *out == Errc::ok || r.verdict == Errc::read_only) out = r.verdict;
  }
  return out;
}

}  // namespace

Status Sandbox::check_enclosing_source_allows(int dir_fd, const Mount& mount, Change change) const {
  if (Errc own = change_verdict(mount, change); own != Errc::ok) return own;
  std::vector<SourceRule> rules;
  bool any_restriction = false;
  auto note = [&](const Anchor& anchor, Errc verdict) {
    if (!anchor.fd()) return;  // a refused source cannot contain this directory
    rules.push_back(SourceRule{anchor.id(), verdict});
    any_restriction = any_restriction || verdict != Errc::ok;
  };
  // Permissive boundaries are configured sources only: a restricted root inside a read-only
  // source must not stop the walk before it reaches that source.
  for (const Mount& m : table_.mounts()) {
    const Errc verdict = change_verdict(m, change);
    if (verdict != Errc::ok) {
      note(*m.anchor, verdict);
    } else if (m.anchor->fd()) {
      note(m.anchor->origin(), Errc::ok);
    }
  }
  for (const Mount& hidden : table_.hidden()) {
    if (Errc verdict = change_verdict(hidden, change); verdict != Errc::ok) {
      note(*hidden.anchor, verdict);
    }
  }
  if (!any_restriction) return ok_status();

  // Walk up from the directory: the nearest enclosing mount source decides (read-only wins
  // when a directory is both), so a read-only or blocked source that also lies inside a
  // writable one keeps its rules however it was reached.
  auto id = file_id(dir_fd);
  if (!id) return id.error();
  UniqueFd current;
  int cur = dir_fd;
  for (int depth = 0; depth < kMaxParentWalk; ++depth) {
    if (auto verdict = verdict_for(rules, id.value())) {
      return *verdict == Errc::ok ? ok_status() : Status(*verdict);
    }
    auto parent = sys::open_at(cur, "..", O_PATH | O_DIRECTORY);
    if (!parent) return parent.error();
    auto parent_id = file_id(parent.value().get());
    if (!parent_id) return parent_id.error();
    // Reached "/" without meeting any source: the directory was moved out from under its
    // mount by someone else. Refuse rather than guess.
    if (parent_id.value() == id.value()) return Errc::read_only;
    current = std::move(parent.value());
    cur = current.get();
    id = parent_id;
  }
  return Errc::io_error;
}

}  // namespace msb
