#include "config/config_tree.h"

#include <string>

#include "config/reader_checks.h"

namespace msb {

const ConfigEntry* ConfigNode::find(std::string_view key) const noexcept {
  for (const ConfigEntry& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

std::optional<std::uint64_t> as_unsigned(const ConfigNode& node) noexcept {
  if (node.kind != NodeKind::number) return std::nullopt;
  std::string_view s = node.text;
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    base = s[1] == 'x' ? 16 : 8;
    s.remove_prefix(2);
  } else if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : s) {
    unsigned digit = 16;
    if (is_dec(c)) digit = unsigned(c - '0');
    if (base == 16 && is_hex(c) && !is_dec(c)) digit = unsigned((c | 0x20) - 'a' + 10);
    if (digit >= base) return std::nullopt;
    if (value > (UINT64_MAX - digit) / base) return std::nullopt;
    value = value * base + digit;
  }
  return value;
}

std::string key_path_child(std::string_view parent, std::string_view key) {
  std::string out(parent);
  if (!out.empty()) out += '.';
  out += key;
  return out;
}

std::string key_path_item(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

}  // namespace msb
