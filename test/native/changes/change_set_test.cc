// A command's change set (src/changes/change_set.cc) read from a layer laid out as overlayfs lays
// out its upper directory with "userxattr" (whiteouts are 0/0 character devices, a replaced
// directory carries user.overlay.opaque), and landed on a real root by the file API's rules.
#include "changes/change_set.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

class ChangeSetTest : public ResolverSandboxTest {
 protected:
  void SetUp() override {
    ResolverSandboxTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    upper_ = tmp_.path() / "upper";
    fs::create_directories(upper_);
  }

  // A deletion, as overlayfs records one.
  bool whiteout(const fs::path& at) { return ::mknod(at.c_str(), S_IFCHR | 0, makedev(0, 0)) == 0; }

  void opaque(const fs::path& dir) {
    fs::create_directories(dir);
    ASSERT_EQ(::setxattr(dir.c_str(), "user.overlay.opaque", "y", 1, 0), 0) << std::strerror(errno);
  }

  changes::LandReport land(const Sandbox& sb, changes::LandOptions options) {
    auto report = changes::land_layers(sb, {{upper_.string(), "/"}}, options);
    EXPECT_TRUE(report.ok()) << errc_name(code_of(report));
    return report.ok() ? report.value() : changes::LandReport{};
  }

  // As if the command started now: what the host holds was there before it.
  static changes::LandOptions since_start(std::int64_t started = now_ns()) {
    changes::LandOptions options;
    options.rules.since_ns = started;
    return options;
  }

  // write_host, with the directories it needs.
  static void put_file(const fs::path& path, std::string_view content) {
    fs::create_directories(path.parent_path());
    write_host(path, content);
  }

  static std::vector<std::pair<std::string, changes::Outcome>> outcomes(
      const changes::LandReport& r) {
    std::vector<std::pair<std::string, changes::Outcome>> out;
    for (const auto& c : r.changes) out.emplace_back(c.path, c.outcome);
    return out;
  }

  fs::path upper_;
};

using O = changes::Outcome;

TEST_P(ChangeSetTest, FilesLandByRenameAndRemovalsRemove) {
  write_host(root_ / "old.txt", "old");
  write_host(root_ / "gone.txt", "bye");
  write_host(upper_ / "old.txt", "new");
  put_file(upper_ / "made" / "deep.txt", "deep");
  if (!whiteout(upper_ / "gone.txt")) GTEST_SKIP() << "this kernel refuses whiteouts to us";
  auto sb = make();
  ASSERT_TRUE(sb);
  auto report = land(*sb, since_start());
  EXPECT_EQ(outcomes(report),
            (std::vector<std::pair<std::string, O>>{{"/gone.txt", O::applied},
                                                    {"/made", O::applied},
                                                    {"/made/deep.txt", O::applied},
                                                    {"/old.txt", O::applied}}));
  EXPECT_EQ(read_host(root_ / "old.txt"), "new");
  EXPECT_EQ(read_host(root_ / "made/deep.txt"), "deep");
  EXPECT_FALSE(host_entry_exists(root_ / "gone.txt"));
  EXPECT_FALSE(host_entry_exists(upper_ / "old.txt"));  // renamed, not copied
}

TEST_P(ChangeSetTest, AnOpaqueDirectoryReplacesTheHostsEntries) {
  put_file(root_ / "d" / "keep-not.txt", "x");
  put_file(root_ / "d" / "sub" / "y.txt", "y");
  opaque(upper_ / "d");
  put_file(upper_ / "d" / "fresh.txt", "fresh");
  auto sb = make();
  ASSERT_TRUE(sb);
  land(*sb, since_start());
  EXPECT_EQ(tree(root_), (Strings{"d", "d/fresh.txt"}));
}

TEST_P(ChangeSetTest, TrustedNamesAndReadOnlyMountsAreRefusedAndNothingOfThemLands) {
  fs::create_directories(root_ / "ro");
  put_file(upper_ / "a" / "b" / ".vscode" / "tasks.json", "{}");
  put_file(upper_ / "ro" / "x.txt", "x");
  write_host(upper_ / "ok.txt", "ok");
  auto o = options();
  o.mounts.push_back(mount_spec((root_ / "ro").string(), "/ro", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  auto report = land(*sb, since_start());
  for (const auto& c : report.changes) {
    if (c.path.find(".vscode") != std::string::npos) {
      EXPECT_EQ(c.outcome, O::refused) << c.path;
      EXPECT_EQ(c.error.code, Errc::host_trusted) << c.path;
    }
    if (c.path == "/ro/x.txt") {
      EXPECT_EQ(c.error.code, Errc::read_only);
    }
  }
  EXPECT_FALSE(host_entry_exists(root_ / "a/b/.vscode"));
  EXPECT_FALSE(host_entry_exists(root_ / "ro/x.txt"));
  EXPECT_EQ(read_host(root_ / "ok.txt"), "ok");
}

TEST_P(ChangeSetTest, AHostFileChangedSinceTheStartIsAConflictAndKeepsItsContents) {
  const std::int64_t started = now_ns();
  ::usleep(20'000);                       // a clock tick or more: the write is after the start
  write_host(root_ / "a.txt", "theirs");  // changed during the run
  write_host(upper_ / "a.txt", "mine");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto report = land(*sb, since_start(started));
  EXPECT_EQ(outcomes(report), (std::vector<std::pair<std::string, O>>{{"/a.txt", O::conflict}}));
  EXPECT_EQ(read_host(root_ / "a.txt"), "theirs");
  // The same change, judged against a start after the host's write, lands.
  land(*sb, since_start());
  EXPECT_EQ(read_host(root_ / "a.txt"), "mine");
}

TEST_P(ChangeSetTest, ADryRunChangesNothingAndAFilterHoldsTheRest) {
  write_host(upper_ / "one.txt", "1");
  write_host(upper_ / "two.txt", "2");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto dry = since_start();
  dry.rules.dry_run = true;
  EXPECT_EQ(land(*sb, dry).changes.size(), 2u);
  EXPECT_EQ(tree(root_), Strings{});
  auto only = since_start();
  only.only = std::set<std::string>{"/two.txt"};
  auto report = land(*sb, only);
  EXPECT_EQ(outcomes(report), (std::vector<std::pair<std::string, O>>{{"/one.txt", O::pending},
                                                                      {"/two.txt", O::applied}}));
  EXPECT_EQ(tree(root_), Strings{"two.txt"});
}

TEST_P(ChangeSetTest, ACopiedUpFileWithTheSameBytesIsNoChange) {
  write_host(root_ / "same.txt", "same");
  ASSERT_EQ(::chmod((root_ / "same.txt").c_str(), 0644), 0);
  write_host(upper_ / "same.txt", "same");
  ASSERT_EQ(::chmod((upper_ / "same.txt").c_str(), 0644), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_TRUE(land(*sb, since_start()).changes.empty());
}

TEST_P(ChangeSetTest, ATrustedFileOnlyTouchedIsNoChangeNotARefusal) {
  put_file(root_ / ".vscode" / "tasks.json", "{}");
  ASSERT_EQ(::chmod((root_ / ".vscode/tasks.json").c_str(), 0644), 0);
  put_file(upper_ / ".vscode" / "tasks.json", "{}");
  ASSERT_EQ(::chmod((upper_ / ".vscode/tasks.json").c_str(), 0644), 0);
  put_file(upper_ / ".vscode" / "evil.json", "{}");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto report = land(*sb, since_start());
  EXPECT_EQ(outcomes(report),
            (std::vector<std::pair<std::string, O>>{{"/.vscode/evil.json", O::refused}}));
}

TEST_P(ChangeSetTest, OverlayAttributesAndSetIdBitsNeverLand) {
  write_host(upper_ / "tool", "#!/bin/sh\n");
  ASSERT_EQ(::chmod((upper_ / "tool").c_str(), 04755), 0);
  ASSERT_EQ(::setxattr((upper_ / "tool").c_str(), "user.overlay.origin", "x", 1, 0), 0);
  auto sb = make();
  ASSERT_TRUE(sb);
  land(*sb, since_start());
  EXPECT_EQ(mode_of(root_ / "tool"), 0755u);
  char value[8];
  EXPECT_LT(::getxattr((root_ / "tool").c_str(), "user.overlay.origin", value, sizeof value), 0);
}

INSTANTIATE_TEST_SUITE_P(Resolvers, ChangeSetTest, each_resolver(), resolver_name);

}  // namespace
}  // namespace msb
