#include "search/grep_walk.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "search/ignore_rules.h"

namespace msb {
namespace {

constexpr std::uint64_t kMaxIgnoreFileBytes = 1 << 20;

// The ignore files of one directory, highest precedence last (.ignore over .gitignore over the
// repository's .git/info/exclude).
struct IgnoreLayer {
  std::string base;  // the directory, virtual; "" for "/"
  IgnoreRules rules;
  bool git = false;  // .gitignore or info/exclude: binds only inside its own repository
};

std::string child_of(const std::string& dir, const std::string& name) {
  return (dir == "/" ? "" : dir) + "/" + name;
}

class Walk {
 public:
  Walk(const Sandbox& sandbox, const WalkFilters& filters, std::string root,
       const std::atomic<std::int32_t>* cancel, const FileSink& sink)
      : sandbox_(sandbox),
        filters_(filters),
        root_(std::move(root)),
        cancel_(cancel),
        sink_(sink) {}

  Result<WalkResult> run() {
    if (filters_.ignore_files) load_ancestors();
    if (auto st = visit(root_, repo_above_); !st) return st.error();
    return out_;
  }

 private:
  // The ignore files of the directories above the root, from the repository's top (the nearest
  // one holding .git) down: they decide for what lies below them as well.
  void load_ancestors() {
    std::vector<std::string> above;
    for (std::string at = root_; at != "/";) {
      const auto slash = at.rfind('/');
      at = slash == 0 ? "/" : at.substr(0, slash);
      above.push_back(at);
    }
    std::size_t top = above.size();
    for (std::size_t i = 0; i < above.size(); ++i) {
      auto git = sandbox_.exists(child_of(above[i], ".git"));
      if (git && git.value()) {
        top = i + 1;
        repo_above_ = true;
        repo_base_ = above[i] == "/" ? "" : above[i];
        break;
      }
    }
    for (std::size_t i = std::min(top, above.size()); i-- > 0;) {
      push_layers(above[i], repo_above_, repo_above_ && i + 1 == top);
    }
  }

  void push_layer(const std::string& dir, const std::string& file, bool git) {
    auto text = sandbox_.read(file, kMaxIgnoreFileBytes);
    if (!text) return;
    IgnoreRules rules = IgnoreRules::parse(std::string_view(
        reinterpret_cast<const char*>(text.value().data.get()), text.value().size));
    if (!rules.empty()) layers_.push_back({dir == "/" ? "" : dir, std::move(rules), git});
  }

  // `repo_top`: `dir` holds the repository's .git, whose info/exclude ranks below every file.
  void push_layers(const std::string& dir, bool in_repo, bool repo_top) {
    if (repo_top) push_layer(dir, child_of(dir, ".git/info/exclude"), true);
    if (in_repo) push_layer(dir, child_of(dir, ".gitignore"), true);
    push_layer(dir, child_of(dir, ".ignore"), false);
  }

  // The last rule that speaks, nearest directory first; a git layer only within the repository
  // the entry is in (a nested repository starts afresh, as git and ripgrep read it).
  bool ignored(const std::string& path, const std::string& name, bool is_dir) const {
    for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) {
      if (path.size() <= it->base.size() + 1) continue;
      if (it->git && it->base.size() < repo_base_.size()) continue;
      const std::string_view rel = std::string_view(path).substr(it->base.size() + 1);
      if (auto verdict = it->rules.verdict(rel, name, is_dir)) return *verdict;
    }
    return false;
  }

  static bool any_match(const std::vector<GlobMatcher>& globs, const std::vector<bool>& by_name,
                        std::string_view rel, std::string_view name) {
    for (std::size_t i = 0; i < globs.size(); ++i) {
      const std::string path = rooted(by_name[i] ? name : rel);
      if (globs[i].matches(path)) return true;
    }
    return false;
  }

  bool passed_over(const std::string& path, const std::string& name, bool is_dir) const {
    if (!filters_.hidden && !name.empty() && name.front() == '.') return true;
    const std::string_view rel = std::string_view(path).substr(root_ == "/" ? 1 : root_.size() + 1);
    if (any_match(filters_.exclude, filters_.exclude_by_name, rel, name)) return true;
    if (filters_.ignore_files && ignored(path, name, is_dir)) return true;
    if (is_dir) return false;
    const std::string rooted_name = rooted(name);
    if (!filters_.types.empty() &&
        std::none_of(filters_.types.begin(), filters_.types.end(),
                     [&](const GlobMatcher& glob) { return glob.matches(rooted_name); })) {
      return true;
    }
    if (filters_.include.empty()) return false;
    return !any_match(filters_.include, filters_.include_by_name, rel, name);
  }

  Status visit(const std::string& dir, bool in_repo) {
    if (cancel_requested(cancel_)) {
      out_.cancelled = true;
      return ok_status();
    }
    auto listed = sandbox_.list_entries(dir);
    if (!listed) {
      // The root's refusal is the caller's answer; a directory below that cannot be listed (a
      // link out, no permission) holds nothing this search may read.
      if (dir == root_) return listed.error();
      return ok_status();
    }
    auto entries = std::move(listed.value());
    entries_ += entries.size();
    if (entries_ > kMaxGrepEntries) {
      out_.stopped_entries = true;
      return ok_status();
    }
    const std::size_t depth_layers = layers_.size();
    const std::string outer_repo = repo_base_;
    if (filters_.ignore_files) {
      const bool repo_here = std::any_of(entries.begin(), entries.end(),
                                         [](const DirEntry& e) { return e.name == ".git"; });
      if (repo_here) repo_base_ = dir == "/" ? "" : dir;
      in_repo = in_repo || repo_here;
      push_layers(dir, in_repo, repo_here);
    }
    resolve_types(dir, entries);
    // A directory sorts as its name and a slash, so that everything below it comes out where its
    // paths sort: the files reach the sink in the order of their whole paths.
    std::sort(entries.begin(), entries.end(), in_path_order);
    for (const DirEntry& e : entries) {
      if (e.name == ".git" || out_.stopped_entries || out_.cancelled) continue;
      const std::string path = child_of(dir, e.name);
      if (e.type == sys::EntryType::directory) {
        if (!passed_over(path, e.name, true)) {
          if (auto st = visit(path, in_repo); !st) return st;
        }
      } else if (e.type == sys::EntryType::file && !passed_over(path, e.name, false)) {
        if (!sink_(path)) out_.cancelled = true;
      }
    }
    layers_.resize(depth_layers);
    repo_base_ = outer_repo;
    return ok_status();
  }

  // As std::string's < on the names, a directory's with a slash after it (bytes compared
  // unsigned, as std::string compares), without making those strings.
  static bool in_path_order(const DirEntry& a, const DirEntry& b) {
    const std::size_t common = std::min(a.name.size(), b.name.size());
    if (const int c = a.name.compare(0, common, b.name, 0, common); c != 0) return c < 0;
    const auto after = [common](const DirEntry& e) -> int {
      if (common < e.name.size()) return static_cast<unsigned char>(e.name[common]);
      return e.type == sys::EntryType::directory ? '/' : -1;
    };
    return after(a) < after(b);
  }

  // Entries the directory gave no type for, asked of the sandbox (gone ones become `other`).
  void resolve_types(const std::string& dir, std::vector<DirEntry>& entries) const {
    for (DirEntry& e : entries) {
      if (e.type != sys::EntryType::unknown) continue;
      auto info = sandbox_.stat(child_of(dir, e.name));
      e.type = !info                       ? sys::EntryType::other
               : info.value().is_directory ? sys::EntryType::directory
               : info.value().is_file      ? sys::EntryType::file
                                           : sys::EntryType::other;
    }
  }

  const Sandbox& sandbox_;
  const WalkFilters& filters_;
  std::string root_;
  const std::atomic<std::int32_t>* cancel_;
  const FileSink& sink_;
  std::vector<IgnoreLayer> layers_;
  bool repo_above_ = false;
  // The top of the repository the walk is in ("" for "/"; meaningful only inside one).
  std::string repo_base_;
  std::size_t entries_ = 0;
  WalkResult out_;
};

}  // namespace

Result<WalkResult> walk_files(const Sandbox& sandbox, const std::string& dir,
                              const WalkFilters& filters, const std::atomic<std::int32_t>* cancel,
                              const FileSink& sink) {
  return Walk(sandbox, filters, dir, cancel, sink).run();
}

}  // namespace msb
