#include "launcher/memory_cgroup.h"

#include <gtest/gtest.h>

namespace msb {
namespace {

TEST(MemoryCgroup, HybridHostsUseTheV1MemoryHierarchy) {
  auto member = memory_cgroup_membership(
      "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n");
  ASSERT_TRUE(member);
  EXPECT_EQ(member->path, "/process_api/abc");
  EXPECT_FALSE(member->v2);
}

TEST(MemoryCgroup, MemoryIsFoundAmongCoMountedControllers) {
  auto member = memory_cgroup_membership("3:cpu,memory:/a/b\n0::/x\n");
  ASSERT_TRUE(member);
  EXPECT_EQ(member->path, "/a/b");
  EXPECT_FALSE(member->v2);
  // A controller whose name only contains the word is not the memory controller.
  auto v2 = memory_cgroup_membership("3:memory_x:/a\n0::/user.slice/u.scope\n");
  ASSERT_TRUE(v2);
  EXPECT_TRUE(v2->v2);
}

TEST(MemoryCgroup, PureV2HostsUseTheUnifiedHierarchy) {
  auto member = memory_cgroup_membership(
      "0::/user.slice/user-1000.slice/user@1000.service/app.slice/term.scope\n");
  ASSERT_TRUE(member);
  EXPECT_EQ(member->path, "/user.slice/user-1000.slice/user@1000.service/app.slice/term.scope");
  EXPECT_TRUE(member->v2);
  auto root = memory_cgroup_membership("0::/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->path, "/");
}

TEST(MemoryCgroup, NothingOutsideTheCgroupNamespaceOrWithoutAHierarchy) {
  EXPECT_FALSE(memory_cgroup_membership("0::/../sibling\n"));
  EXPECT_FALSE(memory_cgroup_membership("4:memory:/../x\n0::/\n"));
  EXPECT_FALSE(memory_cgroup_membership("8:pids:/\n1:cpu:/\n"));
  EXPECT_FALSE(memory_cgroup_membership(""));
  EXPECT_FALSE(memory_cgroup_membership("garbage\n"));
}

}  // namespace
}  // namespace msb
