#include "launcher/exec_policy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <optional>

#include "launcher/policy_json.h"

namespace msb {
namespace {

using Kind = PolicyValue::Kind;

bool acceptable_string(std::string_view s) {
  return s.find('\0') == std::string_view::npos;
}

bool absolute_path(std::string_view s) {
  return !s.empty() && s.front() == '/' && acceptable_string(s);
}

std::optional<std::string> string_of(PolicyValue& value) {
  if (value.kind != Kind::string || !acceptable_string(value.text)) return std::nullopt;
  return std::move(value.text);
}

std::optional<std::vector<std::string>> strings_of(PolicyValue& value) {
  if (value.kind != Kind::array) return std::nullopt;
  std::vector<std::string> out;
  for (PolicyValue& item : value.items) {
    auto s = string_of(item);
    if (!s) return std::nullopt;
    out.push_back(std::move(*s));
  }
  return out;
}

std::optional<PathAccess> access_named(std::string_view name) {
  if (name == "read") return PathAccess::read;
  if (name == "write") return PathAccess::write;
  if (name == "writeKeep") return PathAccess::write_keep;
  if (name == "protect") return PathAccess::protect;
  if (name == "device") return PathAccess::device;
  if (name == "pin") return PathAccess::pin;
  return std::nullopt;
}

// "<dev>:<ino>" in decimal: both may exceed what a JSON number holds exactly.
std::optional<FileId> file_id_named(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  auto parse = [](std::string_view digits, std::uint64_t& out) {
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  };
  if (!parse(text.substr(0, colon), dev) || !parse(text.substr(colon + 1), ino))
    return std::nullopt;
  return FileId{static_cast<dev_t>(dev), static_cast<ino_t>(ino)};
}

std::optional<ExecPath> exec_path_of(PolicyValue& value) {
  if (value.kind != Kind::object) return std::nullopt;
  ExecPath out;
  bool has_path = false;
  bool has_access = false;
  for (auto& [key, item] : value.members) {
    auto text = string_of(item);
    if (!text) return std::nullopt;
    if (key == "id" && !out.id) {
      out.id = file_id_named(*text);
      if (!out.id) return std::nullopt;
    } else if (key == "path" && !has_path && absolute_path(*text)) {
      out.path = std::move(*text);
      has_path = true;
    } else if (key == "target" && out.target.empty() && absolute_path(*text)) {
      out.target = std::move(*text);
    } else if (key == "access" && !has_access && access_named(*text)) {
      out.access = *access_named(*text);
      has_access = true;
    } else if (key == "upper" && out.upper.empty() && absolute_path(*text)) {
      out.upper = std::move(*text);
    } else if (key == "work" && out.work.empty() && absolute_path(*text)) {
      out.work = std::move(*text);
    } else {
      return std::nullopt;
    }
  }
  if (!has_path || !has_access) return std::nullopt;
  // A layer needs both directories, a target to be seen at, and a path it may change.
  const bool layered = !out.upper.empty() || !out.work.empty();
  if (layered && (out.upper.empty() || out.work.empty() || out.target.empty() ||
                  (out.access != PathAccess::write && out.access != PathAccess::write_keep))) {
    return std::nullopt;
  }
  return out;
}

bool unsigned_of(const PolicyValue& value, std::uint64_t max, std::uint64_t& out) {
  auto n = value.unsigned_number();
  if (!n || *n > max) return false;
  out = *n;
  return true;
}

bool apply_limits(ExecLimits& limits, const PolicyValue& value) {
  if (value.kind != Kind::object) return false;
  for (const auto& [key, item] : value.members) {
    std::uint64_t n = 0;
    if (key == "processes" && unsigned_of(item, 1U << 22, n)) {
      limits.processes = static_cast<unsigned>(n);
    } else if (key == "memoryBytes" && unsigned_of(item, UINT64_MAX, n)) {
      limits.memory_bytes = n;
    } else if (key == "cpuSeconds" && unsigned_of(item, 1U << 30, n)) {
      limits.cpu_seconds = static_cast<unsigned>(n);
    } else if (key == "tmpBytes" && unsigned_of(item, UINT64_MAX, n)) {
      limits.tmp_bytes = n;
    } else {
      return false;
    }
  }
  return true;
}

std::optional<NamespaceMode> namespace_mode_named(std::string_view name) {
  if (name == "off") return NamespaceMode::off;
  if (name == "prefer") return NamespaceMode::prefer;
  if (name == "require") return NamespaceMode::require;
  return std::nullopt;
}

std::optional<std::uint16_t> port_of(const PolicyValue& value) {
  std::uint64_t n = 0;
  if (!unsigned_of(value, 65535, n) || n == 0) return std::nullopt;
  return static_cast<std::uint16_t>(n);
}

bool apply_capture(std::vector<std::uint16_t>& capture, const PolicyValue& value) {
  if (value.kind != Kind::array || value.items.size() > kMaxCapturePorts) return false;
  for (const PolicyValue& item : value.items) {
    auto port = port_of(item);
    if (!port) return false;
    capture.push_back(*port);
  }
  return true;
}

// {"port": <listener>, "network": "a.b.c.d", "prefix": 1..32}
bool apply_redirect(std::optional<PortRedirect>& out, const PolicyValue& value) {
  if (value.kind != Kind::object || value.members.size() != 3) return false;
  PortRedirect redirect;
  std::uint64_t prefix = 0;
  bool network = false;
  for (const auto& [key, item] : value.members) {
    in_addr address{};
    if (key == "port" && redirect.port == 0 && port_of(item)) {
      redirect.port = *port_of(item);
    } else if (key == "network" && !network && item.kind == Kind::string &&
               ::inet_pton(AF_INET, item.text.c_str(), &address) == 1) {
      redirect.network = ntohl(address.s_addr);
      network = true;
    } else if (key != "prefix" || prefix != 0 || !unsigned_of(item, 32, prefix) || prefix == 0) {
      return false;
    }
  }
  if (redirect.port == 0 || !network || prefix == 0) return false;
  redirect.prefix = static_cast<std::uint8_t>(prefix);
  out = redirect;
  return true;
}

// No two listeners on one TCP port: the second bind would fail in the launcher.
bool distinct_ports(const NetworkListen& listen) {
  std::vector<std::uint16_t> ports = listen.capture;
  if (listen.http) ports.push_back(*listen.http);
  if (listen.socks) ports.push_back(*listen.socks);
  if (listen.redirect) ports.push_back(listen.redirect->port);
  std::sort(ports.begin(), ports.end());
  return std::adjacent_find(ports.begin(), ports.end()) == ports.end();
}

bool apply_listen(std::optional<NetworkListen>& out, const PolicyValue& value) {
  if (value.kind != Kind::object) return false;
  NetworkListen listen;
  std::vector<std::string_view> seen;
  for (const auto& [key, item] : value.members) {
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return false;
    seen.emplace_back(key);
    if (key == "http" || key == "socks") {
      auto port = port_of(item);
      if (!port) return false;
      (key == "http" ? listen.http : listen.socks) = port;
    } else if (key == "dns" && item.kind == Kind::boolean) {
      listen.dns = item.flag;
    } else if (key == "redirect") {
      if (!apply_redirect(listen.redirect, item)) return false;
    } else if (key != "capture" || !apply_capture(listen.capture, item)) {
      return false;
    }
  }
  if (!distinct_ports(listen)) return false;
  out = std::move(listen);
  return true;
}

bool apply_paths(ExecPolicy& policy, PolicyValue& value) {
  if (value.kind != Kind::array) return false;
  for (PolicyValue& item : value.items) {
    auto path = exec_path_of(item);
    if (!path) return false;
    policy.paths.push_back(std::move(*path));
  }
  return true;
}

// Applies one top-level field; false for anything unexpected.
bool apply_field(ExecPolicy& policy, std::string_view key, PolicyValue& value) {
  if (key == "argv") {
    auto argv = strings_of(value);
    if (!argv || argv->empty() || argv->front().empty()) return false;
    policy.argv = std::move(*argv);
    return true;
  }
  if (key == "env") {
    auto env = strings_of(value);
    if (!env) return false;
    for (const std::string& entry : *env) {
      if (entry.find('=') == std::string::npos || entry.front() == '=') return false;
    }
    policy.env = std::move(*env);
    return true;
  }
  if (key == "cwd" || key == "hostCwd") {
    auto cwd = string_of(value);
    if (!cwd || !absolute_path(*cwd)) return false;
    (key == "cwd" ? policy.cwd : policy.host_cwd) = std::move(*cwd);
    return true;
  }
  if (key == "cwdId") {
    auto text = string_of(value);
    policy.cwd_id = text ? file_id_named(*text) : std::nullopt;
    return policy.cwd_id.has_value();
  }
  if (key == "limits") return apply_limits(policy.limits, value);
  if (key == "paths") return apply_paths(policy, value);
  if (key == "listen") return apply_listen(policy.listen, value);
  if (key == "network" || key == "allowWeaker" || key == "scratchLayers") {
    if (value.kind != Kind::boolean) return false;
    bool& flag = key == "network"       ? policy.network
                 : key == "allowWeaker" ? policy.allow_weaker
                                        : policy.scratch_layers;
    flag = value.flag;
    return true;
  }
  if (key == "namespaces") {
    auto name = string_of(value);
    auto mode = name ? namespace_mode_named(*name) : std::nullopt;
    if (!mode) return false;
    policy.namespaces = *mode;
    return true;
  }
  return false;
}

}  // namespace

Result<ExecPolicy> parse_exec_policy(std::string_view json) {
  auto document = parse_policy_json(json);
  if (!document || document->kind != Kind::object) return Errc::invalid_config;
  ExecPolicy policy;
  std::vector<std::string_view> seen;
  for (auto& [key, value] : document->members) {
    for (std::string_view earlier : seen) {
      if (earlier == key) return Errc::invalid_config;
    }
    seen.emplace_back(key);
    if (!apply_field(policy, key, value)) return Errc::invalid_config;
  }
  if (policy.argv.empty() || policy.cwd.empty()) return Errc::invalid_config;
  if (policy.listen && policy.network) return Errc::invalid_config;
  if (policy.host_cwd.empty()) policy.host_cwd = policy.cwd;
  return policy;
}

Status canonicalize_paths(ExecPolicy& policy) {
  auto fds = open_policy_paths(policy);
  if (!fds) return fds.error();
  for (std::size_t i = 0; i < policy.paths.size(); ++i) {
    if (!fds.value()[i].valid()) continue;
    const std::string link = "/proc/self/fd/" + std::to_string(fds.value()[i].get());
    char buf[4096];
    ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
    if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf || buf[0] != '/') {
      Error e{Errc::io_error};
      e.sys_errno = n < 0 ? errno : ENAMETOOLONG;
      e.index = i;
      return e;
    }
    policy.paths[i].path.assign(buf, static_cast<std::size_t>(n));
  }
  return ok_status();
}

namespace {

// Lower is more restrictive; a protected path that is also readable stays readable.
int restriction_rank(PathAccess access) {
  switch (access) {
    case PathAccess::protect: return 0;
    case PathAccess::read: return 1;
    case PathAccess::write_keep: return 2;
    case PathAccess::write: return 3;
    case PathAccess::device: return 4;
    case PathAccess::pin: return 5;
  }
  return 0;
}

PathAccess merged_access(PathAccess a, PathAccess b) {
  if (a == PathAccess::protect || b == PathAccess::protect) {
    PathAccess other = a == PathAccess::protect ? b : a;
    return other == PathAccess::protect ? other : PathAccess::read;
  }
  return restriction_rank(a) <= restriction_rank(b) ? a : b;
}

}  // namespace

void merge_duplicate_paths(ExecPolicy& policy, bool by_target) {
  auto mergeable = [](const ExecPath& e) {
    return e.access != PathAccess::device && e.access != PathAccess::pin;
  };
  for (ExecPath& entry : policy.paths) {
    if (!mergeable(entry)) continue;
    for (const ExecPath& other : policy.paths) {
      if (mergeable(other) && other.path == entry.path)
        entry.access = merged_access(entry.access, other.access);
    }
  }
  std::vector<ExecPath> merged;
  for (ExecPath& entry : policy.paths) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const ExecPath& kept) {
      return mergeable(kept) && mergeable(entry) && kept.path == entry.path &&
             (!by_target || kept.target == entry.target);
    });
    if (same == merged.end()) {
      merged.push_back(std::move(entry));
    } else if (!same->id) {
      same->id = entry.id;
    }
  }
  policy.paths = std::move(merged);
}

Result<std::vector<UniqueFd>> open_policy_paths(const ExecPolicy& policy) {
  std::vector<UniqueFd> fds;
  for (const ExecPath& entry : policy.paths) {
    const std::size_t index = fds.size();
    // Configured sources may hold symlinks (the operator's choice): follow, then check the id.
    UniqueFd fd(::open(entry.path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) {
      if (errno == ENOENT && entry.access == PathAccess::read && !entry.id) {
        fds.emplace_back();  // system directories differ between distributions
        continue;
      }
      return at_index(sys_failure(SysOp::open, errno), index);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return at_index(sys_failure(SysOp::fstat, errno), index);
    if (entry.id && !(*entry.id == FileId{st.st_dev, st.st_ino})) {
      return at_index(Error{Errc::changed_underneath}, index);
    }
    fds.push_back(std::move(fd));
  }
  return fds;
}

bool path_is_within(std::string_view inner, std::string_view outer) noexcept {
  if (outer == "/") return true;
  if (!inner.starts_with(outer)) return false;
  return inner.size() == outer.size() || inner[outer.size()] == '/';
}

}  // namespace msb
