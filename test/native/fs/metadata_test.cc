// What a replacement keeps of the file it replaces (metadata.cc): which attributes are carried,
// reading them from a descriptor and from a name, giving them to a new file in the order that
// never leaves it more open than the old one, and refusing where one cannot be set.
#include "fs/metadata.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h

constexpr const char* kAccessAcl = "system.posix_acl_access";
constexpr const char* kDefaultAcl = "system.posix_acl_default";
constexpr std::uint32_t kNoId = 0xffffffff;
constexpr std::uint32_t kNobody = 65534;

struct AclEntry {
  std::uint16_t tag;   // ACL_USER_OBJ 1, ACL_USER 2, ACL_GROUP_OBJ 4, ACL_GROUP 8, ACL_MASK 16,
  std::uint16_t perm;  // ACL_OTHER 32
  std::uint32_t id;
};

// The kernel's POSIX ACL xattr format (version 2, little-endian entries sorted by tag and id).
std::string acl_bytes(const std::vector<AclEntry>& entries) {
  std::string out;
  auto put = [&out](std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put(2, 4);
  for (const AclEntry& e : entries) {
    put(e.tag, 2);
    put(e.perm, 2);
    put(e.id, 4);
  }
  return out;
}

// user::rw- user:nobody:--- group::r-- mask::r-- other::r-- (a 0644 file nobody may not read).
const std::string kDenyNobody =
    acl_bytes({{1, 6, kNoId}, {2, 0, kNobody}, {4, 4, kNoId}, {16, 4, kNoId}, {32, 4, kNoId}});

std::string fd_xattr(int fd, const char* name) {
  char buf[4096];
  const ssize_t n = ::fgetxattr(fd, name, buf, sizeof(buf));
  return n < 0 ? "<" + std::string(std::strerror(errno)) + ">"
               : std::string(buf, static_cast<std::size_t>(n));
}

void set_xattr(const fs::path& path, const char* name, const std::string& value) {
  ASSERT_EQ(::setxattr(path.c_str(), name, value.data(), value.size(), 0), 0)
      << name << ": " << std::strerror(errno);
}

mode_t fd_mode(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 ? st.st_mode & 07777 : 0;
}

const std::string* find(const FileMetadata& meta, const std::string& name) {
  for (const Xattr& x : meta.xattrs) {
    if (x.name == name) return &x.value;
  }
  return nullptr;
}

class MetadataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    dir_ = UniqueFd(::open(tmp_.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(dir_.valid());
  }

  // An owner-only unnamed file in `dir`, as a replacement starts.
  UniqueFd new_file(const fs::path& dir) {
    return UniqueFd(::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  }

  TempDir tmp_;
  UniqueFd dir_;
};

TEST(XattrCarried, EverythingButWhatDescribesOrEmpowersTheOldContents) {
  for (const char* kept : {"system.posix_acl_access", "system.nfs4_acl", "user.origin",
                           "security.selinux", "security.SMACK64", "trusted.gluster", "user."}) {
    EXPECT_TRUE(xattr_carried(kept)) << kept;
  }
  for (const char* dropped : {"security.capability", "security.ima", "security.evm",
                              "trusted.overlay.metacopy", "trusted.overlay.origin"}) {
    EXPECT_FALSE(xattr_carried(dropped)) << dropped;
  }
}

TEST_F(MetadataTest, ReadsTheAclAndAttributesByNameAndFromADescriptor) {
  const fs::path file = tmp_.path() / "f.txt";
  write_host(file, "old");
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  set_xattr(file, "user.origin", "here");
  set_xattr(file, "user.big", std::string(1500, 'x'));  // past the first value buffer
  for (int i = 0; i < 30; ++i) {                        // names past the first listing buffer
    set_xattr(file, ("user.a-rather-long-attribute-name-number-" + std::to_string(i)).c_str(), "v");
  }
  set_xattr(file, kAccessAcl, kDenyNobody);
  // VFS_CAP_REVISION_2, effective, CAP_NET_BIND_SERVICE: never carried.
  set_xattr(file, "security.capability",
            std::string("\x01\x00\x00\x02\x00\x04\x00\x00", 8) + std::string(12, '\0'));

  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  // By name (Linux 6.13+, else through /proc), and through /proc as older kernels do.
  auto by_name = read_metadata_at(dir_.get(), "f.txt", st);
  auto through_proc = read_metadata_through_proc(dir_.get(), "f.txt");
  for (auto* read : {&by_name, &through_proc}) {
    ASSERT_TRUE(read->ok()) << errc_name(read->error().code);
    ASSERT_TRUE(read->value().has_value());
    const FileMetadata& meta = *read->value();
    EXPECT_EQ(meta.mode, 0644u);
    EXPECT_EQ(meta.uid, ::getuid());
    ASSERT_NE(find(meta, "user.origin"), nullptr);
    EXPECT_EQ(*find(meta, "user.origin"), "here");
    ASSERT_NE(find(meta, "user.big"), nullptr);
    EXPECT_EQ(find(meta, "user.big")->size(), 1500u);
    ASSERT_NE(find(meta, "user.a-rather-long-attribute-name-number-29"), nullptr);
    EXPECT_EQ(meta.xattrs.size(), 33u);
    ASSERT_NE(find(meta, kAccessAcl), nullptr);
    EXPECT_EQ(*find(meta, kAccessAcl), kDenyNobody);
    EXPECT_EQ(find(meta, "security.capability"), nullptr);
  }
  const FileMetadata& meta = *by_name.value();

  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  auto from_fd = read_metadata(fd.get());
  ASSERT_TRUE(from_fd.ok());
  EXPECT_EQ(from_fd.value().xattrs.size(), meta.xattrs.size());
  EXPECT_EQ(from_fd.value().mode, meta.mode);
}

TEST_F(MetadataTest, NothingToKeepWhereNoRegularFileIsThere) {
  ASSERT_EQ(::symlink("f.txt", (tmp_.path() / "link").c_str()), 0);
  ASSERT_EQ(::mkfifo((tmp_.path() / "fifo").c_str(), 0600), 0);  // looked at, never opened
  for (const char* name : {"missing", "link", "fifo"}) {
    auto read = read_metadata_through_proc(dir_.get(), name);
    ASSERT_TRUE(read.ok()) << name;
    EXPECT_FALSE(read.value().has_value()) << name;
  }
  struct stat st {};  // what fstatat saw before the file went
  auto gone = read_metadata_at(dir_.get(), "missing", st);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone.value().has_value());
}

TEST_F(MetadataTest, AppliedTheNewFileEndsWithTheSameAclModeAndAttributes) {
  UniqueFd fd = new_file(tmp_.path());
  ASSERT_TRUE(fd.valid());
  FileMetadata meta;
  meta.mode = 0644;
  meta.uid = ::getuid();
  meta.gid = ::getgid();
  meta.xattrs = {{kAccessAcl, kDenyNobody}, {"user.origin", "here"}};
  ASSERT_TRUE(apply_metadata(fd.get(), meta).ok());
  EXPECT_EQ(fd_mode(fd.get()), 0644u);
  EXPECT_EQ(fd_xattr(fd.get(), kAccessAcl), kDenyNobody);
  EXPECT_EQ(fd_xattr(fd.get(), "user.origin"), "here");
}

// A mode whose group bits differ from what the ACL's mask would give is impossible on a real
// file: the permission bits set last agree with the ACL set before them.
TEST_F(MetadataTest, TheAclIsSetBeforeTheModeSoTheMaskIsTheOldOne) {
  UniqueFd fd = new_file(tmp_.path());
  ASSERT_TRUE(fd.valid());
  // user::rw- user:nobody:rw- group::r-- mask::--- other::---, mode 0600.
  const std::string acl =
      acl_bytes({{1, 6, kNoId}, {2, 6, kNobody}, {4, 4, kNoId}, {16, 0, kNoId}, {32, 0, kNoId}});
  FileMetadata meta;
  meta.mode = 0600;
  meta.uid = ::getuid();
  meta.gid = ::getgid();
  meta.xattrs = {{kAccessAcl, acl}};
  ASSERT_TRUE(apply_metadata(fd.get(), meta).ok());
  EXPECT_EQ(fd_mode(fd.get()), 0600u);
  EXPECT_EQ(fd_xattr(fd.get(), kAccessAcl), acl);
}

TEST_F(MetadataTest, AnAclInheritedFromTheDirectoryIsRemovedWhereTheOldFileHadNone) {
  const fs::path shared = tmp_.path() / "shared";
  fs::create_directory(shared);
  // Default: user::rwx user:nobody:r-- group::r-x mask::r-x other::r-x.
  set_xattr(
      shared, kDefaultAcl,
      acl_bytes({{1, 7, kNoId}, {2, 4, kNobody}, {4, 5, kNoId}, {16, 5, kNoId}, {32, 5, kNoId}}));
  UniqueFd fd = new_file(shared);
  ASSERT_TRUE(fd.valid());
  ASSERT_NE(fd_xattr(fd.get(), kAccessAcl).front(), '<');  // inherited
  FileMetadata meta;
  meta.mode = 0640;
  meta.uid = ::getuid();
  meta.gid = ::getgid();
  ASSERT_TRUE(apply_metadata(fd.get(), meta).ok());
  EXPECT_EQ(fd_xattr(fd.get(), kAccessAcl), "<" + std::string(std::strerror(ENODATA)) + ">");
  EXPECT_EQ(fd_mode(fd.get()), 0640u);
}

// In a user namespace the process has no CAP_SYS_ADMIN over the host's filesystems, so it may not
// set a security.* attribute: the replacement is refused, naming the call, instead of dropping
// it. Run in a child: unshare(CLONE_NEWUSER) needs a single thread and changes the process.
TEST_F(MetadataTest, AnAttributeThatCannotBeSetRefusesTheReplacement) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to put a security.* attribute on a file";
  UniqueFd fd = new_file(tmp_.path());
  ASSERT_TRUE(fd.valid());
  FileMetadata meta;
  meta.mode = 0644;
  meta.uid = ::getuid();
  meta.gid = ::getgid();
  meta.xattrs = {{"user.origin", "here"}, {"security.msbtest", "label"}};
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWUSER) != 0) ::_exit(3);
    const Status st = apply_metadata(fd.get(), meta);
    const bool refused = !st.ok() && st.error().code == Errc::metadata_not_kept &&
                         st.error().op == SysOp::fsetxattr && st.error().sys_errno == EPERM;
    ::_exit(refused ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "no user namespaces here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The same process with the privilege keeps it.
  ASSERT_TRUE(apply_metadata(fd.get(), meta).ok());
  EXPECT_EQ(fd_xattr(fd.get(), "security.msbtest"), "label");
}

// A security label the new file already has is not set again (that may need a privilege).
TEST_F(MetadataTest, ASecurityAttributeTheNewFileAlreadyHasIsNotSetAgain) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to put a security.* attribute on a file";
  UniqueFd fd = new_file(tmp_.path());
  ASSERT_TRUE(fd.valid());
  ASSERT_EQ(::fsetxattr(fd.get(), "security.msbtest", "label", 5, 0), 0) << std::strerror(errno);
  FileMetadata meta;
  meta.mode = 0600;
  meta.uid = ::getuid();
  meta.gid = ::getgid();
  meta.xattrs = {{"security.msbtest", "label"}};
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWUSER) != 0) ::_exit(3);
    ::_exit(apply_metadata(fd.get(), meta).ok() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "no user namespaces here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace msb
