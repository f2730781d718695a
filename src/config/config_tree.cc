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
#include "simdjson.h"

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

Parsed<ConfigNode> run_yaml(std::string_view text) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  YamlBuilder builder(text);
  // A second call only reports a second document (the builder refuses it).
  if (parser.HandleNextDocument(builder)) parser.HandleNextDocument(builder);
  return builder.take_root();
}

// ---------------------------------------------------------------------------------------------
// JSON syntax locator: a plain RFC 8259 checker, iterative so that depth costs no stack

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text) {}

  // Offset and expectation of the first error; nullopt when the text is JSON.
  std::optional<std::pair<std::size_t, const char*>> run();

 private:
  enum class State : std::uint8_t { value, first_key, key, first_item, after_value };
  using Failure = std::optional<std::pair<std::size_t, const char*>>;

  bool at_end() const noexcept { return pos_ >= text_.size(); }
  char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }
  Failure fail(const char* expected) const { return std::make_pair(pos_, expected); }
  void skip_ws() noexcept {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
      ++pos_;
    }
  }

  Failure step(State& state);
  Failure value(State& state);
  Failure key(State& state);
  Failure after_value(State& state);
  Failure scalar();
  Failure string();
  Failure escape();
  Failure unicode_escape();
  bool hex4(unsigned& out) noexcept;
  Failure number();
  Failure digits();

  std::string_view text_;
  std::size_t pos_ = 0;
  std::vector<char> stack_;  // '{' or '['
  bool done_ = false;
};

std::optional<std::pair<std::size_t, const char*>> JsonScanner::run() {
  State state = State::value;
  while (!done_) {
    skip_ws();
    if (Failure f = step(state)) return f;
  }
  return std::nullopt;
}

JsonScanner::Failure JsonScanner::step(State& state) {
  switch (state) {
    case State::value: return value(state);
    case State::first_key:
      if (peek() == '}') {
        ++pos_;
        stack_.pop_back();
        state = State::after_value;
        return std::nullopt;
      }
      return key(state);
    case State::key: return key(state);
    case State::first_item:
      if (peek() == ']') {
        ++pos_;
        stack_.pop_back();
        state = State::after_value;
        return std::nullopt;
      }
      state = State::value;
      return std::nullopt;
    case State::after_value: return after_value(state);
  }
  return fail("a value");
}

JsonScanner::Failure JsonScanner::value(State& state) {
  const char c = peek();
  if (c == '{' || c == '[') {
    ++pos_;
    stack_.push_back(c);
    state = c == '{' ? State::first_key : State::first_item;
    return std::nullopt;
  }
  state = State::after_value;
  return scalar();
}

JsonScanner::Failure JsonScanner::key(State& state) {
  if (peek() != '"') return fail("a string key");
  if (Failure f = string()) return f;
  skip_ws();
  if (peek() != ':') return fail("':' after the key");
  ++pos_;
  state = State::value;
  return std::nullopt;
}

JsonScanner::Failure JsonScanner::after_value(State& state) {
  if (stack_.empty()) {
    if (!at_end()) return fail("the end of the document");
    done_ = true;
    return std::nullopt;
  }
  const char open = stack_.back();
  const char close = open == '{' ? '}' : ']';
  if (peek() == ',') {
    ++pos_;
    state = open == '{' ? State::key : State::value;
    return std::nullopt;
  }
  if (peek() != close) return fail(open == '{' ? "',' or '}'" : "',' or ']'");
  ++pos_;
  stack_.pop_back();
  return std::nullopt;
}

JsonScanner::Failure JsonScanner::scalar() {
  const char c = peek();
  if (c == '"') return string();
  if (c == '-' || is_dec(c)) return number();
  for (std::string_view word : {"true", "false", "null"}) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return std::nullopt;
    }
  }
  return fail("a value");
}

JsonScanner::Failure JsonScanner::string() {
  const std::size_t open = pos_++;
  while (!at_end()) {
    const char c = peek();
    if (c == '"') {
      ++pos_;
      return std::nullopt;
    }
    if (c == '\\') {
      if (Failure f = escape()) return f;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) return fail("no control characters in a string");
    const std::size_t len = utf8_length_at(text_, pos_);
    if (len == 0) return fail("well-formed UTF-8");
    pos_ += len;
  }
  return std::make_pair(open, "a closing quote for this string");
}

JsonScanner::Failure JsonScanner::escape() {
  const std::size_t backslash = pos_++;
  const char c = peek();
  if (c == 'u') return unicode_escape();
  if (std::string_view("\"\\/bfnrt").find(c) == std::string_view::npos || at_end()) {
    return std::make_pair(backslash, "a valid escape sequence");
  }
  ++pos_;
  return std::nullopt;
}

bool JsonScanner::hex4(unsigned& out) noexcept {
  if (text_.size() - pos_ < 4) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = text_[pos_++];
    if (!is_hex(c)) return false;
    out = out * 16 + (is_dec(c) ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10));
  }
  return true;
}

// After "\u": four hex digits, and surrogates only as a high-low pair (as simdjson requires).
JsonScanner::Failure JsonScanner::unicode_escape() {
  const std::size_t start = pos_ - 1;
  const auto bad = std::make_pair(start, "a valid \\u escape");
  ++pos_;
  unsigned unit = 0;
  if (!hex4(unit)) return bad;
  if (unit >= 0xDC00 && unit <= 0xDFFF) return bad;
  if (unit < 0xD800 || unit > 0xDBFF) return std::nullopt;
  if (text_.substr(pos_, 2) != "\\u") return bad;
  pos_ += 2;
  if (!hex4(unit) || unit < 0xDC00 || unit > 0xDFFF) return bad;
  return std::nullopt;
}

JsonScanner::Failure JsonScanner::digits() {
  if (!is_dec(peek())) return fail("a digit");
  while (is_dec(peek())) ++pos_;
  return std::nullopt;
}

JsonScanner::Failure JsonScanner::number() {
  if (peek() == '-') ++pos_;
  if (peek() == '0') {
    ++pos_;
  } else if (Failure f = digits()) {
    return f;
  }
  if (peek() == '.') {
    ++pos_;
    if (Failure f = digits()) return f;
  }
  if (peek() == 'e' || peek() == 'E') {
    ++pos_;
    if (peek() == '+' || peek() == '-') ++pos_;
    if (Failure f = digits()) return f;
  }
  return std::nullopt;
}

// `text` without its byte order mark.
std::optional<ConfigError> locate_json_error(std::string_view text) {
  JsonScanner scanner(text);
  auto failure = scanner.run();
  if (!failure) return std::nullopt;
  return error_at_offset(text, failure->first, failure->second);
}

// ---------------------------------------------------------------------------------------------
// JSON through simdjson's On Demand API

namespace od = simdjson::ondemand;

std::string_view trim_right(std::string_view s) noexcept {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

class JsonReader {
 public:
  JsonReader(std::string_view text, const simdjson::padded_string& padded)
      : text_(text), base_(padded.data()), lines_(text) {}

  Parsed<ConfigNode> read(od::document& doc);

 private:
  using Check = std::optional<ConfigError>;

  std::size_t offset(const char* p) const noexcept {
    if (p == nullptr || p < base_) return text_.size();
    return std::min(static_cast<std::size_t>(p - base_), text_.size());
  }
  void place(ConfigNode& node, const char* p) const {
    lines_.place(offset(p), node.line, node.column);
  }
  ConfigError error(const char* p, std::string path, std::string expected) const {
    return lines_.error(offset(p), std::move(path), std::move(expected));
  }
  ConfigError syntax(simdjson::error_code code, const char* near) const;
  const char* current() const;

  Check value(od::value v, ConfigNode& out, const std::string& path, std::size_t depth);
  Check object(od::value v, ConfigNode& out, const std::string& path, std::size_t depth);
  Check field(od::field& f, ConfigNode& out, const std::string& path, std::size_t depth,
              std::unordered_map<std::string, std::size_t>& seen);
  Check array(od::value v, ConfigNode& out, const std::string& path, std::size_t depth);
  template <typename V>
  Check scalar(V& v, od::json_type type, ConfigNode& out, const std::string& path,
               std::string_view token);
  Check root_scalar(od::document& doc, ConfigNode& out);
  Check root_literal(std::string_view value, ConfigNode& out) const;

  std::string_view text_;
  const char* base_;
  LineIndex lines_;
  od::document* doc_ = nullptr;
};

const char* JsonReader::current() const {
  const char* p = nullptr;
  if (doc_ == nullptr || doc_->current_location().get(p) != simdjson::SUCCESS) return nullptr;
  return p;
}

// simdjson's codes carry no position; the locator finds the real spot. When it finds none (a
// number out of range, say), the value being read is the best place to point at.
ConfigError JsonReader::syntax(simdjson::error_code code, const char* near) const {
  if (auto located = locate_json_error(text_)) return *located;
  if (near == nullptr) near = current();
  return error(near, "", std::string("valid JSON (") + simdjson::error_message(code) + ")");
}

Parsed<ConfigNode> JsonReader::read(od::document& doc) {
  doc_ = &doc;
  od::json_type type;
  if (auto code = doc.type().get(type)) return syntax(code, nullptr);
  ConfigNode root;
  if (type == od::json_type::object || type == od::json_type::array) {
    od::value v;
    if (auto code = doc.get_value().get(v)) return syntax(code, nullptr);
    if (Check e = value(v, root, "", 1)) return *e;
    // Content after the root value leaves the iterator inside the document.
    if (const char* rest = current()) return syntax(simdjson::TRAILING_CONTENT, rest);
    return root;
  }
  if (Check e = root_scalar(doc, root)) return *e;
  return root;
}

JsonReader::Check JsonReader::root_scalar(od::document& doc, ConfigNode& out) {
  std::string_view token;
  if (auto code = doc.raw_json_token().get(token)) return syntax(code, nullptr);
  place(out, token.data());
  // simdjson does not always notice what follows a scalar root ("null x").
  if (token.data() + token.size() != base_ + text_.size()) {
    return syntax(simdjson::TRAILING_CONTENT, token.data() + token.size());
  }
  const std::string_view value = trim_right(token);
  if (JsonScanner(value).run()) return syntax(simdjson::INCORRECT_TYPE, token.data());
  if (value.front() == '"') return scalar(doc, od::json_type::string, out, "", token);
  // simdjson 3.0.1 copies a root literal or number into a small buffer together with the blanks
  // after it, and refuses "true   " for not fitting; the scanner has checked the token already.
  return root_literal(value, out);
}

JsonReader::Check JsonReader::root_literal(std::string_view value, ConfigNode& out) const {
  out.text = std::string(value);
  if (value == "null") {
    out.text.clear();
    return std::nullopt;
  }
  if (value == "true" || value == "false") {
    out.kind = NodeKind::boolean;
    out.boolean = value == "true";
    return std::nullopt;
  }
  double number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc{} || end != value.data() + value.size()) {
    return error(value.data(), "", "valid JSON (a number in range)");
  }
  out.kind = NodeKind::number;
  return std::nullopt;
}

JsonReader::Check JsonReader::value(od::value v, ConfigNode& out, const std::string& path,
                                    std::size_t depth) {
  const std::string_view token = v.raw_json_token();
  place(out, token.data());
  od::json_type type;
  if (auto code = v.type().get(type)) return syntax(code, token.data());
  if (type == od::json_type::object || type == od::json_type::array) {
    if (depth > kMaxConfigDepth) return error(token.data(), path, depth_message());
    return type == od::json_type::object ? object(v, out, path, depth) : array(v, out, path, depth);
  }
  return scalar(v, type, out, path, token);
}

JsonReader::Check JsonReader::object(od::value v, ConfigNode& out, const std::string& path,
                                     std::size_t depth) {
  out.kind = NodeKind::map;
  od::object obj;
  if (auto code = v.get_object().get(obj)) return syntax(code, nullptr);
  std::unordered_map<std::string, std::size_t> seen;
  for (auto item : obj) {
    od::field f;
    if (auto code = std::move(item).get(f)) return syntax(code, nullptr);
    if (Check e = field(f, out, path, depth, seen)) return e;
  }
  return std::nullopt;
}

JsonReader::Check JsonReader::field(od::field& f, ConfigNode& out, const std::string& path,
                                    std::size_t depth,
                                    std::unordered_map<std::string, std::size_t>& seen) {
  const char* key_at = f.key().raw() - 1;  // raw() is just past the opening quote
  std::string_view key;
  if (auto code = f.unescaped_key().get(key)) return syntax(code, key_at);
  ConfigEntry entry;
  entry.key = std::string(key);
  lines_.place(offset(key_at), entry.line, entry.column);
  const std::string child = key_path_child(path, entry.key);
  if (const char* problem = text_problem(entry.key)) return error(key_at, path, problem);
  if (auto it = seen.find(entry.key); it != seen.end()) {
    return error(key_at, child, duplicate_key_message(out.entries[it->second]));
  }
  if (Check e = value(f.value(), entry.value, child, depth + 1)) return e;
  seen.emplace(entry.key, out.entries.size());
  out.entries.push_back(std::move(entry));
  return std::nullopt;
}

JsonReader::Check JsonReader::array(od::value v, ConfigNode& out, const std::string& path,
                                    std::size_t depth) {
  out.kind = NodeKind::sequence;
  od::array arr;
  if (auto code = v.get_array().get(arr)) return syntax(code, nullptr);
  for (auto item : arr) {
    od::value element;
    if (auto code = std::move(item).get(element)) return syntax(code, nullptr);
    ConfigNode child;
    if (Check e = value(element, child, key_path_item(path, out.items.size()), depth + 1)) {
      return e;
    }
    out.items.push_back(std::move(child));
  }
  return std::nullopt;
}

template <typename V>
JsonReader::Check JsonReader::scalar(V& v, od::json_type type, ConfigNode& out,
                                     const std::string& path, std::string_view token) {
  const char* at = token.data();
  // simdjson reads a literal or number by its start and lets some bytes after it pass ("false/"
  // as a root): the token must be exactly one JSON value.
  if (JsonScanner(trim_right(token)).run()) return syntax(simdjson::INCORRECT_TYPE, at);
  switch (type) {
    case od::json_type::string: {
      std::string_view s;
      if (auto code = v.get_string().get(s)) return syntax(code, at);
      if (const char* problem = text_problem(s)) return error(at, path, problem);
      out.kind = NodeKind::string;
      out.text = std::string(s);
      return std::nullopt;
    }
    case od::json_type::number: {
      double ignored = 0;  // parsed only to have simdjson validate the number
      if (auto code = v.get_double().get(ignored)) return syntax(code, at);
      out.kind = NodeKind::number;
      out.text = std::string(trim_right(token));
      return std::nullopt;
    }
    case od::json_type::boolean: {
      if (auto code = v.get_bool().get(out.boolean)) return syntax(code, at);
      out.kind = NodeKind::boolean;
      out.text = out.boolean ? "true" : "false";
      return std::nullopt;
    }
    case od::json_type::null: {
      bool is_null = false;
      auto code = v.is_null().get(is_null);
      if (code || !is_null) return syntax(code ? code : simdjson::INCORRECT_TYPE, at);
      return std::nullopt;
    }
    default: return syntax(simdjson::INCORRECT_TYPE, at);
  }
}

Parsed<ConfigNode> run_json(std::string_view text) {
  const simdjson::padded_string padded(text.data(), text.size());
  od::parser parser;
  JsonReader reader(text, padded);
  od::document doc;
  if (auto code = parser.iterate(padded).get(doc)) {
    if (auto located = locate_json_error(text)) return *located;
    return error_at_offset(text, 0,
                           std::string("valid JSON (") + simdjson::error_message(code) + ")");
  }
  return reader.read(doc);
}

}  // namespace

const ConfigEntry* ConfigNode::find(std::string_view key) const noexcept {
  for (const ConfigEntry& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

Parsed<ConfigNode> parse_yaml(std::string_view text) {
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

Parsed<ConfigNode> parse_json(std::string_view text) {
  text = strip_bom(text);
  if (auto e = check_size(text)) return *e;
  try {
    return run_json(text);
  } catch (const std::exception&) {  // allocation failure: simdjson itself does not throw here
    return ConfigError{0, 0, "", "a config small enough to parse"};
  }
}

std::optional<ConfigError> json_syntax_error(std::string_view text) {
  return locate_json_error(strip_bom(text));
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
