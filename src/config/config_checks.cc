#include "config/config_checks.h"

#include <utility>

#include "common/path.h"

namespace msb {
namespace {

std::string one_of(std::initializer_list<std::string_view> choices) {
  std::string out = "one of ";
  for (std::string_view c : choices) {
    if (c != *choices.begin()) out += ", ";
    out += c;
  }
  return out;
}

}  // namespace

ConfigError at(const ConfigNode& node, std::string path, std::string expected) {
  return ConfigError{node.line, node.column, std::move(path), std::move(expected)};
}

ConfigError at_key(const ConfigEntry& entry, std::string path, std::string expected) {
  return ConfigError{entry.line, entry.column, std::move(path), std::move(expected)};
}

ConfigError unknown_key(const ConfigEntry& entry, const std::string& parent,
                        std::string_view allowed) {
  return at_key(entry, key_path_child(parent, entry.key),
                "a known key (allowed: " + std::string(allowed) + ")");
}

const ConfigEntry& later(const ConfigEntry& a, const ConfigEntry& b) noexcept {
  return &a < &b ? b : a;
}

Check expect_map(const ConfigNode& node, const std::string& path, std::string expected) {
  if (node.kind == NodeKind::map) return std::nullopt;
  return at(node, path, std::move(expected));
}

Check read_bool(const ConfigNode& node, const std::string& path, bool& out) {
  if (node.kind != NodeKind::boolean) return at(node, path, "a boolean");
  out = node.boolean;
  return std::nullopt;
}

Check read_string(const ConfigNode& node, const std::string& path, std::string& out) {
  if (node.kind != NodeKind::string) return at(node, path, "a string");
  out = node.text;
  return std::nullopt;
}

Check read_count(const ConfigNode& node, const std::string& path, std::uint64_t max,
                 std::uint64_t& out) {
  const std::optional<std::uint64_t> value = as_unsigned(node);
  if (!value || *value == 0 || *value > max) {
    return at(node, path, "an integer from 1 to " + std::to_string(max));
  }
  out = *value;
  return std::nullopt;
}

Check read_choice(const ConfigNode& node, const std::string& path,
                  std::initializer_list<std::string_view> choices, std::size_t& index) {
  if (node.kind == NodeKind::string) {
    index = 0;
    for (std::string_view c : choices) {
      if (node.text == c) return std::nullopt;
      ++index;
    }
  }
  return at(node, path, one_of(choices));
}

Check read_approval(const ConfigNode& node, const std::string& path, Approval& out) {
  std::optional<Approval> value;
  if (node.kind == NodeKind::string) value = approval_from_name(node.text);
  if (!value) return at(node, path, "one of preApproved, ask, blocked");
  out = *value;
  return std::nullopt;
}

Check read_list(const ConfigNode& node, const std::string& path) {
  if (node.kind == NodeKind::sequence) return std::nullopt;
  return at(node, path, "a list");
}

Check read_string_list(const ConfigNode& node, const std::string& path,
                       std::vector<std::string>& out) {
  if (Check e = read_list(node, path)) return e;
  out.clear();
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    std::string item;
    if (Check e = read_string(node.items[i], key_path_item(path, i), item)) return e;
    out.push_back(std::move(item));
  }
  return std::nullopt;
}

bool valid_zone_name(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  auto parsed = parse_mount_target("/" + name);
  return parsed.ok() && parsed.value().parts.size() == 1;
}

}  // namespace msb
