// The fixture the resolver-parameterized Sandbox suites share: each test runs once per resolver
// (the kernel's openat2 and the userspace component walk must agree on every answer) in a fresh
// temp dir holding the sandbox's root and, beside it, an outside directory with a secret that a
// test may try to reach.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "fs/sandbox.h"
#include "test_util.h"

namespace msb_test {

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

}  // namespace msb_test
