#include "fs/sandbox.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "fs/source_pins.h"

namespace msb {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY;
constexpr int kPathFlags = O_PATH;
constexpr int kMaxParentWalk = 4096;

}  // namespace

Sandbox::Sandbox(MountTable table, const Sandbox* parent, std::uint64_t max_read_bytes,
                 ResolverKind resolver, std::uint32_t max_depth)
    : table_(std::move(table)),
      max_read_bytes_(max_read_bytes),
      resolver_(resolver),
      depth_(parent ? parent->depth_ + 1 : 0),
      max_depth_(max_depth),
      settled_(parent != nullptr) {}

void Sandbox::pin_sources_once(bool create_missing) const {
  if (sources_settled()) return;
  std::lock_guard<std::mutex> lock(pin_mutex_);
  if (sources_settled()) return;
  std::vector<SourceToPin> sources;
  for (const Mount& m : table_.mounts()) {
    const bool writable = !m.readonly && m.approval.write != Approval::blocked;
    sources.push_back(SourceToPin{m.anchor.get(), writable});
  }
  pin_sources(sources, create_missing);
  settled_.store(true, std::memory_order_release);
}

Result<std::shared_ptr<Sandbox>> Sandbox::create(const SandboxOptions& options) {
  auto table = MountTable::create(options.root, options.mounts);
  if (!table) return table.error();
  return std::shared_ptr<Sandbox>(new Sandbox(std::move(table.value()), nullptr,
                                              options.max_read_bytes, options.resolver,
                                              options.max_depth));
}

Result<std::shared_ptr<Sandbox>> Sandbox::derived(Result<MountTable> table) const {
  if (!table) return table.error();
  if (depth_ + 1 > max_depth_) {
    Error e{Errc::depth_exceeded};
    e.size = depth_ + 1;
    e.limit = max_depth_;
    return e;
  }
  return std::shared_ptr<Sandbox>(
      new Sandbox(std::move(table.value()), this, max_read_bytes_, resolver_, max_depth_));
}

Result<std::shared_ptr<Sandbox>> Sandbox::restrict(std::string_view sub,
                                                   std::optional<bool> readonly) const {
  Narrowing narrowing;
  narrowing.readonly = readonly;
  return restrict(sub, narrowing);
}

Result<std::shared_ptr<Sandbox>> Sandbox::restrict(std::string_view sub,
                                                   const Narrowing& narrowing) const {
  auto path = parse_virtual_path(sub);
  if (!path) return path.error();
  pin_sources_once();
  const ResolverKind kind = resolver_;
  auto subtree = [kind](const std::shared_ptr<Anchor>& parent, std::vector<std::string> parts) {
    return Anchor::beneath(parent, std::move(parts), kind);
  };
  return derived(table_.restrict(path.value(), narrowing, subtree));
}

Result<std::shared_ptr<Sandbox>> Sandbox::select_zones(
    const std::vector<ZoneSelection>& zones) const {
  pin_sources_once();
  return derived(table_.select_zones(zones));
}

Result<Approval> Sandbox::approval_for(std::string_view text, Change change) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Mount* mount = target.value().at.mount;
  if (mount == nullptr) return Approval::blocked;  // nothing can be written outside the mounts
  return change == Change::write ? mount->approval.write : mount->approval.remove;
}

Result<Sandbox::Target> Sandbox::locate(std::string_view text) const {
  auto path = parse_virtual_path(text);
  if (!path) return path.error();
  Target target{std::move(path.value()), {}};
  target.at = table_.locate(target.path);
  return target;
}

Status Sandbox::require_mount(const Target& t) const {
  if (t.at.mount != nullptr) return ok_status();
  return table_.holds_mount_point(t.path) ? Errc::is_directory : Errc::outside_sandbox;
}

Result<std::string> Sandbox::host_path(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (t.at.mount == nullptr) return Errc::outside_sandbox;  // virtual directories have no host path
  std::string out = t.at.mount->anchor->host_path();
  for (std::size_t i = t.at.rest_begin; i < t.path.parts.size(); ++i) {
    if (out.empty() || out.back() != '/') out += '/';
    out += t.path.parts[i];
  }
  return out;
}

Status Sandbox::check_writable(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  return check_write_rules(target.value(), 0);
}

Status Sandbox::check_deletable(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  return check_delete_rules(target.value());
}

Status Sandbox::writable(const Target& t) const {
  if (t.at.mount == nullptr) {
    if (t.path.is_root()) return Errc::is_directory;
    return table_.holds_mount_point(t.path) ? Errc::mount_point : Errc::outside_sandbox;
  }
  if (t.at.mount->readonly) return Errc::read_only;
  if (t.path.is_root()) return Errc::is_directory;
  if (table_.holds_mount_point(t.path)) return Errc::mount_point;
  return ok_status();
}

Status Sandbox::check_read_rules(const Target& t, std::uint64_t size) const {
  if (auto st = require_mount(t); !st) return st;
  const FilePolicy& policy = t.at.mount->policy;
  if (!t.path.is_root() && !suffix_allowed(policy, t.path.parts.back())) {
    return Errc::suffix_not_allowed;
  }
  if (policy.max_file_bytes && size > *policy.max_file_bytes) {
    Error e{Errc::too_large};
    e.size = size;
    e.limit = *policy.max_file_bytes;
    return e;
  }
  return ok_status();
}

Status Sandbox::check_write_rules(const Target& t, std::uint64_t size) const {
  if (auto st = writable(t); !st) return st;
  if (t.at.mount->approval.write == Approval::blocked) return Errc::write_blocked;
  return check_read_rules(t, size);
}

Status Sandbox::check_delete_rules(const Target& t) const {
  if (auto st = writable(t); !st) return st;
  if (t.at.mount->approval.remove == Approval::blocked) return Errc::delete_blocked;
  // A file the policy keeps a worker from reading or writing is not its to delete either.
  if (!suffix_allowed(t.at.mount->policy, t.path.parts.back())) return Errc::suffix_not_allowed;
  return ok_status();
}

std::uint64_t Sandbox::read_limit(const Target& t) const {
  const FilePolicy& policy = t.at.mount->policy;
  return policy.max_file_bytes ? std::min(max_read_bytes_, *policy.max_file_bytes)
                               : max_read_bytes_;
}

Result<UniqueFd> Sandbox::open(const Target& t, int flags) const {
  if (t.at.mount == nullptr) {
    // A virtual directory has no descriptor; callers treat not_found there like a directory.
    return table_.holds_mount_point(t.path) ? Errc::not_found : Errc::outside_sandbox;
  }
  pin_sources_once();
  auto base = t.at.mount->anchor->fd();
  if (!base) return base.error();
  return open_beneath(base.value(), t.path.parts, t.at.rest_begin, t.path.parts.size(),
                      OpenRequest{flags, 0, true}, resolver_);
}

std::optional<Result<UniqueFd>> Sandbox::open_now(const Target& t, int flags) const {
  if (resolver_ == ResolverKind::walk || t.at.mount == nullptr) return std::nullopt;
  if (!sources_settled()) return std::nullopt;  // settling opens host paths, which may block
  const int base = t.at.mount->anchor->pinned_fd();
  if (base < 0) return std::nullopt;  // a refused source: the blocking path says why
  return open_beneath_cached(base, t.path.parts, t.at.rest_begin, t.path.parts.size(), flags);
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

Result<Bytes> Sandbox::read(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (t.at.mount != nullptr) {
    if (auto st = check_read_rules(t, 0); !st) return st.error();
  }
  auto fd = open(t, kPathFlags);
  if (!fd) {
    if (fd.error().code == Errc::not_found && table_.holds_mount_point(target.value().path)) {
      return Errc::is_directory;
    }
    return fd.error();
  }
  auto file = open_regular_file(fd.value().get());
  if (!file) return file.error();
  return read_regular_file(file.value().fd.get(), read_limit(t));
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
      return synthetic;
    }
    return fd.error();
  }
  return stat_fd(fd.value().get());
}

Result<std::vector<std::string>> Sandbox::list(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  std::vector<std::string> names = table_.mount_entries_in(t.path);
  auto fd = open(t, kDirFlags);
  if (fd) {
    auto entries = read_dir_names(fd.value().get());
    if (!entries) return entries.error();
    names.insert(names.end(), entries.value().begin(), entries.value().end());
  } else {
    const Errc code = fd.error().code;
    const bool virtual_dir =
        !names.empty() && (code == Errc::not_found || code == Errc::not_directory);
    if (!virtual_dir) return fd.error();
  }
  std::size_t total = 0;
  for (const std::string& name : names) total += name.size() + 1;
  if (total > kMaxListBytes) {
    Error e{Errc::too_large};
    e.size = total;
    e.limit = kMaxListBytes;
    return e;
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Status Sandbox::write(std::string_view text, const std::uint8_t* data, std::size_t size) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = check_write_rules(t, size); !st) return st;
  auto dir = open_parent_for_change(t, true);
  if (!dir) return dir.error();
  return replace_file(dir.value().get(), t.path.parts.back(), data, size);
}

Status Sandbox::remove(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  const Target& t = target.value();
  if (auto st = check_delete_rules(t); !st) return st;
  auto dir = open_parent_for_change(t, false, Change::remove);
  if (!dir) return dir.error();
  return remove_entry(dir.value().get(), t.path.parts.back());
}

Result<UniqueFd> Sandbox::open_parent_for_change(const Target& t, bool create_missing,
                                                 Change change) const {
  const Mount& mount = *t.at.mount;
  pin_sources_once();
  auto base = mount.anchor->fd();
  if (!base) return base.error();
  const std::size_t end = t.path.parts.size() - 1;
  const OpenRequest dir_request{kPathFlags | O_DIRECTORY, 0, true};
  auto dir = open_beneath(base.value(), t.path.parts, t.at.rest_begin, end, dir_request, resolver_);
  if (!dir && dir.error().code == Errc::not_found && create_missing) {
    dir = make_parents(mount, base.value(), t.path.parts, t.at.rest_begin, end);
  }
  if (!dir) return dir.error();
  if (auto st = check_nearest_mount_writable(dir.value().get(), mount, change); !st) {
    return st.error();
  }
  return dir;
}

Result<UniqueFd> Sandbox::make_parents(const Mount& mount, int base,
                                       const std::vector<std::string>& parts, std::size_t begin,
                                       std::size_t end) const {
  const OpenRequest dir_request{kPathFlags | O_DIRECTORY, 0, true};
  // Each prefix is resolved from the mount's own descriptor, so symlinks get exactly the
  // treatment they get on the normal path; every directory we create in is checked first.
  Result<UniqueFd> dir = Errc::not_found;
  for (std::size_t i = begin; i < end; ++i) {
    auto next = open_beneath(base, parts, begin, i + 1, dir_request, resolver_);
    if (!next && next.error().code == Errc::not_found) {
      auto parent = open_beneath(base, parts, begin, i, dir_request, resolver_);
      if (!parent) return parent.error();
      if (auto st = check_nearest_mount_writable(parent.value().get(), mount, Change::write); !st) {
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

Status Sandbox::check_nearest_mount_writable(int dir_fd, const Mount& mount, Change change) const {
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
    UniqueFd parent(::openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent.valid()) return Error{errc_from_errno(errno), errno};
    auto parent_id = file_id(parent.get());
    if (!parent_id) return parent_id.error();
    // Reached "/" without meeting any source: the directory was moved out from under its
    // mount by someone else. Refuse rather than guess.
    if (parent_id.value() == id.value()) return Errc::read_only;
    current = std::move(parent);
    cur = current.get();
    id = parent_id;
  }
  return Errc::io_error;
}

Status Sandbox::create_sources() const {
  pin_sources_once(true);
  const std::vector<Mount>& mounts = table_.mounts();
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    auto fd = mounts[i].anchor->fd();
    if (!fd) {
      Error e = fd.error();
      e.index = i;
      return e;
    }
  }
  return ok_status();
}

namespace {

PathAccess exec_access(const Mount& mount) {
  if (mount.readonly || mount.approval.write == Approval::blocked) return PathAccess::read;
  if (mount.approval.remove == Approval::blocked) return PathAccess::write_keep;
  return PathAccess::write;
}

}  // namespace

Result<std::vector<ExecPath>> Sandbox::exec_paths() const {
  pin_sources_once();
  std::vector<ExecPath> out;
  const std::vector<Mount>& mounts = table_.mounts();
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    const PathAccess access = exec_access(mounts[i]);
    auto fd = mounts[i].anchor->fd();
    // A writable source that does not exist yet grants nothing. A read-only one must exist: a
    // command could otherwise create it, inside a writable source, and write there.
    if (!fd && fd.error().code == Errc::not_found && access != PathAccess::read) continue;
    if (!fd) {
      Error e = fd.error();
      e.index = i;
      return e;
    }
    out.push_back({mounts[i].anchor->host_path(),
                   access,
                   mounts[i].anchor->id(),
                   mounts[i].target.str(),
                   {}});
  }
  const std::vector<Mount>& hidden = table_.hidden();
  for (std::size_t i = 0; i < hidden.size(); ++i) {
    auto fd = hidden[i].anchor->fd();
    if (!fd) {
      Error e = fd.error();
      e.index = mounts.size() + i;
      return e;
    }
    out.push_back(
        {hidden[i].anchor->host_path(), PathAccess::protect, hidden[i].anchor->id(), {}, {}});
  }
  return out;
}

}  // namespace msb
