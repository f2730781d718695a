#include "launcher/run_scratch.h"

#include <gtest/gtest.h>

namespace msb {
namespace {

ExecPath tmp_path(PathAccess access) {
  return {"/nonexistent-msb-tmp", access, std::nullopt, "/tmp", {}, {}, {}};
}

TEST(RunScratch, NoSizeLeavesTmpAndTheLayersAsTheyAre) {
  ExecPolicy policy;
  policy.paths.push_back(tmp_path(PathAccess::write));
  // Without a size nothing is mounted (a mount here would fail: the path does not exist).
  auto scratch = make_scratch(policy, true);
  ASSERT_TRUE(scratch.ok());
  EXPECT_FALSE(scratch.value().root.valid());
  EXPECT_FALSE(scratch.value().layers);
}

TEST(RunScratch, WithASizeOnlyTheWritablePathPlacedAtTmpIsCovered) {
  ExecPolicy policy;
  policy.limits.tmp_bytes = 1 << 20;
  policy.paths.push_back(
      {"/nonexistent-msb-data", PathAccess::write, std::nullopt, "/data", {}, {}, {}});
  policy.paths.push_back(tmp_path(PathAccess::read));
  auto none = make_scratch(policy, true);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().root.valid());
  // The writable /tmp is mounted over: here it does not exist (or we may not mount), so it fails.
  policy.paths.push_back(tmp_path(PathAccess::write));
  EXPECT_FALSE(make_scratch(policy, true).ok());
}

}  // namespace
}  // namespace msb
