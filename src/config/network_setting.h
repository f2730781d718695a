// A config's `network:` key (in a program config's sandbox section and a worker's): false, true,
// or an allowlist { allow: [...], deny: [...] } of host[:port] entries. Only the shape is checked
// here; the entries' grammar is the facade's (lib/network/policy.js), which reports a bad entry at
// the line and column kept with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config_checks.h"

namespace msb {

enum class NetworkKind : std::uint8_t { unset, off, host, allowlist };

struct NetworkEntry {
  std::string text;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct NetworkSetting {
  NetworkKind kind = NetworkKind::unset;
  std::vector<NetworkEntry> allow;
  std::vector<NetworkEntry> deny;
  std::uint32_t line = 0;  // of the value, for errors about the setting as a whole
  std::uint32_t column = 0;
};

// At most this many entries in each list: enough for any registry set, small enough to judge fast.
inline constexpr std::size_t kMaxNetworkEntries = 1024;

Check read_network_setting(const ConfigNode& node, const std::string& path, NetworkSetting& out);

}  // namespace msb
