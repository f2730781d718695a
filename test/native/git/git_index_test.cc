#include "git/git_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "git/git_test_util.h"

namespace {

using msb::git::GitRefusalKind;
using msb::git::index_gitlinks;
using msb_test::git;
using msb_test::TempDir;
namespace fs = std::filesystem;
using Paths = std::vector<std::string>;

constexpr const char* kCommit = "0123456789012345678901234567890123456789";
constexpr const char* kCommit256 =
    "0123456789012345678901234567890123456789012345678901234567890123";

// A repository whose index holds files and the gitlinks `links`, written by git itself.
void make_index(const fs::path& repo, const Paths& links, const std::string& init_args = "",
                const char* commit = kCommit) {
  ASSERT_TRUE(git(repo, "init -q " + init_args));
  msb_test::write_host(repo / "file.txt", "x");
  ASSERT_TRUE(git(repo, "add file.txt"));
  for (const std::string& link : links) {
    ASSERT_TRUE(
        git(repo, std::string("update-index --add --cacheinfo 160000,") + commit + "," + link));
  }
}

Paths gitlinks_of(const fs::path& repo, const char* name = "index") {
  auto data = msb_test::read_bytes(repo / ".git" / name);
  auto read = index_gitlinks(data, 1000, 100);
  EXPECT_TRUE(read.ok());
  if (!read.ok()) return {};
  Paths out = read.value().paths;
  std::sort(out.begin(), out.end());
  return out;
}

const Paths kLinks{"a/deep/er/one", "a/deep/er/two", "b", "zz/long-name-" + std::string(200, 'x')};

TEST(GitIndex, Version2) {
  SKIP_WITHOUT_GIT();
  TempDir dir;
  make_index(dir.path(), kLinks);
  ASSERT_TRUE(git(dir.path(), "update-index --index-version 2"));
  EXPECT_EQ(gitlinks_of(dir.path()), kLinks);
}

// Version 3 carries extended flags (here skip-worktree on one entry).
TEST(GitIndex, Version3WithExtendedFlags) {
  SKIP_WITHOUT_GIT();
  TempDir dir;
  make_index(dir.path(), kLinks);
  ASSERT_TRUE(git(dir.path(), "update-index --skip-worktree file.txt"));
  ASSERT_TRUE(git(dir.path(), "update-index --index-version 3"));
  auto data = msb_test::read_bytes(dir.path() / ".git" / "index");
  ASSERT_GE(data.size(), 8u);
  EXPECT_EQ(data[7], 3);
  EXPECT_EQ(gitlinks_of(dir.path()), kLinks);
}

// Version 4 compresses each path against the one before it.
TEST(GitIndex, Version4PrefixCompressed) {
  SKIP_WITHOUT_GIT();
  TempDir dir;
  make_index(dir.path(), kLinks);
  ASSERT_TRUE(git(dir.path(), "update-index --index-version 4"));
  EXPECT_EQ(gitlinks_of(dir.path()), kLinks);
}

TEST(GitIndex, Sha256Repository) {
  SKIP_WITHOUT_GIT();
  TempDir dir;
  if (!git(dir.path(), "init -q --object-format=sha256 probe")) GTEST_SKIP() << "no sha256 git";
  const fs::path repo = dir.path() / "repo";
  fs::create_directory(repo);
  make_index(repo, kLinks, "--object-format=sha256", kCommit256);
  EXPECT_EQ(gitlinks_of(repo), kLinks);
}

TEST(GitIndex, SplitIndexNamesItsSharedPart) {
  SKIP_WITHOUT_GIT();
  TempDir dir;
  make_index(dir.path(), kLinks);
  ASSERT_TRUE(git(dir.path(), "update-index --split-index"));
  auto data = msb_test::read_bytes(dir.path() / ".git" / "index");
  auto read = index_gitlinks(data, 1000, 100);
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read.value().shared_index.starts_with("sharedindex."));
  EXPECT_TRUE(msb_test::host_entry_exists(dir.path() / ".git" / read.value().shared_index));
  EXPECT_EQ(gitlinks_of(dir.path(), read.value().shared_index.c_str()), kLinks);
}

TEST(GitIndex, BoundsRefused) {
  SKIP_WITHOUT_GIT();
  TempDir dir;
  make_index(dir.path(), kLinks);
  auto data = msb_test::read_bytes(dir.path() / ".git" / "index");
  auto entries = index_gitlinks(data, 2, 100);
  ASSERT_FALSE(entries.ok());
  EXPECT_EQ(entries.error().kind, GitRefusalKind::too_many);
  auto links = index_gitlinks(data, 1000, 2);
  ASSERT_FALSE(links.ok());
  EXPECT_EQ(links.error().kind, GitRefusalKind::too_many);
}

TEST(GitIndex, MalformedRefused) {
  SKIP_WITHOUT_GIT();
  TempDir dir;
  make_index(dir.path(), kLinks);
  auto data = msb_test::read_bytes(dir.path() / ".git" / "index");
  for (std::size_t cut : {std::size_t{0}, std::size_t{11}, std::size_t{60}, data.size() - 1}) {
    std::vector<std::uint8_t> part(data.begin(), data.begin() + static_cast<long>(cut));
    auto read = index_gitlinks(part, 1000, 100);
    ASSERT_FALSE(read.ok()) << cut;
    EXPECT_EQ(read.error().kind, GitRefusalKind::malformed);
  }
  std::vector<std::uint8_t> wrong_version = data;
  wrong_version[7] = 9;
  EXPECT_FALSE(index_gitlinks(wrong_version, 1000, 100).ok());
}

// A huge entry count in the header costs nothing: the reader fails where the data ends.
TEST(GitIndex, CountBeyondTheDataIsMalformed) {
  std::vector<std::uint8_t> data{'D', 'I', 'R', 'C', 0, 0, 0, 2, 0, 0x10, 0, 0};
  data.resize(data.size() + 20);
  auto read = index_gitlinks(data, 8'000'000, 100);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, GitRefusalKind::malformed);
}

}  // namespace
