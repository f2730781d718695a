#include "launcher/policy_json.h"

#include <simdjson.h>

#include <charconv>
#include <cstddef>

namespace msb {
namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t kMaxDepth = 16;  // a policy nests three deep

// simdjson reads the text (syntax, UTF-8, escapes, lone surrogates, numbers) and this copies what
// it read into the small tree exec_policy.cc judges. Numbers keep their text as written: the
// limits are exact 64-bit integers, which a double would round.
bool read_value(od::value value, PolicyValue& out, std::size_t depth);

// Without the whitespace simdjson's raw token runs on to.
std::string_view trimmed(std::string_view token) {
  const std::size_t end = token.find_last_not_of(" \t\n\r");
  return token.substr(0, end == std::string_view::npos ? 0 : end + 1);
}

bool read_object(od::object object, PolicyValue& out, std::size_t depth) {
  out.kind = PolicyValue::Kind::object;
  for (auto field : object) {
    std::string_view key;
    od::value value;
    if (field.unescaped_key().get(key) || field.value().get(value)) return false;
    auto& member = out.members.emplace_back(std::string(key), PolicyValue{});
    if (!read_value(value, member.second, depth + 1)) return false;
  }
  return true;
}

bool read_array(od::array array, PolicyValue& out, std::size_t depth) {
  out.kind = PolicyValue::Kind::array;
  for (auto item : array) {
    od::value value;
    if (item.get(value) || !read_value(value, out.items.emplace_back(), depth + 1)) return false;
  }
  return true;
}

bool read_scalar(od::value value, od::json_type type, PolicyValue& out) {
  switch (type) {
    case od::json_type::string: {
      std::string_view text;
      if (value.get_string().get(text)) return false;
      out.kind = PolicyValue::Kind::string;
      out.text = text;
      return true;
    }
    case od::json_type::number: {
      // Validated as simdjson reads any number (out-of-range ones refused), kept as written.
      double unused = 0;
      if (value.get_double().get(unused)) return false;
      out.kind = PolicyValue::Kind::number;
      out.text = trimmed(value.raw_json_token());
      return true;
    }
    case od::json_type::boolean:
      out.kind = PolicyValue::Kind::boolean;
      return !value.get_bool().get(out.flag);
    case od::json_type::null: {
      bool is_null = false;
      return !value.is_null().get(is_null) && is_null;
    }
    default: return false;
  }
}

bool read_value(od::value value, PolicyValue& out, std::size_t depth) {
  if (depth > kMaxDepth) return false;
  od::json_type type;
  if (value.type().get(type)) return false;
  if (type == od::json_type::object) {
    od::object object;
    return !value.get_object().get(object) && read_object(object, out, depth);
  }
  if (type == od::json_type::array) {
    od::array array;
    return !value.get_array().get(array) && read_array(array, out, depth);
  }
  return read_scalar(value, type, out);
}

}  // namespace

std::optional<unsigned long long> PolicyValue::unsigned_number() const {
  if (kind != Kind::number || text.empty()) return std::nullopt;
  unsigned long long n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

std::optional<PolicyValue> parse_policy_json(std::string_view text) {
  od::parser parser;
  const simdjson::padded_string padded(text);
  od::document document;
  od::value root;
  PolicyValue out;
  // get_value() checks that the root object or array is closed where the text ends.
  if (parser.iterate(padded).get(document) || document.get_value().get(root) ||
      !read_value(root, out, 0) || !document.at_end()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace msb
