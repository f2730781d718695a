// The mount sources (sandbox_sources.cc and their pinning): created on request, settled by the
// first operation, never trusted through a link inside a writable source.
#include <gtest/gtest.h>

#include <string>

#include "fs/sandbox.h"
#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h

TEST_P(SandboxTest, CreateSourcesMakesMissingDirectories) {
  auto o = options();
  o.root.source = (tmp_.path() / "new/root").string();
  o.mounts.push_back(msb_test::mount_spec((tmp_.path() / "new/m1/deep").string(), "/m1", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->create_sources()), Errc::ok);
  EXPECT_TRUE(fs::is_directory(tmp_.path() / "new/root"));
  EXPECT_TRUE(fs::is_directory(tmp_.path() / "new/m1/deep"));
  EXPECT_EQ(code_of(put(*sb, "/m1/f.txt", "f")), Errc::ok);
  EXPECT_EQ(read_host(tmp_.path() / "new/m1/deep/f.txt"), "f");
}

TEST_P(SandboxTest, SourcesMissingAtTheFirstOperationStayMissing) {
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec((root_ / "later").string(), "/later", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->read("/later/x")), Errc::not_found);
  fs::create_directories(root_ / "later");
  write_host(root_ / "later/x", "planted");
  EXPECT_EQ(code_of(sb->read("/later/x")), Errc::not_found);
  // Too late to create: the sources were settled by the first operation.
  EXPECT_EQ(code_of(sb->create_sources()), Errc::not_found);
}

TEST_P(SandboxTest, SourceReplacedByALinkInsideAWritableSourceIsRefused) {
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec((root_ / "cache").string(), "/cache", false));
  o.mounts.push_back(msb_test::mount_spec((root_ / "ro").string(), "/ro", true));
  make_symlink(outside_.string(), root_ / "cache");
  fs::create_directories(root_ / "real");
  make_symlink("real", root_ / "ro");
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->read("/cache/secret.txt")), Errc::untrusted_source);
  EXPECT_EQ(code_of(put(*sb, "/cache/new.txt", "x")), Errc::untrusted_source);
  EXPECT_EQ(code_of(sb->read("/ro/x")), Errc::untrusted_source);
  EXPECT_FALSE(host_entry_exists(outside_ / "new.txt"));
  EXPECT_EQ(code_of(sb->create_sources()), Errc::untrusted_source);
}

TEST_P(SandboxTest, OperatorLinksOutsideWritableSourcesAreFollowed) {
  fs::create_directories(tmp_.path() / "shared");
  write_host(tmp_.path() / "shared/lib.txt", "lib");
  make_symlink((tmp_.path() / "shared").string(), tmp_.path() / "shared-alias");
  make_symlink(root_.string(), tmp_.path() / "root-alias");
  auto o = options();
  o.root.source = (tmp_.path() / "root-alias").string();
  o.mounts.push_back(msb_test::mount_spec((tmp_.path() / "shared-alias").string(), "/lib", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(get(*sb, "/lib/lib.txt"), "lib");
  EXPECT_EQ(code_of(put(*sb, "/a.txt", "a")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "a.txt"), "a");
}

TEST_P(SandboxTest, CreateSourcesNeverCreatesThroughALinkInAWritableSource) {
  make_symlink(outside_.string(), root_ / "cache");
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec((root_ / "cache/sub/deeper").string(), "/sub", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->create_sources()), Errc::untrusted_source);
  EXPECT_FALSE(host_entry_exists(outside_ / "sub"));
  EXPECT_EQ(code_of(sb->list("/sub")), Errc::untrusted_source);
}

}  // namespace
}  // namespace msb
