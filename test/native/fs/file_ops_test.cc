// Sandbox file tools beyond read/write: ranges, edits, moves, copies, mkdir -p, glob and
// attachments, on real files, with both resolvers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/sandbox.h"
#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h
namespace fs = std::filesystem;

std::string link_text(const fs::path& link) {
  char buf[4096];
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof(buf));
  return n < 0 ? std::string("<none>") : std::string(buf, static_cast<std::size_t>(n));
}

std::string text_of(const msb::Result<msb::Bytes>& bytes) {
  if (!bytes.ok()) return "<" + std::string(msb::errc_name(bytes.error().code)) + ">";
  return msb_test::to_string(bytes.value());
}

INSTANTIATE_TEST_SUITE_P(Resolvers, FileOpsTest, msb_test::each_resolver(),
                         msb_test::resolver_name);

// ---------------------------------------------------------------------------------------------
// read_range

TEST_P(FileOpsTest, ReadRangeOffsetsAndLengths) {
  write_host(root_ / "f.txt", "0123456789");
  auto o = options();
  o.max_read_bytes = 4;
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 0, 3)), "012");
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 5, 2)), "56");
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 8, 100)), "89");       // short at the end
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 2, 100)), "2345");     // max_read_bytes caps length
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 10, 5)), "");          // at EOF
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 1ull << 62, 5)), "");  // far past EOF
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 3, 0)), "");
  // The file may be larger than max_read_bytes: only the range is bounded by it.
  EXPECT_EQ(code_of(sb->read("/f.txt")), Errc::too_large);
}

TEST_P(FileOpsTest, ReadRangeRefusesWhatReadRefuses) {
  fs::create_directories(root_ / "dir");
  ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0600), 0);
  make_symlink("../outside/secret.txt", root_ / "esc");
  write_host(root_ / "big.txt", "0123456789");
  write_host(root_ / "key.pem", "k");
  auto o = options();
  o.root.policy = max_bytes(5);
  o.root.policy.denied_suffixes = {".pem"};
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->read_range("/dir", 0, 1)), Errc::is_directory);
  EXPECT_EQ(code_of(sb->read_range("/fifo", 0, 1)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb->read_range("/missing", 0, 1)), Errc::not_found);
  EXPECT_EQ(code_of(sb->read_range("/esc", 0, 1)), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->read_range("/key.pem", 0, 1)), Errc::suffix_not_allowed);
  // The policy's size limit is about the file, however small the range.
  auto big = sb->read_range("/big.txt", 0, 1);
  ASSERT_EQ(code_of(big), Errc::too_large);
  EXPECT_EQ(big.error().size, 10u);
  EXPECT_EQ(big.error().limit, 5u);
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

// ---------------------------------------------------------------------------------------------
// glob

class GlobOpsTest : public FileOpsTest {
 protected:
  void SetUp() override {
    FileOpsTest::SetUp();
    if (IsSkipped()) return;
    fs::create_directories(root_ / "src/sub/deep");
    fs::create_directories(root_ / "lib");
    fs::create_directories(root_ / ".hidden");
    for (const char* f : {"src/a.ts", "src/b.js", "src/.dot.ts", "src/sub/c.ts",
                          "src/sub/deep/d.ts", "lib/e.ts", ".hidden/x.ts", "README.md"}) {
      write_host(root_ / f, f);
    }
  }

  Strings glob(const Sandbox& sb, std::string_view pattern, std::size_t limit = 0) {
    auto r = sb.glob(pattern, limit);
    if (!r.ok()) return {"<" + std::string(msb::errc_name(r.error().code)) + ">"};
    return r.value().paths;
  }
};

INSTANTIATE_TEST_SUITE_P(Resolvers, GlobOpsTest, msb_test::each_resolver(),
                         msb_test::resolver_name);

TEST_P(GlobOpsTest, Patterns) {
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(glob(*sb, "/src/*.ts"), (Strings{"/src/a.ts"}));
  EXPECT_EQ(glob(*sb, "/src/**/*.ts"),
            (Strings{"/src/a.ts", "/src/sub/c.ts", "/src/sub/deep/d.ts"}));
  EXPECT_EQ(glob(*sb, "**/*.ts"),
            (Strings{"/lib/e.ts", "/src/a.ts", "/src/sub/c.ts", "/src/sub/deep/d.ts"}));
  EXPECT_EQ(glob(*sb, "/{src,lib}/*.ts"), (Strings{"/lib/e.ts", "/src/a.ts"}));
  EXPECT_EQ(glob(*sb, "/src/[ab].*"), (Strings{"/src/a.ts", "/src/b.js"}));
  EXPECT_EQ(glob(*sb, "/src/[!a].*"), (Strings{"/src/b.js"}));
  EXPECT_EQ(glob(*sb, "/src/?.ts"), (Strings{"/src/a.ts"}));
  EXPECT_EQ(glob(*sb, "*"), (Strings{"/README.md", "/lib", "/src"}));
  EXPECT_EQ(glob(*sb, "/src/sub"), (Strings{"/src/sub"}));  // a literal is an existence test
  EXPECT_EQ(glob(*sb, "/src/nope"), Strings{});
  EXPECT_EQ(glob(*sb, "/nope/**/*.ts"), Strings{});
  EXPECT_EQ(glob(*sb, "/src/**"),
            (Strings{"/src", "/src/a.ts", "/src/b.js", "/src/sub", "/src/sub/c.ts", "/src/sub/deep",
                     "/src/sub/deep/d.ts"}));
  EXPECT_EQ(glob(*sb, "/src/{"), (Strings{"<INVALID_PATTERN>"}));
}

TEST_P(GlobOpsTest, DotNamesOnlyWhenAsked) {
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_EQ(glob(*sb, "/src/.*"), (Strings{"/src/.dot.ts"}));
  EXPECT_EQ(glob(*sb, "/.hidden/*"), (Strings{"/.hidden/x.ts"}));
  EXPECT_EQ(glob(*sb, "/.*/*.ts"), (Strings{"/.hidden/x.ts"}));
  EXPECT_EQ(glob(*sb, "/**/.*"), (Strings{"/.hidden", "/src/.dot.ts"}));
}

TEST_P(GlobOpsTest, LimitAndTruncation) {
  auto sb = make();
  ASSERT_TRUE(sb);
  auto two = sb->glob("**/*.ts", 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two.value().paths.size(), 2u);
  EXPECT_TRUE(two.value().truncated);
  auto exact = sb->glob("**/*.ts", 4);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact.value().paths.size(), 4u);
  EXPECT_FALSE(exact.value().truncated);
  auto defaults = sb->glob("**/*.ts", 0);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults.value().paths.size(), 4u);
  EXPECT_FALSE(defaults.value().truncated);
  // Truncated results are a stable prefix of the walk.
  auto again = sb->glob("**/*.ts", 2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().paths, two.value().paths);
}

TEST_P(GlobOpsTest, DefaultLimitApplies) {
  for (int i = 0; i < 1005; ++i) write_host(root_ / "lib" / (std::to_string(i) + ".x"), "");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto all = sb->glob("/lib/*.x", 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.value().paths.size(), msb::kDefaultGlobLimit);
  EXPECT_TRUE(all.value().truncated);
  auto more = sb->glob("/lib/*.x", 2000);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more.value().paths.size(), 1005u);
  EXPECT_FALSE(more.value().truncated);
}

TEST_P(GlobOpsTest, DepthIsBounded) {
  fs::path deep = root_ / "deep";
  for (int i = 0; i < 70; ++i) deep /= "d";
  fs::create_directories(deep);
  write_host(deep / "x.txt", "x");
  write_host(root_ / "deep/d/x.txt", "shallow");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto r = sb->glob("**/x.txt", 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().paths, (Strings{"/deep/d/x.txt"}));
  EXPECT_TRUE(r.value().truncated);  // the walk stopped short of the bottom
}

TEST_P(GlobOpsTest, SymlinksAreReportedNotFollowed) {
  make_symlink("../outside", root_ / "out");
  make_symlink(outside_.string(), root_ / "abs");
  make_symlink("src", root_ / "alias");
  make_symlink("../outside/secret.txt", root_ / "lib/leak.ts");
  auto sb = make();
  ASSERT_TRUE(sb);
  // Nothing under a symlinked directory, inside or outside the root; links themselves match.
  EXPECT_EQ(glob(*sb, "**/*.ts"), (Strings{"/lib/e.ts", "/lib/leak.ts", "/src/a.ts",
                                           "/src/sub/c.ts", "/src/sub/deep/d.ts"}));
  EXPECT_EQ(glob(*sb, "/**/secret.txt"), Strings{});
  EXPECT_EQ(glob(*sb, "/*/*.txt"), Strings{});
  EXPECT_EQ(glob(*sb, "/a*"), (Strings{"/abs", "/alias"}));
  // Naming the link in the literal part resolves it like list() would: inside is fine,
  // outside is an escape.
  EXPECT_EQ(glob(*sb, "/alias/*.ts"), (Strings{"/alias/a.ts"}));
  EXPECT_EQ(glob(*sb, "/out/*"), (Strings{"<SYMLINK_ESCAPE>"}));
  EXPECT_EQ(glob(*sb, "/abs/**"), (Strings{"<SYMLINK_ESCAPE>"}));
}

TEST_P(GlobOpsTest, CrossesIntoMounts) {
  const fs::path deep = tmp_.path() / "deep";
  fs::create_directories(deep / "in");
  write_host(deep / "in/y.ts", "y");
  write_host(data_ / "d.ts", "d");
  fs::create_directories(root_ / "data");
  write_host(root_ / "data/hidden.ts", "shadowed by the mount");
  auto o = options();
  o.mounts.push_back(mount(data_, "/data", false));
  o.mounts.push_back(mount(deep, "/virt/b", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(glob(*sb, "**/*.ts"), (Strings{"/data/d.ts", "/lib/e.ts", "/src/a.ts", "/src/sub/c.ts",
                                           "/src/sub/deep/d.ts", "/virt/b/in/y.ts"}));
  EXPECT_EQ(glob(*sb, "/virt/**"), (Strings{"/virt", "/virt/b", "/virt/b/in", "/virt/b/in/y.ts"}));
  EXPECT_EQ(glob(*sb, "/data/*"), (Strings{"/data/d.ts"}));
  EXPECT_EQ(glob(*sb, "/*"), (Strings{"/README.md", "/data", "/lib", "/src", "/virt"}));
}

TEST_P(GlobOpsTest, SymlinkAboveAMountTargetIsNotFollowed) {
  make_symlink("src", root_ / "virt");
  const fs::path deep = tmp_.path() / "deep";
  fs::create_directories(deep);
  write_host(deep / "y.ts", "y");
  auto o = options();
  o.mounts.push_back(mount(deep, "/virt/b", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  // "/virt" is a symlink on the host: a walk reaching it shows only the mount below it.
  EXPECT_EQ(glob(*sb, "**/*.ts"), (Strings{"/lib/e.ts", "/src/a.ts", "/src/sub/c.ts",
                                           "/src/sub/deep/d.ts", "/virt/b/y.ts"}));
  // Named in the literal part, it resolves as list("/virt") would (an in-root link).
  EXPECT_EQ(glob(*sb, "/virt/*.ts"), (Strings{"/virt/a.ts"}));
}

TEST_P(GlobOpsTest, RootlessSandbox) {
  const fs::path z2 = tmp_.path() / "z2";
  fs::create_directories(z2 / "n");
  write_host(z2 / "n/b.txt", "b");
  write_host(data_ / "a.txt", "a");
  SandboxOptions o;
  o.resolver = GetParam();
  o.mounts.push_back(mount(data_, "/zone1", false));
  o.mounts.push_back(mount(z2, "/zones/two", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(glob(*sb, "/**/*.txt"), (Strings{"/zone1/a.txt", "/zones/two/n/b.txt"}));
  EXPECT_EQ(glob(*sb, "/*"), (Strings{"/zone1", "/zones"}));
  EXPECT_EQ(glob(*sb, "/zones/*"), (Strings{"/zones/two"}));
  EXPECT_EQ(glob(*sb, "/nowhere/*"), (Strings{"<OUTSIDE_SANDBOX>"}));
}

// ---------------------------------------------------------------------------------------------
// read_attachments

TEST_P(FileOpsTest, AttachmentsAreReadInOrder) {
  write_host(root_ / "a.png", "AAAA");
  write_host(data_ / "b.pdf", "BB");
  auto sb = make(with_mounts());
  ASSERT_TRUE(sb);
  AttachmentPolicy policy;
  auto r = sb->read_attachments({"/data/b.pdf", "/a.png"}, policy);
  ASSERT_TRUE(r.ok()) << msb::errc_name(code_of(r));
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(msb_test::to_string(r.value()[0]), "BB");
  EXPECT_EQ(msb_test::to_string(r.value()[1]), "AAAA");
  auto none = sb->read_attachments({}, policy);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.value().empty());
}

TEST_P(FileOpsTest, AttachmentRulesAreAllOrNothing) {
  for (const char* f : {"a.png", "b.png", "c.png", "d.png", "e.png", "x.exe", "big.png"}) {
    write_host(root_ / f, "1234");
  }
  write_host(root_ / "big.png", std::string(100, 'x'));
  fs::create_directories(root_ / "dir.png");
  auto sb = make();
  ASSERT_TRUE(sb);
  AttachmentPolicy policy;  // 4 attachments, 10 MB, any suffix

  auto many = sb->read_attachments({"/a.png", "/b.png", "/c.png", "/d.png", "/e.png"}, policy);
  ASSERT_EQ(code_of(many), Errc::too_many_attachments);
  EXPECT_EQ(many.error().size, 5u);
  EXPECT_EQ(many.error().limit, 4u);

  policy.denied_suffixes = {".exe"};
  auto denied = sb->read_attachments({"/a.png", "/X.EXE", "/nope.png"}, policy);
  ASSERT_EQ(code_of(denied), Errc::suffix_not_allowed);  // before any file is opened
  EXPECT_EQ(denied.error().index, 1u);

  policy.denied_suffixes.clear();
  policy.allowed_suffixes = {".png", ".jpg"};
  auto not_allowed = sb->read_attachments({"/a.png", "/b.PNG", "/x.exe"}, policy);
  ASSERT_EQ(code_of(not_allowed), Errc::suffix_not_allowed);
  EXPECT_EQ(not_allowed.error().index, 2u);

  auto missing = sb->read_attachments({"/a.png", "/nope.png"}, policy);
  ASSERT_EQ(code_of(missing), Errc::not_found);
  EXPECT_EQ(missing.error().index, 1u);
  auto dir = sb->read_attachments({"/dir.png"}, policy);
  ASSERT_EQ(code_of(dir), Errc::is_directory);
  EXPECT_EQ(dir.error().index, 0u);
  auto bad_path = sb->read_attachments({"/a.png", "relative.png"}, policy);
  ASSERT_EQ(code_of(bad_path), Errc::invalid_path);
  EXPECT_EQ(bad_path.error().index, 1u);

  policy.max_total_bytes = 107;
  auto total = sb->read_attachments({"/a.png", "/big.png", "/b.png"}, policy);
  ASSERT_EQ(code_of(total), Errc::attachments_too_large);
  EXPECT_EQ(total.error().size, 108u);
  EXPECT_EQ(total.error().limit, 107u);
  EXPECT_EQ(total.error().index, Error::kNoIndex);
  policy.max_total_bytes = 108;
  EXPECT_EQ(code_of(sb->read_attachments({"/a.png", "/big.png", "/b.png"}, policy)), Errc::ok);
}

TEST_P(FileOpsTest, AttachmentsFollowMountPolicies) {
  write_host(root_ / "a.png", "1234");
  write_host(data_ / "big.png", "0123456789");
  write_host(data_ / "s.key", "k");
  make_symlink("../outside/secret.txt", root_ / "leak.png");
  auto o = options();
  o.max_read_bytes = 8;
  FilePolicy data_policy = max_bytes(6);
  data_policy.denied_suffixes = {".key"};
  o.mounts.push_back(mount(data_, "/data", false, {}, data_policy));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  AttachmentPolicy policy;
  auto big = sb->read_attachments({"/a.png", "/data/big.png"}, policy);
  ASSERT_EQ(code_of(big), Errc::too_large);
  EXPECT_EQ(big.error().index, 1u);
  EXPECT_EQ(big.error().limit, 6u);
  auto key = sb->read_attachments({"/data/s.key"}, policy);
  ASSERT_EQ(code_of(key), Errc::suffix_not_allowed);
  EXPECT_EQ(key.error().index, 0u);
  auto leak = sb->read_attachments({"/a.png", "/leak.png"}, policy);
  ASSERT_EQ(code_of(leak), Errc::symlink_escape);
  EXPECT_EQ(leak.error().index, 1u);
  // max_read_bytes bounds each attachment like read().
  write_host(root_ / "nine.png", "123456789");
  auto nine = sb->read_attachments({"/nine.png"}, policy);
  ASSERT_EQ(code_of(nine), Errc::too_large);
  EXPECT_EQ(nine.error().limit, 8u);
  EXPECT_EQ(nine.error().index, 0u);
}

// ---------------------------------------------------------------------------------------------
// Nothing but regular files is ever opened

// Sees the opens of the files it watches (IN_OPEN): an O_PATH lookup is no open, so this sees
// exactly the opens that run a FIFO's or a device's open code.
class OpenWatch {
 public:
  OpenWatch() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}
  OpenWatch(const OpenWatch&) = delete;
  OpenWatch& operator=(const OpenWatch&) = delete;
  ~OpenWatch() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool watch(const fs::path& file) {
    return fd_ >= 0 && ::inotify_add_watch(fd_, file.c_str(), IN_OPEN | IN_DONT_FOLLOW) >= 0;
  }

  // Whether a watched file was opened since the last call. (Not how often: inotify merges an
  // event into an identical one still unread.)
  bool opened() {
    alignas(struct inotify_event) char buf[4096];
    bool seen = false;
    for (;;) {
      const ssize_t n = ::read(fd_, buf, sizeof(buf));
      if (n <= 0) return seen;
      for (ssize_t off = 0; off < n;) {
        const auto* event = reinterpret_cast<const struct inotify_event*>(buf + off);
        seen = seen || (event->mask & IN_OPEN) != 0;
        off += static_cast<ssize_t>(sizeof(struct inotify_event) + event->len);
      }
    }
  }

 private:
  int fd_;
};

// Every operation that reads, and those that open directories, aimed at `path` (which may be a
// symlink: none of these replaces it).
void touch_every_way(Sandbox& sb, const std::string& path) {
  AttachmentPolicy policy;
  EXPECT_EQ(code_of(sb.read(path)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.read_range(path, 0, 1)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.edit(path, "a", "b")), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.copy(path, "/copy.txt", false)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.read_attachments({path}, policy)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.list(path)), Errc::not_directory);
  EXPECT_EQ(code_of(sb.list(path + "/x")), Errc::not_directory);
  EXPECT_EQ(code_of(sb.write(path + "/x", nullptr, 0)), Errc::not_directory);
  EXPECT_EQ(code_of(sb.make_directory(path)), Errc::already_exists);
  EXPECT_EQ(code_of(sb.glob(path + "/**", 10)), Errc::ok);
  EXPECT_EQ(code_of(sb.stat(path)), Errc::ok);
  EXPECT_EQ(code_of(sb.exists(path)), Errc::ok);
}

TEST_P(FileOpsTest, FifosAreNeverOpened) {
  const fs::path fifo = root_ / "pipe.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  make_symlink("pipe.txt", root_ / "link.txt");
  OpenWatch watch;
  ASSERT_TRUE(watch.watch(fifo)) << std::strerror(errno);
  auto sb = make();
  ASSERT_TRUE(sb);
  touch_every_way(*sb, "/pipe.txt");
  touch_every_way(*sb, "/link.txt");
  EXPECT_EQ(code_of(sb->move("/pipe.txt", "/moved.txt", false)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb->write("/pipe.txt", nullptr, 0)), Errc::not_regular_file);
  EXPECT_FALSE(watch.opened());
  // The watch does see an open: a non-blocking one, as the old code did.
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_TRUE(watch.opened());
  EXPECT_EQ(tree(root_), (Strings{"link.txt", "pipe.txt"}));
}

TEST_P(FileOpsTest, DevicesAreNeverOpened) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a character device needs root";
  const fs::path dev = root_ / "null.txt";
  // /dev/null's numbers: harmless even if opened.
  ASSERT_EQ(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
  OpenWatch watch;
  ASSERT_TRUE(watch.watch(dev)) << std::strerror(errno);
  auto sb = make();
  ASSERT_TRUE(sb);
  touch_every_way(*sb, "/null.txt");
  EXPECT_EQ(code_of(sb->move("/null.txt", "/moved.txt", false)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb->write("/null.txt", nullptr, 0)), Errc::not_regular_file);
  EXPECT_FALSE(watch.opened());
  const int fd = ::open(dev.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {  // a nodev filesystem refuses the open itself
    ::close(fd);
    EXPECT_TRUE(watch.opened());
  }
  EXPECT_EQ(tree(root_), Strings{"null.txt"});
}

}  // namespace
}  // namespace msb
