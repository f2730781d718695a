#include "fs/file_version.h"

#include <sys/sysmacros.h>

#include <cstdio>

#include "common/sys.h"

namespace msb {
namespace {

std::int64_t ns_of(const struct timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::int64_t ns_of(const struct statx_timestamp& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::uint64_t rotl(std::uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

// SipHash-2-4 (Aumasson and Bernstein) of whole 64-bit words, with the final block carrying the
// byte length as the reference implementation's does for a message of 8 * n bytes.
class SipHash {
 public:
  SipHash(std::uint64_t k0, std::uint64_t k1)
      : v0_(0x736f6d6570736575ULL ^ k0),
        v1_(0x646f72616e646f6dULL ^ k1),
        v2_(0x6c7967656e657261ULL ^ k0),
        v3_(0x7465646279746573ULL ^ k1) {}

  void add(std::uint64_t m) {
    v3_ ^= m;
    round();
    round();
    v0_ ^= m;
    bytes_ += 8;
  }

  std::uint64_t finish() {
    const std::uint64_t last = static_cast<std::uint64_t>(bytes_ & 0xff) << 56;
    v3_ ^= last;
    round();
    round();
    v0_ ^= last;
    v2_ ^= 0xff;
    for (int i = 0; i < 4; ++i) round();
    return v0_ ^ v1_ ^ v2_ ^ v3_;
  }

 private:
  void round() {
    v0_ += v1_;
    v1_ = rotl(v1_, 13);
    v1_ ^= v0_;
    v0_ = rotl(v0_, 32);
    v2_ += v3_;
    v3_ = rotl(v3_, 16);
    v3_ ^= v2_;
    v0_ += v3_;
    v3_ = rotl(v3_, 21);
    v3_ ^= v0_;
    v2_ += v1_;
    v1_ = rotl(v1_, 17);
    v1_ ^= v2_;
    v2_ = rotl(v2_, 32);
  }

  std::uint64_t v0_, v1_, v2_, v3_;
  std::uint64_t bytes_ = 0;
};

// Fixed, so that tokens compare equal across processes; the hash only has to hide the fields and
// spread them, not to resist someone who wants to forge a token (that only defeats the caller's
// own check).
constexpr std::uint64_t kKey0 = 0x6d6f756e742d7361ULL;  // "mount-sa"
constexpr std::uint64_t kKey1 = 0x6e64626f782d7631ULL;  // "ndbox-v1"

}  // namespace

FileVersion version_of(const struct stat& st) noexcept {
  return FileVersion{static_cast<std::uint64_t>(st.st_dev),
                     static_cast<std::uint64_t>(st.st_ino),
                     static_cast<std::uint32_t>(st.st_mode & S_IFMT),
                     static_cast<std::uint64_t>(st.st_size),
                     ns_of(st.st_mtim),
                     ns_of(st.st_ctim)};
}

FileVersion version_of(const struct statx& sx) noexcept {
  return FileVersion{static_cast<std::uint64_t>(makedev(sx.stx_dev_major, sx.stx_dev_minor)),
                     sx.stx_ino,
                     static_cast<std::uint32_t>(sx.stx_mode & S_IFMT),
                     sx.stx_size,
                     ns_of(sx.stx_mtime),
                     ns_of(sx.stx_ctime)};
}

std::string version_token(const FileVersion& v) {
  SipHash h(kKey0, kKey1);
  h.add(v.dev);
  h.add(v.ino);
  h.add(v.type);
  h.add(v.size);
  h.add(static_cast<std::uint64_t>(v.mtime_ns));
  h.add(static_cast<std::uint64_t>(v.ctime_ns));
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(h.finish()));
  return text;
}

Result<FileVersion> version_of_fd(int fd) {
  auto st = sys::stat_fd(fd);
  if (!st) return st.error();
  return version_of(st.value());
}

Result<std::optional<FileVersion>> version_of_entry(int dir_fd, const std::string& name) {
  auto st = sys::stat_at(dir_fd, name.c_str());
  if (!st) {
    if (st.error().code == Errc::not_found) return std::optional<FileVersion>{};
    return st.error();
  }
  return std::optional<FileVersion>{version_of(st.value())};
}

}  // namespace msb
