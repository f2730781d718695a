// The exec policy as a small tree, read by simdjson. simdjson is linked statically, as the whole
// launcher is: it starts once per command, and loading no shared library keeps that start short.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace msb {

struct PolicyValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool flag = false;               // a boolean's value
  std::string text;                // a string, unescaped; a number's text as written
  std::vector<PolicyValue> items;  // an array's elements
  std::vector<std::pair<std::string, PolicyValue>> members;  // an object's members, in order

  // A number written as a plain unsigned integer that fits 64 bits.
  std::optional<unsigned long long> unsigned_number() const;
};

// One JSON object or array with nothing but whitespace after it (a policy is an object; a bare
// scalar is no policy). nullopt for any syntax error, ill-formed UTF-8 (in strings or escapes:
// lone surrogates are refused), a number out of a double's range or nesting deeper than 16.
// Duplicate keys are kept, for the caller to judge.
std::optional<PolicyValue> parse_policy_json(std::string_view text);

}  // namespace msb
