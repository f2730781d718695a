#include "common/path.h"

#include <climits>

namespace msb {
namespace {

constexpr std::size_t kMaxName = NAME_MAX;
constexpr std::size_t kMaxPath = PATH_MAX;

Status check_common(std::string_view text) {
  if (text.empty() || text.front() != '/') return Errc::invalid_path;
  if (text.find('\0') != std::string_view::npos) return Errc::invalid_path;
  if (text.size() >= kMaxPath) return Errc::invalid_path;
  if (!is_valid_utf8(text)) return Errc::invalid_path;
  return ok_status();
}

}  // namespace

bool is_valid_utf8(std::string_view text) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned int cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    const bool overlong =
        (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (overlong || surrogate || cp > 0x10FFFF) return false;
    i += len;
  }
  return true;
}

std::string VirtualPath::str() const {
  if (parts.empty()) return "/";
  std::string out;
  for (const auto& part : parts) {
    out += '/';
    out += part;
  }
  return out;
}

std::vector<std::string_view> split_at_slashes(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t slash = text.find('/', start);
    if (slash == std::string_view::npos) slash = text.size();
    out.push_back(text.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

Result<VirtualPath> parse_virtual_path(std::string_view text) {
  if (auto st = check_common(text); !st) return st.error();
  VirtualPath path;
  for (std::string_view part : split_at_slashes(text)) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (path.parts.empty()) return Errc::path_escape;
      path.parts.pop_back();
      continue;
    }
    if (part.size() > kMaxName) return Errc::invalid_path;
    path.parts.emplace_back(part);
  }
  return path;
}

Result<VirtualPath> parse_mount_target(std::string_view text) {
  if (auto st = check_common(text); !st) return st.error();
  if (text.size() > 1 && text.back() == '/') text.remove_suffix(1);
  auto parts = split_at_slashes(text.substr(1));
  VirtualPath path;
  for (std::string_view part : parts) {
    if (part.empty() || part == "." || part == "..") return Errc::invalid_config;
    if (part.size() > kMaxName) return Errc::invalid_config;
    path.parts.emplace_back(part);
  }
  return path;
}

bool has_prefix(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
  if (prefix.size() > path.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (path[i] != prefix[i]) return false;
  }
  return true;
}

std::string join_relative(const std::vector<std::string>& parts, std::size_t begin,
                          std::size_t end) {
  if (end > parts.size()) end = parts.size();
  if (begin >= end) return ".";
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (i != begin) out += '/';
    out += parts[i];
  }
  return out;
}

std::string fold_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (name.compare(i, 3, "\xE2\x84\xAA") == 0) {  // U+212A KELVIN SIGN
      out.push_back('k');
      i += 2;
    } else if (name.compare(i, 2, "\xC5\xBF") == 0) {  // U+017F LATIN SMALL LETTER LONG S
      out.push_back('s');
      i += 1;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace msb
