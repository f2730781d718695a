// Making views, locating paths in the mount table, the rules each kind of access must pass and
// opening beneath a mount: what every operation in the other sandbox_*.cc files starts with.
#include "fs/sandbox.h"

#include <fcntl.h>

#include <algorithm>

#include "common/path.h"
#include "common/sys.h"
#include "fs/source_pins.h"

namespace msb {

Sandbox::Sandbox(MountTable table, const Sandbox* parent, std::uint64_t max_read_bytes,
                 ResolverKind resolver, std::uint32_t max_depth,
                 std::shared_ptr<const TrustedNames> trusted)
    : table_(std::move(table)),
      max_read_bytes_(max_read_bytes),
      resolver_(resolver),
      depth_(parent ? parent->depth_ + 1 : 0),
      max_depth_(max_depth),
      trusted_(std::move(trusted)),
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
  TrustedNamesSpec spec = options.trusted;
  // A program config planted at the root would be found by the next run's discovery.
  if (!options.root.source.empty()) {
    const std::string& root = options.root.source;
    for (std::string_view name : sandbox_config_names()) {
      spec.host_paths.push_back((root == "/" ? "" : root) + "/" + std::string(name));
    }
  }
  std::vector<std::string> sources;
  if (!options.root.source.empty()) {
    spec.places.push_back({"/", options.root.source});
    sources.push_back(options.root.source);
  }
  for (const MountSpec& m : options.mounts) {
    spec.places.push_back({m.target, m.source});
    sources.push_back(m.source);
  }
  auto trusted = TrustedNames::create(spec);
  if (!trusted) return trusted.error();
  // Resolving reads the disk but changes nothing and cannot fail: a missing name stays as named.
  trusted.value().resolve_host_paths(sources);
  return std::shared_ptr<Sandbox>(new Sandbox(
      std::move(table.value()), nullptr, options.max_read_bytes, options.resolver,
      options.max_depth, std::make_shared<const TrustedNames>(std::move(trusted.value()))));
}

Result<std::shared_ptr<Sandbox>> Sandbox::derived(Result<MountTable> table) const {
  if (!table) return table.error();
  if (depth_ + 1 > max_depth_) {
    Error e{Errc::depth_exceeded};
    e.size = depth_ + 1;
    e.limit = max_depth_;
    return e;
  }
  return std::shared_ptr<Sandbox>(new Sandbox(std::move(table.value()), this, max_read_bytes_,
                                              resolver_, max_depth_, trusted_));
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
  // No prompt can allow a change the host would run next.
  if (!check_trusted(target.value(), false)) return Approval::blocked;
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

Status Sandbox::may_write(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  return check_write_rules(target.value(), 0);
}

Status Sandbox::may_delete(std::string_view text) const {
  auto target = locate(text);
  if (!target) return target.error();
  return check_delete_rules(target.value());
}

Status Sandbox::check_entry_changeable(const Target& t, bool directory) const {
  if (t.at.mount == nullptr) {
    if (t.path.is_root()) return Errc::is_directory;
    return table_.holds_mount_point(t.path) ? Errc::mount_point : Errc::outside_sandbox;
  }
  if (t.at.mount->readonly) return Errc::read_only;
  if (t.path.is_root()) return Errc::is_directory;
  if (table_.holds_mount_point(t.path)) return Errc::mount_point;
  return check_trusted(t, directory);
}

namespace {

Error trusted_refusal(TrustedKind kind) {
  Error e{Errc::host_trusted};
  e.trusted = trusted_kind_name(kind);
  return e;
}

// The directory `levels` above `dir_fd`, by "..": only for a refusal's sake (a directory moved
// meanwhile can make it miss, never let a change through that the names refuse).
Result<UniqueFd> ancestor_of(int dir_fd, std::size_t levels) {
  auto at = sys::open_at(dir_fd, ".", O_PATH | O_DIRECTORY);
  for (std::size_t i = 0; at && i < levels; ++i) {
    at = sys::open_at(at.value().get(), "..", O_PATH | O_DIRECTORY);
  }
  return at;
}

// Whether the entry at `parts` (the last one in `dir_fd`) lies at a name that decides what git
// runs inside a directory that is a repository by its layout, whatever that directory is called
// (a bare repository, or one planted as `sub/` with HEAD, objects and refs).
bool in_repository_control(int dir_fd, const std::vector<std::string>& parts) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!git::repository_control_name(parts[i])) continue;
    auto holder = ancestor_of(dir_fd, parts.size() - 1 - i);
    if (holder && git::read_layout(holder.value().get()).repository()) return true;
  }
  return false;
}

std::string joined_host(std::string_view base, const std::vector<std::string>& parts,
                        std::size_t begin) {
  std::string out(base == "/" ? "" : base);
  for (std::size_t i = begin; i < parts.size(); ++i) out += "/" + parts[i];
  return out.empty() ? "/" : out;
}

}  // namespace

Status Sandbox::check_trusted(const Target& t, bool directory) const {
  if (t.at.rest_begin >= t.path.parts.size()) return ok_status();  // the mount itself
  const Anchor& anchor = *t.at.mount->anchor;
  EntryPlace place;
  place.parts = anchor.parts_below_origin();
  place.parts.insert(place.parts.end(), t.path.parts.begin() + t.at.rest_begin, t.path.parts.end());
  place.hosts.push_back(joined_host(anchor.host_path(), t.path.parts, t.at.rest_begin));
  // The real path is the pin's, published with the anchor's settling (read before it, a pin
  // on another thread could be writing it).
  const Anchor& origin = anchor.origin();
  if (origin.settled() && !origin.real_path().empty()) {
    place.hosts.push_back(joined_host(origin.real_path(), place.parts, 0));
  }
  const TrustedKind kind = trusted_->kind_of(place, directory);
  return kind == TrustedKind::none ? ok_status() : Status(trusted_refusal(kind));
}

Status Sandbox::check_trusted_at(int dir_fd, const Target& t, const std::string& name,
                                 bool directory) const {
  auto dir = descriptor_path(dir_fd);
  if (!dir) return ok_status();  // no /proc: the path as named was judged already
  const std::string& origin = t.at.mount->anchor->origin().real_path();
  const std::string& real = dir.value();
  EntryPlace place;
  place.hosts.push_back(joined_host(real, {name}, 0));
  const bool inside = !origin.empty() && real.compare(0, origin.size(), origin) == 0 &&
                      (real.size() == origin.size() || origin == "/" || real[origin.size()] == '/');
  if (!inside) return check_trusted(t, directory);
  for (std::string_view piece : split_at_slashes(std::string_view(real).substr(origin.size()))) {
    if (!piece.empty()) place.parts.emplace_back(piece);
  }
  place.parts.push_back(name);
  const TrustedKind kind = trusted_->kind_of(place, directory);
  if (kind != TrustedKind::none) return trusted_refusal(kind);
  if (!trusted_->builtin() || trusted_->released(place)) return ok_status();
  if (in_repository_control(dir_fd, place.parts)) return trusted_refusal(TrustedKind::git);
  return ok_status();
}

namespace {

std::mutex& layout_mutex() {
  static std::mutex mutex;
  return mutex;
}

bool is_layout_part(std::string_view name) {
  return git::layout_part(name) != git::LayoutPart::none;
}

}  // namespace

std::unique_lock<std::mutex> Sandbox::layout_turn(std::string_view name) {
  return is_layout_part(name) ? std::unique_lock<std::mutex>(layout_mutex())
                              : std::unique_lock<std::mutex>();
}

std::unique_lock<std::mutex> Sandbox::layout_turn(std::string_view a, std::string_view b) {
  return is_layout_part(a) || is_layout_part(b) ? std::unique_lock<std::mutex>(layout_mutex())
                                                : std::unique_lock<std::mutex>();
}

Status Sandbox::check_layout_change(int dir_fd, const std::string& name,
                                    const git::LayoutChange& change) const {
  if (git::layout_part(name) == git::LayoutPart::none || !trusted_->builtin()) return ok_status();
  const git::Layout before = git::read_layout(dir_fd);
  if (!git::changes_repository(before, name, change)) return ok_status();
  // A repository made where git looks for one, a `.git` directory (git init): what it would run
  // there (config, hooks, info, commondir) are names the host trusts, refused on their own. Made
  // under any other name, git would take the directory itself for one and run its `config`.
  if (!before.repository() && change.kind == git::LayoutChange::Kind::place) {
    auto where = descriptor_path(dir_fd);
    if (where && fold_name(where.value().substr(where.value().rfind('/') + 1)) == ".git")
      return ok_status();
  }
  return trusted_refusal(TrustedKind::git);
}

Status Sandbox::check_read_rules(const Target& t, std::uint64_t size) const {
  if (auto st = require_mount(t); !st) return st;
  const FilePolicy& policy = t.at.mount->policy;
  if (!t.path.is_root() && !suffix_allowed(policy, t.path.parts.back())) {
    return Errc::suffix_not_allowed;
  }
  if (policy.max_file_bytes && size > *policy.max_file_bytes) {
    return too_large(size, *policy.max_file_bytes);
  }
  return ok_status();
}

Status Sandbox::check_write_rules(const Target& t, std::uint64_t size) const {
  if (auto st = check_entry_changeable(t); !st) return st;
  if (t.at.mount->approval.write == Approval::blocked) return Errc::write_blocked;
  return check_read_rules(t, size);
}

Status Sandbox::check_delete_rules(const Target& t) const {
  if (auto st = check_entry_changeable(t); !st) return st;
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

}  // namespace msb
