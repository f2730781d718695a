#include "git/git_layout.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "common/unique_fd.h"
#include "git/git_test_util.h"

namespace {

using msb::git::changes_repository;
using msb::git::Layout;
using msb::git::LayoutChange;
using msb::git::read_layout;
using msb::git::valid_head_text;
using msb_test::TempDir;
using msb_test::write_host;
namespace fs = std::filesystem;

constexpr const char* kSha1 = "0123456789abcdef0123456789abcdef01234567";

Layout layout_of(const fs::path& dir) {
  msb::UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  EXPECT_TRUE(fd.valid());
  return read_layout(fd.get());
}

TEST(GitLayoutTest, HeadTextAsGitValidatesIt) {
  EXPECT_TRUE(valid_head_text("ref: refs/heads/main\n"));
  EXPECT_TRUE(valid_head_text("ref:\t refs/x"));
  EXPECT_TRUE(valid_head_text(kSha1));
  EXPECT_TRUE(valid_head_text(std::string(64, 'A')));  // SHA-256, either case
  EXPECT_TRUE(valid_head_text(std::string(kSha1) + " trailing"));
  EXPECT_FALSE(valid_head_text("garbage"));
  EXPECT_FALSE(valid_head_text("ref: heads/main"));
  EXPECT_FALSE(valid_head_text(std::string(39, 'a')));
  EXPECT_FALSE(valid_head_text(""));
  EXPECT_TRUE(msb::git::valid_head_link("refs/heads/main"));
  EXPECT_FALSE(msb::git::valid_head_link("../HEAD"));
}

TEST(GitLayoutTest, ReadsWhatGitFindsAndNothingElse) {
  TempDir dir;
  const fs::path d = dir.path();
  EXPECT_FALSE(layout_of(d).repository());
  write_host(d / "HEAD", "ref: refs/heads/main\n");
  fs::create_directory(d / "objects");
  EXPECT_FALSE(layout_of(d).repository());
  write_host(d / "refs", "a file counts: git only asks whether it can be searched\n");
  EXPECT_TRUE(layout_of(d).repository());
  write_host(d / "HEAD", "garbage");
  EXPECT_FALSE(layout_of(d).repository());
  fs::remove(d / "HEAD");
  fs::create_symlink("refs/heads/main", d / "HEAD");
  EXPECT_TRUE(layout_of(d).repository());
  fs::remove(d / "HEAD");
  fs::create_directory(d / "HEAD");
  EXPECT_FALSE(layout_of(d).repository());
}

TEST(GitLayoutTest, ACommondirStandsForObjectsAndRefs) {
  TempDir dir;
  write_host(dir.path() / "HEAD", kSha1);
  write_host(dir.path() / "commondir", "../main\n");
  EXPECT_TRUE(layout_of(dir.path()).repository());
}

TEST(GitLayoutTest, ChangesThatMakeOrUndoARepositoryAreCaught) {
  const Layout none{};
  const Layout two{true, true, false, false};  // HEAD and objects
  const Layout repo{true, true, true, false};
  const auto place_dir = LayoutChange::unknown(true);
  const auto removal = LayoutChange::removal();
  EXPECT_FALSE(changes_repository(none, "refs", place_dir));
  EXPECT_TRUE(changes_repository(two, "refs", place_dir));
  EXPECT_TRUE(changes_repository(two, "REFS", place_dir));  // a case-folding directory
  EXPECT_FALSE(changes_repository(two, "other", place_dir));
  EXPECT_TRUE(changes_repository(Layout{false, true, true, false}, "HEAD",
                                 LayoutChange::file("ref: refs/heads/x\n")));
  EXPECT_FALSE(changes_repository(Layout{false, true, true, false}, "HEAD",
                                  LayoutChange::file("not a ref")));
  EXPECT_TRUE(
      changes_repository(Layout{false, true, true, false}, "HEAD", LayoutChange::unknown(false)));
  EXPECT_TRUE(
      changes_repository(Layout{true, false, false, false}, "commondir", LayoutChange::file("x")));
  // A repository: HEAD may change to another valid ref, never go or become invalid.
  EXPECT_FALSE(changes_repository(repo, "HEAD", LayoutChange::file("ref: refs/heads/b\n")));
  EXPECT_TRUE(changes_repository(repo, "HEAD", LayoutChange::file("garbage")));
  EXPECT_TRUE(changes_repository(repo, "HEAD", LayoutChange::unknown(false)));
  EXPECT_TRUE(changes_repository(repo, "HEAD", removal));
  EXPECT_TRUE(changes_repository(repo, "objects", removal));
  EXPECT_FALSE(changes_repository(repo, "description", removal));
}

TEST(GitLayoutTest, ControlNamesOfARepository) {
  for (const char* name : {"config", "CONFIG", "hooks", "info", "commondir", "modules", "worktrees",
                           "config.worktree"}) {
    EXPECT_TRUE(msb::git::repository_control_name(name)) << name;
  }
  for (const char* name : {"objects", "refs", "HEAD", "description", "index", "logs"}) {
    EXPECT_FALSE(msb::git::repository_control_name(name)) << name;
  }
}

}  // namespace
