#pragma once

// The name a file's type (st_mode & S_IFMT, as statx found it on the descriptor a path resolved
// to) has in the stat object the binding hands to JavaScript: "file", "fifo", "socket", ...
#include <sys/stat.h>

#include <cstdint>

namespace msb_binding {

inline const char* file_type_name(std::uint32_t type) {
  switch (type) {
    case S_IFREG: return "file";
    case S_IFDIR: return "directory";
    case S_IFLNK: return "symlink";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    case S_IFCHR: return "character-device";
    case S_IFBLK: return "block-device";
    default: return "unknown";
  }
}

}  // namespace msb_binding
