// Sandbox::glob (glob_walk.cc runs it): patterns, dot names, limits, depth, symlinks and mounts,
// on real files, with both resolvers.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "fs/sandbox.h"
#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h

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

}  // namespace
}  // namespace msb
