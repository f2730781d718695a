#include "git/gitmodules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using msb::git::gitmodules_paths;
using msb::git::submodule_components;
using Paths = std::vector<std::string>;

TEST(Gitmodules, ReadsPathKeysAsGitWritesThem) {
  const std::string text =
      "[submodule \"lib\"]\n\tpath = lib\n\turl = ../lib\n"
      "[submodule \"b\"]\n  PATH=deep/b  \n";
  EXPECT_EQ(gitmodules_paths(text, 10).paths, (Paths{"lib", "deep/b"}));
}

TEST(Gitmodules, QuotesEscapesCommentsAndContinuations) {
  const std::string text =
      "[submodule \"q\"]\n"
      "\tpath = \"with space \" ; a comment\n"
      "\tpath = a\\\"b # another\n"
      "\tpath = split\\\n-line\n"
      "[submodule \"x\"] path = same-line\n"
      "\tpathological = no\n"
      "# path = commented\n";
  EXPECT_EQ(gitmodules_paths(text, 10).paths,
            (Paths{"with space ", "a\"b", "split-line", "same-line"}));
}

// The regex this replaces took ~20 s on one line of 120,000 spaces: one pass takes nothing, and
// a quadratic reader would not finish 8 MiB of blanks within the test's time.
TEST(Gitmodules, LinearOnLongBlankLines) {
  std::string text(120000, ' ');
  text += "\n\tpath = lib\n";
  EXPECT_EQ(gitmodules_paths(text, 10).paths, (Paths{"lib"}));
  std::string huge = "path =" + std::string(8u << 20, ' ') + "x" + std::string(8u << 20, '\t');
  EXPECT_EQ(gitmodules_paths(huge, 10).paths, (Paths{"x"}));
  std::string unterminated = "[" + std::string(8u << 20, '"');
  EXPECT_TRUE(gitmodules_paths(unterminated, 10).paths.empty());
}

// The config reader, lenient: a line git would refuse is skipped, the next ones still read.
TEST(Gitmodules, MalformedLinesSkippedNotTheRest) {
  const std::string text =
      "1bad\n\"x\n[sub \"unterminated\n\tpath = a\\qb\n\tpath = \"open\n"
      "path = kept\r\n[ok] path = also\n=\n";
  EXPECT_EQ(gitmodules_paths(text, 10).paths, (Paths{"kept", "also"}));
  std::string lines;
  for (int i = 0; i < 100000; ++i) lines += "1\n";
  EXPECT_TRUE(gitmodules_paths(lines + "[" + std::string(1u << 20, '1'), 10).paths.empty());
}

TEST(Gitmodules, BoundedInEntries) {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "path = p" + std::to_string(i) + "\n";
  auto read = gitmodules_paths(text, 20);
  EXPECT_EQ(read.paths.size(), 20u);
  EXPECT_TRUE(read.truncated);
  EXPECT_FALSE(gitmodules_paths(text, 50).truncated);
}

TEST(SubmoduleComponents, DotsAndEmptyPiecesDropped) {
  EXPECT_EQ(submodule_components("a/./b//c/"), (Paths{"a", "b", "c"}));
  EXPECT_EQ(submodule_components("."), Paths{});  // the top itself: never a submodule
  EXPECT_EQ(submodule_components("./"), Paths{});
}

TEST(SubmoduleComponents, ClimbingAbsoluteAndGitNamesRefused) {
  EXPECT_FALSE(submodule_components("a/../a").has_value());
  EXPECT_FALSE(submodule_components("..").has_value());
  EXPECT_FALSE(submodule_components("/etc").has_value());
  EXPECT_FALSE(submodule_components("").has_value());
  EXPECT_FALSE(submodule_components("x/.git").has_value());
  EXPECT_FALSE(submodule_components(std::string("a\0b", 3)).has_value());
}

}  // namespace
