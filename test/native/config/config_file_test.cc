// Reading config and .worker files from the disk (config_file.h): opened with O_PATH, judged on
// the descriptor, and only then read, never blocking.
#include "config/config_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "config/config_tree.h"
#include "test_util.h"

namespace msb_test {
namespace {

using msb::ConfigFile;
using msb::Errc;

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(tmp_.path().empty()); }

  std::string at(const char* name) const { return (tmp_.path() / name).string(); }

  // open_config_file and then read_config_file: the text, or the first refusal.
  msb::Result<std::string> load(const std::string& path) {
    auto opened = msb::open_config_file(path);
    if (!opened) return opened.error();
    return msb::read_config_file(opened.value());
  }

  void sparse(const char* name, std::uint64_t size) {
    int fd = ::open(at(name).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
    ::close(fd);
  }

  TempDir tmp_;
};

TEST_F(ConfigFileTest, ARegularFileIsReadAndALinkIsJudgedWhereItLeads) {
  write_host(tmp_.path() / "real.yaml", "sandbox: {}\n");
  ASSERT_EQ(::symlink(at("real.yaml").c_str(), at("link.yaml").c_str()), 0);
  auto opened = msb::open_config_file(at("link.yaml"));
  ASSERT_TRUE(opened.ok()) << msb::errc_name(code_of(opened));
  EXPECT_EQ(opened.value().real_path, at("real.yaml"));
  auto text = msb::read_config_file(opened.value());
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.value(), "sandbox: {}\n");
  write_host(tmp_.path() / "empty.yaml", "");
  EXPECT_EQ(load(at("empty.yaml")).value(), "");
}

TEST_F(ConfigFileTest, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(at("fifo.yaml").c_str(), 0644), 0);
  // O_PATH: the open neither blocks for a writer nor counts as a reader.
  auto opened = msb::open_config_file(at("fifo.yaml"));
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(code_of(msb::read_config_file(opened.value())), Errc::not_regular_file);
  // Nobody opened it for reading: a writer still cannot open it without blocking.
  const int writer = ::open(at("fifo.yaml").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  EXPECT_EQ(writer, -1);
  EXPECT_EQ(errno, ENXIO);
}

TEST_F(ConfigFileTest, DevicesDirectoriesAndPseudoFilesystemsAreRefused) {
  ASSERT_EQ(::symlink("/dev/zero", at("zero.yaml").c_str()), 0);
  EXPECT_EQ(code_of(load(at("zero.yaml"))), Errc::not_regular_file);
  fs::create_directories(tmp_.path() / "dir.yaml");
  EXPECT_EQ(code_of(load(at("dir.yaml"))), Errc::is_directory);
  EXPECT_EQ(code_of(load("/")), Errc::is_directory);
  for (const char* file : {"/proc/kmsg", "/proc/self/environ", "/proc/self/status"}) {
    const std::string link = at("proc.yaml");
    ::unlink(link.c_str());
    ASSERT_EQ(::symlink(file, link.c_str()), 0);
    auto refused = load(link);
    ASSERT_EQ(code_of(refused), Errc::pseudo_filesystem) << file;
    EXPECT_STREQ(refused.error().filesystem, "proc");
  }
  auto sys = load("/sys/kernel/uevent_seqnum");
  if (sys.ok() || sys.error().code != Errc::not_found) {
    ASSERT_EQ(code_of(sys), Errc::pseudo_filesystem);
    EXPECT_STREQ(sys.error().filesystem, "sysfs");
  }
}

TEST_F(ConfigFileTest, SizeIsJudgedBeforeReading) {
  sparse("huge.yaml", 1ull << 40);
  auto huge = load(at("huge.yaml"));
  ASSERT_EQ(code_of(huge), Errc::too_large);
  EXPECT_EQ(huge.error().size, 1ull << 40);
  EXPECT_EQ(huge.error().limit, msb::kMaxConfigBytes);
  sparse("exact.yaml", msb::kMaxConfigBytes);
  auto exact = load(at("exact.yaml"));
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact.value().size(), msb::kMaxConfigBytes);
  sparse("over.yaml", msb::kMaxConfigBytes + 1);
  EXPECT_EQ(code_of(load(at("over.yaml"))), Errc::too_large);
}

TEST_F(ConfigFileTest, AFileGrownPastTheLimitSinceItWasOpenedIsRefused) {
  write_host(tmp_.path() / "grows.yaml", "a: 1\n");
  auto opened = msb::open_config_file(at("grows.yaml"));
  ASSERT_TRUE(opened.ok());
  // Grown past the limit after it was opened (its trust being judged meanwhile): judged when read.
  sparse("grows.yaml", msb::kMaxConfigBytes + 4096);
  EXPECT_EQ(code_of(msb::read_config_file(opened.value())), Errc::too_large);
}

TEST_F(ConfigFileTest, OpenFailuresAreTyped) {
  EXPECT_EQ(code_of(msb::open_config_file(at("missing.yaml"))), Errc::not_found);
  ASSERT_EQ(::symlink(at("absent.yaml").c_str(), at("dangling.yaml").c_str()), 0);
  EXPECT_EQ(code_of(msb::open_config_file(at("dangling.yaml"))), Errc::not_found);
  ASSERT_EQ(::symlink("loop.yaml", at("loop.yaml").c_str()), 0);
  EXPECT_EQ(code_of(msb::open_config_file(at("loop.yaml"))), Errc::symlink_loop);
  write_host(tmp_.path() / "file", "x");
  EXPECT_EQ(code_of(msb::open_config_file(at("file") + "/golem-forge.config.yaml")),
            Errc::not_directory);
  EXPECT_EQ(code_of(msb::open_config_file("relative.yaml")), Errc::invalid_path);
  EXPECT_EQ(code_of(msb::open_config_file(std::string("/tmp/a\0b", 8))), Errc::invalid_path);
}

}  // namespace
}  // namespace msb_test
