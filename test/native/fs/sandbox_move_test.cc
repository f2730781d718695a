// Moves and copies (sandbox_move.cc): overwrite, both ends' places and rules, and across devices
// a copy then a remove, on real files, with both resolvers.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "fs/sandbox.h"
#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h

std::string link_text(const fs::path& link) {
  char buf[4096];
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof(buf));
  return n < 0 ? std::string("<none>") : std::string(buf, static_cast<std::size_t>(n));
}

// ---------------------------------------------------------------------------------------------
// move

TEST_P(FileOpsTest, MoveRenamesFilesAndSymlinks) {
  write_host(root_ / "a.txt", "A");
  ASSERT_EQ(::chmod((root_ / "a.txt").c_str(), 0751), 0);
  make_symlink("a-target", root_ / "link");
  auto sb = make();
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->move("/a.txt", "/new/dir/b.txt", false)), Errc::ok);  // parents made
  EXPECT_FALSE(host_entry_exists(root_ / "a.txt"));
  EXPECT_EQ(read_host(root_ / "new/dir/b.txt"), "A");
  EXPECT_EQ(mode_of(root_ / "new/dir/b.txt"), 0751u);
  ASSERT_EQ(code_of(sb->move("/link", "/new/link2", false)), Errc::ok);
  EXPECT_EQ(link_text(root_ / "new/link2"), "a-target");  // the link itself, text unchanged
  EXPECT_FALSE(host_entry_exists(root_ / "link"));
}

TEST_P(FileOpsTest, MoveOverwriteFlag) {
  write_host(root_ / "a.txt", "A");
  write_host(root_ / "b.txt", "B");
  fs::create_directories(root_ / "dir");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto refused = sb->move("/a.txt", "/b.txt", false);
  ASSERT_EQ(code_of(refused), Errc::already_exists);
  EXPECT_EQ(index_of(refused), 1u);
  EXPECT_EQ(read_host(root_ / "a.txt"), "A");
  EXPECT_EQ(read_host(root_ / "b.txt"), "B");
  auto onto_dir = sb->move("/a.txt", "/dir", true);
  ASSERT_EQ(code_of(onto_dir), Errc::is_directory);
  EXPECT_EQ(index_of(onto_dir), 1u);
  ASSERT_EQ(code_of(sb->move("/a.txt", "/b.txt", true)), Errc::ok);
  EXPECT_EQ(read_host(root_ / "b.txt"), "A");
  EXPECT_FALSE(host_entry_exists(root_ / "a.txt"));
  EXPECT_EQ(tree(root_), (Strings{"b.txt", "dir"}));
}

TEST_P(FileOpsTest, MoveOntoAnotherNameOfTheSameFile) {
  write_host(root_ / "a.txt", "A");
  ASSERT_EQ(::link((root_ / "a.txt").c_str(), (root_ / "b.txt").c_str()), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  // rename() would succeed and change nothing; the source name must still go.
  ASSERT_EQ(code_of(sb->move("/a.txt", "/b.txt", true)), Errc::ok);
  EXPECT_EQ(tree(root_), (Strings{"b.txt"}));
  ASSERT_EQ(code_of(sb->move("/b.txt", "/./b.txt", true)), Errc::ok);  // itself: a no-op
  EXPECT_EQ(read_host(root_ / "b.txt"), "A");
  EXPECT_EQ(code_of(sb->move("/b.txt", "/b.txt", false)), Errc::already_exists);
}

TEST_P(FileOpsTest, MoveRefusesDirectoriesAndMissingSources) {
  fs::create_directories(root_ / "dir/sub");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto dir = sb->move("/dir", "/elsewhere", false);
  ASSERT_EQ(code_of(dir), Errc::is_directory);
  EXPECT_EQ(index_of(dir), 0u);
  auto missing = sb->move("/nope.txt", "/x.txt", false);
  ASSERT_EQ(code_of(missing), Errc::not_found);
  EXPECT_EQ(index_of(missing), 0u);
  auto root = sb->move("/", "/x", false);
  EXPECT_EQ(index_of(root), 0u);
  auto bad = sb->move("/dir/sub", "relative", false);
  ASSERT_EQ(code_of(bad), Errc::invalid_path);
  EXPECT_EQ(index_of(bad), 1u);
  EXPECT_EQ(tree(root_), (Strings{"dir", "dir/sub"}));
}

TEST_P(FileOpsTest, MoveAcrossMountsAndIntoReadOnly) {
  write_host(root_ / "a.txt", "A");
  write_host(ro_ / "locked.txt", "L");
  auto sb = make(with_mounts());
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->move("/a.txt", "/data/a.txt", false)), Errc::ok);
  EXPECT_EQ(read_host(data_ / "a.txt"), "A");
  EXPECT_FALSE(host_entry_exists(root_ / "a.txt"));

  const auto ro_before = tree(ro_);
  auto into_ro = sb->move("/data/a.txt", "/ro/a.txt", false);
  ASSERT_EQ(code_of(into_ro), Errc::read_only);
  EXPECT_EQ(index_of(into_ro), 1u);
  auto into_ro_deep = sb->move("/data/a.txt", "/ro/new/dir/a.txt", false);
  ASSERT_EQ(code_of(into_ro_deep), Errc::read_only);
  EXPECT_EQ(index_of(into_ro_deep), 1u);
  auto out_of_ro = sb->move("/ro/locked.txt", "/data/locked.txt", false);
  ASSERT_EQ(code_of(out_of_ro), Errc::read_only);
  EXPECT_EQ(index_of(out_of_ro), 0u);
  EXPECT_EQ(tree(ro_), ro_before);
  EXPECT_EQ(read_host(data_ / "a.txt"), "A");
  EXPECT_FALSE(host_entry_exists(data_ / "locked.txt"));

  // Mount targets are not files to move, at either end.
  auto target_from = sb->move("/data", "/x", false);
  ASSERT_EQ(code_of(target_from), Errc::mount_point);
  EXPECT_EQ(index_of(target_from), 0u);
  auto target_to = sb->move("/data/a.txt", "/data", true);
  ASSERT_EQ(code_of(target_to), Errc::mount_point);
  EXPECT_EQ(index_of(target_to), 1u);
}

TEST_P(FileOpsTest, MoveHonorsApprovalsAndSuffixes) {
  write_host(root_ / "a.txt", "A");
  write_host(root_ / "b.log", "B");
  write_host(data_ / "keep.txt", "K");
  auto o = options();
  o.root.policy = denying({".log"});
  o.mounts.push_back(mount(data_, "/data", false, kBlockDeletes, {}));
  o.mounts.push_back(mount(ro_, "/w", false, kBlockWrites, {}));
  o.mounts.push_back(MountSpec{(tmp_.path() / "md").string(), "/md", false, {}, suffixes({".md"})});
  fs::create_directories(tmp_.path() / "md");
  auto sb = make(o);
  ASSERT_TRUE(sb);
  const auto before = tree(tmp_.path());

  auto no_delete = sb->move("/data/keep.txt", "/keep.txt", false);
  ASSERT_EQ(code_of(no_delete), Errc::delete_blocked);
  EXPECT_EQ(index_of(no_delete), 0u);
  auto no_write = sb->move("/a.txt", "/w/a.txt", false);
  ASSERT_EQ(code_of(no_write), Errc::write_blocked);
  EXPECT_EQ(index_of(no_write), 1u);
  auto bad_source = sb->move("/b.log", "/data/b.txt", false);
  ASSERT_EQ(code_of(bad_source), Errc::suffix_not_allowed);
  EXPECT_EQ(index_of(bad_source), 0u);
  auto bad_target = sb->move("/a.txt", "/md/a.txt", false);
  ASSERT_EQ(code_of(bad_target), Errc::suffix_not_allowed);
  EXPECT_EQ(index_of(bad_target), 1u);
  auto renamed_to_denied = sb->move("/a.txt", "/a.log", false);
  ASSERT_EQ(code_of(renamed_to_denied), Errc::suffix_not_allowed);
  EXPECT_EQ(index_of(renamed_to_denied), 1u);
  EXPECT_EQ(tree(tmp_.path()), before);
  ASSERT_EQ(code_of(sb->move("/a.txt", "/md/a.md", false)), Errc::ok);
}

TEST_P(FileOpsTest, MoveNeverLeavesThroughSymlinkedParents) {
  write_host(root_ / "a.txt", "A");
  make_symlink("../outside", root_ / "out");
  make_symlink(outside_.string(), root_ / "abs");
  auto sb = make();
  ASSERT_TRUE(sb);
  for (const char* to : {"/out/a.txt", "/abs/a.txt", "/out/new/a.txt"}) {
    auto r = sb->move("/a.txt", to, true);
    EXPECT_EQ(code_of(r), Errc::symlink_escape) << to;
    EXPECT_EQ(index_of(r), 1u) << to;
  }
  for (const char* from : {"/out/secret.txt", "/abs/secret.txt"}) {
    auto r = sb->move(from, "/stolen.txt", false);
    EXPECT_EQ(code_of(r), Errc::symlink_escape) << from;
    EXPECT_EQ(index_of(r), 0u) << from;
  }
  EXPECT_EQ(tree(outside_), (Strings{"secret.txt"}));
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
  EXPECT_EQ(read_host(root_ / "a.txt"), "A");
  EXPECT_FALSE(host_entry_exists(root_ / "stolen.txt"));
}

// A second filesystem, so rename() fails with EXDEV and move must copy and remove.
class FileOpsAcrossDevices : public FileOpsTest {
 protected:
  void SetUp() override {
    FileOpsTest::SetUp();
    if (IsSkipped()) return;
    char pattern[] = "/dev/shm/msb-test-XXXXXX";
    struct stat shm;
    struct stat tmp;
    if (::stat("/dev/shm", &shm) != 0 || ::stat(root_.c_str(), &tmp) != 0 ||
        shm.st_dev == tmp.st_dev || ::mkdtemp(pattern) == nullptr) {
      GTEST_SKIP() << "no second filesystem at /dev/shm";
    }
    other_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    if (!other_.empty()) fs::remove_all(other_, ec);
  }
  fs::path other_;
};

INSTANTIATE_TEST_SUITE_P(Resolvers, FileOpsAcrossDevices, msb_test::each_resolver(),
                         msb_test::resolver_name);

TEST_P(FileOpsAcrossDevices, MoveCopiesThenRemoves) {
  write_host(root_ / "a.sh", "#!/bin/sh\n");
  ASSERT_EQ(::chmod((root_ / "a.sh").c_str(), 0750), 0);
  make_symlink("a.sh", root_ / "link");
  write_host(other_ / "taken.txt", "T");
  auto o = options();
  o.mounts.push_back(mount(other_, "/shm", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);

  ASSERT_EQ(code_of(sb->move("/a.sh", "/shm/sub/a.sh", false)), Errc::ok);
  EXPECT_EQ(read_host(other_ / "sub/a.sh"), "#!/bin/sh\n");
  EXPECT_EQ(mode_of(other_ / "sub/a.sh") & 0700, 0700u);
  EXPECT_FALSE(host_entry_exists(root_ / "a.sh"));

  ASSERT_EQ(code_of(sb->move("/link", "/shm/link", false)), Errc::ok);
  EXPECT_EQ(link_text(other_ / "link"), "a.sh");
  EXPECT_FALSE(host_entry_exists(root_ / "link"));

  write_host(root_ / "b.txt", "B");
  auto taken = sb->move("/b.txt", "/shm/taken.txt", false);
  ASSERT_EQ(code_of(taken), Errc::already_exists);
  EXPECT_EQ(index_of(taken), 1u);
  EXPECT_EQ(read_host(other_ / "taken.txt"), "T");
  EXPECT_EQ(read_host(root_ / "b.txt"), "B");
  ASSERT_EQ(code_of(sb->move("/b.txt", "/shm/taken.txt", true)), Errc::ok);
  EXPECT_EQ(read_host(other_ / "taken.txt"), "B");
  EXPECT_FALSE(host_entry_exists(root_ / "b.txt"));
  EXPECT_EQ(tree(root_), Strings{});
  EXPECT_EQ(tree(other_), (Strings{"link", "sub", "sub/a.sh", "taken.txt"}));
}

// The moved file keeps its own ACL and mode, as rename() keeps them on one filesystem, whether
// the destination is new or taken by a more open file.
TEST_P(FileOpsAcrossDevices, MoveKeepsTheFilesOwnAcl) {
  for (const char* name : {"a.txt", "b.txt"}) {
    const fs::path file = root_ / name;
    write_host(file, "secret");
    ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
    ASSERT_EQ(::setxattr(file.c_str(), "system.posix_acl_access", kDenyNobodyAcl.data(),
                         kDenyNobodyAcl.size(), 0),
              0);
  }
  write_host(other_ / "b.txt", "open");
  ASSERT_EQ(::chmod((other_ / "b.txt").c_str(), 0666), 0);
  auto o = options();
  o.mounts.push_back(mount(other_, "/shm", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->move("/a.txt", "/shm/a.txt", false)), Errc::ok);
  ASSERT_EQ(code_of(sb->move("/b.txt", "/shm/b.txt", true)), Errc::ok);
  for (const char* name : {"a.txt", "b.txt"}) {
    EXPECT_EQ(read_host(other_ / name), "secret");
    EXPECT_EQ(xattr_of(other_ / name, "system.posix_acl_access"), kDenyNobodyAcl) << name;
    EXPECT_EQ(mode_of(other_ / name), 0644u) << name;
  }
  EXPECT_EQ(tree(root_), Strings{});
}

// ---------------------------------------------------------------------------------------------
// copy

TEST_P(FileOpsTest, CopyKeepsTheSourceAndHonorsOverwrite) {
  write_host(root_ / "a.sh", "A");
  ASSERT_EQ(::chmod((root_ / "a.sh").c_str(), 0750), 0);
  write_host(root_ / "b.txt", "B");
  ASSERT_EQ(::chmod((root_ / "b.txt").c_str(), 0604), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->copy("/a.sh", "/new/c.sh", false)), Errc::ok);
  EXPECT_EQ(read_host(root_ / "a.sh"), "A");
  EXPECT_EQ(read_host(root_ / "new/c.sh"), "A");
  EXPECT_EQ(mode_of(root_ / "new/c.sh") & 0700, 0700u);  // the source's bits for a new file

  auto refused = sb->copy("/a.sh", "/b.txt", false);
  ASSERT_EQ(code_of(refused), Errc::already_exists);
  EXPECT_EQ(index_of(refused), 1u);
  EXPECT_EQ(read_host(root_ / "b.txt"), "B");
  ASSERT_EQ(code_of(sb->copy("/a.sh", "/b.txt", true)), Errc::ok);
  EXPECT_EQ(read_host(root_ / "b.txt"), "A");
  EXPECT_EQ(mode_of(root_ / "b.txt"), 0604u);  // a replaced file keeps its own bits
  EXPECT_EQ(tree(root_), (Strings{"a.sh", "b.txt", "new", "new/c.sh"}));
}

TEST_P(FileOpsTest, CopyRefusals) {
  fs::create_directories(root_ / "dir");
  ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0600), 0);
  write_host(root_ / "a.txt", "A");
  auto sb = make();
  ASSERT_TRUE(sb);
  const auto before = tree(root_);
  auto from_dir = sb->copy("/dir", "/x", false);
  ASSERT_EQ(code_of(from_dir), Errc::is_directory);
  EXPECT_EQ(index_of(from_dir), 0u);
  auto from_fifo = sb->copy("/fifo", "/x", false);
  ASSERT_EQ(code_of(from_fifo), Errc::not_regular_file);
  EXPECT_EQ(index_of(from_fifo), 0u);
  auto onto_dir = sb->copy("/a.txt", "/dir", true);
  ASSERT_EQ(code_of(onto_dir), Errc::is_directory);
  EXPECT_EQ(index_of(onto_dir), 1u);
  auto missing = sb->copy("/nope", "/x", false);
  ASSERT_EQ(code_of(missing), Errc::not_found);
  EXPECT_EQ(index_of(missing), 0u);
  EXPECT_EQ(tree(root_), before);
}

TEST_P(FileOpsTest, CopyFromReadOnlyButNeverIntoIt) {
  write_host(ro_ / "conf.ini", "a=1");
  write_host(root_ / "mine.txt", "m");
  auto sb = make(with_mounts());
  ASSERT_TRUE(sb);
  ASSERT_EQ(code_of(sb->copy("/ro/conf.ini", "/data/conf.ini", false)), Errc::ok);
  EXPECT_EQ(read_host(data_ / "conf.ini"), "a=1");
  const auto before = tree(ro_);
  auto into = sb->copy("/mine.txt", "/ro/mine.txt", false);
  ASSERT_EQ(code_of(into), Errc::read_only);
  EXPECT_EQ(index_of(into), 1u);
  auto over = sb->copy("/mine.txt", "/ro/conf.ini", true);
  ASSERT_EQ(code_of(over), Errc::read_only);
  EXPECT_EQ(index_of(over), 1u);
  auto deep = sb->copy("/mine.txt", "/ro/a/b/c.txt", true);
  ASSERT_EQ(code_of(deep), Errc::read_only);
  EXPECT_EQ(tree(ro_), before);
  EXPECT_EQ(read_host(ro_ / "conf.ini"), "a=1");
}

// move and copy share their first checks: both ends' places are judged before either is looked
// up on disk, the source's before the destination's.
TEST_P(FileOpsTest, TransfersJudgeBothPlacesBeforeTheDisk) {
  write_host(ro_ / "locked.txt", "L");
  auto sb = make(with_mounts());
  ASSERT_TRUE(sb);
  const auto ro_before = tree(ro_);
  for (bool moving : {true, false}) {
    auto transfer = [&](const char* from, const char* to) {
      return moving ? sb->move(from, to, true) : sb->copy(from, to, true);
    };
    auto invalid = transfer("relative", "also-relative");
    ASSERT_EQ(code_of(invalid), Errc::invalid_path) << moving;
    EXPECT_EQ(index_of(invalid), 0u) << moving;
    // A missing source into a read-only mount: the destination's place refuses first.
    auto missing_into_ro = transfer("/nope.txt", "/ro/x.txt");
    ASSERT_EQ(code_of(missing_into_ro), Errc::read_only) << moving;
    EXPECT_EQ(index_of(missing_into_ro), 1u) << moving;
    auto onto_root = transfer("/nope.txt", "/");
    ASSERT_EQ(code_of(onto_root), Errc::is_directory) << moving;
    EXPECT_EQ(index_of(onto_root), 1u) << moving;
  }
  // Both ends read-only: a move is refused at its source, a copy (which may read there) at its
  // destination.
  auto move_within_ro = sb->move("/ro/locked.txt", "/ro/moved.txt", false);
  ASSERT_EQ(code_of(move_within_ro), Errc::read_only);
  EXPECT_EQ(index_of(move_within_ro), 0u);
  auto copy_within_ro = sb->copy("/ro/locked.txt", "/ro/copied.txt", false);
  ASSERT_EQ(code_of(copy_within_ro), Errc::read_only);
  EXPECT_EQ(index_of(copy_within_ro), 1u);
  EXPECT_EQ(tree(ro_), ro_before);
  EXPECT_FALSE(host_entry_exists(root_ / "also-relative"));
}

TEST_P(FileOpsTest, CopyChecksBothEndsPolicies) {
  write_host(root_ / "big.txt", "0123456789");
  write_host(root_ / "key.pem", "k");
  write_host(root_ / "ok.txt", "ok");
  auto o = options();
  o.root.policy = denying({".pem"});
  o.mounts.push_back(mount(data_, "/data", false, {}, max_bytes(4)));
  o.mounts.push_back(mount(ro_, "/w", false, kBlockWrites, {}));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  auto pem = sb->copy("/key.pem", "/data/key.txt", false);
  ASSERT_EQ(code_of(pem), Errc::suffix_not_allowed);
  EXPECT_EQ(index_of(pem), 0u);
  auto to_pem = sb->copy("/ok.txt", "/ok.pem", false);
  ASSERT_EQ(code_of(to_pem), Errc::suffix_not_allowed);
  EXPECT_EQ(index_of(to_pem), 1u);
  auto big = sb->copy("/big.txt", "/data/big.txt", false);
  ASSERT_EQ(code_of(big), Errc::too_large);
  EXPECT_EQ(index_of(big), 1u);
  EXPECT_EQ(big.error().limit, 4u);
  auto blocked = sb->copy("/ok.txt", "/w/ok.txt", false);
  ASSERT_EQ(code_of(blocked), Errc::write_blocked);
  EXPECT_EQ(index_of(blocked), 1u);
  EXPECT_TRUE(tree(data_).empty());
  EXPECT_TRUE(tree(ro_).empty());
  EXPECT_EQ(code_of(sb->copy("/ok.txt", "/data/ok.txt", false)), Errc::ok);
}

TEST_P(FileOpsTest, CopyNeverReachesOutside) {
  write_host(root_ / "a.txt", "A");
  make_symlink("../outside/secret.txt", root_ / "esc");
  make_symlink("../outside", root_ / "out");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto leak = sb->copy("/esc", "/copy.txt", false);
  ASSERT_EQ(code_of(leak), Errc::symlink_escape);
  EXPECT_EQ(index_of(leak), 0u);
  auto leak_dir = sb->copy("/out/secret.txt", "/copy.txt", false);
  ASSERT_EQ(code_of(leak_dir), Errc::symlink_escape);
  EXPECT_EQ(index_of(leak_dir), 0u);
  auto plant = sb->copy("/a.txt", "/out/planted.txt", false);
  ASSERT_EQ(code_of(plant), Errc::symlink_escape);
  EXPECT_EQ(index_of(plant), 1u);
  auto plant_deep = sb->copy("/a.txt", "/out/x/planted.txt", false);
  ASSERT_EQ(code_of(plant_deep), Errc::symlink_escape);
  EXPECT_EQ(index_of(plant_deep), 1u);
  EXPECT_FALSE(host_entry_exists(root_ / "copy.txt"));
  EXPECT_EQ(tree(outside_), (Strings{"secret.txt"}));
  // Copying onto a symlink that leaves replaces the link, never writes its target.
  const Errc over_link = code_of(sb->copy("/a.txt", "/esc", true));
  EXPECT_TRUE(over_link == Errc::ok || over_link == Errc::symlink_escape);
  EXPECT_EQ(read_host(outside_ / "secret.txt"), "secret");
}

}  // namespace
}  // namespace msb
