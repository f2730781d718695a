#include "common/sys.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "test_util.h"

namespace {

using msb::Errc;
using msb::SysOp;
using msb_test::code_of;
using msb_test::read_host;
using msb_test::TempDir;
using msb_test::write_host;

namespace sys = msb::sys;

class SysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::open(tmp_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(dir_, 0);
  }
  void TearDown() override { ::close(dir_); }

  std::string host(const char* name) const { return (tmp_.path() / name).string(); }

  TempDir tmp_;
  int dir_ = -1;
};

template <typename T>
SysOp op_of(const msb::Result<T>& result) {
  return result.ok() ? SysOp::none : result.error().op;
}

TEST_F(SysTest, RenameWithoutReplaceRefusesAnExistingTargetAndKeepsBoth) {
  write_host(host("from"), "new");
  write_host(host("to"), "old");
  auto renamed = sys::rename_at(dir_, "from", dir_, "to", false);
  EXPECT_EQ(code_of(renamed), Errc::already_exists);
  EXPECT_EQ(op_of(renamed), SysOp::renameat2);
  EXPECT_EQ(read_host(host("from")), "new");
  EXPECT_EQ(read_host(host("to")), "old");
}

TEST_F(SysTest, RenameWithReplaceTakesTheTargetsPlace) {
  write_host(host("from"), "new");
  write_host(host("to"), "old");
  ASSERT_TRUE(sys::rename_at(dir_, "from", dir_, "to", true).ok());
  EXPECT_FALSE(msb_test::host_entry_exists(host("from")));
  EXPECT_EQ(read_host(host("to")), "new");
}

TEST_F(SysTest, LinkFallbackRefusesAnExistingTargetAndKeepsBoth) {
  write_host(host("from"), "new");
  write_host(host("to"), "old");
  auto renamed = sys::rename_by_link(dir_, "from", dir_, "to");
  EXPECT_EQ(code_of(renamed), Errc::already_exists);
  EXPECT_EQ(op_of(renamed), SysOp::linkat);
  EXPECT_EQ(read_host(host("from")), "new");
  EXPECT_EQ(read_host(host("to")), "old");
}

TEST_F(SysTest, LinkFallbackMovesToAFreeName) {
  write_host(host("from"), "new");
  ASSERT_TRUE(sys::rename_by_link(dir_, "from", dir_, "to").ok());
  EXPECT_FALSE(msb_test::host_entry_exists(host("from")));
  EXPECT_EQ(read_host(host("to")), "new");
}

TEST_F(SysTest, ReadLinkReturnsTheLongestTextTheKernelStores) {
  // PATH_MAX - 1 bytes of link text, in components short enough for any filesystem.
  std::string text;
  while (text.size() + 10 < 4095) text += "component/";
  text.append(4095 - text.size(), 'x');
  ASSERT_EQ(::symlink(text.c_str(), host("link").c_str()), 0) << std::strerror(errno);
  auto read = sys::read_link(dir_, "link");
  ASSERT_TRUE(read.ok()) << msb::errc_name(code_of(read));
  EXPECT_EQ(read.value(), text);
}

TEST_F(SysTest, ReadLinkThroughTheLinksOwnDescriptor) {
  ASSERT_EQ(::symlink("target/of/link", host("link").c_str()), 0);
  auto fd = sys::open_at(dir_, "link", O_PATH | O_NOFOLLOW);
  ASSERT_TRUE(fd.ok());
  auto read = sys::read_link(fd.value().get(), "");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value(), "target/of/link");
}

TEST_F(SysTest, DirectoryEntriesSpanSeveralBatchesEachNameOnce) {
  // Long names fill a 32 KiB getdents buffer after a few hundred entries.
  const std::string stem(120, 'n');
  const int count = 1500;
  for (int i = 0; i < count; ++i) {
    write_host(tmp_.path() / (stem + std::to_string(i)), "");
  }
  auto listed = sys::open_at(dir_, ".", O_RDONLY | O_DIRECTORY);
  ASSERT_TRUE(listed.ok());
  std::multiset<std::string> names;
  int batches = 0;
  for (;;) {
    auto more = sys::read_dir_batch(listed.value().get(), [&](std::string_view name, auto type) {
      // Regular files ("file", or "unknown" where the filesystem keeps no type), never "." or
      // "..".
      EXPECT_TRUE(type == sys::EntryType::file || type == sys::EntryType::unknown) << name;
      names.emplace(name);
    });
    ASSERT_TRUE(more.ok());
    if (!more.value()) break;
    ++batches;
  }
  EXPECT_GT(batches, 1);
  EXPECT_EQ(names.size(), static_cast<std::size_t>(count));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TEST_F(SysTest, EveryWrapperNamesTheCallThatFailed) {
  write_host(host("file"), "data");
  ASSERT_EQ(::mkdir(host("sub").c_str(), 0700), 0);
  auto file = sys::open_at(dir_, "file", O_RDONLY);
  ASSERT_TRUE(file.ok());
  const int file_fd = file.value().get();
  std::uint8_t byte = 0;

  EXPECT_EQ(op_of(sys::open_at(dir_, "missing", O_RDONLY)), SysOp::openat);
  EXPECT_EQ(op_of(sys::stat_fd(-1)), SysOp::fstat);
  EXPECT_EQ(op_of(sys::stat_at(dir_, "missing")), SysOp::fstatat);
  EXPECT_EQ(op_of(sys::unlink_at(dir_, "missing")), SysOp::unlinkat);
  EXPECT_EQ(op_of(sys::make_dir_at(dir_, "sub", 0700)), SysOp::mkdirat);
  EXPECT_EQ(op_of(sys::symlink_at("x", dir_, "file")), SysOp::symlinkat);
  EXPECT_EQ(op_of(sys::link_at(dir_, "missing", dir_, "other")), SysOp::linkat);
  EXPECT_EQ(op_of(sys::rename_at(dir_, "missing", dir_, "other", true)), SysOp::renameat);
  EXPECT_EQ(op_of(sys::rename_at(dir_, "missing", dir_, "other", false)), SysOp::renameat2);
  EXPECT_EQ(op_of(sys::read_link(dir_, "file")), SysOp::readlinkat);
  EXPECT_EQ(op_of(sys::write_all(file_fd, &byte, 1)), SysOp::write);
  EXPECT_EQ(op_of(sys::pread_full(dir_, &byte, 1, 0)), SysOp::pread);
  EXPECT_EQ(op_of(sys::read_dir_batch(file_fd, [](std::string_view, sys::EntryType) {})),
            SysOp::getdents64);
}

TEST_F(SysTest, FailuresMapErrnoToTheSandboxsRefusals) {
  write_host(host("file"), "data");
  auto missing = sys::open_at(dir_, "missing", O_RDONLY);
  EXPECT_EQ(code_of(missing), Errc::not_found);
  EXPECT_EQ(missing.error().sys_errno, ENOENT);
  EXPECT_EQ(code_of(sys::make_dir_at(dir_, "file", 0700)), Errc::already_exists);
  EXPECT_EQ(code_of(sys::open_at(dir_, "file/below", O_RDONLY)), Errc::not_directory);
}

TEST(SysOpNames, EveryOperationHasItsCallsName) {
  EXPECT_EQ(msb::sysop_name(SysOp::none), "");
  std::set<std::string_view> seen;
  for (int i = 1; i <= static_cast<int>(SysOp::getxattrat); ++i) {
    const std::string_view name = msb::sysop_name(static_cast<SysOp>(i));
    EXPECT_FALSE(name.empty()) << i;
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
  EXPECT_EQ(msb::sysop_name(SysOp::renameat2), "renameat2");
}

TEST(ErrorFactories, FromErrnoMapsAndSysFailureDoesNot) {
  const msb::Error mapped = msb::from_errno(SysOp::openat, EACCES);
  EXPECT_EQ(mapped.code, Errc::access_denied);
  EXPECT_EQ(mapped.sys_errno, EACCES);
  EXPECT_EQ(mapped.op, SysOp::openat);
  const msb::Error plain = msb::sys_failure(SysOp::mount, EACCES);
  EXPECT_EQ(plain.code, Errc::io_error);
  EXPECT_EQ(plain.sys_errno, EACCES);
  EXPECT_EQ(plain.op, SysOp::mount);
}

TEST(ErrorFactories, TooLargeAndAtIndexFillTheirFields) {
  const msb::Error big = msb::too_large(10, 4);
  EXPECT_EQ(big.code, Errc::too_large);
  EXPECT_EQ(big.size, 10u);
  EXPECT_EQ(big.limit, 4u);
  EXPECT_EQ(big.index, msb::Error::kNoIndex);
  const msb::Error second = msb::at_index(big, 1);
  EXPECT_EQ(second.index, 1u);
  EXPECT_EQ(second.size, 10u);
}

}  // namespace
