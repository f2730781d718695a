// The changing side of the file tools (sandbox_write.cc): write, remove, edit and mkdir -p, on
// real files, with both resolvers.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fs/file_version.h"
#include "fs/sandbox.h"
#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h

// ---------------------------------------------------------------------------------------------
// Plain files

TEST_P(SandboxTest, WriteReadListStatExistsRemove) {
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(sb->resolver(), GetParam());

  ASSERT_EQ(code_of(put(*sb, "/a/b/c.txt", "hello")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "a/b/c.txt"), "hello");  // parents created on the host
  EXPECT_EQ(get(*sb, "/a/b/c.txt"), "hello");
  EXPECT_EQ(get(*sb, "//a/./b/../b/c.txt"), "hello");

  auto there = sb->exists("/a/b/c.txt");
  ASSERT_TRUE(there.ok());
  EXPECT_TRUE(there.value());
  auto dir_there = sb->exists("/a/b");
  ASSERT_TRUE(dir_there.ok());
  EXPECT_TRUE(dir_there.value());

  auto info = sb->stat("/a/b/c.txt");
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info.value().is_file);
  EXPECT_FALSE(info.value().is_directory);
  EXPECT_EQ(info.value().size, 5u);
  EXPECT_GT(info.value().modified_ms, 0.0);
  EXPECT_GT(info.value().birth_ms, 0.0);

  auto dir_info = sb->stat("/a");
  ASSERT_TRUE(dir_info.ok());
  EXPECT_TRUE(dir_info.value().is_directory);
  EXPECT_FALSE(dir_info.value().is_file);

  ASSERT_EQ(code_of(put(*sb, "/a/b/d.txt", "")), Errc::ok);
  EXPECT_EQ(get(*sb, "/a/b/d.txt"), "");
  auto listed = sb->list("/a/b");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed.value(), (Strings{"c.txt", "d.txt"}));  // sorted, no temporaries left
  auto top = sb->list("/");
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top.value(), (Strings{"a"}));

  // Overwrite replaces the whole content.
  ASSERT_EQ(code_of(put(*sb, "/a/b/c.txt", "bye")), Errc::ok);
  EXPECT_EQ(get(*sb, "/a/b/c.txt"), "bye");
  EXPECT_EQ(tree(root_), (Strings{"a", "a/b", "a/b/c.txt", "a/b/d.txt"}));

  ASSERT_EQ(code_of(sb->remove("/a/b/c.txt")), Errc::ok);
  EXPECT_FALSE(host_entry_exists(root_ / "a/b/c.txt"));
  auto gone = sb->exists("/a/b/c.txt");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone.value());
  EXPECT_EQ(code_of(sb->read("/a/b/c.txt")), Errc::not_found);
  EXPECT_EQ(code_of(sb->stat("/a/b/c.txt")), Errc::not_found);
  EXPECT_EQ(code_of(sb->remove("/a/b/c.txt")), Errc::not_found);
  EXPECT_EQ(code_of(sb->list("/nope")), Errc::not_found);
}

TEST_P(SandboxTest, BinaryContentRoundTrips) {
  auto sb = make();
  ASSERT_TRUE(sb);
  std::string blob;
  for (int i = 0; i < 70000; ++i) blob.push_back(static_cast<char>(i * 31 % 256));
  ASSERT_EQ(code_of(put(*sb, "/blob.bin", blob)), Errc::ok);
  EXPECT_EQ(get(*sb, "/blob.bin"), blob);
  EXPECT_EQ(read_host(root_ / "blob.bin"), blob);
}

TEST_P(SandboxTest, DirectoriesAndFilesAreNotInterchangeable) {
  auto sb = make();
  ASSERT_TRUE(sb);
  fs::create_directories(root_ / "dir/inner");
  write_host(root_ / "file.txt", "x");

  EXPECT_EQ(code_of(sb->read("/dir")), Errc::is_directory);
  EXPECT_EQ(code_of(sb->read("/")), Errc::is_directory);
  EXPECT_EQ(code_of(put(*sb, "/dir", "x")), Errc::is_directory);
  EXPECT_EQ(code_of(put(*sb, "/", "x")), Errc::is_directory);
  EXPECT_EQ(code_of(sb->remove("/dir")), Errc::is_directory);
  EXPECT_TRUE(fs::is_directory(root_ / "dir/inner"));

  EXPECT_EQ(code_of(sb->list("/file.txt")), Errc::not_directory);
  EXPECT_EQ(code_of(sb->read("/file.txt/x")), Errc::not_directory);
  EXPECT_EQ(code_of(put(*sb, "/file.txt/x", "y")), Errc::not_directory);
  EXPECT_EQ(read_host(root_ / "file.txt"), "x");
}

// ---------------------------------------------------------------------------------------------
// Writing through symlinks

TEST_P(SandboxTest, WriteThroughRelativeDirectorySymlink) {
  fs::create_directories(root_ / "real/deeper");
  make_symlink("real", root_ / "dirlink");
  auto sb = make();
  ASSERT_TRUE(sb);
  // The symlink is an intermediate component here: resolved while stepping.
  EXPECT_EQ(code_of(put(*sb, "/dirlink/deeper/a.txt", "a")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "real/deeper/a.txt"), "a");
  // Here it is the last component of the parent directory.
  EXPECT_EQ(code_of(put(*sb, "/dirlink/b.txt", "b")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "real/b.txt"), "b");
  EXPECT_EQ(code_of(sb->remove("/dirlink/b.txt")), Errc::ok);
  EXPECT_FALSE(host_entry_exists(root_ / "real/b.txt"));
}

TEST_P(SandboxTest, WriteIntoAbsoluteSymlinkedParentIsRefused) {
  make_symlink(outside_.string(), root_ / "absdir");
  auto sb = make();
  ASSERT_TRUE(sb);
  const auto before = tree(outside_);
  EXPECT_EQ(code_of(put(*sb, "/absdir/new.txt", "x")), Errc::symlink_escape);
  EXPECT_EQ(code_of(put(*sb, "/absdir/secret.txt", "pwned")), Errc::symlink_escape);
  EXPECT_EQ(tree(outside_), before);
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
}

TEST_P(SandboxTest, WriteIntoDotDotSymlinkedParentIsRefused) {
  fs::create_directories(root_ / "d/e");
  make_symlink("../outside", root_ / "escdir");
  make_symlink("../../../outside", root_ / "d/e/deep");
  auto sb = make();
  ASSERT_TRUE(sb);
  const auto before = tree(outside_);
  EXPECT_EQ(code_of(put(*sb, "/escdir/new.txt", "x")), Errc::symlink_escape);
  EXPECT_EQ(code_of(put(*sb, "/d/e/deep/new.txt", "x")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->list("/escdir")), Errc::symlink_escape);
  EXPECT_EQ(tree(outside_), before);
}

TEST_P(SandboxTest, WritingOverAFinalSymlinkNeverWritesItsTarget) {
  make_symlink("missing", root_ / "dang");
  make_symlink((outside_ / "created.txt").string(), root_ / "dang_abs");
  make_symlink((outside_ / "secret.txt").string(), root_ / "abs");
  make_symlink("../outside/secret.txt", root_ / "esc");
  auto sb = make();
  ASSERT_TRUE(sb);
  const auto before = tree(outside_);

  // Either refused or the link itself replaced: never the file it names.
  for (const char* path : {"/dang", "/dang_abs", "/abs", "/esc"}) {
    const Errc code = code_of(put(*sb, path, "overwritten"));
    EXPECT_TRUE(code == Errc::ok || code == Errc::symlink_escape)
        << path << ": " << msb::errc_name(code);
  }
  EXPECT_FALSE(host_entry_exists(root_ / "missing"));
  EXPECT_EQ(tree(outside_), before);
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");

  // Removing a link removes the link, not its target.
  make_symlink((outside_ / "secret.txt").string(), root_ / "abs2");
  const Errc removed = code_of(sb->remove("/abs2"));
  EXPECT_TRUE(removed == Errc::ok || removed == Errc::symlink_escape) << msb::errc_name(removed);
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
}

// ---------------------------------------------------------------------------------------------
// Write semantics

TEST_P(SandboxTest, WriteKeepsTheFileMode) {
  write_host(root_ / "mode.txt", "old");
  ASSERT_EQ(::chmod((root_ / "mode.txt").c_str(), 0640), 0);
  write_host(root_ / "exec.sh", "#!/bin/sh\n");
  ASSERT_EQ(::chmod((root_ / "exec.sh").c_str(), 0751), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(put(*sb, "/mode.txt", "new")), Errc::ok);
  ASSERT_EQ(code_of(put(*sb, "/exec.sh", "#!/bin/sh\nexit 0\n")), Errc::ok);
  struct stat st;
  ASSERT_EQ(::stat((root_ / "mode.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(read_host(root_ / "mode.txt"), "new");
  ASSERT_EQ(::stat((root_ / "exec.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
}

// The new inode gets the old file's ACL and attributes before it is linked in (metadata.h).
TEST_P(SandboxTest, WriteAndEditKeepTheAclAndAttributes) {
  const fs::path file = root_ / "secret.txt";
  write_host(file, "old secret");
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  ASSERT_EQ(::setxattr(file.c_str(), "system.posix_acl_access", kDenyNobodyAcl.data(),
                       kDenyNobodyAcl.size(), 0),
            0);
  ASSERT_EQ(::setxattr(file.c_str(), "user.origin", "here", 4, 0), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(put(*sb, "/secret.txt", "new secret")), Errc::ok);
  ASSERT_EQ(code_of(sb->edit("/secret.txt", "new", "newer")), Errc::ok);
  EXPECT_EQ(read_host(file), "newer secret");
  EXPECT_EQ(xattr_of(file, "system.posix_acl_access"), kDenyNobodyAcl);
  EXPECT_EQ(xattr_of(file, "user.origin"), "here");
  EXPECT_EQ(mode_of(file), 0644u);
  EXPECT_EQ(tree(root_), Strings{"secret.txt"});
}

TEST_P(SandboxTest, WriteOverHardLinkLeavesOtherLinkAlone) {
  write_host(root_ / "a.txt", "original");
  ASSERT_EQ(::link((root_ / "a.txt").c_str(), (root_ / "b.txt").c_str()), 0);
  // A hard link to a file outside the sandbox, planted inside it.
  ASSERT_EQ(::link((outside_ / "secret.txt").c_str(), (root_ / "planted.txt").c_str()), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(put(*sb, "/a.txt", "changed")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "a.txt"), "changed");
  EXPECT_EQ(read_host(root_ / "b.txt"), "original");
  ASSERT_EQ(code_of(put(*sb, "/planted.txt", "pwned")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "planted.txt"), "pwned");
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
}

// ---------------------------------------------------------------------------------------------
// edit

TEST_P(FileOpsTest, EditReplacesTheOneOccurrence) {
  write_host(root_ / "f.txt", "alpha beta gamma");
  ASSERT_EQ(::chmod((root_ / "f.txt").c_str(), 0640), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->edit("/f.txt", "beta", "BETA!")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "f.txt"), "alpha BETA! gamma");
  EXPECT_EQ(mode_of(root_ / "f.txt"), 0640u);
  ASSERT_EQ(code_of(sb->edit("/f.txt", "alpha ", "")), Errc::ok);  // deletion
  EXPECT_EQ(read_host(root_ / "f.txt"), "BETA! gamma");
  EXPECT_EQ(tree(root_), (Strings{"f.txt"}));  // no temporaries left
}

TEST_P(FileOpsTest, EditLeavesTheFileAloneOnEveryError) {
  write_host(root_ / "f.txt", "one two two two");
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->edit("/f.txt", "three", "3")), Errc::no_match);
  EXPECT_EQ(code_of(sb->edit("/f.txt", "", "x")), Errc::no_match);
  auto several = sb->edit("/f.txt", "two", "2");
  ASSERT_EQ(code_of(several), Errc::ambiguous_match);
  EXPECT_EQ(several.error().size, 3u);
  EXPECT_EQ(code_of(sb->edit("/missing.txt", "a", "b")), Errc::not_found);
  EXPECT_EQ(read_host(root_ / "f.txt"), "one two two two");
  EXPECT_EQ(tree(root_), (Strings{"f.txt"}));
  // Overlapping occurrences count: in "aaa", "aa" could mean either of two places.
  write_host(root_ / "a.txt", "aaa");
  auto overlapping = sb->edit("/a.txt", "aa", "b");
  ASSERT_EQ(code_of(overlapping), Errc::ambiguous_match);
  EXPECT_EQ(overlapping.error().size, 2u);
  EXPECT_EQ(read_host(root_ / "a.txt"), "aaa");
  ASSERT_EQ(code_of(sb->edit("/a.txt", "aaa", "bc")), Errc::ok);
  EXPECT_EQ(read_host(root_ / "a.txt"), "bc");
}

TEST_P(FileOpsTest, EditHonorsMountRules) {
  write_host(ro_ / "conf.ini", "a=1");
  write_host(data_ / "f.txt", "small");
  write_host(root_ / "blocked.txt", "x=1");
  auto o = options();
  o.root.approval = kBlockWrites;
  o.mounts.push_back(mount(ro_, "/ro", true));
  o.mounts.push_back(mount(data_, "/data", false, {}, max_bytes(8)));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->edit("/ro/conf.ini", "1", "2")), Errc::read_only);
  EXPECT_EQ(code_of(sb->edit("/blocked.txt", "1", "2")), Errc::write_blocked);
  auto grown = sb->edit("/data/f.txt", "small", "much larger");
  ASSERT_EQ(code_of(grown), Errc::too_large);
  EXPECT_EQ(grown.error().size, 11u);
  EXPECT_EQ(grown.error().limit, 8u);
  EXPECT_EQ(read_host(ro_ / "conf.ini"), "a=1");
  EXPECT_EQ(read_host(data_ / "f.txt"), "small");
  EXPECT_EQ(read_host(root_ / "blocked.txt"), "x=1");
  EXPECT_EQ(code_of(sb->edit("/data/f.txt", "small", "tiny")), Errc::ok);
  EXPECT_EQ(read_host(data_ / "f.txt"), "tiny");
}

TEST_P(FileOpsTest, EditNeverReachesOutside) {
  make_symlink("../outside/secret.txt", root_ / "esc");
  make_symlink((outside_ / "secret.txt").string(), root_ / "abs");
  make_symlink("../outside", root_ / "outdir");
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->edit("/esc", "secret", "pwned")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->edit("/abs", "secret", "pwned")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->edit("/outdir/secret.txt", "secret", "pwned")), Errc::symlink_escape);
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
  EXPECT_EQ(tree(outside_), (Strings{"secret.txt"}));
}

// ---------------------------------------------------------------------------------------------
// Changes of one file at the same time, and versions (issue 19)

TEST_P(FileOpsTest, ConcurrentEditsOfOneFileAllLand) {
  constexpr int kEditors = 16;
  std::string text;
  for (int i = 0; i < kEditors; ++i) text += "token-" + std::to_string(i) + ";\n";
  write_host(root_ / "f.txt", text);
  make_symlink(".", root_ / "self");  // another spelling of the same directory
  auto sb = make();
  ASSERT_TRUE(sb);
  std::vector<Errc> results(kEditors, Errc::io_error);
  std::vector<std::thread> threads;
  for (int i = 0; i < kEditors; ++i) {
    threads.emplace_back([&, i] {
      const std::string path = i % 2 ? "/f.txt" : "/self/f.txt";
      results[i] = code_of(
          sb->edit(path, "token-" + std::to_string(i) + ";", "edited-" + std::to_string(i) + ";"));
    });
  }
  for (auto& t : threads) t.join();
  const std::string after = read_host(root_ / "f.txt");
  for (int i = 0; i < kEditors; ++i) {
    EXPECT_EQ(results[i], Errc::ok) << i;
    EXPECT_NE(after.find("edited-" + std::to_string(i) + ";"), std::string::npos) << i;
  }
  EXPECT_EQ(FileTurns::shared().held_count(), 0u);
}

// A change waiting for its turn holds the directory it opened. Replaced meanwhile (renamed away,
// a new one made, the file moved into it), the change lands where the path leads now, in that
// entry's turn, and nothing is written into the directory moved away.
TEST_P(FileOpsTest, ChangesWaitingWhileTheirDirectoryIsReplacedFollowThePath) {
  for (const bool edit : {true, false}) {
    SCOPED_TRACE(edit ? "edit" : "write");
    std::filesystem::create_directories(root_ / "d");
    write_host(root_ / "d/f.txt", "TOKEN");
    auto sb = make();
    ASSERT_TRUE(sb);
    struct stat dir;
    ASSERT_EQ(::stat((root_ / "d").c_str(), &dir), 0);
    std::optional<Turn> held(FileTurns::shared().take(EntryKey{{dir.st_dev, dir.st_ino}, "f.txt"}));
    Errc result = Errc::io_error;
    std::thread change([&] {
      result =
          code_of(edit ? sb->edit("/d/f.txt", "TOKEN", "EDITED") : put(*sb, "/d/f.txt", "EDITED"));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // prepared, waiting for the turn
    ASSERT_EQ(::rename((root_ / "d").c_str(), (root_ / "moved").c_str()), 0);
    ASSERT_EQ(::mkdir((root_ / "d").c_str(), 0755), 0);
    ASSERT_EQ(::rename((root_ / "moved/f.txt").c_str(), (root_ / "d/f.txt").c_str()), 0);
    held.reset();
    change.join();
    EXPECT_EQ(result, Errc::ok);
    EXPECT_EQ(read_host(root_ / "d/f.txt"), "EDITED");
    EXPECT_EQ(tree(root_ / "moved"), Strings{});
    EXPECT_EQ(FileTurns::shared().held_count(), 0u);
    std::filesystem::remove_all(root_ / "moved");
    std::filesystem::remove_all(root_ / "d");
  }
}

TEST_P(FileOpsTest, WriteAndEditWithAVersion) {
  write_host(root_ / "f.txt", "one two");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto version = [&] {
    auto info = sb->stat("/f.txt");
    EXPECT_TRUE(info.ok());
    return info.ok() ? version_token(info.value().version) : std::string();
  };
  const std::string v1 = version();
  const std::string text = "mine";
  auto write = [&](std::string_view v) {
    return code_of(
        sb->write("/f.txt", reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), v));
  };
  EXPECT_EQ(version(), v1);  // unchanged file, same version
  EXPECT_EQ(code_of(sb->edit("/f.txt", "two", "2", v1)), Errc::ok);
  EXPECT_EQ(read_host(root_ / "f.txt"), "one 2");
  // v1 is stale now: refused, nothing written.
  EXPECT_EQ(write(v1), Errc::conflict);
  EXPECT_EQ(code_of(sb->edit("/f.txt", "one", "1", v1)), Errc::conflict);
  EXPECT_EQ(read_host(root_ / "f.txt"), "one 2");
  const std::string v2 = version();
  EXPECT_NE(v2, v1);
  EXPECT_EQ(write(v2), Errc::ok);
  EXPECT_EQ(read_host(root_ / "f.txt"), "mine");
  // Deleted since: a conflict, not a new file.
  const std::string v3 = version();
  ASSERT_EQ(::unlink((root_ / "f.txt").c_str()), 0);
  EXPECT_EQ(write(v3), Errc::conflict);
  EXPECT_EQ(code_of(sb->edit("/f.txt", "mine", "x", v3)), Errc::conflict);
  EXPECT_FALSE(host_entry_exists(root_ / "f.txt"));
  EXPECT_EQ(write(""), Errc::ok);  // no version: a plain write
  EXPECT_EQ(tree(root_), (Strings{"f.txt"}));
}

// ---------------------------------------------------------------------------------------------
// make_directory

TEST_P(FileOpsTest, MakeDirectoryCreatesParents) {
  write_host(root_ / "file", "f");
  auto sb = make(with_mounts());
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->make_directory("/a/b/c")), Errc::ok);
  EXPECT_TRUE(fs::is_directory(root_ / "a/b/c"));
  EXPECT_EQ(code_of(sb->make_directory("/a/b/c")), Errc::ok);  // already there
  EXPECT_EQ(code_of(sb->make_directory("/a/b")), Errc::ok);
  EXPECT_EQ(code_of(sb->make_directory("/")), Errc::ok);
  EXPECT_EQ(code_of(sb->make_directory("/data")), Errc::ok);  // mount targets exist
  EXPECT_EQ(code_of(sb->make_directory("/ro")), Errc::ok);
  ASSERT_EQ(code_of(sb->make_directory("/data/x.d/y")), Errc::ok);
  EXPECT_TRUE(fs::is_directory(data_ / "x.d/y"));
  EXPECT_EQ(code_of(sb->make_directory("/file")), Errc::already_exists);
  EXPECT_EQ(code_of(sb->make_directory("/file/sub")), Errc::not_directory);
  EXPECT_TRUE(fs::is_regular_file(root_ / "file"));
}

TEST_P(FileOpsTest, MakeDirectoryIsAWrite) {
  fs::create_directories(ro_ / "existing");
  auto o = with_mounts();
  o.mounts.push_back(mount(outside_, "/blocked", false, kBlockWrites, {}));
  o.mounts.push_back(MountSpec{(tmp_.path() / "md").string(), "/md", false, {}, suffixes({".md"})});
  fs::create_directories(tmp_.path() / "md");
  auto sb = make(o);
  ASSERT_TRUE(sb);
  const auto before = tree(tmp_.path());
  EXPECT_EQ(code_of(sb->make_directory("/ro/new")), Errc::read_only);
  EXPECT_EQ(code_of(sb->make_directory("/ro/new/deeper")), Errc::read_only);
  EXPECT_EQ(code_of(sb->make_directory("/blocked/new")), Errc::write_blocked);
  EXPECT_EQ(tree(tmp_.path()), before);
  EXPECT_EQ(code_of(sb->make_directory("/ro/existing")), Errc::ok);  // nothing to change
  // Suffix rules are about files: a directory name with a dot is fine.
  ASSERT_EQ(code_of(sb->make_directory("/md/v1.2")), Errc::ok);
  EXPECT_TRUE(fs::is_directory(tmp_.path() / "md/v1.2"));
}

TEST_P(FileOpsTest, MakeDirectoryStaysInside) {
  make_symlink("../outside", root_ / "out");
  make_symlink(outside_.string(), root_ / "abs");
  make_symlink("nowhere", root_ / "dangling");
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->make_directory("/out/new")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->make_directory("/abs/new/deeper")), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->make_directory("/out")), Errc::symlink_escape);
  EXPECT_NE(code_of(sb->make_directory("/dangling/x")), Errc::ok);
  EXPECT_EQ(tree(outside_), (Strings{"secret.txt"}));
  EXPECT_FALSE(host_entry_exists(root_ / "nowhere"));
}

TEST_P(FileOpsTest, MakeDirectoryInARootlessSandbox) {
  SandboxOptions o;
  o.resolver = GetParam();
  o.mounts.push_back(mount(data_, "/zone/data", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->make_directory("/")), Errc::ok);
  EXPECT_EQ(code_of(sb->make_directory("/zone")), Errc::ok);
  EXPECT_EQ(code_of(sb->make_directory("/elsewhere")), Errc::outside_sandbox);
  EXPECT_EQ(code_of(sb->make_directory("/zone/other")), Errc::outside_sandbox);
  ASSERT_EQ(code_of(sb->make_directory("/zone/data/x")), Errc::ok);
  EXPECT_TRUE(fs::is_directory(data_ / "x"));
}

}  // namespace
}  // namespace msb
