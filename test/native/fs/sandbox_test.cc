// The Sandbox itself (sandbox.cc): creating it, locating virtual paths in its mounts, following
// symlinks beneath them, the read-only and mount-point rules, and restrict(). The suites shared
// with the other sandbox*_test.cc files are instantiated here, once.
#include "fs/sandbox.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h

INSTANTIATE_TEST_SUITE_P(Resolvers, SandboxTest, msb_test::each_resolver(),
                         msb_test::resolver_name);
INSTANTIATE_TEST_SUITE_P(Resolvers, FileOpsTest, msb_test::each_resolver(),
                         msb_test::resolver_name);

// ---------------------------------------------------------------------------------------------
// Paths

TEST_P(SandboxTest, MalformedPathsAreRefusedBeforeTheDisk) {
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->read("relative.txt")), Errc::invalid_path);
  EXPECT_EQ(code_of(sb->read("")), Errc::invalid_path);
  EXPECT_EQ(code_of(put(*sb, std::string_view("/a\0b", 4), "x")), Errc::invalid_path);
  EXPECT_EQ(code_of(sb->list("/\xED\xA0\x80")), Errc::invalid_path);
  EXPECT_EQ(code_of(sb->read("/../outside/secret.txt")), Errc::path_escape);
  EXPECT_EQ(code_of(put(*sb, "/a/../../outside/new.txt", "x")), Errc::path_escape);
  EXPECT_EQ(code_of(sb->remove("/../outside/secret.txt")), Errc::path_escape);
  EXPECT_EQ(code_of(sb->exists("/..")), Errc::path_escape);
  EXPECT_EQ(code_of(sb->restrict("/..", std::nullopt)), Errc::path_escape);
  EXPECT_EQ(tree(outside_), (Strings{"secret.txt"}));
  EXPECT_TRUE(tree(root_).empty());
}

TEST_P(SandboxTest, HostPathIsLexical) {
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec((tmp_.path() / "data").string(), "/data", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->host_path("/x/y")), Errc::ok);
  EXPECT_EQ(sb->host_path("/x/./y").value(), (root_ / "x/y").string());
  EXPECT_EQ(sb->host_path("/data/f").value(), (tmp_.path() / "data/f").string());
  EXPECT_EQ(sb->host_path("/data").value(), (tmp_.path() / "data").string());
  EXPECT_EQ(code_of(sb->host_path("/..")), Errc::path_escape);
}

// ---------------------------------------------------------------------------------------------
// Symlinks

TEST_P(SandboxTest, RelativeSymlinksInsideTheRootAreFollowed) {
  fs::create_directories(root_ / "real/deeper");
  fs::create_directories(root_ / "d");
  write_host(root_ / "real/f.txt", "content");
  make_symlink("real", root_ / "dirlink");
  make_symlink("real/f.txt", root_ / "filelink");
  make_symlink("../real/f.txt", root_ / "d/up");
  make_symlink("./real/../real/./deeper", root_ / "winding");
  make_symlink("filelink", root_ / "chain");
  auto sb = make();
  ASSERT_TRUE(sb);

  EXPECT_EQ(get(*sb, "/filelink"), "content");
  EXPECT_EQ(get(*sb, "/dirlink/f.txt"), "content");
  EXPECT_EQ(get(*sb, "/d/up"), "content");
  EXPECT_EQ(get(*sb, "/chain"), "content");
  EXPECT_EQ(get(*sb, "/winding/../f.txt"), "<NOT_FOUND>")
      << "`..` is lexical in virtual paths: /winding/../f.txt is /f.txt";

  auto link_info = sb->stat("/dirlink");
  ASSERT_TRUE(link_info.ok()) << msb::errc_name(code_of(link_info));
  EXPECT_TRUE(link_info.value().is_directory);
  auto file_info = sb->stat("/filelink");
  ASSERT_TRUE(file_info.ok());
  EXPECT_TRUE(file_info.value().is_file);
  EXPECT_EQ(file_info.value().size, 7u);
  auto exists = sb->exists("/dirlink");
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(exists.value());
}

TEST_P(SandboxTest, AbsoluteSymlinksAreRefused) {
  make_symlink((outside_ / "secret.txt").string(), root_ / "abs");
  make_symlink(outside_.string(), root_ / "absdir");
  make_symlink((root_ / "inside.txt").string(), root_ / "abs_in");  // absolute even if inside
  write_host(root_ / "inside.txt", "in");
  auto sb = make();
  ASSERT_TRUE(sb);
  const auto before = tree(outside_);

  EXPECT_EQ(code_of(sb->read("/abs")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->read("/abs_in")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->read("/absdir/secret.txt")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->list("/absdir")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->stat("/absdir/secret.txt")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->exists("/absdir/secret.txt")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->remove("/absdir/secret.txt")), Errc::symlink_escape);
  EXPECT_EQ(code_of(put(*sb, "/absdir/sub/new.txt", "x")), Errc::symlink_escape);
  EXPECT_EQ(tree(outside_), before);
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
}

TEST_P(SandboxTest, DotDotSymlinksLeavingTheRootAreRefused) {
  fs::create_directories(root_ / "d/e");
  make_symlink("../outside/secret.txt", root_ / "esc");
  make_symlink("../outside", root_ / "escdir");
  make_symlink("../../../outside", root_ / "d/e/deep");
  make_symlink("../d/../../outside/secret.txt", root_ / "d/winding");
  auto sb = make();
  ASSERT_TRUE(sb);
  const auto before = tree(outside_);

  EXPECT_EQ(code_of(sb->read("/esc")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->read("/escdir/secret.txt")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->read("/d/e/deep/secret.txt")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->read("/d/winding")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->stat("/esc")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->remove("/escdir/secret.txt")), Errc::symlink_escape);
  EXPECT_EQ(code_of(put(*sb, "/escdir/deeper/new.txt", "x")), Errc::symlink_escape);
  EXPECT_EQ(code_of(put(*sb, "/d/e/deep/x/new.txt", "x")), Errc::symlink_escape);
  EXPECT_EQ(tree(outside_), before);
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
}

TEST_P(SandboxTest, SymlinkLoopsAreRefused) {
  make_symlink("self", root_ / "self");
  make_symlink("pong", root_ / "ping");
  make_symlink("ping", root_ / "pong");
  make_symlink("self/x", root_ / "into_self");
  auto sb = make();
  ASSERT_TRUE(sb);

  EXPECT_EQ(code_of(sb->read("/self")), Errc::symlink_loop);
  EXPECT_EQ(code_of(sb->read("/ping")), Errc::symlink_loop);
  EXPECT_EQ(code_of(sb->read("/into_self")), Errc::symlink_loop);
  EXPECT_EQ(code_of(sb->read("/self/x")), Errc::symlink_loop);
  EXPECT_EQ(code_of(sb->stat("/ping")), Errc::symlink_loop);
  EXPECT_EQ(code_of(put(*sb, "/ping/sub/x", "x")), Errc::symlink_loop);
  EXPECT_EQ(tree(root_), (Strings{"into_self", "ping", "pong", "self"}));
}

TEST_P(SandboxTest, SymlinkLoopAsParentDirectoryIsRefused) {
  make_symlink("self", root_ / "self");
  make_symlink("pong", root_ / "ping");
  make_symlink("ping", root_ / "pong");
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(put(*sb, "/self/x", "x")), Errc::symlink_loop);
  EXPECT_EQ(code_of(sb->list("/ping")), Errc::symlink_loop);
  EXPECT_EQ(tree(root_), (Strings{"ping", "pong", "self"}));
}

TEST_P(SandboxTest, DanglingSymlinks) {
  make_symlink("missing", root_ / "dang");
  make_symlink("nodir", root_ / "dangdir");
  make_symlink("../outside/newdir", root_ / "dang_out");
  auto sb = make();
  ASSERT_TRUE(sb);
  const auto before = tree(outside_);

  EXPECT_EQ(code_of(sb->read("/dang")), Errc::not_found);
  EXPECT_EQ(code_of(sb->stat("/dang")), Errc::not_found);
  auto exists = sb->exists("/dang");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(exists.value());
  EXPECT_EQ(code_of(sb->list("/dangdir")), Errc::not_found);

  // Creating through a dangling directory link must not create its target.
  EXPECT_EQ(code_of(put(*sb, "/dangdir/x.txt", "x")), Errc::not_found);
  EXPECT_EQ(code_of(put(*sb, "/dangdir/a/x.txt", "x")), Errc::not_found);
  EXPECT_FALSE(host_entry_exists(root_ / "nodir"));
  EXPECT_EQ(code_of(put(*sb, "/dang_out/x.txt", "x")), Errc::symlink_escape);
  EXPECT_EQ(tree(outside_), before);
  EXPECT_FALSE(host_entry_exists(outside_ / "newdir"));
}

// ---------------------------------------------------------------------------------------------
// Read-only mounts

TEST_P(SandboxTest, ReadOnlyMountRefusesMutation) {
  const fs::path cfg = tmp_.path() / "cfg";
  fs::create_directories(cfg / "sub");
  write_host(cfg / "conf.ini", "a=1");
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec(cfg.string(), "/cfg", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  const auto before = tree(cfg);

  EXPECT_EQ(get(*sb, "/cfg/conf.ini"), "a=1");
  auto listed = sb->list("/cfg");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed.value(), (Strings{"conf.ini", "sub"}));
  EXPECT_EQ(code_of(put(*sb, "/cfg/new.txt", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb, "/cfg/conf.ini", "a=2")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb, "/cfg/sub/deeper/new.txt", "x")), Errc::read_only);
  EXPECT_EQ(code_of(sb->remove("/cfg/conf.ini")), Errc::read_only);
  EXPECT_EQ(code_of(sb->may_write("/cfg/new.txt")), Errc::read_only);
  EXPECT_EQ(tree(cfg), before);
  EXPECT_EQ(read_host(cfg / "conf.ini"), "a=1");

  // The rest of the root stays writable.
  EXPECT_EQ(code_of(sb->may_write("/elsewhere.txt")), Errc::ok);
  EXPECT_EQ(code_of(put(*sb, "/elsewhere.txt", "x")), Errc::ok);
}

TEST_P(SandboxTest, ReadOnlySandboxRefusesMutation) {
  write_host(root_ / "f.txt", "x");
  auto o = options();
  o.root.readonly = true;
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(get(*sb, "/f.txt"), "x");
  EXPECT_EQ(code_of(put(*sb, "/f.txt", "y")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb, "/new/g.txt", "y")), Errc::read_only);
  EXPECT_EQ(code_of(sb->remove("/f.txt")), Errc::read_only);
  EXPECT_EQ(tree(root_), (Strings{"f.txt"}));
  EXPECT_EQ(read_host(root_ / "f.txt"), "x");
}

// root=/T, mount {source:/T/ro, target:/cfg, readonly}: /T/ro is reachable twice, as /cfg and as
// /ro through the writable root. Both names must be read-only.
class ReadOnlySourceInsideRoot : public SandboxTest {
 protected:
  void SetUp() override {
    SandboxTest::SetUp();
    if (IsSkipped()) return;
    fs::create_directories(root_ / "ro/deeper");
    write_host(root_ / "ro/existing.txt", "keep");
    write_host(root_ / "ro/deeper/nested.txt", "keep2");
    make_symlink("ro", root_ / "rolink");
    make_symlink("ro/deeper", root_ / "deeperlink");
    make_symlink("../ro", root_ / "ro/deeper/up");
    auto o = options();
    o.mounts.push_back(msb_test::mount_spec((root_ / "ro").string(), "/cfg", true));
    sb_ = make(o);
    ASSERT_TRUE(sb_);
    before_ = tree(root_ / "ro");
  }

  std::shared_ptr<Sandbox> sb_;
  Strings before_;
};

INSTANTIATE_TEST_SUITE_P(Resolvers, ReadOnlySourceInsideRoot, msb_test::each_resolver(),
                         msb_test::resolver_name);

TEST_P(ReadOnlySourceInsideRoot, ThroughTheRootPath) {
  EXPECT_EQ(get(*sb_, "/ro/existing.txt"), "keep");
  EXPECT_EQ(code_of(put(*sb_, "/ro/x", "x")), Errc::read_only);
  EXPECT_FALSE(host_entry_exists(root_ / "ro/x"));
  EXPECT_EQ(code_of(put(*sb_, "/ro/existing.txt", "changed")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb_, "/ro/deeper/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb_, "/ro/newdir/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb_, "/ro/deeper/newdir/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(sb_->remove("/ro/existing.txt")), Errc::read_only);
  EXPECT_EQ(code_of(sb_->remove("/ro/deeper/nested.txt")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "ro"), before_);
  EXPECT_EQ(read_host(root_ / "ro/existing.txt"), "keep");

  // And through the mount's own name, of course.
  EXPECT_EQ(code_of(put(*sb_, "/cfg/x", "x")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "ro"), before_);

  // Siblings of the read-only source stay writable.
  EXPECT_EQ(code_of(put(*sb_, "/rw/x", "x")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "rw/x"), "x");
}

TEST_P(ReadOnlySourceInsideRoot, ThroughIntermediateSymlinks) {
  EXPECT_EQ(code_of(put(*sb_, "/rolink/deeper/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb_, "/ro/deeper/up/deeper/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(sb_->remove("/rolink/deeper/nested.txt")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "ro"), before_);
}

TEST_P(ReadOnlySourceInsideRoot, ThroughFinalSymlinkToTheSource) {
  EXPECT_EQ(get(*sb_, "/rolink/existing.txt"), "keep");
  EXPECT_EQ(code_of(put(*sb_, "/rolink/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb_, "/rolink/existing.txt", "changed")), Errc::read_only);
  EXPECT_EQ(code_of(put(*sb_, "/deeperlink/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(sb_->remove("/rolink/existing.txt")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "ro"), before_);
  EXPECT_EQ(read_host(root_ / "ro/existing.txt"), "keep");
}

TEST_P(ReadOnlySourceInsideRoot, RestrictedChildStillCannotWrite) {
  // The child's root is the read-only source itself.
  auto child = sb_->restrict("/ro", std::nullopt);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(get(*child.value(), "/existing.txt"), "keep");
  EXPECT_EQ(code_of(put(*child.value(), "/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(child.value()->remove("/existing.txt")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "ro"), before_);
}

TEST_P(ReadOnlySourceInsideRoot, RestrictedIntoSubdirectoryOfSourceStillCannotWrite) {
  // The child's root lies strictly inside the read-only source, reached through the writable root.
  auto child = sb_->restrict("/ro/deeper", std::nullopt);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(get(*child.value(), "/nested.txt"), "keep2");
  EXPECT_EQ(code_of(put(*child.value(), "/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(*child.value(), "/nested.txt", "changed")), Errc::read_only);
  EXPECT_EQ(code_of(child.value()->remove("/nested.txt")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "ro"), before_);
  EXPECT_EQ(read_host(root_ / "ro/deeper/nested.txt"), "keep2");
}

// ---------------------------------------------------------------------------------------------
// restrict()

TEST_P(SandboxTest, RestrictKeepsHiddenReadOnlySources) {
  // The read-only source lies inside /sub, its target /cfg outside it: the child cannot name
  // /cfg, but /sub/ro is still the read-only source.
  fs::create_directories(root_ / "sub/ro");
  write_host(root_ / "sub/ro/keep.txt", "keep");
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec((root_ / "sub/ro").string(), "/cfg", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);

  auto restricted = sb->restrict("/sub", std::nullopt);
  ASSERT_TRUE(restricted.ok());
  const Sandbox& child = *restricted.value();
  auto top = child.list("/");
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top.value(), (Strings{"ro"}));  // no "cfg"
  EXPECT_EQ(get(child, "/ro/keep.txt"), "keep");
  EXPECT_EQ(code_of(put(child, "/ro/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(child, "/ro/new/x", "x")), Errc::read_only);
  EXPECT_EQ(code_of(put(child, "/ro/keep.txt", "changed")), Errc::read_only);
  EXPECT_EQ(code_of(child.remove("/ro/keep.txt")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "sub/ro"), (Strings{"keep.txt"}));

  // The rest of the child's root is writable.
  EXPECT_EQ(code_of(put(child, "/ok.txt", "ok")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "sub/ok.txt"), "ok");

  // A relative symlink in the child pointing at the hidden source changes nothing.
  make_symlink("ro", root_ / "sub/rolink");
  EXPECT_EQ(code_of(put(child, "/rolink/new/x", "x")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "sub/ro"), (Strings{"keep.txt"}));

  // Nor does another level of restrict().
  auto grandchild = child.restrict("/", std::nullopt);
  ASSERT_TRUE(grandchild.ok());
  EXPECT_EQ(code_of(put(*grandchild.value(), "/ro/x", "x")), Errc::read_only);
  EXPECT_EQ(tree(root_ / "sub/ro"), (Strings{"keep.txt"}));
}

TEST_P(SandboxTest, RestrictNarrowsTheView) {
  fs::create_directories(root_ / "sub/inner");
  write_host(root_ / "sub/inner/f.txt", "f");
  write_host(root_ / "top.txt", "t");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto restricted = sb->restrict("/sub", std::nullopt);
  ASSERT_TRUE(restricted.ok());
  const Sandbox& child = *restricted.value();
  EXPECT_EQ(child.resolver(), GetParam());
  EXPECT_EQ(get(child, "/inner/f.txt"), "f");
  EXPECT_EQ(code_of(child.read("/top.txt")), Errc::not_found);
  EXPECT_EQ(code_of(child.read("/../top.txt")), Errc::path_escape);
  ASSERT_EQ(code_of(put(child, "/new.txt", "n")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "sub/new.txt"), "n");

  auto ro = sb->restrict("/sub", true);
  ASSERT_TRUE(ro.ok());
  EXPECT_EQ(code_of(put(*ro.value(), "/x.txt", "x")), Errc::read_only);
  EXPECT_EQ(code_of(ro.value()->restrict("/inner", false)), Errc::permission_escalation);
  EXPECT_FALSE(host_entry_exists(root_ / "sub/x.txt"));
}

TEST_P(SandboxTest, RestrictPinsTheSubtreeWhenFirstUsed) {
  fs::create_directories(root_ / "sub");
  write_host(root_ / "sub/f.txt", "before");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto restricted = sb->restrict("/sub", std::nullopt);
  ASSERT_TRUE(restricted.ok());
  const Sandbox& child = *restricted.value();
  ASSERT_EQ(get(child, "/f.txt"), "before");
  // Swapping /sub for a symlink to the outside after the child pinned it changes nothing.
  fs::rename(root_ / "sub", root_ / "sub.old");
  make_symlink(outside_.string(), root_ / "sub");
  EXPECT_EQ(get(child, "/f.txt"), "before");
  EXPECT_EQ(code_of(child.read("/secret.txt")), Errc::not_found);
  EXPECT_EQ(code_of(put(child, "/new.txt", "x")), Errc::ok);
  EXPECT_FALSE(host_entry_exists(outside_ / "new.txt"));
  EXPECT_EQ(read_host(root_ / "sub.old/new.txt"), "x");
}

TEST_P(SandboxTest, RestrictOntoSymlinkLeavingTheRootIsRefused) {
  make_symlink("../outside", root_ / "escdir");
  make_symlink(outside_.string(), root_ / "absdir");
  auto sb = make();
  ASSERT_TRUE(sb);
  for (const char* sub : {"/escdir", "/absdir"}) {
    auto restricted = sb->restrict(sub, std::nullopt);
    if (!restricted.ok()) {
      EXPECT_EQ(code_of(restricted), Errc::symlink_escape) << sub;
      continue;
    }
    // Anchors open lazily: the refusal may come on first use instead.
    const Sandbox& child = *restricted.value();
    EXPECT_EQ(code_of(child.read("/secret.txt")), Errc::symlink_escape) << sub;
    EXPECT_EQ(code_of(put(child, "/new.txt", "x")), Errc::symlink_escape) << sub;
  }
  EXPECT_EQ(tree(outside_), (Strings{"secret.txt"}));
}

TEST_P(SandboxTest, RestrictPinsTheSubtreeWithoutFollowingLinks) {
  fs::create_directories(root_ / "src");
  write_host(root_ / "src/app.ts", "app");
  make_symlink(".", root_ / "self");
  make_symlink("src", root_ / "alias");
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->restrict("/self", std::nullopt)), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->restrict("/alias", std::nullopt)), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->restrict("/missing", std::nullopt)), Errc::not_found);
  EXPECT_EQ(code_of(sb->restrict("/src/app.ts", std::nullopt)), Errc::not_directory);
  auto child = sb->restrict("/src", std::nullopt);
  ASSERT_TRUE(child.ok());
  fs::rename(root_ / "src", root_ / "moved");
  make_symlink(".", root_ / "src");
  EXPECT_EQ(get(*child.value(), "/app.ts"), "app");
}

// ---------------------------------------------------------------------------------------------
// Mount points

TEST_P(SandboxTest, MountTargetsCannotBeWrittenOrRemoved) {
  const fs::path data = tmp_.path() / "data";
  const fs::path deep = tmp_.path() / "deep";
  fs::create_directories(data);
  fs::create_directories(deep);
  fs::create_directories(root_ / "data");  // shadowed by the mount
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec(data.string(), "/data", false));
  o.mounts.push_back(msb_test::mount_spec(deep.string(), "/a/b", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);

  for (const char* target : {"/data", "/data/", "/a", "/a/b", "/a/./b"}) {
    EXPECT_EQ(code_of(put(*sb, target, "x")), Errc::mount_point) << target;
    EXPECT_EQ(code_of(sb->remove(target)), Errc::mount_point) << target;
    EXPECT_EQ(code_of(sb->may_write(target)), Errc::mount_point) << target;
  }
  EXPECT_TRUE(fs::is_directory(data));
  EXPECT_TRUE(fs::is_directory(deep));
  EXPECT_TRUE(fs::is_directory(root_ / "data"));
  EXPECT_FALSE(host_entry_exists(root_ / "a"));

  // Below a mount target is ordinary territory of that mount.
  EXPECT_EQ(code_of(put(*sb, "/data/x.txt", "x")), Errc::ok);
  EXPECT_EQ(read_host(data / "x.txt"), "x");
  EXPECT_FALSE(host_entry_exists(root_ / "data/x.txt"));
  EXPECT_EQ(code_of(put(*sb, "/a/b/y.txt", "y")), Errc::ok);
  EXPECT_EQ(read_host(deep / "y.txt"), "y");
  // Beside a mount target inside a virtual directory: the root mount answers.
  EXPECT_EQ(code_of(put(*sb, "/a/c.txt", "c")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "a/c.txt"), "c");
}

TEST_P(SandboxTest, MountedContentIsServedFromTheSource) {
  const fs::path data = tmp_.path() / "data";
  fs::create_directories(data);
  write_host(data / "d.txt", "from mount");
  fs::create_directories(root_ / "data");
  write_host(root_ / "data/d.txt", "from root");
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec(data.string(), "/data", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(get(*sb, "/data/d.txt"), "from mount");
  // A mount's symlinks are confined to the mount: `..` out of it is an escape.
  make_symlink("../root/f.txt", data / "up");
  write_host(root_ / "f.txt", "f");
  EXPECT_EQ(code_of(sb->read("/data/up")), Errc::symlink_escape);
}

TEST_P(SandboxTest, InvalidConfigurationIsRejected) {
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec(outside_.string(), "/", false));
  EXPECT_EQ(code_of(Sandbox::create(o)), Errc::invalid_config);
  o.mounts = {msb_test::mount_spec("relative", "/x", false)};
  EXPECT_EQ(code_of(Sandbox::create(o)), Errc::invalid_config);
  o.mounts = {msb_test::mount_spec(outside_.string(), "/x", false),
              msb_test::mount_spec(outside_.string(), "/x/", true)};
  EXPECT_EQ(code_of(Sandbox::create(o)), Errc::invalid_config);
  o.mounts.clear();
  o.root.source = "relative/root";
  EXPECT_EQ(code_of(Sandbox::create(o)), Errc::invalid_config);
}

}  // namespace
}  // namespace msb
