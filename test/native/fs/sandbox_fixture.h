// The fixture the resolver-parameterized Sandbox suites share: each test runs once per resolver
// (the kernel's openat2 and the userspace component walk must agree on every answer) in a fresh
// temp dir holding the sandbox's root and, beside it, an outside directory with a secret that a
// test may try to reach. Also the suites and helpers that the sandbox*_test.cc files, which
// mirror src/fs/sandbox*.cc, have in common.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fs/sandbox.h"
#include "test_util.h"

namespace msb_test {

using Strings = std::vector<std::string>;

inline void make_symlink(const std::string& target, const fs::path& link) {
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0) << link << ": " << std::strerror(errno);
}

// The resolvers every parameterized Sandbox suite runs with; tests name them by resolver_name.
inline auto each_resolver() {
  return ::testing::Values(msb::ResolverKind::openat2, msb::ResolverKind::walk);
}

class ResolverSandboxTest : public ::testing::TestWithParam<msb::ResolverKind> {
 protected:
  // Suites that add directories call this first and return when IsSkipped() or a fatal failure.
  void SetUp() override {
    if (GetParam() == msb::ResolverKind::openat2 && !msb::openat2_supported()) {
      GTEST_SKIP() << "openat2 is not available here";
    }
    ASSERT_FALSE(tmp_.path().empty());
    root_ = tmp_.path() / "root";
    outside_ = tmp_.path() / "outside";
    fs::create_directories(root_);
    fs::create_directories(outside_);
    write_host(outside_ / "secret.txt", "secret");
  }

  msb::SandboxOptions options() const {
    msb::SandboxOptions o;
    o.root.source = root_.string();
    o.resolver = GetParam();
    return o;
  }

  std::shared_ptr<msb::Sandbox> make(const msb::SandboxOptions& o) {
    auto sb = msb::Sandbox::create(o);
    EXPECT_TRUE(sb.ok()) << msb::errc_name(code_of(sb));
    return sb.ok() ? sb.value() : nullptr;
  }
  std::shared_ptr<msb::Sandbox> make() { return make(options()); }

  TempDir tmp_;
  fs::path root_;
  fs::path outside_;
};

inline constexpr msb::ApprovalRule kBlockWrites{msb::Approval::blocked, msb::Approval::ask};
inline constexpr msb::ApprovalRule kBlockDeletes{msb::Approval::ask, msb::Approval::blocked};

inline msb::Status put(const msb::Sandbox& sb, std::string_view path, std::string_view content) {
  return sb.write(path, reinterpret_cast<const std::uint8_t*>(content.data()), content.size());
}

inline std::string get(const msb::Sandbox& sb, std::string_view path) {
  auto bytes = sb.read(path);
  if (!bytes.ok()) return "<" + std::string(msb::errc_name(bytes.error().code)) + ">";
  return msb_test::to_string(bytes.value());
}

// user::rw- user:nobody:--- group::r-- mask::r-- other::r--, as system.posix_acl_access holds it.
inline const std::string kDenyNobodyAcl(
    "\x02\0\0\0"
    "\x01\0\x06\0\xff\xff\xff\xff"
    "\x02\0\0\0\xfe\xff\0\0"
    "\x04\0\x04\0\xff\xff\xff\xff"
    "\x10\0\x04\0\xff\xff\xff\xff"
    "\x20\0\x04\0\xff\xff\xff\xff",
    44);

inline std::string xattr_of(const fs::path& path, const char* name) {
  char buf[256];
  const ssize_t n = ::getxattr(path.c_str(), name, buf, sizeof(buf));
  return n < 0 ? "<none>" : std::string(buf, static_cast<std::size_t>(n));
}

inline unsigned mode_of(const fs::path& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

inline msb::MountSpec mount(const fs::path& source, std::string target, bool readonly,
                            msb::ApprovalRule approval = {}, msb::FilePolicy policy = {}) {
  return msb::MountSpec{source.string(), std::move(target), readonly, approval, std::move(policy)};
}

inline msb::FilePolicy suffixes(std::vector<std::string> allowed,
                                std::vector<std::string> denied = {}) {
  msb::FilePolicy p;
  p.allowed_suffixes = std::move(allowed);
  p.denied_suffixes = std::move(denied);
  return p;
}

inline msb::FilePolicy denying(std::vector<std::string> denied) {
  msb::FilePolicy p;
  p.denied_suffixes = std::move(denied);
  return p;
}

inline msb::FilePolicy max_bytes(std::uint64_t n) {
  msb::FilePolicy p;
  p.max_file_bytes = n;
  return p;
}

template <typename T>
std::size_t index_of(const msb::Result<T>& result) {
  return result.ok() ? msb::Error::kNoIndex : result.error().index;
}

// SandboxTest and FileOpsTest span several files: gtest wants one instantiation of a suite, so
// sandbox_test.cc instantiates both.
class SandboxTest : public ResolverSandboxTest {};

class FileOpsTest : public ResolverSandboxTest {
 protected:
  void SetUp() override {
    ResolverSandboxTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    data_ = tmp_.path() / "data";
    ro_ = tmp_.path() / "ro";
    for (const auto& dir : {data_, ro_}) fs::create_directories(dir);
  }

  // Root, a writable /data and a read-only /ro.
  msb::SandboxOptions with_mounts() const {
    auto o = options();
    o.mounts.push_back(mount(data_, "/data", false));
    o.mounts.push_back(mount(ro_, "/ro", true));
    return o;
  }

  fs::path data_;
  fs::path ro_;
};

}  // namespace msb_test
