// Reading a program config or .worker file from the disk the way the file sandbox reads files:
// opened without following anything but what the trust rules judge (a final symlink: where it
// leads is checked), never blocking, only a regular file on a filesystem that holds data, at
// most kMaxConfigBytes. Opening and reading are two steps so that a caller can judge where the
// file really lies (ConfigFile::real_path) before a byte of it is read, on the very inode that
// will be read.
#pragma once

#include <string>

#include "common/error.h"
#include "common/unique_fd.h"

namespace msb {

// A config or .worker file, opened but not read.
struct ConfigFile {
  UniqueFd fd;            // O_PATH, the file itself (a final symlink followed)
  std::string real_path;  // where that inode lies, as the kernel names it
};

// Opens the absolute `path` relative to its directory, with O_PATH: no filesystem or driver open
// hook runs (a FIFO's waiting writer is not released, /proc/kmsg is not opened) and nothing
// blocks. A relative path or one holding NUL is invalid_path. Fails only as an open does (not_found
// for a dangling link, access_denied, symlink_loop, not_directory, ...; proc_unavailable when /proc
// cannot name it): what the file is, is read_config_file's to judge, after the caller has judged
// where it is.
Result<ConfigFile> open_config_file(const std::string& path);

// The file's text, judged on its descriptor before anything is read: is_directory,
// not_regular_file (FIFO, socket, device), pseudo_filesystem (procfs, sysfs, the device
// filesystem, ...: fd_io.h's pseudo_filesystem_of, with its name) or too_large (over
// kMaxConfigBytes, with the size) otherwise. Read through a reopen of that inode (O_RDONLY |
// O_NONBLOCK | O_NOCTTY, through /proc/self/fd: proc_unavailable without /proc), at most
// kMaxConfigBytes + 1 bytes, so a file that grew past the limit is too_large too.
Result<std::string> read_config_file(const ConfigFile& file);

}  // namespace msb
