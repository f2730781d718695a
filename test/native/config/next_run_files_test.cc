#include "config/next_run_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using msb::next_run_files;
using msb_test::TempDir;
using msb_test::write_host;
namespace fs = std::filesystem;

bool has(const std::vector<std::string>& list, const fs::path& path) {
  return std::find(list.begin(), list.end(), path.string()) != list.end();
}

TEST(NextRunFilesTest, TheConfigNamesAboveAndTheWorkerDirectories) {
  TempDir dir;
  const fs::path top = fs::canonical(dir.path());
  const fs::path app = top / "app";
  fs::create_directories(app / "workers");
  write_host(app / "golem-forge.config.yaml", "sandbox:\n  root: ..\n");
  write_host(top / "golem-forge.config.json", "{}");
  auto found =
      next_run_files((app / "golem-forge.config.yaml").string(),
                     {(app / "workers").string(), (app / ".workers").string()}, {top.string()});
  ASSERT_TRUE(found.ok());
  const auto& existing = found.value().existing;
  const auto& absent = found.value().absent;
  EXPECT_TRUE(has(existing, app / "golem-forge.config.yaml"));
  EXPECT_TRUE(has(existing, top / "golem-forge.config.json"));
  EXPECT_TRUE(has(existing, app / "workers"));  // whole: it holds no writable area
  EXPECT_TRUE(has(absent, app / "golem-forge.config.yml"));
  EXPECT_TRUE(has(absent, top / "golem-forge.config.yaml"));
  EXPECT_TRUE(has(absent, app / ".workers"));
  EXPECT_FALSE(has(absent, app / "golem-forge.config.yaml"));
}

TEST(NextRunFilesTest, AWorkerDirectoryHoldingAWritableAreaGivesItsWorkerFiles) {
  TempDir dir;
  const fs::path top = fs::canonical(dir.path());
  fs::create_directories(top / "src" / "node_modules" / "x");
  fs::create_directories(top / "agents");
  write_host(top / "golem-forge.config.yaml", "sandbox:\n  root: .\n");
  write_host(top / "agents" / "a.worker", "---\nname: a\n---\n");
  write_host(top / "src" / "node_modules" / "x" / "b.worker", "skipped, as golem-forge does");
  fs::create_symlink(top / "agents" / "a.worker", top / "src" / "link.worker");
  auto found =
      next_run_files((top / "golem-forge.config.yaml").string(), {top.string()}, {top.string()});
  ASSERT_TRUE(found.ok());
  const auto& existing = found.value().existing;
  EXPECT_FALSE(has(existing, top));
  EXPECT_TRUE(has(existing, top / "agents" / "a.worker"));
  EXPECT_FALSE(has(existing, top / "src" / "node_modules" / "x" / "b.worker"));
  EXPECT_FALSE(has(existing, top / "src" / "link.worker"));  // a link is not followed
}

TEST(NextRunFilesTest, TheWalkIsBounded) {
  TempDir dir;
  const fs::path top = fs::canonical(dir.path());
  const fs::path many = top / "w" / "many";
  fs::create_directories(many);
  write_host(top / "golem-forge.config.yaml", "x");
  for (int i = 0; i < 60; ++i) fs::create_directory(many / std::to_string(i));
  const std::string config = (top / "golem-forge.config.yaml").string();
  // Walked only where a worker directory holds a writable area: the root here.
  EXPECT_TRUE(next_run_files(config, {(top / "w").string()}, {top.string()}, 50).ok());
  auto found = next_run_files(config, {top.string()}, {top.string()}, 50);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().code, msb::Errc::too_large);
  EXPECT_EQ(found.error().limit, 50u);
}

}  // namespace
