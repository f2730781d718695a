#include "launcher/shared_memory.h"

#include <gtest/gtest.h>

namespace msb {
namespace {

TEST(SharedMemory, ShmTmpfsIsSixtyFourMebibytesOrTheMemoryLimitWhenSmaller) {
  EXPECT_EQ(shm_tmpfs_size(0), "size=67108864");
  EXPECT_EQ(shm_tmpfs_size(32ULL << 20), "size=33554432");
  EXPECT_EQ(shm_tmpfs_size(64ULL << 20), "size=67108864");
  EXPECT_EQ(shm_tmpfs_size(1ULL << 31), "size=67108864");
}

TEST(SharedMemory, TmpIsTmpBytesNoMoreThanTheMemoryLimit) {
  ExecLimits limits;
  EXPECT_EQ(tmp_size(limits), 0U);
  limits.tmp_bytes = 1ULL << 30;
  EXPECT_EQ(tmp_size(limits), 1ULL << 30);
  limits.memory_bytes = 1ULL << 28;
  EXPECT_EQ(tmp_size(limits), 1ULL << 28);
  limits.tmp_bytes = 0;
  EXPECT_EQ(tmp_size(limits), 1ULL << 28);
  limits.tmp_bytes = 1ULL << 20;
  EXPECT_EQ(tmp_size(limits), 1ULL << 20);
}

TEST(SharedMemory, NoMemoryLimitLeavesTmpAsItIs) {
  ExecPolicy policy;
  policy.paths.push_back(
      {"/nonexistent-msb-tmp", PathAccess::write, std::nullopt, "/tmp", {}, {}, {}});
  // Without a limit nothing is mounted (a mount here would fail: the path does not exist).
  EXPECT_TRUE(put_tmp_on_tmpfs(policy));
}

TEST(SharedMemory, WithALimitOnlyThePathPlacedAtTmpIsCovered) {
  ExecPolicy policy;
  policy.limits.memory_bytes = 1 << 20;
  policy.paths.push_back(
      {"/nonexistent-msb-data", PathAccess::write, std::nullopt, "/data", {}, {}, {}});
  policy.paths.push_back(
      {"/nonexistent-msb-tmp", PathAccess::read, std::nullopt, "/tmp", {}, {}, {}});
  EXPECT_TRUE(put_tmp_on_tmpfs(policy));
  // The writable /tmp is mounted over: here it does not exist (or we may not mount), so it fails.
  policy.paths.push_back(
      {"/nonexistent-msb-tmp", PathAccess::write, std::nullopt, "/tmp", {}, {}, {}});
  EXPECT_FALSE(put_tmp_on_tmpfs(policy));
}

}  // namespace
}  // namespace msb
