#include "config/config_file.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>

#include "common/sys.h"
#include "config/config_tree.h"
#include "fs/fd_io.h"

namespace msb {

Result<ConfigFile> open_config_file(const std::string& path) {
  if (path.empty() || path.front() != '/' || path.find('\0') != std::string::npos) {
    return Errc::invalid_path;
  }
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  const std::string name = slash + 1 == path.size() ? "." : path.substr(slash + 1);
  auto parent = sys::open_at(AT_FDCWD, dir.c_str(), O_PATH | O_DIRECTORY);
  if (!parent) return parent.error();
  auto fd = sys::open_at(parent.value().get(), name.c_str(), O_PATH);
  if (!fd) return fd.error();
  char link[32];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd.value().get());
  auto real = sys::read_link(AT_FDCWD, link);
  if (!real) {
    // The descriptor is open, so any /proc of this process has its entry: ENOENT means none.
    Error e = real.error();
    if (e.sys_errno == ENOENT) e.code = Errc::proc_unavailable;
    return e;
  }
  return ConfigFile{std::move(fd.value()), std::move(real.value())};
}

Result<std::string> read_config_file(const ConfigFile& file) {
  auto stat = sys::stat_fd(file.fd.get());
  if (!stat) return stat.error();
  const struct stat& st = stat.value();
  if (S_ISDIR(st.st_mode)) return Errc::is_directory;
  if (!S_ISREG(st.st_mode)) return Errc::not_regular_file;
  auto pseudo = pseudo_filesystem_of(file.fd.get());
  if (!pseudo) return pseudo.error();
  if (pseudo.value() != nullptr) return pseudo_filesystem(pseudo.value());
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > kMaxConfigBytes) return too_large(size, kMaxConfigBytes);
  auto readable = open_regular_file(file.fd.get());
  if (!readable) return readable.error();
  auto bytes = read_regular_file(readable.value().fd.get(), kMaxConfigBytes);
  if (!bytes) return bytes.error();
  return std::string(reinterpret_cast<const char*>(bytes.value().data.get()), bytes.value().size);
}

}  // namespace msb
