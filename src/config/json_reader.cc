#include "config/config_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <sstream>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "common/path.h"

namespace msb {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

std::string_view strip_bom(std::string_view text) noexcept {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

std::uint32_t to_u32(std::size_t n) noexcept {
  return n > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(n);
}

// Line starts, so that the many positions of a JSON document cost a binary search each.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : size_(text.size()) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }

  void place(std::size_t offset, std::uint32_t& line, std::uint32_t& column) const {
    offset = std::min(offset, size_);
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset) - 1;
    line = to_u32(static_cast<std::size_t>(it - starts_.begin()) + 1);
    column = to_u32(offset - *it + 1);
  }

  ConfigError error(std::size_t offset, std::string key_path, std::string expected) const {
    ConfigError e{0, 0, std::move(key_path), std::move(expected)};
    place(offset, e.line, e.column);
    return e;
  }

 private:
  std::size_t size_;
  std::vector<std::size_t> starts_;
};

ConfigError error_at_offset(std::string_view text, std::size_t offset, std::string expected) {
  return LineIndex(text.substr(0, std::min(offset, text.size()))).error(offset, "", expected);
}

// Length of the well-formed UTF-8 sequence starting at `pos`, 0 when there is none.
std::size_t utf8_length_at(std::string_view text, std::size_t pos) noexcept {
  const auto lead = static_cast<unsigned char>(text[pos]);
  std::size_t len = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC0 && lead < 0xE0) len = 2;
  if (lead >= 0xE0 && lead < 0xF0) len = 3;
  if (lead >= 0xF0 && lead < 0xF8) len = 4;
  if (len == 0 || pos + len > text.size()) return 0;
  return is_valid_utf8(text.substr(pos, len)) ? len : 0;
}

// Strings become key paths, paths and messages: NUL and broken UTF-8 have no place there.
const char* text_problem(std::string_view text) noexcept {
  if (text.find('\0') != std::string_view::npos) return "text without NUL characters";
  if (!is_valid_utf8(text)) return "well-formed UTF-8 text";
  return nullptr;
}

std::optional<ConfigError> check_size(std::string_view text) {
  if (text.size() <= kMaxConfigBytes) return std::nullopt;
  static_assert(kMaxConfigBytes == 1024 * 1024, "the message says 1 MiB");
  return error_at_offset(text, kMaxConfigBytes, "a config file of at most 1 MiB");
}

std::string duplicate_key_message(const ConfigEntry& first) {
  return "a key not already used in this mapping (first at line " + std::to_string(first.line) +
         ", column " + std::to_string(first.column) + ")";
}

std::string depth_message() {
  return "at most " + std::to_string(kMaxConfigDepth) + " levels of nesting";
}

// ---------------------------------------------------------------------------------------------
// YAML scalars, resolved with the YAML 1.2 core schema (what JavaScript's `yaml` package does)

bool all_of(std::string_view s, bool (*pred)(char)) noexcept {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
bool is_dec(char c) noexcept {
  return c >= '0' && c <= '9';
}
bool is_oct(char c) noexcept {
  return c >= '0' && c <= '7';
}
bool is_hex(char c) noexcept {
  return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
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

// ---------------------------------------------------------------------------------------------
// JSON: one RFC 8259 parser that builds the located tree as it reads. A text that is not JSON is
// refused at its first syntax error; only JSON gets its content judged (duplicate keys, depth,
// NUL, numbers out of range), and the first such problem in document order is reported. It keeps
// its own stack of open containers instead of recursing, so nesting costs no call stack.

// from_chars calls both overflow and underflow out of range; only overflow is refused (a value
// too small for a double is 0, as it is everywhere else), and only overflow has digits or an
// exponent that put the number above 1.
bool overflows(std::string_view number) noexcept {
  if (!number.empty() && number.front() == '-') number.remove_prefix(1);
  const std::size_t exp_at = std::min(number.find_first_of("eE"), number.size());
  const std::string_view mantissa = number.substr(0, exp_at);
  const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
  const std::string_view whole = mantissa.substr(0, point);
  long long magnitude = 0;  // digits before the point, or minus zeros after it
  const std::size_t whole_digit = whole.find_first_not_of('0');
  if (whole_digit != std::string_view::npos) {
    magnitude = static_cast<long long>(whole.size() - whole_digit);
  } else if (point < mantissa.size()) {
    const std::size_t fraction_digit = mantissa.find_first_not_of('0', point + 1);
    magnitude = -static_cast<long long>(std::min(fraction_digit, mantissa.size()) - point - 1);
  }
  std::string_view exponent = number.substr(std::min(exp_at + 1, number.size()));
  const bool negative = !exponent.empty() && exponent.front() == '-';
  if (!exponent.empty() && (exponent.front() == '-' || exponent.front() == '+')) {
    exponent.remove_prefix(1);
  }
  long long written = 0;
  for (char c : exponent) written = std::min(written * 10 + (c - '0'), 1'000'000'000LL);
  return magnitude + (negative ? -written : written) > 0;
}

bool in_double_range(std::string_view number) noexcept {
  double value = 0;
  const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
  return result.ec != std::errc::result_out_of_range || !overflows(number);
}

// Maps with fewer keys find duplicates by a scan, which beats hashing at config sizes.
constexpr std::size_t kIndexedKeys = 8;

class JsonParser {
 public:
  // With `build` false it checks syntax alone: no tree, no depth bound, no checks of content.
  // Building stops the same way at the first content error, which waits for the syntax verdict.
  JsonParser(std::string_view text, bool build) : text_(text), build_(build) {}

  std::optional<ConfigError> parse(ConfigNode& root);

 private:
  struct Open {
    ConfigNode* node;
    std::string path;
    // Keys already used, from kIndexedKeys on.
    std::unordered_map<std::string, std::size_t> keys;
  };

  bool at_end() const noexcept { return pos_ >= text_.size(); }
  char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }
  void skip_ws() noexcept;
  std::uint32_t column_of(std::size_t offset) const noexcept {
    return to_u32(std::min(offset, text_.size()) - line_start_ + 1);
  }
  void place(std::uint32_t& line, std::uint32_t& column) const noexcept {
    line = line_;
    column = column_of(pos_);
  }
  bool fail_at(std::size_t offset, std::string path, std::string expected) {
    error_ = ConfigError{line_, column_of(offset), std::move(path), std::move(expected)};
    return false;
  }
  bool fail(const char* expected) { return fail_at(pos_, "", expected); }
  bool refuse(ConfigError error) {
    content_error_ = std::move(error);
    build_ = false;
    return true;
  }
  bool refuse_at(std::size_t offset, std::string path, std::string expected) {
    return refuse(ConfigError{line_, column_of(offset), std::move(path), std::move(expected)});
  }

  bool value();
  bool open(bool is_map);
  bool after_value();
  void close();
  bool next_item();
  bool key();
  bool check_key(Open& map, const ConfigEntry& entry);
  bool scalar();
  bool string(std::string& out);
  bool escape(std::string& out);
  bool unicode_escape(std::size_t backslash, std::string& out);
  bool hex4(unsigned& out) noexcept;
  bool number();
  bool digits();

  std::string_view text_;
  bool build_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  ConfigNode* target_ = nullptr;  // where the next value goes, while building
  std::string target_path_;
  bool expect_value_ = true;
  std::string brackets_;                      // '{' or '[' for each container still open
  std::vector<Open> open_;                    // the same containers, while building
  std::string scratch_;                       // the string being read, unescaped
  std::optional<ConfigError> error_;          // syntax
  std::optional<ConfigError> content_error_;  // reported only when the syntax is sound
};

void JsonParser::skip_ws() noexcept {
  for (; !at_end(); ++pos_) {
    const char c = text_[pos_];
    if (c == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
  }
}

std::optional<ConfigError> JsonParser::parse(ConfigNode& root) {
  target_ = &root;
  while (expect_value_ || !brackets_.empty() || !at_end()) {
    if (!(expect_value_ ? value() : after_value())) return error_;
  }
  return content_error_;
}

// Reads a scalar whole into target_, or opens a container and moves target_ to its first item.
bool JsonParser::value() {
  skip_ws();
  if (build_) place(target_->line, target_->column);
  expect_value_ = false;
  const char c = peek();
  if (c == '{' || c == '[') return open(c == '{');
  return scalar();
}

bool JsonParser::open(bool is_map) {
  if (build_ && brackets_.size() >= kMaxConfigDepth) {
    refuse_at(pos_, target_path_, depth_message());
  }
  brackets_ += text_[pos_++];
  if (build_) {
    target_->kind = is_map ? NodeKind::map : NodeKind::sequence;
    open_.push_back(Open{target_, std::move(target_path_), {}});
  }
  skip_ws();
  if (peek() == (is_map ? '}' : ']')) {
    close();
    return true;
  }
  return is_map ? key() : next_item();
}

bool JsonParser::after_value() {
  skip_ws();
  if (brackets_.empty()) return at_end() || fail("the end of the document");
  const bool is_map = brackets_.back() == '{';
  if (peek() == ',') {
    ++pos_;
    return is_map ? key() : next_item();
  }
  if (peek() != (is_map ? '}' : ']')) return fail(is_map ? "',' or '}'" : "',' or ']'");
  close();
  return true;
}

void JsonParser::close() {
  ++pos_;
  brackets_.pop_back();
  if (build_) open_.pop_back();
}

bool JsonParser::next_item() {
  expect_value_ = true;
  if (!build_) return true;
  Open& list = open_.back();
  target_path_ = key_path_item(list.path, list.node->items.size());
  target_ = &list.node->items.emplace_back();
  return true;
}

bool JsonParser::key() {
  skip_ws();
  if (peek() != '"') return fail("a string key");
  ConfigEntry entry;
  place(entry.line, entry.column);
  if (!string(scratch_)) return false;
  skip_ws();
  if (peek() != ':') return fail("':' after the key");
  ++pos_;
  expect_value_ = true;
  if (!build_) return true;
  Open& map = open_.back();
  entry.key = scratch_;
  if (!check_key(map, entry)) return true;
  target_path_ = key_path_child(map.path, entry.key);
  if (map.node->entries.size() >= kIndexedKeys) {
    map.keys.emplace(entry.key, map.node->entries.size());
  }
  target_ = &map.node->entries.emplace_back(std::move(entry)).value;
  return true;
}

// Errors about a key point at the key, on a line that may already be behind the parser.
bool JsonParser::check_key(Open& map, const ConfigEntry& entry) {
  std::vector<ConfigEntry>& entries = map.node->entries;
  const auto at_key = [&](std::string path, std::string expected) {
    return !refuse(ConfigError{entry.line, entry.column, std::move(path), std::move(expected)});
  };
  if (const char* problem = text_problem(entry.key)) return at_key(map.path, problem);
  if (entries.size() == kIndexedKeys) {
    for (std::size_t i = 0; i < entries.size(); ++i) map.keys.emplace(entries[i].key, i);
  }
  const ConfigEntry* first = nullptr;
  if (entries.size() >= kIndexedKeys) {
    if (auto it = map.keys.find(entry.key); it != map.keys.end()) first = &entries[it->second];
  } else {
    const auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const ConfigEntry& e) { return e.key == entry.key; });
    if (it != entries.end()) first = &*it;
  }
  if (first == nullptr) return true;
  return at_key(key_path_child(map.path, entry.key), duplicate_key_message(*first));
}

bool JsonParser::scalar() {
  const char c = peek();
  const std::size_t start = pos_;
  if (c == '"') {
    if (!string(scratch_)) return false;
    if (!build_) return true;
    // The reader has checked UTF-8 already; an escape can still spell NUL.
    if (const char* problem = text_problem(scratch_)) {
      return refuse_at(start, target_path_, problem);
    }
    target_->kind = NodeKind::string;
    target_->text = scratch_;
    return true;
  }
  if (c == '-' || is_dec(c)) return number();
  for (std::string_view word : {"true", "false", "null"}) {
    if (text_.substr(pos_, word.size()) != word) continue;
    pos_ += word.size();
    if (build_ && word != "null") {
      target_->kind = NodeKind::boolean;
      target_->boolean = word == "true";
      target_->text = word;
    }
    return true;
  }
  return fail("a value");
}

bool JsonParser::string(std::string& out) {
  const std::size_t open = pos_++;
  out.clear();
  while (!at_end()) {
    const std::size_t plain = pos_;
    while (!at_end()) {
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++pos_;
    }
    out.append(text_.substr(plain, pos_ - plain));
    if (at_end()) break;
    const char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      return true;
    }
    if (c == '\\') {
      if (!escape(out)) return false;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) return fail("no control characters in a string");
    const std::size_t len = utf8_length_at(text_, pos_);
    if (len == 0) return fail("well-formed UTF-8");
    out.append(text_.substr(pos_, len));
    pos_ += len;
  }
  return fail_at(open, "", "a closing quote for this string");
}

bool JsonParser::escape(std::string& out) {
  const std::size_t backslash = pos_++;
  const char c = peek();
  if (c == 'u') return unicode_escape(backslash, out);
  constexpr std::string_view kEscaped = "\"\\/bfnrt";
  constexpr std::string_view kMeaning = "\"\\/\b\f\n\r\t";
  const std::size_t which = kEscaped.find(c);
  if (at_end() || which == std::string_view::npos) {
    return fail_at(backslash, "", "a valid escape sequence");
  }
  out += kMeaning[which];
  ++pos_;
  return true;
}

bool JsonParser::hex4(unsigned& out) noexcept {
  if (text_.size() - pos_ < 4) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = text_[pos_++];
    if (!is_hex(c)) return false;
    out = out * 16 + (is_dec(c) ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10));
  }
  return true;
}

void append_utf8(std::string& out, unsigned code_point) {
  const auto byte = [&](unsigned bits) { out += static_cast<char>(bits); };
  if (code_point < 0x80) return byte(code_point);
  if (code_point < 0x800) {
    byte(0xC0 | (code_point >> 6));
  } else if (code_point < 0x10000) {
    byte(0xE0 | (code_point >> 12));
    byte(0x80 | ((code_point >> 6) & 0x3F));
  } else {
    byte(0xF0 | (code_point >> 18));
    byte(0x80 | ((code_point >> 12) & 0x3F));
    byte(0x80 | ((code_point >> 6) & 0x3F));
  }
  byte(0x80 | (code_point & 0x3F));
}

// After "\u": four hex digits, and surrogates only as a high-low pair, which is one code point.
bool JsonParser::unicode_escape(std::size_t backslash, std::string& out) {
  ++pos_;
  unsigned unit = 0;
  const auto bad = [&] { return fail_at(backslash, "", "a valid \\u escape"); };
  if (!hex4(unit) || (unit >= 0xDC00 && unit <= 0xDFFF)) return bad();
  if (unit < 0xD800 || unit > 0xDBFF) {
    append_utf8(out, unit);
    return true;
  }
  unsigned low = 0;
  if (text_.substr(pos_, 2) != "\\u") return bad();
  pos_ += 2;
  if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return bad();
  append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
  return true;
}

bool JsonParser::digits() {
  if (!is_dec(peek())) return fail("a digit");
  while (is_dec(peek())) ++pos_;
  return true;
}

bool JsonParser::number() {
  const std::size_t start = pos_;
  if (peek() == '-') ++pos_;
  if (peek() == '0') {
    ++pos_;
  } else if (!digits()) {
    return false;
  }
  if (peek() == '.') {
    ++pos_;
    if (!digits()) return false;
  }
  if (peek() == 'e' || peek() == 'E') {
    ++pos_;
    if (peek() == '+' || peek() == '-') ++pos_;
    if (!digits()) return false;
  }
  if (!build_) return true;
  const std::string_view written = text_.substr(start, pos_ - start);
  if (!in_double_range(written)) return refuse_at(start, "", "valid JSON (a number in range)");
  target_->kind = NodeKind::number;
  target_->text = written;
  return true;
}

}  // namespace

const ConfigEntry* ConfigNode::find(std::string_view key) const noexcept {
  for (const ConfigEntry& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

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

Result<ConfigNode, ConfigError> parse_json(std::string_view text) {
  text = strip_bom(text);
  if (auto e = check_size(text)) return *e;
  try {
    ConfigNode root;
    if (auto e = JsonParser(text, true).parse(root)) return *e;
    return root;
  } catch (const std::exception&) {  // allocation failure
    return ConfigError{0, 0, "", "a config small enough to parse"};
  }
}

std::optional<ConfigError> json_syntax_error(std::string_view text) {
  ConfigNode unused;
  return JsonParser(strip_bom(text), false).parse(unused);
}

std::optional<std::uint64_t> as_unsigned(const ConfigNode& node) noexcept {
  if (node.kind != NodeKind::number) return std::nullopt;
  std::string_view s = node.text;
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    base = s[1] == 'x' ? 16 : 8;
    s.remove_prefix(2);
  } else if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : s) {
    unsigned digit = 16;
    if (is_dec(c)) digit = unsigned(c - '0');
    if (base == 16 && is_hex(c) && !is_dec(c)) digit = unsigned((c | 0x20) - 'a' + 10);
    if (digit >= base) return std::nullopt;
    if (value > (UINT64_MAX - digit) / base) return std::nullopt;
    value = value * base + digit;
  }
  return value;
}

std::string key_path_child(std::string_view parent, std::string_view key) {
  std::string out(parent);
  if (!out.empty()) out += '.';
  out += key;
  return out;
}

std::string key_path_item(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

}  // namespace msb
