// Readers of typed values from a located tree, shared by the program config and worker files:
// each checks one node and, when it does not fit, says where it is and what was expected there.
// Internal to src/config.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_error.h"
#include "config/config_tree.h"
#include "fs/mount_rules.h"

namespace msb {

// The first problem found, or nullopt when the node fits.
using Check = std::optional<ConfigError>;

ConfigError at(const ConfigNode& node, std::string path, std::string expected);
ConfigError at_key(const ConfigEntry& entry, std::string path, std::string expected);
ConfigError unknown_key(const ConfigEntry& entry, const std::string& parent,
                        std::string_view allowed);

// The later of two entries of one map: conflicts are reported where the second one is written.
const ConfigEntry& later(const ConfigEntry& a, const ConfigEntry& b) noexcept;

Check expect_map(const ConfigNode& node, const std::string& path,
                 std::string expected = "a mapping");
Check read_bool(const ConfigNode& node, const std::string& path, bool& out);
Check read_string(const ConfigNode& node, const std::string& path, std::string& out);
// An integer from 1 to `max`.
Check read_count(const ConfigNode& node, const std::string& path, std::uint64_t max,
                 std::uint64_t& out);
// `index` receives the position of the value in `choices`.
Check read_choice(const ConfigNode& node, const std::string& path,
                  std::initializer_list<std::string_view> choices, std::size_t& index);
Check read_approval(const ConfigNode& node, const std::string& path, Approval& out);
Check read_list(const ConfigNode& node, const std::string& path);
Check read_string_list(const ConfigNode& node, const std::string& path,
                       std::vector<std::string>& out);

// A zone is mounted at "/<name>", so its name must be one path component.
bool valid_zone_name(const std::string& name);
inline constexpr std::string_view kZoneNameRule =
    "a zone name that is one path component (not empty, no /, not . or ..)";

}  // namespace msb
