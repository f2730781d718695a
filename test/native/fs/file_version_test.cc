// File versions (file_version.cc) and the last check before a replacement takes its name
// (fd_io.cc's precommit): what stat() hands out must match what write and edit compare against,
// change with every change of the file, and a refused precommit must leave nothing changed.
#include "fs/file_version.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <string>

#include "common/unique_fd.h"
#include "fs/fd_io.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h

UniqueFd open_dir(const fs::path& dir) {
  return UniqueFd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

FileVersion version_by_name(const fs::path& dir, const std::string& name) {
  const UniqueFd d = open_dir(dir);
  auto v = version_of_entry(d.get(), name);
  EXPECT_TRUE(v.ok() && v.value().has_value());
  return v.ok() && v.value() ? *v.value() : FileVersion{};
}

const std::uint8_t* bytes(const std::string& s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

TEST(FileVersion, StatxAndFstatAgreeSoStatTokensMatchWhatWritesCompare) {
  TempDir tmp;
  write_host(tmp.path() / "f.txt", "hello");
  const UniqueFd fd(::open((tmp.path() / "f.txt").c_str(), O_PATH | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  auto info = stat_fd(fd.get());
  ASSERT_TRUE(info.ok());
  auto by_fd = version_of_fd(fd.get());
  ASSERT_TRUE(by_fd.ok());
  EXPECT_EQ(info.value().version, by_fd.value());
  EXPECT_EQ(version_token(info.value().version), version_token(by_fd.value()));
  EXPECT_EQ(by_fd.value(), version_by_name(tmp.path(), "f.txt"));
  EXPECT_EQ(by_fd.value().size, 5u);
  EXPECT_TRUE(S_ISREG(by_fd.value().type));
}

TEST(FileVersion, TokensAreSixteenHexDigitsAndTellEveryFieldApart) {
  const FileVersion base{
      66305, 1234567, S_IFREG, 42, 1'700'000'000'123'456'789, 1'700'000'000'123'456'789};
  const std::string token = version_token(base);
  ASSERT_EQ(token.size(), 16u);
  for (char c : token)
    EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(c)) && !std::isupper(c));
  EXPECT_EQ(version_token(base), token);  // stable
  // Fixed key: the same token in every process (a value computed once, here).
  EXPECT_EQ(token, version_token(FileVersion{66305, 1234567, S_IFREG, 42, 1'700'000'000'123'456'789,
                                             1'700'000'000'123'456'789}));
  auto differs = [&](FileVersion v) { EXPECT_NE(version_token(v), token); };
  FileVersion v = base;
  v.dev += 1;
  differs(v);
  v = base;
  v.ino += 1;
  differs(v);
  v = base;
  v.type = S_IFLNK;
  differs(v);
  v = base;
  v.size += 1;
  differs(v);
  v = base;
  v.mtime_ns += 1;
  differs(v);
  v = base;
  v.ctime_ns += 1;
  differs(v);
  // Nothing readable: not the inode, in decimal or hex.
  EXPECT_EQ(token.find("1234567"), std::string::npos);
  EXPECT_EQ(token.find("12d687"), std::string::npos);
}

TEST(FileVersion, ChangesWithInPlaceWritesAndReplacement) {
  TempDir tmp;
  const fs::path file = tmp.path() / "f.txt";
  write_host(file, "abc");
  const FileVersion v1 = version_by_name(tmp.path(), "f.txt");
  // Same size, same inode, new bytes.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, "x", 1, 0), 1);
  ::close(fd);
  const FileVersion v2 = version_by_name(tmp.path(), "f.txt");
  EXPECT_EQ(v2.ino, v1.ino);
  EXPECT_EQ(v2.size, v1.size);
  EXPECT_NE(v2, v1);
  const UniqueFd dir = open_dir(tmp.path());
  ASSERT_EQ(code_of(replace_file(dir.get(), "f.txt", bytes("xbc"), 3)), Errc::ok);
  const FileVersion v3 = version_by_name(tmp.path(), "f.txt");
  EXPECT_NE(v3.ino, v2.ino);
  EXPECT_NE(v3, v2);
}

TEST(FileVersion, EntriesAreNotFollowedAndMissingOnesAreNone) {
  TempDir tmp;
  write_host(tmp.path() / "f.txt", "abc");
  ASSERT_EQ(::symlink("f.txt", (tmp.path() / "link").c_str()), 0);
  const UniqueFd dir = open_dir(tmp.path());
  auto link = version_of_entry(dir.get(), "link");
  ASSERT_TRUE(link.ok() && link.value().has_value());
  EXPECT_TRUE(S_ISLNK(link.value()->type));
  auto none = version_of_entry(dir.get(), "missing");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().has_value());
}

TEST(Precommit, RunsLastAndARefusalLeavesTheOldFileAndNoTemporary) {
  TempDir tmp;
  write_host(tmp.path() / "f.txt", "old");
  const UniqueFd dir = open_dir(tmp.path());
  int calls = 0;
  const std::string next = "new";
  auto refuse = [&]() -> Status {
    ++calls;
    // The new contents are complete by now; the name still holds the old file.
    EXPECT_EQ(read_host(tmp.path() / "f.txt"), "old");
    return Errc::conflict;
  };
  EXPECT_EQ(code_of(replace_file(dir.get(), "f.txt", bytes(next), next.size(), refuse)),
            Errc::conflict);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(read_host(tmp.path() / "f.txt"), "old");
  EXPECT_EQ(tree(tmp.path()), (std::vector<std::string>{"f.txt"}));
  // A new file: nothing is created.
  EXPECT_EQ(code_of(replace_file(dir.get(), "g.txt", bytes(next), next.size(), refuse)),
            Errc::conflict);
  EXPECT_EQ(tree(tmp.path()), (std::vector<std::string>{"f.txt"}));
  // Accepted: written as usual.
  ASSERT_EQ(code_of(replace_file(dir.get(), "f.txt", bytes(next), next.size(),
                                 [] { return ok_status(); })),
            Errc::ok);
  EXPECT_EQ(read_host(tmp.path() / "f.txt"), "new");
  EXPECT_EQ(tree(tmp.path()), (std::vector<std::string>{"f.txt"}));
}

}  // namespace
}  // namespace msb
