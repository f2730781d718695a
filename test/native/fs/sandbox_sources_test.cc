// The mount sources (sandbox_sources.cc and their pinning): created on request, settled by the
// first operation, never trusted through a link inside a writable source.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

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

// ---------------------------------------------------------------------------------------------
// Sources on pseudo-filesystems: refused unless the mount allows them

MountSpec pseudo_mount(const std::string& source, const std::string& target, bool allow) {
  MountSpec m = msb_test::mount_spec(source, target, true);
  m.allow_pseudo_filesystem = allow;
  return m;
}

TEST_P(SandboxTest, SourcesOnProcfsAreRefusedUnlessAllowed) {
  auto o = options();
  o.mounts.push_back(pseudo_mount("/proc/self", "/host", false));
  o.mounts.push_back(pseudo_mount("/proc/self", "/allowed", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  auto refused = sb->read("/host/environ");
  ASSERT_EQ(code_of(refused), Errc::pseudo_filesystem);
  ASSERT_NE(refused.error().filesystem, nullptr);
  EXPECT_STREQ(refused.error().filesystem, "proc");
  EXPECT_EQ(code_of(sb->list("/host")), Errc::pseudo_filesystem);
  EXPECT_EQ(code_of(sb->read("/allowed/environ")), Errc::ok);
  // The rest of the sandbox is unaffected; exec refuses the sandbox naming the mount.
  EXPECT_EQ(code_of(put(*sb, "/a.txt", "a")), Errc::ok);
  auto paths = sb->exec_paths();
  ASSERT_EQ(code_of(paths), Errc::pseudo_filesystem);
  EXPECT_EQ(sb->table().mounts()[paths.error().index].target.str(), "/host");
}

TEST_P(SandboxTest, ARootOnProcfsAndALinkToItAreRefused) {
  auto o = options();
  o.root.source = "/proc/self";
  auto rooted = make(o);
  ASSERT_TRUE(rooted);
  EXPECT_EQ(code_of(rooted->read("/status")), Errc::pseudo_filesystem);
  make_symlink("/proc/self", tmp_.path() / "innocent");
  auto linked_options = options();
  linked_options.mounts.push_back(pseudo_mount((tmp_.path() / "innocent").string(), "/i", false));
  auto linked = make(linked_options);
  ASSERT_TRUE(linked);
  EXPECT_EQ(code_of(linked->create_sources()), Errc::pseudo_filesystem);
  o.root.allow_pseudo_filesystem = true;
  auto allowed = make(o);
  ASSERT_TRUE(allowed);
  EXPECT_EQ(code_of(allowed->read("/status")), Errc::ok);
}

TEST_P(SandboxTest, SysfsAndTheDeviceFilesystemAreRefused) {
  auto o = options();
  o.mounts.push_back(pseudo_mount("/sys", "/sys", false));
  o.mounts.push_back(pseudo_mount("/dev", "/dev", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  auto sys = sb->list("/sys");
  ASSERT_EQ(code_of(sys), Errc::pseudo_filesystem);
  EXPECT_STREQ(sys.error().filesystem, "sysfs");
  struct stat dev;
  struct stat root;
  ASSERT_EQ(::stat("/dev", &dev), 0);
  ASSERT_EQ(::stat("/", &root), 0);
  if (dev.st_dev == root.st_dev) GTEST_SKIP() << "/dev is not a filesystem of its own here";
  auto devices = sb->list("/dev");
  ASSERT_EQ(code_of(devices), Errc::pseudo_filesystem);
  EXPECT_STREQ(devices.error().filesystem, "devtmpfs");
}

TEST(PseudoFilesystem, NamesWhatIsNotDataAndNothingElse) {
  TempDir tmp;
  auto check = [](const char* path) -> const char* {
    UniqueFd fd(::open(path, O_PATH | O_CLOEXEC));
    EXPECT_TRUE(fd.valid()) << path;
    auto kind = pseudo_filesystem_of(fd.get());
    EXPECT_TRUE(kind.ok()) << path;
    return kind.ok() ? kind.value() : "<error>";
  };
  EXPECT_STREQ(check("/proc/self/status"), "proc");
  EXPECT_STREQ(check("/proc"), "proc");
  EXPECT_STREQ(check("/sys"), "sysfs");
  EXPECT_EQ(check(tmp.path().c_str()), nullptr);
  EXPECT_EQ(check("/"), nullptr);
  // A tmpfs that is not /dev holds data.
  struct stat shm;
  struct stat dev;
  if (::stat("/dev/shm", &shm) == 0 && ::stat("/dev", &dev) == 0 && shm.st_dev != dev.st_dev) {
    EXPECT_EQ(check("/dev/shm"), nullptr);
  }
  EXPECT_EQ(code_of(pseudo_filesystem_of(-1)), Errc::io_error);
}

}  // namespace
}  // namespace msb
