#include "config/json_refusal.h"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "config/reader_checks.h"

namespace msb {
namespace {

std::size_t skip_digits(std::string_view text, std::size_t pos) noexcept {
  while (pos < text.size() && is_dec(text[pos])) ++pos;
  return pos;
}

bool hex4_at(std::string_view text, std::size_t pos, unsigned& out) noexcept {
  if (text.size() < pos + 4) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + 4; ++i) {
    const char c = text[i];
    if (!is_hex(c)) return false;
    out = out * 16 + (is_dec(c) ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10));
  }
  return true;
}

// The length of the \u escape at `pos` (a surrogate pair is two), 0 when it names no character.
std::size_t unicode_escape_length(std::string_view text, std::size_t pos) noexcept {
  unsigned unit = 0;
  if (!hex4_at(text, pos + 2, unit) || (unit >= 0xDC00 && unit <= 0xDFFF)) return 0;
  if (unit < 0xD800 || unit > 0xDBFF) return 6;
  unsigned low = 0;
  if (text.substr(pos + 6, 2) != "\\u" || !hex4_at(text, pos + 8, low)) return 0;
  return low >= 0xDC00 && low <= 0xDFFF ? 12 : 0;
}

}  // namespace

JsonRefusal number_end(std::string_view text, std::size_t at) noexcept {
  std::size_t pos = at;
  if (pos < text.size() && text[pos] == '-') ++pos;
  const auto need_digits = [&]() {
    const std::size_t end = skip_digits(text, pos);
    const bool missing = end == pos;
    pos = end;
    return missing;
  };
  if (pos < text.size() && text[pos] == '0') {
    ++pos;
  } else if (need_digits()) {
    return {pos, "a digit"};
  }
  if (pos < text.size() && text[pos] == '.' && (++pos, need_digits())) return {pos, "a digit"};
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
    if (need_digits()) return {pos, "a digit"};
  }
  return {pos, ""};
}

namespace {

// from_chars calls both overflow and underflow out of range, as simdjson refuses both; only
// overflow is refused here (a value too small for a double is 0, as it is everywhere else), and
// only overflow has digits or an exponent that put the number above 1.
bool above_one(std::string_view number) noexcept {
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

}  // namespace

bool number_overflows(std::string_view number) noexcept {
  double value = 0;
  const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
  return result.ec == std::errc::result_out_of_range && above_one(number);
}

std::optional<JsonRefusal> escape_refusal(std::string_view text, std::size_t at,
                                          std::size_t end) noexcept {
  constexpr std::string_view kEscaped = "\"\\/bfnrt";
  for (std::size_t pos = text.find('\\', at + 1); pos < end; pos = text.find('\\', pos)) {
    const char c = pos + 1 < text.size() ? text[pos + 1] : '\0';
    if (c == 'u') {
      const std::size_t length = unicode_escape_length(text, pos);
      if (length == 0) return JsonRefusal{pos, "a valid \\u escape"};
      pos += length;
    } else if (kEscaped.find(c) == std::string_view::npos || pos + 1 >= text.size()) {
      return JsonRefusal{pos, "a valid escape sequence"};
    } else {
      pos += 2;
    }
  }
  return std::nullopt;
}

std::optional<WholeTextRefusal> whole_text_refusal(std::string_view text) noexcept {
  std::size_t string_start = std::string_view::npos;
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    const auto c = static_cast<unsigned char>(text[pos]);
    const bool in_string = string_start != std::string_view::npos;
    if (c == '"') {
      string_start = in_string ? std::string_view::npos : pos;
    } else if (in_string && c == '\\' && pos + 1 < text.size() && text[pos + 1] >= ' ' &&
               static_cast<unsigned char>(text[pos + 1]) < 0x80) {
      ++pos;  // an escaped character ends no string
    } else if (!in_string && c == '\\') {
      // Never JSON, and simdjson's first pass takes it for an escape: its strings are then off.
      return WholeTextRefusal{{pos, "a value"}, string_start};
    } else if (in_string && c < 0x20) {
      return WholeTextRefusal{{pos, "no control characters in a string"}, string_start};
    } else if (c >= 0x80) {
      const std::size_t length = utf8_length_at(text, pos);
      if (length == 0) return WholeTextRefusal{{pos, "well-formed UTF-8"}, string_start};
      pos += length - 1;
    }
  }
  if (string_start == std::string_view::npos) return std::nullopt;
  return WholeTextRefusal{{string_start, "a closing quote for this string"}, string_start};
}

}  // namespace msb
