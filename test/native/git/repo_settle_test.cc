#include "git/repo_settle.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "git/git_test_util.h"

namespace {

using msb::git::RepositorySeen;
using msb::git::settle_repositories;
using msb::git::SettleReport;
using msb_test::git;
using msb_test::read_host;
using msb_test::TempDir;
using msb_test::write_host;
namespace fs = std::filesystem;

RepositorySeen seen(const fs::path& git_dir, std::string head = "") {
  struct stat st {};
  EXPECT_EQ(::stat(git_dir.c_str(), &st), 0);
  return RepositorySeen{git_dir.string(), msb::FileId{st.st_dev, st.st_ino}, std::move(head)};
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

class RepoSettleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_GIT();
    project_ = fs::canonical(dir_.path()) / "project";
    fs::create_directory(project_);
    ASSERT_TRUE(git(project_, "init -q"));
    git_dir_ = project_ / ".git";
  }

  // The repository is new: settled as a command's.
  SettleReport settle_new() {
    return settle_repositories({}, {seen(git_dir_)}, {project_.string()});
  }

  TempDir dir_;
  fs::path project_;
  fs::path git_dir_;
};

TEST_F(RepoSettleTest, OrdinaryWorkLeavesNothingToTakeOut) {
  ASSERT_TRUE(git(project_, "config user.name Agent"));
  ASSERT_TRUE(git(project_, "remote add origin https://example.invalid/x.git"));
  ASSERT_TRUE(git(project_, "config pull.rebase true"));
  ASSERT_TRUE(git(project_, "commit -q --allow-empty -m agent"));
  const std::string config = read_host(git_dir_ / "config");
  const SettleReport report = settle_new();
  EXPECT_TRUE(report.taken_out.empty());
  EXPECT_EQ(read_host(git_dir_ / "config"), config);  // not even rewritten
}

TEST_F(RepoSettleTest, WhatCouldRunAProgramIsTakenOutTheRepositoryStays) {
  const std::vector<std::pair<std::function<void()>, std::string>> plants = {
      {[&] { ASSERT_TRUE(git(project_, "config core.fsmonitor /x")); },
       (git_dir_ / "config").string() + ": core.fsmonitor"},
      {[&] { ASSERT_TRUE(git(project_, "config alias.st '!x'")); },
       (git_dir_ / "config").string() + ": alias.st"},
      {[&] { ASSERT_TRUE(git(project_, "config include.path /elsewhere")); },
       (git_dir_ / "config").string() + ": include.path"},
      {[&] { ASSERT_TRUE(git(project_, "remote add o 'ext::sh -c x'")); },
       (git_dir_ / "config").string() + ": remote.o.url"},
      {[&] { write_host(git_dir_ / "hooks" / "pre-commit", "#!/bin/sh\n"); },
       (git_dir_ / "hooks" / "pre-commit").string()},
      {[&] { fs::create_symlink("/bin/true", git_dir_ / "hooks" / "x.sample"); },
       (git_dir_ / "hooks" / "x.sample").string()},
      {[&] { write_host(git_dir_ / "commondir", "/elsewhere\n"); },
       (git_dir_ / "commondir").string()},
      {[&] { write_host(git_dir_ / "config.worktree", "[core]\n\tpager = x\n"); },
       (git_dir_ / "config.worktree").string() + ": core.pager"},
      {[&] {
         fs::create_directories(git_dir_ / "rebase-merge");
         write_host(git_dir_ / "rebase-merge" / "git-rebase-todo", "exec x\n");
       },
       (git_dir_ / "rebase-merge").string()},
      {[&] {
         fs::create_directories(git_dir_ / "modules" / "a" / "b");
         ASSERT_TRUE(git(git_dir_ / "modules" / "a" / "b", "init -q --bare"));
         ASSERT_TRUE(git(git_dir_ / "modules" / "a" / "b", "config core.sshCommand x"));
       },
       (git_dir_ / "modules" / "a" / "b" / "config").string() + ": core.sshcommand"},
      {[&] {
         fs::rename(git_dir_ / "config", project_ / "c");
         fs::create_symlink("../c", git_dir_ / "config");
       },
       (git_dir_ / "config").string()},
  };
  for (std::size_t i = 0; i < plants.size(); ++i) {
    plants[i].first();
    const SettleReport report = settle_new();
    EXPECT_TRUE(has(report.taken_out, plants[i].second)) << "plant " << i;
    EXPECT_TRUE(report.failed.empty()) << "plant " << i;
    EXPECT_TRUE(git(project_, "status")) << "plant " << i;  // still a repository git uses
    // Settled once, nothing is left to take out.
    EXPECT_TRUE(settle_new().taken_out.empty()) << "plant " << i;
    fs::remove_all(git_dir_);
    fs::remove(project_ / "c");
    ASSERT_TRUE(git(project_, "init -q"));
  }
}

TEST_F(RepoSettleTest, AConfigOverItsBoundGoesWhole) {
  msb::git::GitLimits small;
  small.max_config_bytes = 8;
  const SettleReport report = settle_repositories({}, {seen(git_dir_)}, {project_.string()}, small);
  EXPECT_TRUE(has(report.taken_out, (git_dir_ / "config").string()));
  EXPECT_FALSE(msb_test::host_entry_exists(git_dir_ / "config"));
}

TEST_F(RepoSettleTest, AVoidedHeadOfARepositoryThatWasThereIsPutBack) {
  const std::string head = read_host(git_dir_ / "HEAD");
  const RepositorySeen before = seen(git_dir_, head);
  write_host(git_dir_ / "HEAD", "garbage");
  SettleReport report = settle_repositories({before}, {}, {project_.string()});
  EXPECT_EQ(report.restored, (std::vector<std::string>{(git_dir_ / "HEAD").string()}));
  EXPECT_EQ(read_host(git_dir_ / "HEAD"), head);
  fs::remove(git_dir_ / "HEAD");
  report = settle_repositories({before}, {}, {project_.string()});
  EXPECT_EQ(read_host(git_dir_ / "HEAD"), head);
  // A repository that is still one is left alone; nothing outside the roots is touched.
  EXPECT_TRUE(
      settle_repositories({before}, {seen(git_dir_)}, {project_.string()}).restored.empty());
  write_host(git_dir_ / "HEAD", "garbage");
  EXPECT_TRUE(settle_repositories({before}, {}, {"/elsewhere"}).restored.empty());
}

}  // namespace
