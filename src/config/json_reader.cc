#include "config/json_reader.h"

#include <algorithm>
#include <charconv>
#include <exception>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/reader_checks.h"

namespace msb {
namespace {

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

}  // namespace msb
