#include "mount_table.h"

#include <algorithm>
#include <cstdint>

namespace msb {
namespace {

Error config_error(std::size_t index) {
  Error e{Errc::invalid_config};
  e.limit = index;
  return e;
}

std::size_t target_length(const Mount& m) {
  return m.target.str().size();
}

}  // namespace

Result<MountTable> MountTable::create(const std::string& root, bool readonly,
                                      const std::vector<MountSpec>& specs) {
  if (root.empty() || root.front() != '/' || root.find('\0') != std::string::npos) {
    return config_error(SIZE_MAX);
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
    table.mounts_.push_back(
        Mount{target.value(), Anchor::at_host_path(spec.source), spec.readonly});
  }
  table.mounts_.push_back(Mount{VirtualPath{}, Anchor::at_host_path(root), readonly});
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
  const Mount* best = &root();
  for (const Mount& m : mounts_) {
    if (!m.target.parts.empty() && has_prefix(path.parts, m.target.parts) &&
        m.target.parts.size() > best->target.parts.size()) {
      best = &m;
    }
  }
  return Location{best, best->target.parts.size()};
}

Result<MountTable> MountTable::restrict(const VirtualPath& sub,
                                        std::optional<bool> readonly) const {
  const bool force_readonly = readonly.value_or(false);
  Location where = locate(sub);
  std::vector<std::string> rest(sub.parts.begin() + static_cast<std::ptrdiff_t>(where.rest_begin),
                                sub.parts.end());
  Mount new_root{VirtualPath{}, Anchor::beneath(where.mount->anchor, std::move(rest)),
                 where.mount->readonly || force_readonly};
  if (readonly.has_value() && !*readonly && new_root.readonly) {
    return Error{Errc::permission_escalation};
  }
  MountTable child;
  child.hidden_readonly_ = hidden_readonly_;
  for (const Mount& m : mounts_) {
    if (m.target.parts.size() <= sub.parts.size() || !has_prefix(m.target.parts, sub.parts)) {
      if (m.readonly && m.anchor != new_root.anchor) child.hidden_readonly_.push_back(m.anchor);
      continue;
    }
    VirtualPath moved;
    moved.parts.assign(m.target.parts.begin() + static_cast<std::ptrdiff_t>(sub.parts.size()),
                       m.target.parts.end());
    child.mounts_.push_back(Mount{std::move(moved), m.anchor, m.readonly || force_readonly});
  }
  child.mounts_.push_back(std::move(new_root));
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
