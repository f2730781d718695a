// A worker's view of the host filesystem: a mount table plus the operations a file tool needs.
// Every operation takes a virtual path, resolves it on descriptors beneath the right mount, and
// reports failures as an Errc; nothing here prints, throws or aborts.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"
#include "fs_backend.h"
#include "mount_table.h"
#include "resolver.h"

namespace msb {

inline constexpr std::uint64_t kDefaultMaxReadBytes = 128ull << 20;
// Largest total of entry names (plus one byte each) list() returns; a directory with more is
// refused as too_large rather than building an unbounded result.
inline constexpr std::uint64_t kMaxListBytes = 64ull << 20;
// Largest file read_now() copies on the caller's thread; bigger ones go to a worker thread.
inline constexpr std::uint64_t kMaxInlineReadBytes = 64ull << 10;

struct SandboxOptions {
  std::string root;
  bool readonly = false;
  std::vector<MountSpec> mounts;
  std::uint64_t max_read_bytes = kDefaultMaxReadBytes;
  ResolverKind resolver = ResolverKind::automatic;
};

class Sandbox {
 public:
  static Result<std::shared_ptr<Sandbox>> create(const SandboxOptions& options);

  Result<std::shared_ptr<Sandbox>> restrict(std::string_view sub,
                                            std::optional<bool> readonly) const;

  // Lexical answers, no disk access.
  Result<std::string> host_path(std::string_view path) const;
  Status check_writable(std::string_view path) const;

  Result<Bytes> read(std::string_view path) const;
  Status write(std::string_view path, const std::uint8_t* data, std::size_t size) const;
  Status remove(std::string_view path) const;
  Result<bool> exists(std::string_view path) const;
  Result<std::vector<std::string>> list(std::string_view path) const;
  Result<FileInfo> stat(std::string_view path) const;
  // Attempts for the JS thread that never wait for I/O (RESOLVE_CACHED lookups, RWF_NOWAIT
  // reads of small files). std::nullopt means "would block": run the operation above instead.
  std::optional<Result<Bytes>> read_now(std::string_view path) const;
  std::optional<Result<FileInfo>> stat_now(std::string_view path) const;
  std::optional<Result<bool>> exists_now(std::string_view path) const;

  // mkdir -p for the root and every mount source, by host path (createMountSandboxAsync).
  Status create_sources() const;

  const MountTable& table() const noexcept { return table_; }
  std::uint64_t max_read_bytes() const noexcept { return max_read_bytes_; }
  ResolverKind resolver() const noexcept { return resolver_; }

 private:
  Sandbox(MountTable table, std::uint64_t max_read_bytes, ResolverKind resolver)
      : table_(std::move(table)), max_read_bytes_(max_read_bytes), resolver_(resolver) {}

  struct Target {
    VirtualPath path;
    Location at;
  };
  Result<Target> locate(std::string_view path) const;
  Result<UniqueFd> open(const Target& target, int flags) const;
  std::optional<Result<UniqueFd>> open_now(const Target& target, int flags) const;
  // The directory that will hold the entry a mutation creates or removes, after the read-only
  // rules have been checked for it.
  Result<UniqueFd> open_parent_for_change(const Target& target, bool create_missing) const;
  Result<UniqueFd> make_parents(const Mount& mount, int base, const std::vector<std::string>& parts,
                                std::size_t begin, std::size_t end) const;
  Status writable(const Target& target) const;
  Status check_nearest_mount_writable(int dir_fd, const Mount& mount) const;

  MountTable table_;
  std::uint64_t max_read_bytes_;
  ResolverKind resolver_;
};

}  // namespace msb
