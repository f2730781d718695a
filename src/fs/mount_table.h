// The mount table: which pinned host directory answers for which virtual subtree, and how a
// sub-worker's view is derived from its parent's (only ever narrower).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/path.h"
#include "fs/anchor.h"
#include "fs/mount_rules.h"

namespace msb {

struct MountSpec {
  std::string source;  // absolute host path
  std::string target;  // virtual path, e.g. "/cache"
  bool readonly = false;
  ApprovalRule approval;
  FilePolicy policy;
  // Pin the source even on procfs, sysfs, the device filesystem, ... (refused by default).
  bool allow_pseudo_filesystem = false;
};

struct Mount {
  VirtualPath target;  // empty for the root mount
  std::shared_ptr<Anchor> anchor;
  bool readonly = false;
  ApprovalRule approval;
  FilePolicy policy;
};

// The mount at "/". A table may have none (zones only): "/" then lists the mount targets and
// every path under no mount is outside the sandbox.
struct RootSpec {
  std::string source;  // absolute host path; empty for no root
  bool readonly = false;
  ApprovalRule approval;
  FilePolicy policy;
  bool allow_pseudo_filesystem = false;  // as MountSpec's
};

// What a restrict() asks for beyond the subtree.
struct Narrowing {
  std::optional<bool> readonly;
  ApprovalRule approval{Approval::pre_approved, Approval::pre_approved};  // tightened into
  FilePolicy policy;                                                      // every mount
};

// One zone a derived view keeps: the top-level mount "/<name>", optionally read-only.
struct ZoneSelection {
  std::string name;
  bool readonly = false;
};

// Where a virtual path lands: a mount (nullptr when no mount holds it, in a table without a
// root), and the index in the path's parts where the part below that mount's target begins.
struct Location {
  const Mount* mount = nullptr;
  std::size_t rest_begin = 0;
};

// Makes the anchor of a subtree of `parent` (restrict() landing below a mount's target). The
// sandbox resolves and pins it on descriptors; table tests may describe it lexically.
using SubtreeAnchor = std::function<Result<std::shared_ptr<Anchor>>(
    const std::shared_ptr<Anchor>& parent, std::vector<std::string> parts)>;

class MountTable {
 public:
  // Fails with invalid_config (Error::index holds the offending mount's index, kNoIndex for the
  // root) for relative or empty sources, malformed or duplicate targets.
  static Result<MountTable> create(const RootSpec& root, const std::vector<MountSpec>& mounts);

  Location locate(const VirtualPath& path) const;
  // Narrows to the subtree at `sub`, optionally read-only, tightening every mount's approvals
  // and policy. Asking for read-write where the result would be read-only fails with
  // permission_escalation; a subtree under no mount with outside_sandbox; a subtree that
  // `subtree` cannot anchor with its error.
  Result<MountTable> restrict(const VirtualPath& sub, const Narrowing& narrowing,
                              const SubtreeAnchor& subtree) const;
  // Keeps only the named top-level mounts (each with the mounts nested in it), as a table
  // without a root. A name with no mount
  // fails with zone_not_found, read-write on a read-only mount with permission_escalation
  // (Error::index = the selection's position).
  Result<MountTable> select_zones(const std::vector<ZoneSelection>& zones) const;

  // True when `path` is a mount target (other than "/") or a directory above one: such entries
  // belong to the table, so files may not be written or deleted there.
  bool holds_mount_point(const VirtualPath& path) const;
  // Names of the mount targets (or their first component) directly inside directory `dir`.
  std::vector<std::string> mount_entries_in(const VirtualPath& dir) const;

  // Restrictive mounts (read-only or with a blocked approval) a restrict() or select_zones()
  // dropped from view. The child cannot name them, but their sources may still lie inside its
  // mounts, and keep their rules there.
  const std::vector<Mount>& hidden() const noexcept { return hidden_; }

  bool has_root() const noexcept { return !mounts_.empty() && mounts_.back().target.is_root(); }
  // Only when has_root().
  const Mount& root() const noexcept { return mounts_.back(); }
  // Longest target first, the root mount (if any) last.
  const std::vector<Mount>& mounts() const noexcept { return mounts_; }

 private:
  void sort_mounts();
  bool all_readonly_below(const VirtualPath& sub) const;
  std::vector<Mount> mounts_;
  std::vector<Mount> hidden_;
};

}  // namespace msb
