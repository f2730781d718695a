// A worker's view of the host filesystem: a mount table plus the operations a file tool needs.
// Every operation takes a virtual path, resolves it on descriptors beneath the right mount, and
// reports failures as an Errc; nothing here prints, throws or aborts. Implemented by concern in
// sandbox.cc (views, locating, rules), sandbox_read.cc, sandbox_write.cc, sandbox_move.cc and
// sandbox_sources.cc; the private section is grouped the same way.
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/exec_path.h"
#include "fs/fd_io.h"
#include "fs/file_turns.h"
#include "fs/mount_table.h"
#include "fs/resolver.h"
#include "fs/trusted_names.h"
#include "git/git_layout.h"

namespace msb {

inline constexpr std::uint64_t kDefaultMaxReadBytes = 128ull << 20;
// Largest total of entry names (plus one byte each) list() returns; a directory with more is
// refused as too_large rather than building an unbounded result.
inline constexpr std::uint64_t kMaxListBytes = 64ull << 20;
// Largest file read_now() copies on the caller's thread; bigger ones go to a worker thread.
inline constexpr std::uint64_t kMaxInlineReadBytes = 64ull << 10;

// Largest number of paths glob() returns when the caller names no limit, and the most it
// ever returns.
inline constexpr std::size_t kDefaultGlobLimit = 1000;
inline constexpr std::size_t kMaxGlobLimit = 100000;

struct SandboxOptions {
  RootSpec root;  // root.source empty: no root, only mounts
  std::vector<MountSpec> mounts;
  std::uint64_t max_read_bytes = kDefaultMaxReadBytes;
  ResolverKind resolver = ResolverKind::automatic;
  std::uint32_t max_depth = 5;  // how many derivations (restrict, workers) may be chained
  // What the host trusts next (trusted_names.h); the config names at the root are added.
  TrustedNamesSpec trusted;
};

// The kinds of change approvals are asked for.
enum class Change : std::uint8_t { write, remove };

// golem-forge's attachment policy: defaults as in its worker schema.
struct AttachmentPolicy {
  std::size_t max_attachments = 4;
  std::uint64_t max_total_bytes = 10'000'000;
  std::vector<std::string> allowed_suffixes;  // empty: any
  std::vector<std::string> denied_suffixes;
  // Per path, parallel to the paths (missing entries: none): the largest file the caller can
  // take there, such as a binding's longest text for the attachments it decodes. A larger file
  // is too_large with this limit, judged on its descriptor like every other rule.
  std::vector<std::uint64_t> size_caps;
};

// No cap of the caller's own on what a read returns (see Sandbox::read).
inline constexpr std::uint64_t kNoCap = UINT64_MAX;

struct GlobResult {
  std::vector<std::string> paths;  // virtual paths, sorted
  bool truncated = false;          // more matched than the limit, or the walk hit a bound
};

class GlobTask;  // glob_walk.h

// One entry of a command's copy-on-write layer (src/changes/), to be landed at a virtual path as
// the file tools land their changes.
struct LayerEntry {
  int dir_fd = -1;  // the layer's directory that holds it
  std::string name;
  struct stat st {};  // the entry there, not followed
};

struct LandRules {
  // When the command started (CLOCK_REALTIME, ns): a host file changed since is a conflict, never
  // overwritten.
  std::int64_t since_ns = 0;
  bool dry_run = false;  // judge and report, change nothing
};

enum class Landed : std::uint8_t { landed, unchanged };

// How many times an edit reads, replaces and checks before it gives up with conflict, when each
// time the file changed between its read and its replacement (someone else wrote it).
inline constexpr int kEditAttempts = 3;

// How many times a write or an edit is prepared again, and its turn taken again, when the path
// no longer leads to the directory it prepared with (someone replaced that directory while the
// change waited for its turn): then conflict.
inline constexpr int kPrepareAttempts = 3;

// A write or an edit, located, checked and with its directory open, up to the point where it
// needs its turn on the entry it replaces (FileTurns): run() does the rest while holding it.
// Keeps views of the data and texts it was prepared with: they must outlive it.
class PendingChange {
 public:
  virtual ~PendingChange() = default;
  // The entry whose turn run() must hold; std::nullopt when it needs none (it can only fail).
  const std::optional<EntryKey>& key() const noexcept { return key_; }
  virtual Status run() = 0;
  // After run() (which then failed with conflict, changing nothing): the path no longer leads to
  // the directory this change was prepared with and holds the turn for, so it must be prepared
  // again, for where the path leads now, and wait for that entry's turn (kPrepareAttempts).
  bool moved() const noexcept { return moved_; }

 protected:
  std::optional<EntryKey> key_;
  bool moved_ = false;
};

class Sandbox {
 public:
  static Result<std::shared_ptr<Sandbox>> create(const SandboxOptions& options);

  // Derived views count towards max_depth: a chain longer than it fails with depth_exceeded.
  Result<std::shared_ptr<Sandbox>> restrict(std::string_view sub,
                                            std::optional<bool> readonly) const;
  Result<std::shared_ptr<Sandbox>> restrict(std::string_view sub, const Narrowing& narrowing) const;
  Result<std::shared_ptr<Sandbox>> select_zones(const std::vector<ZoneSelection>& zones) const;

  // The approval a change at `path` needs (the mount holding it decides).
  Result<Approval> approval_for(std::string_view path, Change change) const;

  // Lexical answers, no disk access.
  Result<std::string> host_path(std::string_view path) const;
  // The refusal a write (may_write) or a removal (may_delete) of `path` would meet from its
  // mount's rules (read-only, blocked, suffixes), ok when none: what write() and remove() check
  // before they touch the disk, where the enclosing source may still refuse.
  Status may_write(std::string_view path) const;
  Status may_delete(std::string_view path) const;

  // `cap`: the most the caller can take (a binding's longest text): a larger file is too_large
  // with `cap` as the limit, decided from its size before anything is read, like the sandbox's
  // own limits. `proc_fd_dir`: see open_proc_fd_dir (fd_io.h), for a caller reading many files.
  Result<Bytes> read(std::string_view path, std::uint64_t cap = kNoCap, int proc_fd_dir = -1) const;
  // Up to `length` bytes from `offset` (a read past the end returns fewer, possibly none). The
  // policy's size limit applies to the file, max_read_bytes to `length`; more than `cap` bytes
  // to return is too_large with `cap` as the limit, before anything is read.
  Result<Bytes> read_range(std::string_view path, std::uint64_t offset, std::uint64_t length,
                           std::uint64_t cap = kNoCap) const;
  // The regular file at `path` opened for a reader that holds a bounded part of it at a time
  // (search): its rules checked (suffixes, the policy's size limit), max_read_bytes not, since
  // nothing here is read whole.
  Result<ReadableFile> open_to_read(std::string_view path, int proc_fd_dir = -1) const;
  // `if_version` (a version_token from stat(), or empty for none): refuse with conflict unless
  // the file at `path` still has that version, checked in turn and again just before the
  // replacement takes its name. Without it, a write replaces whatever is there.
  Status write(std::string_view path, const std::uint8_t* data, std::size_t size,
               std::string_view if_version = {}) const;
  Status remove(std::string_view path) const;
  Result<bool> exists(std::string_view path) const;
  Result<std::vector<std::string>> list(std::string_view path) const;
  // list() with each entry's type as the directory records it; a mount point is a directory.
  Result<std::vector<DirEntry>> list_entries(std::string_view path) const;
  Result<FileInfo> stat(std::string_view path) const;
  // Replaces the one occurrence of `old_text` with `new_text`: no_match when there is none,
  // ambiguous_match (size = count) when there are several. Written like write(), after checking
  // that the file at the name is still the one read, unchanged: if not, read and replaced again,
  // kEditAttempts times at most, then conflict. With `if_version`, the file read must have that
  // version and a change found before the replacement is a conflict at once.
  Status edit(std::string_view path, std::string_view old_text, std::string_view new_text,
              std::string_view if_version = {}) const;
  // write() and edit() in two steps, for callers that wait for the turn without blocking a
  // thread: prepare, take the turn for key() (FileTurns), run. write() and edit() take it
  // blocking.
  Result<std::unique_ptr<PendingChange>> prepare_write(std::string_view path,
                                                       const std::uint8_t* data, std::size_t size,
                                                       std::string_view if_version = {}) const;
  Result<std::unique_ptr<PendingChange>> prepare_edit(std::string_view path,
                                                      std::string_view old_text,
                                                      std::string_view new_text,
                                                      std::string_view if_version = {}) const;
  // Both ends checked (Error::index 0 = from, 1 = to). move needs delete rights on `from`
  // and write rights on `to`; copy only read rights on `from`. Files only. An existing `to`
  // fails with already_exists unless `overwrite`.
  Status move(std::string_view from, std::string_view to, bool overwrite) const;
  Status copy(std::string_view from, std::string_view to, bool overwrite) const;
  // mkdir -p. An existing directory is success.
  Status make_directory(std::string_view path) const;
  // Paths matching `pattern` ("*" within a name, "**" across directories, "?", "[abc]",
  // "{a,b}"), at most `limit` of them. Symlinks are reported but never descended into. Runs a
  // GlobTask (glob_walk.h) to its end: its bounds apply.
  Result<GlobResult> glob(std::string_view pattern, std::size_t limit) const;
  // All or nothing: every rule (count, suffixes, each file's policy, total size) is checked on
  // opened descriptors before any byte is read. Error::index names the offending path.
  Result<std::vector<Bytes>> read_attachments(const std::vector<std::string>& paths,
                                              const AttachmentPolicy& policy) const;

  // Attempts for the JS thread that never wait for I/O (RESOLVE_CACHED lookups, RWF_NOWAIT
  // reads of small files). std::nullopt means "would block": run the operation above instead.
  std::optional<Result<Bytes>> read_now(std::string_view path) const;
  std::optional<Result<FileInfo>> stat_now(std::string_view path) const;
  std::optional<Result<bool>> exists_now(std::string_view path) const;

  // A command's change from its copy-on-write layer (sandbox_land.cc), judged by the rules write(),
  // mkdir() and remove() apply, plus a conflict where the host's entry changed since
  // rules.since_ns. land_file renames the layer's file into place (its permission bits, with the
  // replaced file's owner, ACL and attributes kept as write() keeps them; never a set-id bit or a
  // capability), or copies it where the layer is on another filesystem. land_removal removes a
  // file, a link or an empty directory. `unchanged`: the host already holds what the layer does.
  Result<Landed> land_file(std::string_view path, const LayerEntry& from,
                           const LandRules& rules) const;
  Result<Landed> land_symlink(std::string_view path, const LayerEntry& from,
                              const LandRules& rules) const;
  Result<Landed> land_directory(std::string_view path, mode_t mode, const LandRules& rules) const;
  Result<Landed> land_removal(std::string_view path, const LandRules& rules) const;

  // mkdir -p for the root and every mount source (createMountSandboxAsync), then pins them all.
  // Before the first operation only: afterwards the sources are settled and nothing is created.
  // Fails with the first source that is not pinned (Error::index = its position in mounts()).
  Status create_sources() const;

  // What a command confined to this view may do on the host: each mount's source (pinned, with
  // its identity) read-only or writable, then the sources of hidden restrictive mounts, to be
  // kept read-only. Writable sources that do not exist yet are left out; any other source that
  // cannot be opened fails (Error::index = its position in table().mounts(), then in hidden()).
  Result<std::vector<ExecPath>> exec_paths() const;

  const MountTable& table() const noexcept { return table_; }
  std::uint64_t max_read_bytes() const noexcept { return max_read_bytes_; }
  ResolverKind resolver() const noexcept { return resolver_; }
  std::uint32_t depth() const noexcept { return depth_; }
  std::uint32_t max_depth() const noexcept { return max_depth_; }
  // Kept by every view derived from this one.
  const TrustedNames& trusted() const noexcept { return *trusted_; }

 private:
  Sandbox(MountTable table, const Sandbox* parent, std::uint64_t max_read_bytes,
          ResolverKind resolver, std::uint32_t max_depth,
          std::shared_ptr<const TrustedNames> trusted);
  // A glob opens directories as the other operations do, but one slice at a time.
  friend class GlobTask;
  // sandbox_write.cc: the two kinds of PendingChange and what they share.
  friend class ChangeInDir;
  friend class WriteChange;
  friend class EditChange;

  struct Target {
    VirtualPath path;
    Location at;  // at.mount is nullptr for paths under no mount (no-root tables only)
  };

  // sandbox.cc: views, locating, rules, opening beneath a mount.
  Result<std::shared_ptr<Sandbox>> derived(Result<MountTable> table) const;
  // Settles every configured source together (source_pins.h) before the first operation that
  // touches the disk, so no operation of this sandbox can plant something under a source that
  // is not pinned yet. Derived sandboxes are made from a settled parent and start settled.
  void pin_sources_once(bool create_missing = false) const;
  bool sources_settled() const noexcept { return settled_.load(std::memory_order_acquire); }
  Result<Target> locate(std::string_view path) const;
  // For operations on a file's contents: the path must lie under a mount. Virtual directories
  // (the no-root "/" and directories holding mount targets) are is_directory, anything else
  // outside_sandbox.
  Status require_mount(const Target& target) const;
  // Whether the entry itself may change at all: it lies under a mount that is not read-only, is
  // neither the root nor a mount point, nor a name the host trusts. Approvals and file rules are
  // the *_rules' business. `directory`: the change only makes a directory.
  Status check_entry_changeable(const Target& target, bool directory = false) const;
  // The trusted names, judged on the path as named (before anything is opened or made) and
  // on the directory it resolved to (after: a link inside the mount may lead to one).
  Status check_trusted(const Target& target, bool directory) const;
  Status check_trusted_at(int dir_fd, const Target& target, const std::string& name,
                          bool directory) const;
  // git's layout (git/git_layout.h): changing `name` in the directory `dir_fd` as `change` says
  // must neither make that directory a repository nor undo one. Judged and made while holding
  // layout_turn(name), so that two changes at once (parallel tool calls) cannot each see the
  // layout without the other's piece and together complete it.
  Status check_layout_change(int dir_fd, const std::string& name,
                             const git::LayoutChange& change) const;
  // One process-wide lock, taken only for a name that is part of git's layout (HEAD, objects,
  // refs, commondir); an unlocked guard for any other.
  static std::unique_lock<std::mutex> layout_turn(std::string_view name);
  static std::unique_lock<std::mutex> layout_turn(std::string_view a, std::string_view b);
  // The rules each kind of access must pass before touching the disk. `size` is the file's
  // size (reads) or the new contents' (writes).
  Status check_read_rules(const Target& target, std::uint64_t size) const;
  Status check_write_rules(const Target& target, std::uint64_t size) const;
  Status check_delete_rules(const Target& target) const;
  // The largest file a read may return here: max_read_bytes or the policy's, if smaller.
  std::uint64_t read_limit(const Target& target) const;
  Result<UniqueFd> open(const Target& target, int flags) const;
  std::optional<Result<UniqueFd>> open_now(const Target& target, int flags) const;

  // sandbox_read.cc
  // The regular file at `target`, opened for reading (only if it is one); a missing entry a
  // mount lies below is is_directory, as read() reports it.
  Result<ReadableFile> open_file_for_reading(const Target& target, int proc_fd_dir = -1) const;

  // sandbox_write.cc
  // The directory that will hold the entry a mutation creates or removes, after the read-only
  // rules have been checked for it.
  Result<UniqueFd> open_parent_for_change(const Target& target, bool create_missing,
                                          Change change = Change::write,
                                          bool directory = false) const;
  // The directory that holds `target`'s entry, opened beneath its mount, nothing checked.
  Result<UniqueFd> open_parent(const Target& target) const;
  // mkdir -p of `target`'s directories up to its part `end`, beneath its mount's descriptor.
  Result<UniqueFd> make_parents(const Target& target, int base, std::size_t end) const;
  // On the disk, after the lexical rules: the directory's nearest enclosing configured source
  // decides (its read-only flag and its approval for `change`, blocked refuses), whichever mount
  // the path was named through.
  Status check_enclosing_source_allows(int dir_fd, const Mount& mount, Change change) const;

  // sandbox_land.cc: the directory a landed entry goes in, opened and checked as a write or a
  // removal there is (none made on a dry run: then nullopt where it does not exist yet).
  Result<std::optional<UniqueFd>> open_landing_dir(const Target& target, Change change,
                                                   bool directory, bool dry_run) const;

  // sandbox_move.cc
  enum class Transfer : std::uint8_t { copy, move };
  struct TransferEnds {
    Target from;
    Target to;
  };
  // The checks move and copy share before either touches the disk: both ends located, the
  // source's rights for `kind`, the destination's place. Errors carry the end's index.
  Result<TransferEnds> locate_transfer(std::string_view from, std::string_view to,
                                       Transfer kind) const;

  MountTable table_;
  std::uint64_t max_read_bytes_;
  ResolverKind resolver_;
  std::uint32_t depth_ = 0;
  std::uint32_t max_depth_ = 5;
  std::shared_ptr<const TrustedNames> trusted_;
  mutable std::mutex pin_mutex_;
  mutable std::atomic<bool> settled_{false};
};

}  // namespace msb
