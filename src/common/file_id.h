// Identity of a host inode, for telling whether two descriptors name the same directory.
#pragma once

#include <sys/types.h>

namespace msb {

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId& o) const noexcept { return dev == o.dev && ino == o.ino; }
};

}  // namespace msb
