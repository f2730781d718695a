#include "config/program_config.h"

#include <unordered_map>
#include <utility>

#include "common/path.h"
#include "config/config_checks.h"
#include "config/host_path.h"
#include "config/json_reader.h"
#include "config/network_setting.h"
#include "config/yaml_reader.h"

namespace msb {
namespace {

// Checks are listed here once, so that the YAML and JSON forms of a config cannot drift apart.
constexpr std::string_view kTopKeys = "sandbox, delegation, model, approval, workerPaths";
constexpr std::string_view kMountFormKeys =
    "root, readonly, mounts, approval, allowedSuffixes, deniedSuffixes, maxFileBytes, "
    "allowPseudoFilesystem, network, changes, tmpBytes, trustedNames, zones, mode";
constexpr std::string_view kZoneFormKeys =
    "zones, mode, root, readonly, network, changes, tmpBytes, trustedNames";
constexpr std::string_view kTrustedKeys = "add, release";
constexpr std::string_view kMountKeys =
    "source, target, readonly, approval, allowedSuffixes, deniedSuffixes, maxFileBytes, "
    "allowPseudoFilesystem";
constexpr std::string_view kZoneKeys =
    "path, mode, approval, allowedSuffixes, deniedSuffixes, maxFileBytes, allowPseudoFilesystem";
// Where a source may lie on procfs, sysfs, the device filesystem, ... (refused by default when
// the sandbox pins it): on the root, each mount and each zone, beside their source.
constexpr std::string_view kAllowPseudo = "allowPseudoFilesystem";

Check read_changes(const ConfigNode& node, const std::string& path, std::string& out) {
  static constexpr std::string_view kModes[] = {"apply", "review", "direct"};
  std::size_t index = 0;
  if (Check e = read_choice(node, path, {kModes[0], kModes[1], kModes[2]}, index)) return e;
  out = std::string(kModes[index]);
  return std::nullopt;
}

// The size of its commands' /tmp (ExecLimits.tmpBytes); 0 is the host's disk, asked for by name.
Check read_tmp_bytes(const ConfigNode& node, const std::string& path,
                     std::optional<std::uint64_t>& out) {
  constexpr std::uint64_t kMaxSafeInteger = (1ull << 53) - 1;  // what JS holds exactly
  const std::optional<std::uint64_t> value = as_unsigned(node);
  if (!value || *value > kMaxSafeInteger) {
    return at(node, path, "a size in bytes (0 for the host's disk, unbounded)");
  }
  out = *value;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Mount sources and targets

Check read_host_path(const ConfigNode& node, const std::string& path, std::string_view base,
                     std::string& out) {
  if (node.kind != NodeKind::string || node.text.empty()) {
    return at(node, path, "a non-empty path string");
  }
  out = resolve_host(base, node.text);
  return std::nullopt;
}

Check read_target(const ConfigNode& node, const std::string& path, std::string& out) {
  std::optional<std::string> target;
  if (node.kind == NodeKind::string) {
    auto parsed = parse_mount_target(node.text);
    if (parsed.ok()) target = parsed.value().str();
  }
  if (!target)
    return at(node, path, "an absolute normalized virtual path other than /, like /data");
  out = std::move(*target);
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Policy keys, the same at the sandbox root, on each mount and on each zone

bool is_policy_key(std::string_view key) noexcept {
  return key == "approval" || key == "allowedSuffixes" || key == "deniedSuffixes" ||
         key == "maxFileBytes";
}

Check read_approval_rule(const ConfigNode& node, const std::string& path, ApprovalRule& out) {
  if (Check e = expect_map(node, path, "a mapping with write and delete")) return e;
  for (const ConfigEntry& entry : node.entries) {
    const std::string child = key_path_child(path, entry.key);
    if (entry.key == "write") {
      if (Check e = read_approval(entry.value, child, out.write)) return e;
    } else if (entry.key == "delete") {
      if (Check e = read_approval(entry.value, child, out.remove)) return e;
    } else {
      return unknown_key(entry, path, "write, delete");
    }
  }
  return std::nullopt;
}

Check read_suffixes(const ConfigNode& node, const std::string& path,
                    std::vector<std::string>& out) {
  if (Check e = read_list(node, path)) return e;
  out.clear();
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    const ConfigNode& item = node.items[i];
    std::optional<std::string> rule;
    if (item.kind == NodeKind::string) rule = suffix_rule(item.text);
    if (!rule)
      return at(item, key_path_item(path, i), "a file suffix starting with a dot, like .md");
    out.push_back(std::move(*rule));
  }
  return std::nullopt;
}

Check read_policy(const ConfigEntry& entry, const std::string& parent, ApprovalRule& approval,
                  FilePolicy& policy) {
  const std::string path = key_path_child(parent, entry.key);
  if (entry.key == "approval") return read_approval_rule(entry.value, path, approval);
  if (entry.key == "allowedSuffixes") {
    std::vector<std::string> list;
    if (Check e = read_suffixes(entry.value, path, list)) return e;
    policy.allowed_suffixes = std::move(list);
    return std::nullopt;
  }
  if (entry.key == "deniedSuffixes")
    return read_suffixes(entry.value, path, policy.denied_suffixes);
  std::uint64_t bytes = 0;
  if (Check e = read_count(entry.value, path, kMaxFileBytesLimit, bytes)) return e;
  policy.max_file_bytes = bytes;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// sandbox, mount form: root + mounts

Check read_mount_entry(const ConfigEntry& entry, const std::string& path, std::string_view dir,
                       MountSpec& spec) {
  const std::string child = key_path_child(path, entry.key);
  if (entry.key == "source") return read_host_path(entry.value, child, dir, spec.source);
  if (entry.key == "target") return read_target(entry.value, child, spec.target);
  if (entry.key == "readonly") return read_bool(entry.value, child, spec.readonly);
  if (entry.key == kAllowPseudo) return read_bool(entry.value, child, spec.allow_pseudo_filesystem);
  if (is_policy_key(entry.key)) return read_policy(entry, path, spec.approval, spec.policy);
  return unknown_key(entry, path, kMountKeys);
}

Check read_mount(const ConfigNode& node, const std::string& path, std::string_view dir,
                 MountSpec& spec) {
  if (Check e = expect_map(node, path, "a mapping with source and target")) return e;
  for (const ConfigEntry& entry : node.entries) {
    if (Check e = read_mount_entry(entry, path, dir, spec)) return e;
  }
  if (node.find("source") == nullptr) {
    return at(node, key_path_child(path, "source"), "a source path (required)");
  }
  if (node.find("target") == nullptr) {
    return at(node, key_path_child(path, "target"), "a target like /data (required)");
  }
  return std::nullopt;
}

Check read_mounts(const ConfigNode& node, const std::string& path, std::string_view dir,
                  std::vector<MountSpec>& mounts) {
  if (Check e = read_list(node, path)) return e;
  std::unordered_map<std::string, std::size_t> seen;  // target -> index
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = key_path_item(path, i);
    MountSpec spec;
    if (Check e = read_mount(node.items[i], item_path, dir, spec)) return e;
    if (auto it = seen.find(spec.target); it != seen.end()) {
      return at(node.items[i].find("target")->value, key_path_child(item_path, "target"),
                "a target not already mounted (" + spec.target + " is mounted by " +
                    key_path_item(path, it->second) + ")");
    }
    seen.emplace(spec.target, i);
    mounts.push_back(std::move(spec));
  }
  return std::nullopt;
}

Check read_trusted_list(const ConfigNode& node, const std::string& path,
                        std::vector<std::string>& out) {
  if (Check e = read_string_list(node, path, out)) return e;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (auto problem = trusted_entry_problem(out[i])) {
      return at(node.items[i], key_path_item(path, i),
                std::string(kTrustedNameRule) + "; at character " +
                    std::to_string(problem->offset + 1) + ": " + problem->reason);
    }
  }
  return std::nullopt;
}

// trustedNames: { add: [names], release: [names] }
Check read_trusted_names(const ConfigNode& node, const std::string& path, TrustedNamesSpec& out) {
  if (Check e = expect_map(node, path)) return e;
  for (const ConfigEntry& entry : node.entries) {
    const std::string child = key_path_child(path, entry.key);
    Check e;
    if (entry.key == "add") {
      e = read_trusted_list(entry.value, child, out.added);
    } else if (entry.key == "release") {
      e = read_trusted_list(entry.value, child, out.released);
    } else {
      e = unknown_key(entry, path, kTrustedKeys);
    }
    if (e) return e;
  }
  return std::nullopt;
}

Check read_mount_form(const ConfigNode& node, const std::string& path, std::string_view dir,
                      ProgramSandbox& out) {
  out.layout = SandboxLayout::mounts;
  out.root = std::string(dir);
  for (const ConfigEntry& entry : node.entries) {
    const std::string child = key_path_child(path, entry.key);
    Check e;
    if (entry.key == "root") {
      e = read_host_path(entry.value, child, dir, out.root);
    } else if (entry.key == "readonly") {
      e = read_bool(entry.value, child, out.readonly);
    } else if (entry.key == kAllowPseudo) {
      e = read_bool(entry.value, child, out.allow_pseudo_filesystem);
    } else if (entry.key == "mounts") {
      e = read_mounts(entry.value, child, dir, out.mounts);
    } else if (entry.key == "network") {
      e = read_network_setting(entry.value, child, out.network);
    } else if (entry.key == "changes") {
      e = read_changes(entry.value, child, out.changes);
    } else if (entry.key == "tmpBytes") {
      e = read_tmp_bytes(entry.value, child, out.tmp_bytes);
    } else if (entry.key == "trustedNames") {
      e = read_trusted_names(entry.value, child, out.trusted);
    } else if (is_policy_key(entry.key)) {
      e = read_policy(entry, path, out.approval, out.policy);
    } else if (entry.key == "mode") {
      e = at_key(entry, child, "zones alongside mode (mode says where zones live)");
    } else {
      e = unknown_key(entry, path, kMountFormKeys);
    }
    if (e) return e;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// sandbox, zone form: named zones mounted at /<name>

struct ZoneForm {
  const ConfigEntry* zones = nullptr;
  const ConfigEntry* root = nullptr;
  bool direct = false;
  bool readonly = false;
  NetworkSetting network;
  std::string changes;
  std::optional<std::uint64_t> tmp_bytes;
  TrustedNamesSpec trusted;
  std::string base;  // what zone paths are relative to
};

Check read_zone_form_entry(const ConfigEntry& entry, const std::string& path, ZoneForm& form,
                           const ConfigNode& sandbox) {
  const std::string child = key_path_child(path, entry.key);
  if (entry.key == "zones") {
    form.zones = &entry;
    return std::nullopt;
  }
  if (entry.key == "root") {
    form.root = &entry;
    return std::nullopt;
  }
  if (entry.key == "readonly") return read_bool(entry.value, child, form.readonly);
  if (entry.key == "network") return read_network_setting(entry.value, child, form.network);
  if (entry.key == "changes") return read_changes(entry.value, child, form.changes);
  if (entry.key == "tmpBytes") return read_tmp_bytes(entry.value, child, form.tmp_bytes);
  if (entry.key == "trustedNames") return read_trusted_names(entry.value, child, form.trusted);
  if (entry.key == "mode") {
    std::size_t index = 0;
    if (Check e = read_choice(entry.value, child, {"sandboxed", "direct"}, index)) return e;
    form.direct = index == 1;
    return std::nullopt;
  }
  if (entry.key == "mounts") {
    const ConfigEntry& second = later(entry, *sandbox.find("zones"));
    return at_key(second, key_path_child(path, second.key), "either mounts or zones, not both");
  }
  if (is_policy_key(entry.key)) {
    return at_key(entry, child,
                  "a key of the zone form (allowed: " + std::string(kZoneFormKeys) +
                      "); policies go on each zone");
  }
  return unknown_key(entry, path, kZoneFormKeys);
}

Check read_zone_base(const std::string& path, std::string_view dir, ZoneForm& form) {
  if (form.direct) {
    form.base = std::string(dir);
    if (form.root == nullptr) return std::nullopt;
    return at_key(*form.root, key_path_child(path, "root"),
                  "no root in direct mode (zone paths are relative to the config file)");
  }
  if (form.root == nullptr) {
    form.base = resolve_host(dir, ".sandbox");
    return std::nullopt;
  }
  return read_host_path(form.root->value, key_path_child(path, "root"), dir, form.base);
}

Check read_zone_source(const ConfigNode& node, const std::string& path, const ZoneForm& form,
                       std::string& source) {
  if (node.kind != NodeKind::string || node.text.empty()) {
    return at(node, path, "a non-empty path string");
  }
  if (!form.direct && (node.text.front() == '/' || !stays_inside(node.text))) {
    return at(node, path, "a relative path that stays inside the sandbox root");
  }
  source = resolve_host(form.base, node.text);
  return std::nullopt;
}

Check read_zone(const ConfigEntry& zone, const std::string& path, const ZoneForm& form,
                MountSpec& spec) {
  spec.source = resolve_host(form.base, zone.key);
  spec.target = "/" + zone.key;
  bool ro = false;
  if (zone.value.kind == NodeKind::null) return std::nullopt;
  if (Check e = expect_map(zone.value, path)) return e;
  for (const ConfigEntry& entry : zone.value.entries) {
    const std::string child = key_path_child(path, entry.key);
    Check e;
    if (entry.key == "path") {
      e = read_zone_source(entry.value, child, form, spec.source);
    } else if (entry.key == "mode") {
      std::size_t index = 0;
      e = read_choice(entry.value, child, {"ro", "rw"}, index);
      ro = index == 0;
    } else if (entry.key == kAllowPseudo) {
      e = read_bool(entry.value, child, spec.allow_pseudo_filesystem);
    } else if (is_policy_key(entry.key)) {
      e = read_policy(entry, path, spec.approval, spec.policy);
    } else {
      e = unknown_key(entry, path, kZoneKeys);
    }
    if (e) return e;
  }
  spec.readonly = ro;
  return std::nullopt;
}

Check read_zones(const ConfigNode& node, const std::string& path, const ZoneForm& form,
                 ProgramSandbox& out) {
  if (Check e = expect_map(node, path, "a mapping of zone names to zone settings")) return e;
  // A sandbox with no root and no zones could hold nothing: say so here, not at first use.
  if (node.entries.empty()) return at(node, path, "at least one zone");
  for (const ConfigEntry& zone : node.entries) {
    const std::string zone_path = key_path_child(path, zone.key);
    if (!valid_zone_name(zone.key)) return at_key(zone, zone_path, std::string(kZoneNameRule));
    MountSpec spec;
    if (Check e = read_zone(zone, zone_path, form, spec)) return e;
    spec.readonly = spec.readonly || form.readonly;
    out.mounts.push_back(std::move(spec));
    out.zones.push_back(ZoneInfo{zone.key});
  }
  return std::nullopt;
}

Check read_zone_form(const ConfigNode& node, const std::string& path, std::string_view dir,
                     ProgramSandbox& out) {
  ZoneForm form;
  for (const ConfigEntry& entry : node.entries) {
    if (Check e = read_zone_form_entry(entry, path, form, node)) return e;
  }
  if (Check e = read_zone_base(path, dir, form)) return e;
  out.layout = form.direct ? SandboxLayout::zones_direct : SandboxLayout::zones_sandboxed;
  out.readonly = form.readonly;
  out.network = std::move(form.network);
  out.changes = std::move(form.changes);
  out.tmp_bytes = form.tmp_bytes;
  out.trusted = std::move(form.trusted);
  return read_zones(form.zones->value, key_path_child(path, "zones"), form, out);
}

// ---------------------------------------------------------------------------------------------
// The program config's top level

Check read_sandbox(const ConfigNode& node, std::string_view dir, ProgramConfig& config) {
  const std::string path = "sandbox";
  // Only leaving the section out means "no file access": a null or false here is more likely a
  // half-written section than a decision.
  if (Check e = expect_map(node, path)) return e;
  ProgramSandbox sandbox;
  Check e = node.find("zones") != nullptr ? read_zone_form(node, path, dir, sandbox)
                                          : read_mount_form(node, path, dir, sandbox);
  if (e) return e;
  config.sandbox = std::move(sandbox);
  return std::nullopt;
}

Check read_delegation(const ConfigNode& node, ProgramConfig& config) {
  const std::string path = "delegation";
  if (Check e = expect_map(node, path)) return e;
  for (const ConfigEntry& entry : node.entries) {
    if (entry.key != "maxDepth") return unknown_key(entry, path, "maxDepth");
    std::uint64_t depth = 0;
    if (Check e = read_count(entry.value, "delegation.maxDepth", kMaxDelegationDepth, depth)) {
      return e;
    }
    config.max_depth = static_cast<std::uint32_t>(depth);
  }
  return std::nullopt;
}

// golem-forge's own approval setting: checked so typos surface, otherwise not ours to use.
Check read_approval_mode(const ConfigNode& node) {
  const std::string path = "approval";
  if (Check e = expect_map(node, path)) return e;
  for (const ConfigEntry& entry : node.entries) {
    if (entry.key != "mode") return unknown_key(entry, path, "mode");
    std::size_t index = 0;
    if (Check e = read_choice(entry.value, "approval.mode",
                              {"interactive", "approve_all", "auto_deny"}, index)) {
      return e;
    }
  }
  return std::nullopt;
}

Check read_worker_paths(const ConfigNode& node, ProgramConfig& config) {
  std::vector<std::string> given;
  if (Check e = read_string_list(node, "workerPaths", given)) return e;
  config.worker_paths.clear();
  for (const std::string& dir : given) config.worker_paths.push_back(resolve_host(config.dir, dir));
  return std::nullopt;
}

Check read_program(const ConfigNode& root, ProgramConfig& config) {
  if (root.kind == NodeKind::null) return std::nullopt;
  if (Check e = expect_map(root, "")) return e;
  for (const ConfigEntry& entry : root.entries) {
    Check e;
    std::string ignored;
    if (entry.key == "sandbox") {
      e = read_sandbox(entry.value, config.dir, config);
    } else if (entry.key == "delegation") {
      e = read_delegation(entry.value, config);
    } else if (entry.key == "model") {
      e = read_string(entry.value, entry.key, ignored);
    } else if (entry.key == "approval") {
      e = read_approval_mode(entry.value);
    } else if (entry.key == "workerPaths") {
      e = read_worker_paths(entry.value, config);
    } else {
      e = unknown_key(entry, "", kTopKeys);
    }
    if (e) return e;
  }
  return std::nullopt;
}

bool absolute_file(std::string_view file) {
  return !file.empty() && file.front() == '/' && file.find('\0') == std::string_view::npos &&
         is_valid_utf8(file);
}

}  // namespace

Result<ProgramConfig, ConfigError> parse_program_config(std::string_view text,
                                                        std::string_view file,
                                                        ConfigFormat format) {
  if (!absolute_file(file)) return ConfigError{0, 0, "", "an absolute config file path"};
  auto tree = format == ConfigFormat::json ? parse_json(text) : parse_yaml(text);
  if (!tree) return std::move(tree).error();
  ProgramConfig config;
  config.file = std::string(file);
  config.dir = parent_dir(file);
  config.worker_paths = {resolve_host(config.dir, "workers"), resolve_host(config.dir, ".workers")};
  if (Check e = read_program(tree.value(), config)) return std::move(*e);
  return config;
}

}  // namespace msb
