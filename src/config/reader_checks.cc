#include "config/reader_checks.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/path.h"

namespace msb {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Line starts, so that the many positions of a JSON document cost a binary search each.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : size_(text.size()) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }

  void place(std::size_t offset, std::uint32_t& line, std::uint32_t& column) const {
    offset = std::min(offset, size_);
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset) - 1;
    line = to_u32(static_cast<std::size_t>(it - starts_.begin()) + 1);
    column = to_u32(offset - *it + 1);
  }

  ConfigError error(std::size_t offset, std::string key_path, std::string expected) const {
    ConfigError e{0, 0, std::move(key_path), std::move(expected)};
    place(offset, e.line, e.column);
    return e;
  }

 private:
  std::size_t size_;
  std::vector<std::size_t> starts_;
};

}  // namespace

std::string_view strip_bom(std::string_view text) noexcept {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

std::uint32_t to_u32(std::size_t n) noexcept {
  return n > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(n);
}

ConfigError error_at_offset(std::string_view text, std::size_t offset, std::string expected) {
  return LineIndex(text.substr(0, std::min(offset, text.size()))).error(offset, "", expected);
}

std::size_t utf8_length_at(std::string_view text, std::size_t pos) noexcept {
  const auto lead = static_cast<unsigned char>(text[pos]);
  std::size_t len = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC0 && lead < 0xE0) len = 2;
  if (lead >= 0xE0 && lead < 0xF0) len = 3;
  if (lead >= 0xF0 && lead < 0xF8) len = 4;
  if (len == 0 || pos + len > text.size()) return 0;
  return is_valid_utf8(text.substr(pos, len)) ? len : 0;
}

void append_utf8(std::string& out, unsigned code_point) {
  const auto byte = [&](unsigned bits) { out += static_cast<char>(bits); };
  if (code_point < 0x80) return byte(code_point);
  if (code_point < 0x800) {
    byte(0xC0 | (code_point >> 6));
  } else if (code_point < 0x10000) {
    byte(0xE0 | (code_point >> 12));
    byte(0x80 | ((code_point >> 6) & 0x3F));
  } else {
    byte(0xF0 | (code_point >> 18));
    byte(0x80 | ((code_point >> 12) & 0x3F));
    byte(0x80 | ((code_point >> 6) & 0x3F));
  }
  byte(0x80 | (code_point & 0x3F));
}

// Strings become key paths, paths and messages: NUL and broken UTF-8 have no place there.
const char* text_problem(std::string_view text) noexcept {
  if (text.find('\0') != std::string_view::npos) return "text without NUL characters";
  if (!is_valid_utf8(text)) return "well-formed UTF-8 text";
  return nullptr;
}

std::optional<ConfigError> check_size(std::string_view text) {
  if (text.size() <= kMaxConfigBytes) return std::nullopt;
  static_assert(kMaxConfigBytes == 1024 * 1024, "the message says 1 MiB");
  return error_at_offset(text, kMaxConfigBytes, "a config file of at most 1 MiB");
}

std::string duplicate_key_message(const ConfigEntry& first) {
  return "a key not already used in this mapping (first at line " + std::to_string(first.line) +
         ", column " + std::to_string(first.column) + ")";
}

std::string depth_message() {
  return "at most " + std::to_string(kMaxConfigDepth) + " levels of nesting";
}

}  // namespace msb
