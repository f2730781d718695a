#include "git/git_index.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <string_view>

namespace msb::git {
namespace {

constexpr std::size_t kHeaderBytes = 12;
constexpr std::size_t kStatBytes = 40;  // ctime, mtime, dev, ino, mode, uid, gid, size
constexpr std::uint32_t kModeOffset = 24;
constexpr std::uint16_t kExtendedFlag = 0x4000;
constexpr std::uint32_t kTypeMask = 0170000;
constexpr std::uint32_t kGitlink = 0160000;

std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

std::uint16_t be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

std::string hex(const std::uint8_t* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0xf]);
  }
  return out;
}

GitRefusal refusal(GitRefusalKind kind) {
  return GitRefusal{kind, "index", 0};
}

// Reads entries one after another; fails (nullopt) at the first byte that does not fit.
class IndexReader {
 public:
  IndexReader(std::span<const std::uint8_t> data, std::uint32_t version, std::size_t hash_bytes)
      : data_(data), version_(version), hash_bytes_(hash_bytes), at_(kHeaderBytes) {}

  // One entry's path and mode, or false when the data ends or does not fit.
  bool next(std::string& path, std::uint32_t& mode) {
    const std::size_t fixed = kStatBytes + hash_bytes_ + 2;
    if (data_.size() - at_ < fixed) return false;
    const std::uint8_t* entry = data_.data() + at_;
    mode = be32(entry + kModeOffset);
    const std::uint16_t flags = be16(entry + kStatBytes + hash_bytes_);
    std::size_t name_at = at_ + fixed;
    if ((flags & kExtendedFlag) != 0) {
      if (version_ < 3) return false;
      name_at += 2;
    }
    return version_ == 4 ? read_compressed_name(name_at, path) : read_padded_name(name_at, path);
  }

  // After the last entry: extensions (a 4-byte signature, a 4-byte size, the data), then the
  // checksum, exactly. What makes a wrong guess at the hash size fail.
  // A split index's "link" extension names the shared index holding the other entries.
  bool ends_well(std::string& shared_index) const {
    std::size_t at = at_;
    while (data_.size() - at > hash_bytes_) {
      if (data_.size() - at - hash_bytes_ < 8) return false;
      const std::uint8_t* signature = data_.data() + at;
      const std::size_t size = be32(data_.data() + at + 4);
      at += 8;
      if (size > data_.size() - at - hash_bytes_) return false;
      if (std::memcmp(signature, "link", 4) == 0 && size >= hash_bytes_)
        shared_index = "sharedindex." + hex(data_.data() + at, hash_bytes_);
      at += size;
    }
    return data_.size() - at == hash_bytes_;
  }

 private:
  // Versions 2 and 3: the name, a NUL, then NULs up to a multiple of 8 from the entry's start.
  bool read_padded_name(std::size_t name_at, std::string& path) {
    auto end = find_nul(name_at);
    if (!end) return false;
    path.assign(reinterpret_cast<const char*>(data_.data()) + name_at, *end - name_at);
    const std::size_t length = ((*end - at_) + 8) & ~std::size_t{7};
    if (length > data_.size() - at_) return false;
    at_ += length;
    return true;
  }

  // Version 4: how many bytes of the previous path to drop (git's offset varint), then the rest
  // of this path up to a NUL; no padding.
  bool read_compressed_name(std::size_t name_at, std::string& path) {
    std::uint64_t drop = 0;
    for (std::size_t count = 0;; ++count) {
      if (name_at >= data_.size() || count > 9) return false;
      const std::uint8_t byte = data_[name_at++];
      drop = (drop << 7) | (byte & 0x7f);
      if ((byte & 0x80) == 0) break;
      drop += 1;
    }
    if (drop > path.size()) return false;
    auto end = find_nul(name_at);
    if (!end) return false;
    path.resize(path.size() - drop);
    if (path.size() + (*end - name_at) > PATH_MAX) return false;
    path.append(reinterpret_cast<const char*>(data_.data()) + name_at, *end - name_at);
    at_ = *end + 1;
    return true;
  }

  std::optional<std::size_t> find_nul(std::size_t from) const {
    const std::size_t limit = std::min(data_.size(), from + PATH_MAX + 1);
    const void* nul = from < limit ? std::memchr(data_.data() + from, 0, limit - from) : nullptr;
    if (nul == nullptr) return std::nullopt;
    return static_cast<std::size_t>(static_cast<const std::uint8_t*>(nul) - data_.data());
  }

  std::span<const std::uint8_t> data_;
  std::uint32_t version_;
  std::size_t hash_bytes_;
  std::size_t at_;
};

// All gitlinks with one guess at the hash size; nullopt when the entries do not parse.
std::optional<Result<IndexGitlinks, GitRefusal>> read_with_hash(std::span<const std::uint8_t> data,
                                                                std::uint32_t version,
                                                                std::uint32_t count,
                                                                std::size_t hash_bytes,
                                                                std::size_t max_gitlinks) {
  IndexReader reader(data, version, hash_bytes);
  IndexGitlinks out;
  std::string path;
  std::uint32_t mode = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!reader.next(path, mode)) return std::nullopt;
    if ((mode & kTypeMask) != kGitlink) continue;
    if (out.paths.size() == max_gitlinks) return refusal(GitRefusalKind::too_many);
    out.paths.push_back(path);
  }
  if (!reader.ends_well(out.shared_index)) return std::nullopt;
  return out;
}

}  // namespace

Result<IndexGitlinks, GitRefusal> index_gitlinks(std::span<const std::uint8_t> data,
                                                 std::size_t max_entries,
                                                 std::size_t max_gitlinks) {
  if (data.size() < kHeaderBytes || std::memcmp(data.data(), "DIRC", 4) != 0)
    return refusal(GitRefusalKind::malformed);
  const std::uint32_t version = be32(data.data() + 4);
  const std::uint32_t count = be32(data.data() + 8);
  if (version < 2 || version > 4) return refusal(GitRefusalKind::malformed);
  if (count > max_entries) return refusal(GitRefusalKind::too_many);
  for (const std::size_t hash_bytes : {std::size_t{20}, std::size_t{32}}) {
    if (auto read = read_with_hash(data, version, count, hash_bytes, max_gitlinks)) return *read;
  }
  return refusal(GitRefusalKind::malformed);
}

}  // namespace msb::git
