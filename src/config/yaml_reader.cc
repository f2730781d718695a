#include "config/yaml_reader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <exception>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "config/reader_checks.h"

namespace msb {
namespace {

// YAML scalars, resolved with the YAML 1.2 core schema (what JavaScript's `yaml` package does)

bool all_of(std::string_view s, bool (*pred)(char)) noexcept {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
bool is_oct(char c) noexcept {
  return c >= '0' && c <= '7';
}

std::string_view skip_sign(std::string_view s) noexcept {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  return s;
}

bool is_yaml_int(std::string_view s) noexcept {
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o') return all_of(s.substr(2), is_oct);
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') return all_of(s.substr(2), is_hex);
  return all_of(skip_sign(s), is_dec);
}

bool is_yaml_float(std::string_view s) noexcept {
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  s = skip_sign(s);
  if (s == ".inf" || s == ".Inf" || s == ".INF") return true;
  const std::size_t e = s.find_first_of("eE");
  if (e != std::string_view::npos) {
    if (!all_of(skip_sign(s.substr(e + 1)), is_dec)) return false;
    s = s.substr(0, e);
  }
  const std::size_t dot = s.find('.');
  if (dot == std::string_view::npos) return all_of(s, is_dec);
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = s.substr(dot + 1);
  if (whole.empty()) return all_of(frac, is_dec);
  return all_of(whole, is_dec) && (frac.empty() || all_of(frac, is_dec));
}

void resolve_plain(ConfigNode& node) {
  const std::string& s = node.text;
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) {
    node.kind = NodeKind::null;
    node.text.clear();
  } else if (s == "true" || s == "True" || s == "TRUE") {
    node.kind = NodeKind::boolean;
    node.boolean = true;
  } else if (s == "false" || s == "False" || s == "FALSE") {
    node.kind = NodeKind::boolean;
  } else if (is_yaml_int(s) || is_yaml_float(s)) {
    node.kind = NodeKind::number;
  } else {
    node.kind = NodeKind::string;
  }
  if (node.kind == NodeKind::boolean) node.text = node.boolean ? "true" : "false";
}

constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";

bool tag_allowed(const std::string& tag, NodeKind kind) noexcept {
  if (tag == "?" || tag == "!") return true;
  if (kind == NodeKind::sequence) return tag == "tag:yaml.org,2002:seq";
  if (kind == NodeKind::map) return tag == "tag:yaml.org,2002:map";
  return tag == kStrTag;
}

// Thrown out of the event handler to stop yaml-cpp at the first problem.
struct BuildError {
  ConfigError error;
};

std::uint32_t mark_number(int zero_based) noexcept {
  return zero_based < 0 ? 0 : static_cast<std::uint32_t>(zero_based) + 1;
}

// Builds the tree from yaml-cpp's parse events rather than from YAML::Load's nodes: the events
// show anchors and aliases (which YAML::Load would silently share, letting a few hundred bytes
// expand exponentially) and keep duplicate keys apart, and throwing from a handler stops deep
// nesting before yaml-cpp's own recursion gets far.
class YamlBuilder final : public YAML::EventHandler {
 public:
  explicit YamlBuilder(std::string_view text) : text_(text) {
    root_.line = 1;
    root_.column = 1;
  }

  ConfigNode take_root() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents_++ == 0) return;
    // yaml-cpp also starts an implicit document at content that cannot continue the first.
    if (text_.substr(offset(mark), 3) == "---") fail(mark, "", "a single YAML document");
    fail(mark, "", "valid YAML (this does not fit the structure above it)");
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    check_anchor(mark, anchor);
    if (expecting_key()) fail(mark, path_of_map(), "a string key");
    ConfigNode node = make(mark, NodeKind::null);
    // An empty value's mark is the next token, often on a later line: its key says more. A
    // null written out ("~", "null") has a place of its own.
    if (!stack_.empty() && stack_.back().node->kind == NodeKind::map && !written_null(mark)) {
      node.line = stack_.back().pending.line;
      node.column = stack_.back().pending.column;
    }
    attach(std::move(node));
  }

  bool written_null(const YAML::Mark& mark) const {
    const std::string_view rest = text_.substr(std::min(offset(mark), text_.size()));
    for (std::string_view word : {"~", "null", "Null", "NULL"}) {
      if (rest.substr(0, word.size()) != word) continue;
      const std::string_view after = rest.substr(word.size());
      if (after.empty() || after.front() == ' ' || after.front() == '\n' || after.front() == '\r' ||
          after.front() == '#' || after.front() == ',' || after.front() == '}' ||
          after.front() == ']') {
        return true;
      }
    }
    return false;
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    fail(mark, current_path(), "no aliases (*name): write the value out");
  }

  void OnAnchor(const YAML::Mark& mark, const std::string&) override {
    fail(mark, current_path(), "no anchors (&name)");
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    check_anchor(mark, anchor);
    ConfigNode node = make(mark, NodeKind::string);
    node.text = value;
    if (!tag_allowed(tag, NodeKind::string)) fail(mark, current_path(), "no tag other than !!str");
    if (tag == "?") resolve_plain(node);
    if (!quote_closed(mark)) fail(mark, current_path(), "a closing quote for this string");
    if (const char* problem = text_problem(value)) fail(mark, current_path(), problem);
    if (expecting_key()) return set_key(mark, std::move(node));
    attach(std::move(node));
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, NodeKind::sequence);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, NodeKind::map);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    ConfigNode* node = nullptr;
    std::string path;
    bool has_key = false;
    ConfigEntry pending;  // the key whose value comes next
    std::unordered_map<std::string, std::size_t> keys;
  };

  [[noreturn]] static void fail(const YAML::Mark& mark, std::string path, std::string expected) {
    throw BuildError{ConfigError{mark_number(mark.line), mark_number(mark.column), std::move(path),
                                 std::move(expected)}};
  }

  std::size_t offset(const YAML::Mark& mark) const noexcept {
    return mark.pos < 0 ? text_.size() : std::min(static_cast<std::size_t>(mark.pos), text_.size());
  }

  // yaml-cpp takes a quoted scalar that runs into the end of the input as if it were closed.
  bool quote_closed(const YAML::Mark& mark) const noexcept {
    std::size_t pos = offset(mark);
    if (pos >= text_.size() || (text_[pos] != '"' && text_[pos] != '\'')) return true;
    const char quote = text_[pos];
    for (++pos; pos < text_.size(); ++pos) {
      if (quote == '"' && text_[pos] == '\\') {
        ++pos;  // whatever is escaped, even a quote
      } else if (text_[pos] == quote) {
        // In single quotes, '' is an escaped quote.
        if (quote == '"' || pos + 1 >= text_.size() || text_[pos + 1] != '\'') return true;
        ++pos;
      }
    }
    return false;
  }

  static ConfigNode make(const YAML::Mark& mark, NodeKind kind) {
    ConfigNode node;
    node.kind = kind;
    node.line = mark_number(mark.line);
    node.column = mark_number(mark.column);
    return node;
  }

  void check_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) const {
    if (anchor != YAML::NullAnchor) fail(mark, current_path(), "no anchors (&name)");
  }

  bool expecting_key() const noexcept {
    return !stack_.empty() && stack_.back().node->kind == NodeKind::map && !stack_.back().has_key;
  }

  std::string path_of_map() const { return stack_.empty() ? "" : stack_.back().path; }

  // Where the next node goes, as a key path.
  std::string current_path() const {
    if (stack_.empty()) return "";
    const Frame& top = stack_.back();
    if (top.node->kind == NodeKind::sequence) {
      return key_path_item(top.path, top.node->items.size());
    }
    return top.has_key ? key_path_child(top.path, top.pending.key) : top.path;
  }

  void set_key(const YAML::Mark& mark, ConfigNode node) {
    Frame& top = stack_.back();
    if (node.kind != NodeKind::string) fail(mark, top.path, "a string key");
    const std::string path = key_path_child(top.path, node.text);
    if (auto it = top.keys.find(node.text); it != top.keys.end()) {
      fail(mark, path, duplicate_key_message(top.node->entries[it->second]));
    }
    top.pending.key = std::move(node.text);
    top.pending.line = node.line;
    top.pending.column = node.column;
    top.has_key = true;
  }

  // Moves `node` into its parent; the returned pointer stays valid while the node is open,
  // because a parent gains no other child before this one is closed.
  ConfigNode* attach(ConfigNode node) {
    if (stack_.empty()) {
      root_ = std::move(node);
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.node->kind == NodeKind::sequence) {
      top.node->items.push_back(std::move(node));
      return &top.node->items.back();
    }
    top.keys.emplace(top.pending.key, top.node->entries.size());
    top.pending.value = std::move(node);
    top.node->entries.push_back(std::move(top.pending));
    top.pending = ConfigEntry{};
    top.has_key = false;
    return &top.node->entries.back().value;
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, NodeKind kind) {
    check_anchor(mark, anchor);
    if (expecting_key()) fail(mark, path_of_map(), "a string key");
    std::string path = current_path();
    if (!tag_allowed(tag, kind)) fail(mark, path, "no tags");
    if (stack_.size() >= kMaxConfigDepth) fail(mark, path, depth_message());
    ConfigNode* node = attach(make(mark, kind));
    stack_.push_back(Frame{node, std::move(path), false, {}, {}});
  }

  void close() noexcept {
    if (!stack_.empty()) stack_.pop_back();
  }

  std::string_view text_;
  ConfigNode root_;
  std::vector<Frame> stack_;
  int documents_ = 0;
};

// yaml-cpp sniffs UTF-16/32 from NUL bytes and would read such input as another encoding; YAML
// allows neither NUL nor broken UTF-8, so both are refused up front, with their position.
std::optional<ConfigError> check_yaml_bytes(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '\0') return error_at_offset(text, pos, "no NUL characters");
    const std::size_t len = utf8_length_at(text, pos);
    if (len == 0) return error_at_offset(text, pos, "well-formed UTF-8");
    pos += len;
  }
  return std::nullopt;
}

// yaml-cpp reports tab indentation wherever the structure it implies first breaks ("illegal map
// value" further along the line). A tab in the indentation of a line up to the reported one is
// the likelier cause, so that is where the error points.
std::optional<ConfigError> tab_indentation(std::string_view text, std::uint32_t until_line) {
  std::uint32_t line = 1;
  for (std::size_t start = 0; start < text.size() && line <= until_line; ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view content = text.substr(start, end - start);
    const std::size_t first = content.find_first_not_of(" \t");
    const std::size_t tab = content.find('\t');
    if (first != std::string_view::npos && tab < first && content[first] != '#') {
      return ConfigError{line, to_u32(tab + 1), "", "spaces, not tabs, for indentation"};
    }
    start = end + 1;
  }
  return std::nullopt;
}

Result<ConfigNode, ConfigError> run_yaml(std::string_view text) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  YamlBuilder builder(text);
  // A second call only reports a second document (the builder refuses it).
  if (parser.HandleNextDocument(builder)) parser.HandleNextDocument(builder);
  return builder.take_root();
}

}  // namespace

Result<ConfigNode, ConfigError> parse_yaml(std::string_view text) {
  text = strip_bom(text);
  if (auto e = check_size(text)) return *e;
  if (auto e = check_yaml_bytes(text)) return *e;
  try {
    return run_yaml(text);
  } catch (const BuildError& e) {
    return e.error;
  } catch (const YAML::Exception& e) {
    const std::uint32_t line = mark_number(e.mark.line);
    if (auto tab = tab_indentation(text, line == 0 ? UINT32_MAX : line)) return *tab;
    return ConfigError{line, mark_number(e.mark.column), "", "valid YAML (" + e.msg + ")"};
  } catch (const std::exception&) {
    return ConfigError{0, 0, "", "a config small enough to parse"};
  } catch (...) {
    return ConfigError{0, 0, "", "valid YAML"};
  }
}

}  // namespace msb
