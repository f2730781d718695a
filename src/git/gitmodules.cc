#include "git/gitmodules.h"

#include "git/git_config.h"

namespace msb::git {

std::optional<std::vector<std::string>> submodule_components(std::string_view path) {
  if (path.empty() || path.front() == '/') return std::nullopt;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string_view part = path.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == ".." || part == ".git" || part.find('\0') != std::string_view::npos)
      return std::nullopt;
    parts.emplace_back(part);
  }
  return parts;
}

SubmodulePaths gitmodules_paths(std::string_view text, std::size_t max_paths) {
  SubmodulePaths out;
  ConfigReader reader(text, /*lenient=*/true);
  ConfigEntry entry;
  for (ConfigStep step; (step = reader.next(entry)) != ConfigStep::end;) {
    if (step != ConfigStep::entry || entry.key != "path" || !entry.value) continue;
    if (out.paths.size() == max_paths) {
      out.truncated = true;
      break;
    }
    out.paths.push_back(std::move(*entry.value));
  }
  return out;
}

}  // namespace msb::git
