#include "config/network_setting.h"

#include <utility>

namespace msb {
namespace {

constexpr std::string_view kNetworkShape =
    "false, true, or a mapping with allow (a list of host[:port]) and optionally deny";

Check read_entries(const ConfigNode& node, const std::string& path,
                   std::vector<NetworkEntry>& out) {
  if (Check e = read_list(node, path)) return e;
  if (node.items.size() > kMaxNetworkEntries) {
    return at(node, path, "at most " + std::to_string(kMaxNetworkEntries) + " entries");
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    NetworkEntry entry;
    if (Check e = read_string(node.items[i], key_path_item(path, i), entry.text)) return e;
    entry.line = node.items[i].line;
    entry.column = node.items[i].column;
    out.push_back(std::move(entry));
  }
  return std::nullopt;
}

}  // namespace

Check read_network_setting(const ConfigNode& node, const std::string& path, NetworkSetting& out) {
  out = NetworkSetting{};
  out.line = node.line;
  out.column = node.column;
  if (node.kind == NodeKind::boolean) {
    out.kind = node.boolean ? NetworkKind::host : NetworkKind::off;
    return std::nullopt;
  }
  if (Check e = expect_map(node, path, std::string(kNetworkShape))) return e;
  const ConfigEntry* allow = node.find("allow");
  if (allow == nullptr) {
    return at(node, key_path_child(path, "allow"),
              "a list of host[:port] entries (required; an empty list means no network)");
  }
  out.kind = NetworkKind::allowlist;
  for (const ConfigEntry& entry : node.entries) {
    const std::string child = key_path_child(path, entry.key);
    if (entry.key == "allow") {
      if (Check e = read_entries(entry.value, child, out.allow)) return e;
    } else if (entry.key == "deny") {
      if (Check e = read_entries(entry.value, child, out.deny)) return e;
    } else {
      return unknown_key(entry, path, "allow, deny");
    }
  }
  return std::nullopt;
}

}  // namespace msb
