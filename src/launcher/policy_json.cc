#include "launcher/policy_json.h"

#include <charconv>
#include <cstdint>

namespace msb {
namespace {

constexpr int kMaxDepth = 16;  // a policy nests three deep

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::optional<PolicyValue> document() {
    PolicyValue value;
    if (!parse_value(value, 0)) return std::nullopt;
    skip_space();
    if (pos_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    skip_space();
    if (peek() != c || at_end()) return false;
    ++pos_;
    return true;
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool parse_value(PolicyValue& out, int depth) {
    if (depth > kMaxDepth) return false;
    skip_space();
    if (at_end()) return false;
    switch (peek()) {
      case '{': return parse_object(out, depth);
      case '[': return parse_array(out, depth);
      case '"': out.kind = PolicyValue::Kind::string; return parse_string(out.text);
      case 't':
        out.kind = PolicyValue::Kind::boolean;
        out.flag = true;
        return literal("true");
      case 'f': out.kind = PolicyValue::Kind::boolean; return literal("false");
      case 'n': out.kind = PolicyValue::Kind::null; return literal("null");
      default: out.kind = PolicyValue::Kind::number; return parse_number(out.text);
    }
  }

  bool parse_object(PolicyValue& out, int depth) {
    out.kind = PolicyValue::Kind::object;
    ++pos_;
    if (consume('}')) return true;
    do {
      skip_space();
      std::string key;
      if (peek() != '"' || !parse_string(key) || !consume(':')) return false;
      PolicyValue value;
      if (!parse_value(value, depth + 1)) return false;
      out.members.emplace_back(std::move(key), std::move(value));
    } while (consume(','));
    return consume('}');
  }

  bool parse_array(PolicyValue& out, int depth) {
    out.kind = PolicyValue::Kind::array;
    ++pos_;
    if (consume(']')) return true;
    do {
      PolicyValue value;
      if (!parse_value(value, depth + 1)) return false;
      out.items.push_back(std::move(value));
    } while (consume(','));
    return consume(']');
  }

  std::size_t digits() {
    std::size_t start = pos_;
    while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    return pos_ - start;
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  bool parse_number(std::string& out) {
    std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return false;
    }
    if (peek() == '.' && (++pos_, digits() == 0)) return false;
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) return false;
    }
    out.assign(text_.substr(start, pos_ - start));
    return true;
  }

  std::optional<unsigned> hex4() {
    if (text_.size() - pos_ < 4) return std::nullopt;
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, value, 16);
    if (ec != std::errc() || end != text_.data() + pos_ + 4) return std::nullopt;
    pos_ += 4;
    return value;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // \uXXXX, or a surrogate pair of them; a lone surrogate names no character.
  bool parse_unicode_escape(std::string& out) {
    auto high = hex4();
    if (!high || (*high >= 0xDC00 && *high <= 0xDFFF)) return false;
    std::uint32_t cp = *high;
    if (*high >= 0xD800 && *high <= 0xDBFF) {
      if (!literal("\\u")) return false;
      auto low = hex4();
      if (!low || *low < 0xDC00 || *low > 0xDFFF) return false;
      cp = 0x10000 + ((*high - 0xD800) << 10) + (*low - 0xDC00);
    }
    append_utf8(out, cp);
    return true;
  }

  bool parse_escape(std::string& out) {
    char c = peek();
    ++pos_;
    switch (c) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': return parse_unicode_escape(out);
      default: return false;
    }
  }

  // One well-formed UTF-8 sequence of two to four bytes (no overlongs, no surrogates).
  bool copy_multibyte(std::string& out) {
    auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text_[pos_ + i]); };
    unsigned char lead = byte(0);
    std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (lead < 0xC2 || lead > 0xF4 || text_.size() - pos_ < length) return false;
    for (std::size_t i = 1; i < length; ++i) {
      if ((byte(i) & 0xC0) != 0x80) return false;
    }
    unsigned char second = byte(1);
    if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) ||
        (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F))
      return false;
    out.append(text_.substr(pos_, length));
    pos_ += length;
    return true;
  }

  bool parse_string(std::string& out) {
    ++pos_;  // the opening quote
    while (!at_end()) {
      unsigned char c = static_cast<unsigned char>(peek());
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        ++pos_;
        if (at_end() || !parse_escape(out)) return false;
      } else if (c >= 0x80) {
        if (!copy_multibyte(out)) return false;
      } else {
        out += static_cast<char>(c);
        ++pos_;
      }
    }
    return false;
  }
};

}  // namespace

std::optional<unsigned long long> PolicyValue::unsigned_number() const {
  if (kind != Kind::number || text.empty()) return std::nullopt;
  unsigned long long n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

std::optional<PolicyValue> parse_policy_json(std::string_view text) {
  return Reader(text).document();
}

}  // namespace msb
