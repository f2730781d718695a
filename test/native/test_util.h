// Shared helpers for the core unit tests: temporary directories, host-side file helpers, and
// readable printing of Errc values in assertion messages.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "fs/fd_io.h"
#include "fs/mount_table.h"
#include "fs/resolver.h"

namespace msb {

// gtest finds these by ADL, so failures print "READ_ONLY" rather than a raw byte.
inline void PrintTo(Errc code, std::ostream* os) {
  *os << errc_name(code);
}

inline void PrintTo(ResolverKind kind, std::ostream* os) {
  switch (kind) {
    case ResolverKind::automatic: *os << "automatic"; return;
    case ResolverKind::openat2: *os << "openat2"; return;
    case ResolverKind::walk: *os << "walk"; return;
  }
  *os << "ResolverKind(" << static_cast<int>(kind) << ")";
}

}  // namespace msb

namespace msb_test {

namespace fs = std::filesystem;

template <typename T>
msb::Errc code_of(const msb::Result<T>& result) {
  return result.ok() ? msb::Errc::ok : result.error().code;
}

inline std::string to_string(const msb::Bytes& bytes) {
  if (bytes.size == 0) return {};
  return std::string(reinterpret_cast<const char*>(bytes.data.get()), bytes.size);
}

// A fresh mkdtemp directory, removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir() {
    const char* env = std::getenv("TMPDIR");
    std::string pattern =
        std::string(env != nullptr && *env != '\0' ? env : "/tmp") + "/msb-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp failed: " << std::strerror(errno);
      return;
    }
    path_ = buf.data();
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    // Directories made unwritable by a test must be writable again before removal.
    for (auto it = fs::recursive_directory_iterator(path_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        ::chmod(it->path().c_str(), 0700);
      }
    }
    fs::remove_all(path_, ec);
  }

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline void write_host(const fs::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

inline std::string read_host(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// True for any directory entry, including dangling symlinks.
inline bool host_entry_exists(const fs::path& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// Every entry below `dir`, relative and sorted: compared before and after an operation to prove
// nothing was created, removed or renamed there.
inline std::vector<std::string> tree(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    out.push_back(it->path().lexically_relative(dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A mount with default approvals and policy (aggregate init would leave them to -Wextra).
inline msb::MountSpec mount_spec(const std::string& source, const std::string& target,
                                 bool readonly) {
  msb::MountSpec m;
  m.source = source;
  m.target = target;
  m.readonly = readonly;
  return m;
}

// Names parameterized suites by resolver: ".../openat2", ".../walk".
inline std::string resolver_name(const ::testing::TestParamInfo<msb::ResolverKind>& info) {
  switch (info.param) {
    case msb::ResolverKind::openat2: return "openat2";
    case msb::ResolverKind::walk: return "walk";
    case msb::ResolverKind::automatic: return "automatic";
  }
  return "unknown";
}

}  // namespace msb_test
