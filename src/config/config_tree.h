// A small document tree that YAML and JSON config files are both read into (yaml_reader.h,
// json_reader.h), so that one validator serves both formats. Every node keeps the 1-based line
// and column it was written at (columns count bytes, as yaml-cpp does), and maps keep their keys
// in document order with the keys' own positions, so that errors can point at the exact key or
// value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_error.h"

namespace msb {

// Inputs are configs written by hand: anything larger or deeper is a mistake or an attack, and
// the bounds keep parsing time, memory and recursion small.
inline constexpr std::size_t kMaxConfigBytes = 1024 * 1024;
inline constexpr std::size_t kMaxConfigDepth = 64;

enum class NodeKind : std::uint8_t { null, boolean, number, string, sequence, map };

struct ConfigEntry;

struct ConfigNode {
  NodeKind kind = NodeKind::null;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  // string: the value; number: as written ("42", "1.5e3", "0x10"); boolean: "true"/"false".
  std::string text;
  bool boolean = false;
  std::vector<ConfigNode> items;     // sequence
  std::vector<ConfigEntry> entries;  // map, in document order, keys unique

  const ConfigEntry* find(std::string_view key) const noexcept;
};

struct ConfigEntry {
  std::string key;
  std::uint32_t line = 0;  // of the key
  std::uint32_t column = 0;
  ConfigNode value;
};

// The value of a number node written as a non-negative integer (decimal, or YAML's 0x / 0o);
// nullopt for anything else, including integers above UINT64_MAX.
std::optional<std::uint64_t> as_unsigned(const ConfigNode& node) noexcept;

// "sandbox" + "mounts" -> "sandbox.mounts"; "sandbox.mounts" + 1 -> "sandbox.mounts[1]".
std::string key_path_child(std::string_view parent, std::string_view key);
std::string key_path_item(std::string_view parent, std::size_t index);

}  // namespace msb
