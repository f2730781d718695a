#include "git/git_scan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "git/git_check.h"
#include "git/git_test_util.h"

namespace {

using msb::git::check_after_run;
using msb::git::GitLimits;
using msb::git::GitRefusalKind;
using msb::git::scan_writable;
using msb_test::git;
using msb_test::TempDir;
using msb_test::write_host;
namespace fs = std::filesystem;
using Paths = std::vector<std::string>;

constexpr const char* kCommit = "0123456789012345678901234567890123456789";

bool contains(const Paths& list, const fs::path& path) {
  return std::find(list.begin(), list.end(), path.string()) != list.end();
}

class GitScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!msb_test::has_git()) GTEST_SKIP() << "git is not installed";
    repo_ = fs::canonical(dir_.path()) / "repo";
    fs::create_directory(repo_);
    ASSERT_TRUE(git(repo_, "init -q"));
  }

  void add_gitlink(const std::string& path) { add_gitlink_in(repo_, path); }

  static void add_gitlink_in(const fs::path& top, const std::string& path) {
    ASSERT_TRUE(
        git(top, std::string("update-index --add --cacheinfo 160000,") + kCommit + "," + path));
  }

  TempDir dir_;
  fs::path repo_;
};

TEST_F(GitScanTest, ControlFilesProtectedAndMissingOnesMade) {
  fs::remove_all(repo_ / ".git" / "hooks");
  fs::remove_all(repo_ / ".git" / "info");
  auto scan = scan_writable({repo_.string()});
  ASSERT_TRUE(scan.ok());
  for (const char* name : {"config", "hooks", "info", "modules"})
    EXPECT_TRUE(contains(scan.value().protect, repo_ / ".git" / name)) << name;
  EXPECT_TRUE(fs::is_empty(repo_ / ".git" / "modules"));
  EXPECT_TRUE(fs::is_empty(repo_ / ".git" / "info"));
  EXPECT_TRUE(contains(scan.value().pin, repo_ / ".git"));
  const Paths& absent = scan.value().after->absent;
  for (const char* name : {"commondir", "config.worktree", "worktrees"})
    EXPECT_TRUE(contains(absent, repo_ / ".git" / name)) << name;
}

TEST_F(GitScanTest, SymlinkedControlEntryRefused) {
  fs::remove_all(repo_ / ".git" / "hooks");
  fs::create_directory(repo_ / "shared");
  fs::create_directory_symlink("../shared", repo_ / ".git" / "hooks");
  auto scan = scan_writable({repo_.string()});
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.error().kind, GitRefusalKind::symlink);
  EXPECT_EQ(scan.error().what, ".git/hooks");
}

// The JS reader recursed into `path = .` once per line and never returned at twenty.
TEST_F(GitScanTest, SelfAndClimbingPathsEndTheWalk) {
  std::string text;
  for (int i = 0; i < 20; ++i)
    text += "[submodule \"s\"]\n\tpath = .\n\tpath = a/../a\n\tpath = a\n";
  write_host(repo_ / ".gitmodules", text);
  fs::create_directory(repo_ / "a");
  ASSERT_TRUE(git(repo_ / "a", "init -q"));
  write_host(repo_ / "a" / ".gitmodules", text);  // names itself again
  auto scan = scan_writable({repo_.string()});
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan.value().after->worktrees.size(), 2u);  // the top and a, once each
  EXPECT_TRUE(contains(scan.value().protect, repo_ / "a" / ".git" / "config"));
}

TEST_F(GitScanTest, BoundsRefusedWithTheirName) {
  GitLimits small;
  small.max_gitmodules_bytes = 64;
  write_host(repo_ / ".gitmodules", std::string(65, ' '));
  auto scan = scan_writable({repo_.string()}, small);
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.error().kind, GitRefusalKind::too_large);
  EXPECT_EQ(scan.error().what, ".gitmodules");

  GitLimits few;
  few.max_submodules = 3;
  std::string text;
  for (int i = 0; i < 5; ++i) text += "path = p" + std::to_string(i) + "\n";
  write_host(repo_ / ".gitmodules", text);
  auto many = scan_writable({repo_.string()}, few);
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().kind, GitRefusalKind::too_many);
}

TEST_F(GitScanTest, NestingDeeperThanTheBoundIsNotFollowed) {
  GitLimits shallow;
  shallow.max_depth = 2;
  fs::path at = repo_;
  for (int i = 0; i < 4; ++i) {
    write_host(at / ".gitmodules", "path = n\n");
    at /= "n";
    fs::create_directory(at);
    ASSERT_TRUE(git(at, "init -q"));
  }
  auto scan = scan_writable({repo_.string()}, shallow);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan.value().after->worktrees.size(), 3u);
}

TEST_F(GitScanTest, AfterTheRunWhatAppearedAtNamedPathsGoes) {
  add_gitlink("sub");
  add_gitlink("kept");
  write_host(repo_ / ".gitmodules", "path = other/deep\n");
  fs::create_directory(repo_ / "kept");
  write_host(repo_ / "kept" / ".git", "gitdir: ../.git/modules/kept\n");
  auto scan = scan_writable({repo_.string()});
  ASSERT_TRUE(scan.ok());
  EXPECT_TRUE(contains(scan.value().protect, repo_ / "kept" / ".git"));
  // What a command would do: plant .git at both names, and a symlink on the way to a third.
  fs::create_directory(repo_ / "sub");
  write_host(repo_ / "sub" / ".git", "gitdir: ../evil\n");
  fs::create_directories(repo_ / "elsewhere" / "deep" / ".git");
  fs::create_directory_symlink("elsewhere", repo_ / "other");
  add_gitlink("late");  // named only after the run
  fs::create_directories(repo_ / "late" / ".git" / "x");
  ::chmod((repo_ / "late" / ".git" / "x").c_str(), 0);
  ::chmod((repo_ / "late" / ".git").c_str(), 0);
  auto report = check_after_run(*scan.value().after);
  Paths removed = report.removed;
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (Paths{(repo_ / "late" / ".git").string(), (repo_ / "other").string(),
                            (repo_ / "sub" / ".git").string()}));
  EXPECT_TRUE(report.failed.empty());
  EXPECT_TRUE(msb_test::host_entry_exists(repo_ / "kept" / ".git"));
  EXPECT_TRUE(msb_test::host_entry_exists(repo_ / "elsewhere" / "deep" / ".git"));
  EXPECT_TRUE(msb_test::host_entry_exists(repo_ / "late"));
}

TEST_F(GitScanTest, AfterTheRunNewModuleDirectoriesAndAbsentNamesGo) {
  fs::create_directories(repo_ / ".git" / "modules" / "ns" / "lib");
  ASSERT_TRUE(git(repo_ / ".git" / "modules" / "ns" / "lib", "init -q --bare"));
  auto scan = scan_writable({repo_.string()});
  ASSERT_TRUE(scan.ok());
  EXPECT_FALSE(
      contains(scan.value().protect, repo_ / ".git" / "modules"));  // its objects stay writable
  EXPECT_TRUE(contains(scan.value().protect, repo_ / ".git" / "modules" / "ns" / "lib" / "config"));
  fs::create_directories(repo_ / ".git" / "modules" / "evil");
  fs::create_directories(repo_ / ".git" / "modules" / "ns" / "evil2");
  write_host(repo_ / ".git" / "modules" / "ns" / "lib" / "commondir", "../../../../evil\n");
  fs::create_directories(repo_ / ".git" / "modules" / "ns" / "lib" / "objects" / "new");
  fs::create_directory(repo_ / ".git" / "commondir");
  ::chmod((repo_ / ".git" / "commondir").c_str(), 0);
  auto report = check_after_run(*scan.value().after);
  Paths removed = report.removed;
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (Paths{(repo_ / ".git" / "commondir").string(),
                            (repo_ / ".git" / "modules" / "evil").string(),
                            (repo_ / ".git" / "modules" / "ns" / "evil2").string(),
                            (repo_ / ".git" / "modules" / "ns" / "lib" / "commondir").string()}));
  EXPECT_TRUE(
      msb_test::host_entry_exists(repo_ / ".git" / "modules" / "ns" / "lib" / "objects" / "new"));
}

// A writable directory inside a repository: the repository is read, never changed, and a .git
// planted at a submodule path it names inside the directory goes.
TEST_F(GitScanTest, EnclosingRepositoryIsReadOnlyWatched) {
  add_gitlink("sub");
  fs::create_directory(repo_ / "sub");
  fs::remove_all(repo_ / ".git" / "hooks");
  const std::vector<std::string> before = msb_test::tree(repo_ / ".git");
  auto scan = scan_writable({(repo_ / "sub").string()});
  ASSERT_TRUE(scan.ok());
  EXPECT_TRUE(scan.value().protect.empty());
  EXPECT_TRUE(scan.value().pin.empty());
  EXPECT_EQ(msb_test::tree(repo_ / ".git"), before);
  fs::create_directories(repo_ / "sub" / ".git");
  add_gitlink("other");  // outside the writable directory: never touched
  fs::create_directories(repo_ / "other" / ".git");
  auto report = check_after_run(*scan.value().after);
  EXPECT_EQ(report.removed, (Paths{(repo_ / "sub" / ".git").string()}));
  EXPECT_TRUE(msb_test::host_entry_exists(repo_ / "other" / ".git"));
}

// Git reads an index through a symlink; the check does not, so such a link is removed.
TEST_F(GitScanTest, AfterTheRunASymlinkedIndexGoes) {
  add_gitlink("sub");
  auto scan = scan_writable({repo_.string()});
  ASSERT_TRUE(scan.ok());
  fs::rename(repo_ / ".git" / "index", repo_ / "elsewhere-index");
  fs::create_symlink("../elsewhere-index", repo_ / ".git" / "index");
  auto report = check_after_run(*scan.value().after);
  EXPECT_EQ(report.removed, (Paths{(repo_ / ".git" / "index").string()}));
  EXPECT_TRUE(msb_test::host_entry_exists(repo_ / "elsewhere-index"));
}

TEST_F(GitScanTest, AfterTheRunAnOversizedIndexIsReportedUnchecked) {
  auto scan = scan_writable({repo_.string()});
  ASSERT_TRUE(scan.ok());
  GitLimits small;
  small.max_index_bytes = 16;
  write_host(repo_ / ".git" / "index", std::string(64, 'x'));
  auto report = check_after_run(*scan.value().after, small);
  EXPECT_EQ(report.unchecked, (Paths{(repo_ / ".git" / "index").string()}));
}

// A project without a repository: one made there after the scan is judged when the run ends.
class NewRepositoryTest : public GitScanTest {
 protected:
  void SetUp() override {
    GitScanTest::SetUp();
    if (IsSkipped()) return;
    project_ = fs::canonical(dir_.path()) / "project";
    fs::create_directory(project_);
    write_host(project_ / "app.txt", "app");
  }

  // Scans, lets `command` run as the command would, checks: what was removed.
  template <typename Command>
  msb::git::AfterRunReport run(Command command, const GitLimits& limits = {}) {
    auto scan = scan_writable({project_.string()});
    EXPECT_TRUE(scan.ok());
    if (!scan.ok()) return {};
    EXPECT_TRUE(git(project_, "init -q"));
    command();
    return check_after_run(*scan.value().after, limits);
  }

  fs::path project_;
};

TEST_F(NewRepositoryTest, OrdinaryWorkKept) {
  auto report = run([&] {
    ASSERT_TRUE(git(project_, "config user.name Agent"));
    ASSERT_TRUE(git(project_, "remote add origin https://example.invalid/x.git"));
    ASSERT_TRUE(git(project_, "add -A"));
    ASSERT_TRUE(git(project_, "commit -q -m agent"));
    ASSERT_TRUE(git(project_, "config branch.master.remote origin"));
  });
  EXPECT_TRUE(report.removed.empty());
  EXPECT_TRUE(msb_test::host_entry_exists(project_ / ".git" / "HEAD"));
}

// A .git directory the command made is kept here (repo_settle_test.cc settles it); a .git file
// or link at the top points the host's git anywhere and goes.
TEST_F(NewRepositoryTest, AGitFileOrLinkGoesADirectoryStays) {
  const fs::path git_dir = project_ / ".git";
  auto kept = run([&] { ASSERT_TRUE(git(project_, "config core.fsmonitor /x")); });
  EXPECT_TRUE(kept.removed.empty());
  EXPECT_TRUE(msb_test::host_entry_exists(git_dir / "HEAD"));
  fs::remove_all(git_dir);
  const std::vector<std::function<void()>> plants = {
      [&] {
        fs::remove_all(git_dir);
        write_host(git_dir, "gitdir: elsewhere\n");
      },
      [&] {
        fs::rename(git_dir, project_ / "hidden");
        fs::create_symlink("hidden", git_dir);
      },
  };
  for (std::size_t i = 0; i < plants.size(); ++i) {
    auto report = run(plants[i]);
    EXPECT_EQ(report.removed, (Paths{git_dir.string()})) << "plant " << i;
    EXPECT_EQ(report.repositories, (Paths{git_dir.string()})) << "plant " << i;
    EXPECT_FALSE(msb_test::host_entry_exists(git_dir)) << "plant " << i;
    fs::remove_all(project_ / "hidden");
  }
}

TEST_F(NewRepositoryTest, ARepositoryThereBeforeIsNotJudged) {
  ASSERT_TRUE(git(project_, "init -q"));
  ASSERT_TRUE(git(project_, "config pull.rebase true"));
  auto scan = scan_writable({project_.string()});
  ASSERT_TRUE(scan.ok());
  auto report = check_after_run(*scan.value().after);
  EXPECT_TRUE(report.removed.empty());
}

}  // namespace
