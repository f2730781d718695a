// What the YAML and JSON readers share: the checks they make alike and how they place and word
// what they refuse, so that both formats of one config fail the same way, and UTF-8 byte by
// byte. Internal to src/config.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/config_error.h"
#include "config/config_tree.h"

namespace msb {

// A leading UTF-8 byte order mark is not part of the document.
std::string_view strip_bom(std::string_view text) noexcept;

std::uint32_t to_u32(std::size_t n) noexcept;

// An error with no key path at `offset`, placed by line and column.
ConfigError error_at_offset(std::string_view text, std::size_t offset, std::string expected);

// Length of the well-formed UTF-8 sequence starting at `pos`, 0 when there is none.
std::size_t utf8_length_at(std::string_view text, std::size_t pos) noexcept;

// Appends the UTF-8 encoding of a code point (at most U+10FFFF, not a surrogate).
void append_utf8(std::string& out, unsigned code_point);

// Why a string may not be a key or value ("text without NUL characters", ...), or nullptr.
const char* text_problem(std::string_view text) noexcept;

// Input over kMaxConfigBytes, refused where it crosses the limit.
std::optional<ConfigError> check_size(std::string_view text);

std::string duplicate_key_message(const ConfigEntry& first);
std::string depth_message();

inline bool is_dec(char c) noexcept {
  return c >= '0' && c <= '9';
}
inline bool is_hex(char c) noexcept {
  return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace msb
