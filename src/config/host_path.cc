#include "config/host_path.h"

#include <vector>

namespace msb {
namespace {

void push_parts(std::vector<std::string_view>& parts, std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t slash = text.find('/', start);
    if (slash == std::string_view::npos) slash = text.size();
    const std::string_view part = text.substr(start, slash - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = slash + 1;
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
  std::size_t start = 0;
  while (start <= relative.size()) {
    std::size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) slash = relative.size();
    const std::string_view part = relative.substr(start, slash - start);
    if (part == "..") {
      if (depth == 0) return false;
      --depth;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    start = slash + 1;
  }
  return true;
}

}  // namespace msb
