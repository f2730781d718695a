#include "config/worker_file.h"

#include <unordered_map>
#include <utility>

#include "common/path.h"
#include "config/config_checks.h"
#include "config/network_setting.h"
#include "config/reader_checks.h"
#include "config/yaml_reader.h"

namespace msb {
namespace {

constexpr std::string_view kWorkerSandboxKeys = "restrict, readonly, approval, zones, network";

Check read_zone_request(const ConfigNode& item, const std::string& path, ZoneRequest& out,
                        const ConfigNode*& name_node) {
  if (Check e = expect_map(item, path, "a mapping with name and mode")) return e;
  out.line = item.line;
  out.column = item.column;
  for (const ConfigEntry& entry : item.entries) {
    const std::string child = key_path_child(path, entry.key);
    if (entry.key == "name") {
      if (entry.value.kind != NodeKind::string || !valid_zone_name(entry.value.text)) {
        return at(entry.value, child, std::string(kZoneNameRule));
      }
      out.name = entry.value.text;
      name_node = &entry.value;
    } else if (entry.key == "mode") {
      std::size_t index = 0;
      if (Check e = read_choice(entry.value, child, {"ro", "rw"}, index)) return e;
      out.readonly = index == 0;
    } else {
      return unknown_key(entry, path, "name, mode");
    }
  }
  if (name_node == nullptr) return at(item, key_path_child(path, "name"), "a zone name (required)");
  return std::nullopt;
}

Check read_zone_requests(const ConfigNode& node, const std::string& path,
                         std::vector<ZoneRequest>& out) {
  if (Check e = read_list(node, path)) return e;
  std::unordered_map<std::string, std::size_t> seen;  // name -> index
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = key_path_item(path, i);
    ZoneRequest request;
    const ConfigNode* name_node = nullptr;
    if (Check e = read_zone_request(node.items[i], item_path, request, name_node)) return e;
    if (auto it = seen.find(request.name); it != seen.end()) {
      return at(*name_node, key_path_child(item_path, "name"),
                "a zone not already listed (" + request.name + " is " +
                    key_path_item(path, it->second) + ")");
    }
    seen.emplace(request.name, i);
    out.push_back(std::move(request));
  }
  return std::nullopt;
}

Check read_restrict(const ConfigNode& node, const std::string& path, WorkerDeclaration& out) {
  std::optional<std::string> normalized;
  if (node.kind == NodeKind::string) {
    auto parsed = parse_virtual_path(node.text);
    if (parsed.ok()) normalized = parsed.value().str();
  }
  if (!normalized) return at(node, path, "an absolute virtual path like /src");
  out.restrict = std::move(normalized);
  return std::nullopt;
}

Check read_worker_approval(const ConfigNode& node, const std::string& path,
                           WorkerDeclaration& out) {
  if (Check e = expect_map(node, path, "a mapping with write and delete")) return e;
  for (const ConfigEntry& entry : node.entries) {
    const std::string child = key_path_child(path, entry.key);
    Approval value = Approval::ask;
    if (entry.key != "write" && entry.key != "delete") {
      return unknown_key(entry, path, "write, delete");
    }
    if (Check e = read_approval(entry.value, child, value)) return e;
    (entry.key == "write" ? out.approve_write : out.approve_delete) = value;
  }
  return std::nullopt;
}

Check read_worker_entry(const ConfigEntry& entry, const std::string& path, WorkerDeclaration& out) {
  const std::string child = key_path_child(path, entry.key);
  if (entry.key == "restrict") return read_restrict(entry.value, child, out);
  if (entry.key == "readonly") {
    bool value = false;
    if (Check e = read_bool(entry.value, child, value)) return e;
    out.readonly = value;
    return std::nullopt;
  }
  if (entry.key == "approval") return read_worker_approval(entry.value, child, out);
  if (entry.key == "zones") return read_zone_requests(entry.value, child, out.zones);
  if (entry.key == "network") return read_network_setting(entry.value, child, out.network);
  return unknown_key(entry, path, kWorkerSandboxKeys);
}

Check read_worker_sandbox(const ConfigNode& node, WorkerDeclaration& out) {
  const std::string path = "sandbox";
  if (node.kind == NodeKind::null) return std::nullopt;
  if (node.kind == NodeKind::boolean && !node.boolean) {
    out.kind = WorkerSandboxKind::none;
    return std::nullopt;
  }
  if (Check e = expect_map(node, path, "false or a mapping")) return e;
  const ConfigEntry* zones = node.find("zones");
  for (const ConfigEntry& entry : node.entries) {
    if (zones != nullptr && (entry.key == "restrict" || entry.key == "readonly")) {
      const ConfigEntry& second = later(entry, *zones);
      return at_key(second, key_path_child(path, second.key),
                    "either zones or restrict/readonly, not both");
    }
    if (Check e = read_worker_entry(entry, path, out)) return e;
  }
  out.kind = WorkerSandboxKind::restrict;
  if (zones != nullptr) {
    out.kind = out.zones.empty() ? WorkerSandboxKind::none : WorkerSandboxKind::zones;
  }
  return std::nullopt;
}

std::string_view trim_line_end(std::string_view line) noexcept {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  return line;
}

// The frontmatter between the opening "---" line and the closing "---" or "..." line, with the
// opening line blanked so that YAML positions are the file's. nullopt when there is none.
Result<std::optional<std::string>, ConfigError> extract_frontmatter(std::string_view text) {
  text = strip_bom(text);
  std::size_t end = text.find('\n');
  if (trim_line_end(text.substr(0, end)) != "---" || end == std::string_view::npos) {
    if (trim_line_end(text) == "---") {
      return ConfigError{1, 1, "", "a closing --- line after the frontmatter"};
    }
    return std::optional<std::string>{};
  }
  const std::size_t body = end + 1;
  for (std::size_t start = body; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim_line_end(text.substr(start, end - start));
    if (line == "---" || line == "...") {
      // A leading newline keeps YAML line numbers equal to the file's. Built with append:
      // g++ 12 misreports `"\n" + std::string` as an overlapping copy (-Wrestrict).
      std::string frontmatter(1, '\n');
      frontmatter.append(text.substr(body, start - body));
      return std::optional<std::string>{std::move(frontmatter)};
    }
  }
  return ConfigError{1, 1, "", "a closing --- line after the frontmatter"};
}

Check read_worker(const ConfigNode& root, WorkerDeclaration& out) {
  if (root.kind == NodeKind::null) return std::nullopt;
  if (Check e = expect_map(root, "")) return e;
  if (const ConfigEntry* name = root.find("name"); name && name->value.kind == NodeKind::string) {
    out.name = name->value.text;
  }
  if (const ConfigEntry* sandbox = root.find("sandbox")) {
    return read_worker_sandbox(sandbox->value, out);
  }
  return std::nullopt;
}

}  // namespace

Result<WorkerDeclaration, ConfigError> parse_worker_file(std::string_view text) {
  auto frontmatter = extract_frontmatter(text);
  if (!frontmatter) return std::move(frontmatter).error();
  WorkerDeclaration out;
  const std::optional<std::string>& yaml = frontmatter.value();
  if (!yaml) return out;
  auto tree = parse_yaml(*yaml);
  if (!tree) return std::move(tree).error();
  if (Check e = read_worker(tree.value(), out)) return std::move(*e);
  return out;
}

}  // namespace msb
