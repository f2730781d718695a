#include "config/host_path.h"

#include <vector>

#include "common/path.h"

namespace msb {
namespace {

void push_parts(std::vector<std::string_view>& parts, std::string_view text) {
  for (const std::string_view part : split_at_slashes(text)) {
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
  }
}

std::string join_absolute(const std::vector<std::string_view>& parts) {
  if (parts.empty()) return "/";
  std::string out;
  for (std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out;
}

}  // namespace

std::string resolve_host(std::string_view base, std::string_view path) {
  std::vector<std::string_view> parts;
  if (path.empty() || path.front() != '/') push_parts(parts, base);
  push_parts(parts, path);
  return join_absolute(parts);
}

std::string parent_dir(std::string_view file) {
  std::vector<std::string_view> parts;
  push_parts(parts, file);
  if (!parts.empty()) parts.pop_back();
  return join_absolute(parts);
}

bool stays_inside(std::string_view relative) {
  std::size_t depth = 0;
  for (const std::string_view part : split_at_slashes(relative)) {
    if (part == "..") {
      if (depth == 0) return false;
      --depth;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
  }
  return true;
}

}  // namespace msb
