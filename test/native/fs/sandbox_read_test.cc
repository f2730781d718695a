// The reading side of the file tools (sandbox_read.cc): ranges, listings, special and large
// files, attachments, the attempts that never block, and that nothing but regular files is ever
// opened. With both resolvers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fs/sandbox.h"
#include "fs/sandbox_fixture.h"
#include "test_util.h"

namespace msb {
namespace {

using namespace msb_test;  // the helpers of test_util.h and sandbox_fixture.h

std::string text_of(const msb::Result<msb::Bytes>& bytes) {
  if (!bytes.ok()) return "<" + std::string(msb::errc_name(bytes.error().code)) + ">";
  return msb_test::to_string(bytes.value());
}

// ---------------------------------------------------------------------------------------------
// read_range

TEST_P(FileOpsTest, ReadRangeOffsetsAndLengths) {
  write_host(root_ / "f.txt", "0123456789");
  auto o = options();
  o.max_read_bytes = 4;
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 0, 3)), "012");
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 5, 2)), "56");
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 8, 100)), "89");       // short at the end
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 2, 100)), "2345");     // max_read_bytes caps length
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 10, 5)), "");          // at EOF
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 1ull << 62, 5)), "");  // far past EOF
  EXPECT_EQ(text_of(sb->read_range("/f.txt", 3, 0)), "");
  // The file may be larger than max_read_bytes: only the range is bounded by it.
  EXPECT_EQ(code_of(sb->read("/f.txt")), Errc::too_large);
}

TEST_P(FileOpsTest, ReadRangeRefusesWhatReadRefuses) {
  fs::create_directories(root_ / "dir");
  ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0600), 0);
  make_symlink("../outside/secret.txt", root_ / "esc");
  write_host(root_ / "big.txt", "0123456789");
  write_host(root_ / "key.pem", "k");
  auto o = options();
  o.root.policy = max_bytes(5);
  o.root.policy.denied_suffixes = {".pem"};
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(code_of(sb->read_range("/dir", 0, 1)), Errc::is_directory);
  EXPECT_EQ(code_of(sb->read_range("/fifo", 0, 1)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb->read_range("/missing", 0, 1)), Errc::not_found);
  EXPECT_EQ(code_of(sb->read_range("/esc", 0, 1)), Errc::symlink_escape);
  EXPECT_EQ(code_of(sb->read_range("/key.pem", 0, 1)), Errc::suffix_not_allowed);
  // The policy's size limit is about the file, however small the range.
  auto big = sb->read_range("/big.txt", 0, 1);
  ASSERT_EQ(code_of(big), Errc::too_large);
  EXPECT_EQ(big.error().size, 10u);
  EXPECT_EQ(big.error().limit, 5u);
}

// ---------------------------------------------------------------------------------------------
// list

TEST_P(SandboxTest, ListEntriesTypesAsTheDirectoryRecordsThem) {
  fs::create_directories(root_ / "dir");
  write_host(root_ / "f.txt", "content");
  make_symlink("f.txt", root_ / "link");
  const fs::path data = tmp_.path() / "data";
  fs::create_directories(data);
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec(data.string(), "/mnt", false));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  auto listed = sb->list_entries("/");
  ASSERT_TRUE(listed.ok());
  std::string seen;
  for (const msb::DirEntry& e : listed.value()) {
    seen += e.name + "=" + std::to_string(static_cast<int>(e.type)) + " ";
  }
  using T = msb::sys::EntryType;
  auto n = [](T t) { return std::to_string(static_cast<int>(t)); };
  EXPECT_EQ(seen, "dir=" + n(T::directory) + " f.txt=" + n(T::file) + " link=" + n(T::symlink) +
                      " mnt=" + n(T::directory) + " ");
  EXPECT_EQ(code_of(sb->list_entries("/nope")), Errc::not_found);
}

TEST_P(SandboxTest, ListThroughRelativeDirectorySymlink) {
  fs::create_directories(root_ / "real");
  write_host(root_ / "real/f.txt", "content");
  make_symlink("real", root_ / "dirlink");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto listed = sb->list("/dirlink");
  ASSERT_TRUE(listed.ok()) << msb::errc_name(code_of(listed));
  EXPECT_EQ(listed.value(), (Strings{"f.txt"}));
}

TEST_P(SandboxTest, ListShowsMountTargetsWithoutHostDirectories) {
  const fs::path data = tmp_.path() / "data";
  const fs::path deep = tmp_.path() / "deep";
  fs::create_directories(data);
  fs::create_directories(deep);
  write_host(data / "d.txt", "d");
  write_host(root_ / "f.txt", "f");
  auto o = options();
  o.mounts.push_back(msb_test::mount_spec(data.string(), "/data", false));
  o.mounts.push_back(msb_test::mount_spec(deep.string(), "/a/b", true));
  auto sb = make(o);
  ASSERT_TRUE(sb);

  auto top = sb->list("/");
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top.value(), (Strings{"a", "data", "f.txt"}));
  auto a = sb->list("/a");
  ASSERT_TRUE(a.ok()) << msb::errc_name(code_of(a));
  EXPECT_EQ(a.value(), (Strings{"b"}));
  auto in_data = sb->list("/data");
  ASSERT_TRUE(in_data.ok());
  EXPECT_EQ(in_data.value(), (Strings{"d.txt"}));
  auto in_b = sb->list("/a/b");
  ASSERT_TRUE(in_b.ok());
  EXPECT_TRUE(in_b.value().empty());

  auto a_info = sb->stat("/a");
  ASSERT_TRUE(a_info.ok());
  EXPECT_TRUE(a_info.value().is_directory);
  auto a_exists = sb->exists("/a");
  ASSERT_TRUE(a_exists.ok());
  EXPECT_TRUE(a_exists.value());
  EXPECT_EQ(code_of(sb->read("/a")), Errc::is_directory);
  EXPECT_EQ(code_of(sb->read("/data")), Errc::is_directory);
  EXPECT_EQ(code_of(sb->list("/a/nope")), Errc::not_found);

  // A host directory of the same name is merged once, not listed twice.
  fs::create_directories(root_ / "data");
  fs::create_directories(root_ / "a/other");
  top = sb->list("/");
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top.value(), (Strings{"a", "data", "f.txt"}));
  a = sb->list("/a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value(), (Strings{"b", "other"}));
  EXPECT_TRUE(tree(root_ / "data").empty());
}

// ---------------------------------------------------------------------------------------------
// Special and large files

TEST_P(SandboxTest, FifoIsNotReadAndDoesNotHang) {
  ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0600), 0) << std::strerror(errno);
  auto sb = make();
  ASSERT_TRUE(sb);
  // A blocking open of a FIFO without a writer would hang forever: fail loudly instead.
  ::alarm(20);
  EXPECT_EQ(code_of(sb->read("/fifo")), Errc::not_regular_file);
  EXPECT_EQ(code_of(put(*sb, "/fifo", "x")), Errc::not_regular_file);
  ::alarm(0);
  auto info = sb->stat("/fifo");
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info.value().is_file);
  EXPECT_FALSE(info.value().is_directory);
  struct stat st;
  ASSERT_EQ(::lstat((root_ / "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_P(SandboxTest, HugeSparseFileIsTooLarge) {
  constexpr std::uint64_t kTiB = 1ull << 40;
  {
    int fd = ::open((root_ / "huge.bin").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    const int rc = ::ftruncate(fd, static_cast<off_t>(kTiB));
    const int err = errno;
    ::close(fd);
    if (rc != 0) GTEST_SKIP() << "filesystem refuses a 1 TiB sparse file: " << std::strerror(err);
  }
  auto sb = make();
  ASSERT_TRUE(sb);
  auto read = sb->read("/huge.bin");
  ASSERT_EQ(code_of(read), Errc::too_large);
  EXPECT_EQ(read.error().size, kTiB);
  EXPECT_EQ(read.error().limit, msb::kDefaultMaxReadBytes);
  auto info = sb->stat("/huge.bin");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info.value().size, kTiB);
}

TEST_P(SandboxTest, ReadLimitIsConfigurable) {
  write_host(root_ / "ten.txt", "0123456789");
  write_host(root_ / "eleven.txt", "0123456789A");
  auto o = options();
  o.max_read_bytes = 10;
  auto sb = make(o);
  ASSERT_TRUE(sb);
  EXPECT_EQ(sb->max_read_bytes(), 10u);
  EXPECT_EQ(get(*sb, "/ten.txt"), "0123456789");
  auto big = sb->read("/eleven.txt");
  ASSERT_EQ(code_of(big), Errc::too_large);
  EXPECT_EQ(big.error().size, 11u);
  EXPECT_EQ(big.error().limit, 10u);
  // The limit survives restrict().
  auto child = sb->restrict("/", std::nullopt);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(code_of(child.value()->read("/eleven.txt")), Errc::too_large);
}

TEST_P(SandboxTest, ACallersCapIsJudgedFromTheSizeBeforeReading) {
  // A binding's longest text: a file over it is too_large with the cap as the limit, as the
  // sandbox's own limits are, before anything is allocated (the sparse file is never read).
  constexpr std::uint64_t kSize = 64ull << 20;
  {
    int fd = ::open((root_ / "big.txt").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kSize)), 0);
    ::close(fd);
  }
  write_host(root_ / "small.txt", "0123456789");
  auto sb = make();
  ASSERT_TRUE(sb);
  auto whole = sb->read("/big.txt", 1000);
  ASSERT_EQ(code_of(whole), Errc::too_large);
  EXPECT_EQ(whole.error().size, kSize);
  EXPECT_EQ(whole.error().limit, 1000u);
  auto range = sb->read_range("/big.txt", 10, kSize, 1000);
  ASSERT_EQ(code_of(range), Errc::too_large);
  EXPECT_EQ(range.error().size, kSize - 10);
  EXPECT_EQ(range.error().limit, 1000u);
  // Within the cap, or a range that fits it, is read as ever; the smaller limit is reported.
  EXPECT_EQ(code_of(sb->read_range("/big.txt", 0, 1000, 1000)), Errc::ok);
  EXPECT_EQ(msb_test::to_string(sb->read("/small.txt", 10).value()), "0123456789");
  auto over = sb->read("/small.txt", 9);
  ASSERT_EQ(code_of(over), Errc::too_large);
  EXPECT_EQ(over.error().limit, 9u);
}

// ---------------------------------------------------------------------------------------------
// read_attachments

TEST_P(FileOpsTest, AttachmentSizeCapsApplyPerPath) {
  write_host(root_ / "a.txt", "AAAA");
  write_host(root_ / "b.bin", "BBBBBBBB");
  auto sb = make(with_mounts());
  ASSERT_TRUE(sb);
  AttachmentPolicy policy;
  policy.size_caps = {4, kNoCap};
  auto ok = sb->read_attachments({"/a.txt", "/b.bin"}, policy);
  ASSERT_TRUE(ok.ok()) << msb::errc_name(code_of(ok));
  policy.size_caps = {kNoCap, 4};
  auto capped = sb->read_attachments({"/a.txt", "/b.bin"}, policy);
  ASSERT_EQ(code_of(capped), Errc::too_large);
  EXPECT_EQ(capped.error().index, 1u);
  EXPECT_EQ(capped.error().size, 8u);
  EXPECT_EQ(capped.error().limit, 4u);
  // Paths past the caps given have none.
  policy.size_caps = {4};
  EXPECT_EQ(code_of(sb->read_attachments({"/a.txt", "/b.bin"}, policy)), Errc::ok);
}

TEST_P(FileOpsTest, AttachmentsAreReadInOrder) {
  write_host(root_ / "a.png", "AAAA");
  write_host(data_ / "b.pdf", "BB");
  auto sb = make(with_mounts());
  ASSERT_TRUE(sb);
  AttachmentPolicy policy;
  auto r = sb->read_attachments({"/data/b.pdf", "/a.png"}, policy);
  ASSERT_TRUE(r.ok()) << msb::errc_name(code_of(r));
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(msb_test::to_string(r.value()[0]), "BB");
  EXPECT_EQ(msb_test::to_string(r.value()[1]), "AAAA");
  auto none = sb->read_attachments({}, policy);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.value().empty());
}

TEST_P(FileOpsTest, AttachmentRulesAreAllOrNothing) {
  for (const char* f : {"a.png", "b.png", "c.png", "d.png", "e.png", "x.exe", "big.png"}) {
    write_host(root_ / f, "1234");
  }
  write_host(root_ / "big.png", std::string(100, 'x'));
  fs::create_directories(root_ / "dir.png");
  auto sb = make();
  ASSERT_TRUE(sb);
  AttachmentPolicy policy;  // 4 attachments, 10 MB, any suffix

  auto many = sb->read_attachments({"/a.png", "/b.png", "/c.png", "/d.png", "/e.png"}, policy);
  ASSERT_EQ(code_of(many), Errc::too_many_attachments);
  EXPECT_EQ(many.error().size, 5u);
  EXPECT_EQ(many.error().limit, 4u);

  policy.denied_suffixes = {".exe"};
  auto denied = sb->read_attachments({"/a.png", "/X.EXE", "/nope.png"}, policy);
  ASSERT_EQ(code_of(denied), Errc::suffix_not_allowed);  // before any file is opened
  EXPECT_EQ(denied.error().index, 1u);

  policy.denied_suffixes.clear();
  policy.allowed_suffixes = {".png", ".jpg"};
  auto not_allowed = sb->read_attachments({"/a.png", "/b.PNG", "/x.exe"}, policy);
  ASSERT_EQ(code_of(not_allowed), Errc::suffix_not_allowed);
  EXPECT_EQ(not_allowed.error().index, 2u);

  auto missing = sb->read_attachments({"/a.png", "/nope.png"}, policy);
  ASSERT_EQ(code_of(missing), Errc::not_found);
  EXPECT_EQ(missing.error().index, 1u);
  auto dir = sb->read_attachments({"/dir.png"}, policy);
  ASSERT_EQ(code_of(dir), Errc::is_directory);
  EXPECT_EQ(dir.error().index, 0u);
  auto bad_path = sb->read_attachments({"/a.png", "relative.png"}, policy);
  ASSERT_EQ(code_of(bad_path), Errc::invalid_path);
  EXPECT_EQ(bad_path.error().index, 1u);

  policy.max_total_bytes = 107;
  auto total = sb->read_attachments({"/a.png", "/big.png", "/b.png"}, policy);
  ASSERT_EQ(code_of(total), Errc::attachments_too_large);
  EXPECT_EQ(total.error().size, 108u);
  EXPECT_EQ(total.error().limit, 107u);
  EXPECT_EQ(total.error().index, Error::kNoIndex);
  policy.max_total_bytes = 108;
  EXPECT_EQ(code_of(sb->read_attachments({"/a.png", "/big.png", "/b.png"}, policy)), Errc::ok);
}

TEST_P(FileOpsTest, AttachmentsFollowMountPolicies) {
  write_host(root_ / "a.png", "1234");
  write_host(data_ / "big.png", "0123456789");
  write_host(data_ / "s.key", "k");
  make_symlink("../outside/secret.txt", root_ / "leak.png");
  auto o = options();
  o.max_read_bytes = 8;
  FilePolicy data_policy = max_bytes(6);
  data_policy.denied_suffixes = {".key"};
  o.mounts.push_back(mount(data_, "/data", false, {}, data_policy));
  auto sb = make(o);
  ASSERT_TRUE(sb);
  AttachmentPolicy policy;
  auto big = sb->read_attachments({"/a.png", "/data/big.png"}, policy);
  ASSERT_EQ(code_of(big), Errc::too_large);
  EXPECT_EQ(big.error().index, 1u);
  EXPECT_EQ(big.error().limit, 6u);
  auto key = sb->read_attachments({"/data/s.key"}, policy);
  ASSERT_EQ(code_of(key), Errc::suffix_not_allowed);
  EXPECT_EQ(key.error().index, 0u);
  auto leak = sb->read_attachments({"/a.png", "/leak.png"}, policy);
  ASSERT_EQ(code_of(leak), Errc::symlink_escape);
  EXPECT_EQ(leak.error().index, 1u);
  // max_read_bytes bounds each attachment like read().
  write_host(root_ / "nine.png", "123456789");
  auto nine = sb->read_attachments({"/nine.png"}, policy);
  ASSERT_EQ(code_of(nine), Errc::too_large);
  EXPECT_EQ(nine.error().limit, 8u);
  EXPECT_EQ(nine.error().index, 0u);
}

// ---------------------------------------------------------------------------------------------
// Nothing but regular files is ever opened

// Sees the opens of the files it watches (IN_OPEN): an O_PATH lookup is no open, so this sees
// exactly the opens that run a FIFO's or a device's open code.
class OpenWatch {
 public:
  OpenWatch() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}
  OpenWatch(const OpenWatch&) = delete;
  OpenWatch& operator=(const OpenWatch&) = delete;
  ~OpenWatch() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool watch(const fs::path& file) {
    return fd_ >= 0 && ::inotify_add_watch(fd_, file.c_str(), IN_OPEN | IN_DONT_FOLLOW) >= 0;
  }

  // Whether a watched file was opened since the last call. (Not how often: inotify merges an
  // event into an identical one still unread.)
  bool opened() {
    alignas(struct inotify_event) char buf[4096];
    bool seen = false;
    for (;;) {
      const ssize_t n = ::read(fd_, buf, sizeof(buf));
      if (n <= 0) return seen;
      for (ssize_t off = 0; off < n;) {
        const auto* event = reinterpret_cast<const struct inotify_event*>(buf + off);
        seen = seen || (event->mask & IN_OPEN) != 0;
        off += static_cast<ssize_t>(sizeof(struct inotify_event) + event->len);
      }
    }
  }

 private:
  int fd_;
};

// Every operation that reads, and those that open directories, aimed at `path` (which may be a
// symlink: none of these replaces it).
void touch_every_way(Sandbox& sb, const std::string& path) {
  AttachmentPolicy policy;
  EXPECT_EQ(code_of(sb.read(path)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.read_range(path, 0, 1)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.edit(path, "a", "b")), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.copy(path, "/copy.txt", false)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.read_attachments({path}, policy)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb.list(path)), Errc::not_directory);
  EXPECT_EQ(code_of(sb.list(path + "/x")), Errc::not_directory);
  EXPECT_EQ(code_of(sb.write(path + "/x", nullptr, 0)), Errc::not_directory);
  EXPECT_EQ(code_of(sb.make_directory(path)), Errc::already_exists);
  EXPECT_EQ(code_of(sb.glob(path + "/**", 10)), Errc::ok);
  EXPECT_EQ(code_of(sb.stat(path)), Errc::ok);
  EXPECT_EQ(code_of(sb.exists(path)), Errc::ok);
}

TEST_P(FileOpsTest, FifosAreNeverOpened) {
  const fs::path fifo = root_ / "pipe.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  make_symlink("pipe.txt", root_ / "link.txt");
  OpenWatch watch;
  ASSERT_TRUE(watch.watch(fifo)) << std::strerror(errno);
  auto sb = make();
  ASSERT_TRUE(sb);
  touch_every_way(*sb, "/pipe.txt");
  touch_every_way(*sb, "/link.txt");
  EXPECT_EQ(code_of(sb->move("/pipe.txt", "/moved.txt", false)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb->write("/pipe.txt", nullptr, 0)), Errc::not_regular_file);
  EXPECT_FALSE(watch.opened());
  // The watch does see an open: a non-blocking one, as the old code did.
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_TRUE(watch.opened());
  EXPECT_EQ(tree(root_), (Strings{"link.txt", "pipe.txt"}));
}

TEST_P(FileOpsTest, DevicesAreNeverOpened) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a character device needs root";
  const fs::path dev = root_ / "null.txt";
  // /dev/null's numbers: harmless even if opened.
  ASSERT_EQ(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
  OpenWatch watch;
  ASSERT_TRUE(watch.watch(dev)) << std::strerror(errno);
  auto sb = make();
  ASSERT_TRUE(sb);
  touch_every_way(*sb, "/null.txt");
  EXPECT_EQ(code_of(sb->move("/null.txt", "/moved.txt", false)), Errc::not_regular_file);
  EXPECT_EQ(code_of(sb->write("/null.txt", nullptr, 0)), Errc::not_regular_file);
  EXPECT_FALSE(watch.opened());
  const int fd = ::open(dev.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {  // a nodev filesystem refuses the open itself
    ::close(fd);
    EXPECT_TRUE(watch.opened());
  }
  EXPECT_EQ(tree(root_), Strings{"null.txt"});
}

// ---------------------------------------------------------------------------------------------
// Non-blocking attempts on the caller's thread (read_now, stat_now, exists_now)

class InlineTest : public SandboxTest {};

TEST_P(InlineTest, AnswersMatchTheBlockingPathOrDeferToIt) {
  write_host(root_ / "small.txt", "small");
  write_host(root_ / "big.bin", std::string(msb::kMaxInlineReadBytes + 1, 'b'));
  write_host(root_ / "empty.txt", "");
  ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0600), 0);
  fs::create_symlink(outside_ / "secret.txt", root_ / "abs");
  auto sb = make();
  ASSERT_TRUE(sb);
  ASSERT_TRUE(sb->read("/small.txt").ok());  // pins the root, warms the caches

  auto small = sb->read_now("/small.txt");
  if (GetParam() == ResolverKind::walk) {
    EXPECT_FALSE(small.has_value()) << "the walk resolver cannot promise not to block";
    return;
  }
  ASSERT_TRUE(small.has_value());
  ASSERT_TRUE(small->ok());
  EXPECT_EQ(msb_test::to_string(small->value()), "small");

  // Left to the blocking path: too big, empty (procfs-like), not regular, refused.
  EXPECT_FALSE(sb->read_now("/big.bin").has_value());
  EXPECT_FALSE(sb->read_now("/empty.txt").has_value());
  EXPECT_FALSE(sb->read_now("/fifo").has_value());
  EXPECT_FALSE(sb->read_now("/abs").has_value());
  EXPECT_EQ(code_of(sb->read("/abs")), Errc::symlink_escape);

  // Malformed paths are answered at once, with the same error.
  auto bad = sb->read_now("relative");
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(code_of(*bad), Errc::invalid_path);

  auto st = sb->stat_now("/small.txt");
  ASSERT_TRUE(st.has_value());
  ASSERT_TRUE(st->ok());
  auto st_blocking = sb->stat("/small.txt");
  ASSERT_TRUE(st_blocking.ok());
  EXPECT_EQ(st->value().size, st_blocking.value().size);
  EXPECT_EQ(st->value().modified_ms, st_blocking.value().modified_ms);

  auto yes = sb->exists_now("/small.txt");
  ASSERT_TRUE(yes.has_value());
  EXPECT_TRUE(yes->value());
  ASSERT_TRUE(sb->exists("/missing").ok());  // leaves a negative dentry behind
  auto no = sb->exists_now("/missing");
  if (no.has_value()) {
    EXPECT_FALSE(no->value());
  }
}

TEST_P(InlineTest, NothingIsAnsweredBeforeTheMountIsPinned) {
  write_host(root_ / "small.txt", "small");
  auto sb = make();
  ASSERT_TRUE(sb);
  EXPECT_FALSE(sb->read_now("/small.txt").has_value());
  EXPECT_FALSE(sb->exists_now("/small.txt").has_value());
}

INSTANTIATE_TEST_SUITE_P(Resolvers, InlineTest, msb_test::each_resolver());

}  // namespace
}  // namespace msb
