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

}  // namespace
}  // namespace msb
