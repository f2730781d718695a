// The resumable glob walk (glob_walk.h): the same answer however it is sliced, paths produced in
// byte order without a final sort, huge directories merged from their batches, and the entry
// budget. With both resolvers.
#include "fs/glob_walk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "fs/sandbox.h"
#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace {

using msb::Errc;
using msb::GlobResult;
using msb::GlobTask;
using msb::ResolverKind;
using msb::Sandbox;
using msb::SandboxOptions;
using msb_test::code_of;
using msb_test::write_host;
namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

class GlobWalkTest : public msb_test::ResolverSandboxTest {
 protected:
  std::shared_ptr<Sandbox> make(std::vector<msb::MountSpec> mounts = {}) {
    SandboxOptions o = options();
    o.mounts = std::move(mounts);
    return ResolverSandboxTest::make(o);
  }

  // Runs a task with the given budget per call; `calls` counts the calls it took.
  static GlobResult run(GlobTask& task, std::size_t budget, std::size_t* calls = nullptr) {
    std::size_t n = 1;
    while (!task.run(budget)) ++n;
    if (calls != nullptr) *calls = n;
    auto r = task.take_result();
    EXPECT_TRUE(r.ok()) << msb::errc_name(code_of(r));
    return r.ok() ? r.value() : GlobResult{};
  }
};

INSTANTIATE_TEST_SUITE_P(Resolvers, GlobWalkTest, msb_test::each_resolver(),
                         msb_test::resolver_name);

TEST_P(GlobWalkTest, PathsComeInByteOrderAndTruncateToAPrefix) {
  // "a-b" and "a.txt" sort between "a" and everything under "a/".
  for (const char* dir : {"a", "a-b", "a0", "b", "a/x", "a-b/y"})
    fs::create_directories(root_ / dir);
  for (const char* file : {"a.txt", "a/z.txt", "a/x/w.txt", "a-b/y/v.txt", "a-b.txt", "b/!"}) {
    write_host(root_ / file, file);
  }
  auto sb = make();
  ASSERT_TRUE(sb);
  auto all = sb->glob("/**", 0);
  ASSERT_TRUE(all.ok());
  const Strings& paths = all.value().paths;
  EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end()));
  EXPECT_EQ(paths, (Strings{"/a", "/a-b", "/a-b.txt", "/a-b/y", "/a-b/y/v.txt", "/a.txt", "/a/x",
                            "/a/x/w.txt", "/a/z.txt", "/a0", "/b", "/b/!"}));
  for (std::size_t limit = 1; limit < paths.size(); ++limit) {
    auto some = sb->glob("/**", limit);
    ASSERT_TRUE(some.ok());
    EXPECT_TRUE(some.value().truncated);
    EXPECT_EQ(some.value().paths, Strings(paths.begin(), paths.begin() + limit));
  }
}

TEST_P(GlobWalkTest, AnySlicingGivesTheSameAnswer) {
  for (int d = 0; d < 5; ++d) {
    fs::create_directories(root_ / "src" / ("d" + std::to_string(d)) / "deep");
    for (int f = 0; f < 20; ++f) {
      write_host(root_ / "src" / ("d" + std::to_string(d)) / ("f" + std::to_string(f) + ".ts"), "");
    }
    write_host(root_ / "src" / ("d" + std::to_string(d)) / "deep/z.ts", "");
  }
  auto sb = make();
  ASSERT_TRUE(sb);
  auto whole = sb->glob("/src/**/*.ts", 0);
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole.value().paths.size(), 105u);
  std::size_t previous_calls = 0;
  for (const std::size_t budget : {std::size_t{0}, std::size_t{1000}, std::size_t{100000},
                                   msb::kGlobSliceWork, msb::kMaxGlobWork}) {
    GlobTask task(*sb, "/src/**/*.ts", 0);
    std::size_t calls = 0;
    const GlobResult sliced = run(task, budget, &calls);
    EXPECT_EQ(sliced.paths, whole.value().paths) << budget;
    EXPECT_FALSE(sliced.truncated);
    if (previous_calls != 0) {
      EXPECT_LE(calls, previous_calls) << budget;
    }
    previous_calls = calls;
  }
  // One step per call: each call makes progress, and there is one call per entry at least.
  GlobTask stepwise(*sb, "/src/**/*.ts", 0);
  std::size_t calls = 0;
  run(stepwise, 0, &calls);
  EXPECT_GT(calls, 105u);
}

TEST_P(GlobWalkTest, HugeDirectoriesAreMergedFromTheirBatches) {
  // Long names in shuffled creation order: several getdents batches, each sorted on its own.
  const fs::path big = root_ / "big";
  fs::create_directories(big);
  Strings expected;
  for (int i = 0; i < 3000; ++i) {
    const int n = (i * 7919) % 3000;
    const std::string name = "entry-with-a-longish-name-" + std::to_string(n) + ".txt";
    write_host(big / name, "");
    expected.push_back("/big/" + name);
  }
  // A mount target inside: the mount's directory hides the disk's entry of the same name.
  fs::create_directories(big / "entry-with-a-longish-name-5.txt.d");
  const fs::path elsewhere = tmp_.path() / "elsewhere";
  fs::create_directories(elsewhere);
  write_host(elsewhere / "inner.txt", "");
  write_host(big / "entry-with-a-longish-name-5.txt.d" / "hidden.txt", "");
  auto sb = make(
      {msb_test::mount_spec(elsewhere.string(), "/big/entry-with-a-longish-name-5.txt.d", false)});
  ASSERT_TRUE(sb);
  expected.push_back("/big/entry-with-a-longish-name-5.txt.d/inner.txt");
  std::sort(expected.begin(), expected.end());
  GlobTask task(*sb, "/big/**/*.txt", 100000);
  const GlobResult r = run(task, 1);
  EXPECT_EQ(r.paths, expected);
  EXPECT_FALSE(r.truncated);
}

TEST_P(GlobWalkTest, TheEntryBudgetCountsEveryEntryRead) {
  for (int d = 0; d < 10; ++d) {
    fs::create_directories(root_ / "t" / ("d" + std::to_string(d)));
    for (int f = 0; f < 30; ++f) {
      write_host(root_ / "t" / ("d" + std::to_string(d)) / ("f" + std::to_string(f)), "");
    }
  }
  auto sb = make();
  ASSERT_TRUE(sb);
  // 10 directories and 300 files below "/t": 310 entries.
  GlobTask enough(*sb, "/t/**/none", 0, 310);
  EXPECT_EQ(run(enough, msb::kGlobSliceWork).truncated, false);
  GlobTask short_of_it(*sb, "/t/**/none", 0, 309);
  EXPECT_EQ(run(short_of_it, msb::kGlobSliceWork).truncated, true);
  GlobTask some(*sb, "/t/**/f1", 0, 100);
  const GlobResult r = run(some, msb::kGlobSliceWork);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.paths.empty());
  EXPECT_LT(r.paths.size(), 10u);
}

TEST_P(GlobWalkTest, RefusalsArriveThroughTheTask) {
  auto sb = make();
  ASSERT_TRUE(sb);
  GlobTask bad(*sb, "/" + std::string(800, '{'), 0);
  EXPECT_TRUE(bad.run(msb::kGlobSliceWork));
  EXPECT_EQ(code_of(bad.take_result()), Errc::invalid_pattern);
  GlobTask missing(*sb, "/nowhere/**", 0);
  const GlobResult r = run(missing, 1);
  EXPECT_TRUE(r.paths.empty());
  EXPECT_FALSE(r.truncated);
}

}  // namespace
