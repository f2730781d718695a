// Virtual paths: what a worker names. Always absolute, '/'-separated, normalized lexically before
// any host lookup so that `..` can never be handed to the kernel.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace msb {

struct VirtualPath {
  std::vector<std::string> parts;  // no "", ".", ".." entries

  bool is_root() const noexcept { return parts.empty(); }
  std::string str() const;
};

// Accepts "/a//b/./c/../d" as "/a/b/d". Fails with invalid_path for relative or empty paths, NUL
// bytes, ill-formed UTF-8 and over-long names, and with path_escape when `..` climbs above "/".
Result<VirtualPath> parse_virtual_path(std::string_view text);

// `text` cut at every '/', empty pieces kept ("/a//b/" gives "", "a", "", "b", ""): the one
// splitter of the core. Callers decide what an empty piece means: nothing in a lookup, an error
// in a mount target, "this must be a directory" at the end of a symlink's text.
std::vector<std::string_view> split_at_slashes(std::string_view text);

// Mount targets are stricter than request paths: written exactly in normal form ("/data",
// "/a/b", one trailing slash tolerated), never "/" itself.
Result<VirtualPath> parse_mount_target(std::string_view text);

bool is_valid_utf8(std::string_view text) noexcept;

// True when `prefix` names `path` itself or one of its ancestors.
bool has_prefix(const std::vector<std::string>& path, const std::vector<std::string>& prefix);

// "a/b/c" for the kernel; "." for no parts.
std::string join_relative(const std::vector<std::string>& parts, std::size_t begin = 0,
                          std::size_t end = std::string::npos);

// Names compare as a case-folding directory compares them, everywhere: ASCII letters to lower
// case, and the two non-ASCII letters Unicode folds onto ASCII ones (KELVIN SIGN to "k", LONG S
// to "s"). On a case-sensitive directory this refuses a few more names than it must; it never
// refuses fewer on one that folds (ext4 casefold, vfat, a mounted macOS volume).
std::string fold_name(std::string_view name);

}  // namespace msb
