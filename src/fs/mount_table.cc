#include "fs/mount_table.h"

#include <algorithm>
#include <cstdint>

namespace msb {
namespace {

// `index`: the mount spec at fault, or kNoIndex for the root.
Error config_error(std::size_t index) {
  Error e{Errc::invalid_config};
  e.index = index;
  return e;
}

std::size_t target_length(const Mount& m) {
  return m.target.str().size();
}

bool restrictive(const Mount& m) {
  return m.readonly || m.approval.write == Approval::blocked ||
         m.approval.remove == Approval::blocked;
}

}  // namespace

Result<MountTable> MountTable::create(const RootSpec& root, const std::vector<MountSpec>& specs) {
  const bool rootless = root.source.empty();
  if (rootless && specs.empty()) return config_error(Error::kNoIndex);
  if (!rootless && (root.source.front() != '/' || root.source.find('\0') != std::string::npos)) {
    return config_error(Error::kNoIndex);
  }
  MountTable table;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const MountSpec& spec = specs[i];
    if (spec.source.empty() || spec.source.front() != '/' ||
        spec.source.find('\0') != std::string::npos) {
      return config_error(i);
    }
    auto target = parse_mount_target(spec.target);
    if (!target) return config_error(i);
    for (const Mount& other : table.mounts_) {
      if (other.target.parts == target.value().parts) return config_error(i);
    }
    table.mounts_.push_back(Mount{target.value(),
                                  Anchor::at_host_path(spec.source, spec.allow_pseudo_filesystem),
                                  spec.readonly, spec.approval, spec.policy});
  }
  if (!rootless) {
    table.mounts_.push_back(Mount{VirtualPath{},
                                  Anchor::at_host_path(root.source, root.allow_pseudo_filesystem),
                                  root.readonly, root.approval, root.policy});
  }
  table.sort_mounts();
  return table;
}

void MountTable::sort_mounts() {
  // The root mount (no parts) is always last; ties keep configuration order.
  std::stable_sort(mounts_.begin(), mounts_.end(), [](const Mount& a, const Mount& b) {
    if (a.target.parts.empty() != b.target.parts.empty()) return b.target.parts.empty();
    return target_length(a) > target_length(b);
  });
}

Location MountTable::locate(const VirtualPath& path) const {
  // Mounts are sorted longest target first, so the first prefix is the deepest mount.
  for (const Mount& m : mounts_) {
    if (has_prefix(path.parts, m.target.parts)) return Location{&m, m.target.parts.size()};
  }
  return Location{nullptr, 0};
}

Result<MountTable> MountTable::restrict(const VirtualPath& sub, const Narrowing& narrowing,
                                        const SubtreeAnchor& subtree) const {
  const bool force_readonly = narrowing.readonly.value_or(false);
  auto narrowed = [&](const Mount& m, VirtualPath target, std::shared_ptr<Anchor> anchor) {
    return Mount{std::move(target), std::move(anchor), m.readonly || force_readonly,
                 tighten(m.approval, narrowing.approval), tighten(m.policy, narrowing.policy)};
  };
  const Location where = locate(sub);
  if (where.mount == nullptr && !holds_mount_point(sub)) return Errc::outside_sandbox;
  // Judged before the disk is looked at: asking for more is refused whatever is there.
  const bool result_readonly =
      where.mount != nullptr ? where.mount->readonly || force_readonly : all_readonly_below(sub);
  if (narrowing.readonly.has_value() && !*narrowing.readonly && result_readonly) {
    return Error{Errc::permission_escalation};
  }
  std::optional<Mount> new_root;
  if (where.mount != nullptr) {
    std::vector<std::string> rest(sub.parts.begin() + static_cast<std::ptrdiff_t>(where.rest_begin),
                                  sub.parts.end());
    std::shared_ptr<Anchor> anchor = where.mount->anchor;
    if (!rest.empty()) {
      auto pinned = subtree(anchor, std::move(rest));
      if (!pinned) return pinned.error();
      anchor = std::move(pinned.value());
    }
    new_root = narrowed(*where.mount, VirtualPath{}, std::move(anchor));
  }
  MountTable child;
  child.hidden_ = hidden_;
  for (const Mount& m : mounts_) {
    if (m.target.parts.size() <= sub.parts.size() || !has_prefix(m.target.parts, sub.parts)) {
      if (restrictive(m) && (!new_root || m.anchor != new_root->anchor)) {
        child.hidden_.push_back(m);
      }
      continue;
    }
    VirtualPath moved;
    moved.parts.assign(m.target.parts.begin() + static_cast<std::ptrdiff_t>(sub.parts.size()),
                       m.target.parts.end());
    child.mounts_.push_back(narrowed(m, std::move(moved), m.anchor));
  }
  if (new_root) child.mounts_.push_back(std::move(*new_root));
  child.sort_mounts();
  return child;
}

bool MountTable::all_readonly_below(const VirtualPath& sub) const {
  for (const Mount& m : mounts_) {
    if (has_prefix(m.target.parts, sub.parts) && !m.readonly) return false;
  }
  return true;
}

Result<MountTable> MountTable::select_zones(const std::vector<ZoneSelection>& zones) const {
  MountTable child;
  child.hidden_ = hidden_;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    const std::vector<std::string> zone_target{zones[i].name};
    const Mount* found = nullptr;
    for (const Mount& m : mounts_) {
      if (m.target.parts == zone_target) found = &m;
    }
    Error refusal{Errc::zone_not_found};
    refusal.index = i;
    if (found == nullptr) return refusal;
    if (found->readonly && !zones[i].readonly) {
      refusal.code = Errc::permission_escalation;
      return refusal;
    }
    // The zone comes with every mount inside it, so what they cover stays covered and their
    // own rules stay theirs.
    for (const Mount& m : mounts_) {
      if (!has_prefix(m.target.parts, zone_target)) continue;
      Mount kept = m;
      kept.readonly = m.readonly || zones[i].readonly;
      child.mounts_.push_back(std::move(kept));
    }
  }
  // Everything not selected keeps its rules wherever its source reappears inside a kept one.
  for (const Mount& m : mounts_) {
    const bool kept = std::any_of(child.mounts_.begin(), child.mounts_.end(),
                                  [&](const Mount& k) { return k.anchor == m.anchor; });
    if (restrictive(m) && !kept) child.hidden_.push_back(m);
  }
  child.sort_mounts();
  return child;
}

bool MountTable::holds_mount_point(const VirtualPath& path) const {
  for (const Mount& m : mounts_) {
    if (!m.target.parts.empty() && has_prefix(m.target.parts, path.parts)) return true;
  }
  return false;
}

std::vector<std::string> MountTable::mount_entries_in(const VirtualPath& dir) const {
  std::vector<std::string> names;
  for (const Mount& m : mounts_) {
    if (m.target.parts.size() > dir.parts.size() && has_prefix(m.target.parts, dir.parts)) {
      names.push_back(m.target.parts[dir.parts.size()]);
    }
  }
  return names;
}

}  // namespace msb
