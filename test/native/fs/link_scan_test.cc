#include "fs/link_scan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace {

using msb::LinkSource;
using msb_test::TempDir;
using msb_test::write_host;
using Strings = std::vector<std::string>;
namespace fs = std::filesystem;

class LinkScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "src" / "a" / "b");
    fs::create_directories(dir_.path() / "out");
    fs::create_directories(dir_.path() / "other");
    write_host(dir_.path() / "out" / "secret", "s");
    write_host(dir_.path() / "src" / "own", "o");
  }
  std::string at(const std::string& rel) const { return (dir_.path() / rel).string(); }
  void link(const std::string& from, const std::string& to) const {
    fs::create_hard_link(dir_.path() / from, dir_.path() / to);
  }
  Strings found(const std::vector<LinkSource>& sources, std::size_t budget = 1000) const {
    auto scan = msb::find_shared_links(sources, budget);
    EXPECT_TRUE(scan.ok());
    EXPECT_FALSE(scan.value().truncated);
    return scan.value().found;
  }
  TempDir dir_;
};

TEST_F(LinkScanTest, FindsEveryNameOfAFileLinkedOutside) {
  link("out/secret", "src/a/b/one");
  link("out/secret", "src/two");
  EXPECT_EQ(found({{at("src"), {}}}), (Strings{at("src/a/b/one"), at("src/two")}));
}

TEST_F(LinkScanTest, LinksWithinOrBetweenSourcesAreNotReported) {
  link("src/own", "src/a/own2");
  write_host(dir_.path() / "other" / "x", "x");
  link("other/x", "src/x");
  EXPECT_EQ(found({{at("src"), {}}, {at("other"), {}}}), Strings{});
  EXPECT_EQ(found({{at("src"), {}}}), Strings{at("src/x")});
}

TEST_F(LinkScanTest, APathCoveredByAnotherMountDoesNotCount) {
  link("src/own", "src/a/b/own2");
  EXPECT_EQ(found({{at("src"), {"a/b"}}}), Strings{at("src/own")});
}

TEST_F(LinkScanTest, NeverFollowsALink) {
  link("out/secret", "out/secret2");
  fs::create_directory_symlink(dir_.path() / "out", dir_.path() / "src" / "to-out");
  EXPECT_EQ(found({{at("src"), {}}}), Strings{});
}

TEST_F(LinkScanTest, ReportsAWalkCutShortByItsBudget) {
  auto scan = msb::find_shared_links({{at("src"), {}}}, 2);
  ASSERT_TRUE(scan.ok());
  EXPECT_TRUE(scan.value().truncated);
}

}  // namespace
