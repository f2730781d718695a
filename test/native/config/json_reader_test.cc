// What only the JSON reader has to handle: exact syntax errors, numbers, escapes.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/config_test_util.h"

namespace msb_test {
namespace {

struct JsonSyntaxCase {
  std::string_view text;
  std::uint32_t line;
  std::uint32_t column;
  std::string_view expected;
};

// Each text is refused at its place with its expectation (the error has no key path: the text
// is not JSON yet).
template <std::size_t N>
void expect_json_errors(const JsonSyntaxCase (&cases)[N]) {
  for (const JsonSyntaxCase& c : cases) {
    const ConfigError e = tree_error(c.text, ConfigFormat::json);
    EXPECT_EQ(place_of(e), Place("", c.line, c.column)) << c.text;
    EXPECT_EQ(e.expected, c.expected) << c.text;
  }
}

TEST(ConfigTree, JsonValueKinds) {
  const ConfigNode root = tree_ok(
      R"({"s": "x\u00e9\n", "i": 12, "f": -1.5e3, "t": true, "n": null, "a": [1, {}], "o": {}})",
      ConfigFormat::json);
  ASSERT_EQ(root.kind, NodeKind::map);
  ASSERT_EQ(root.entries.size(), 7u);
  EXPECT_EQ(root.find("s")->value.text, "x\xC3\xA9\n");
  EXPECT_EQ(root.find("i")->value.kind, NodeKind::number);
  EXPECT_EQ(root.find("i")->value.text, "12");
  EXPECT_EQ(root.find("f")->value.text, "-1.5e3");
  EXPECT_TRUE(root.find("t")->value.boolean);
  EXPECT_EQ(root.find("n")->value.kind, NodeKind::null);
  ASSERT_EQ(root.find("a")->value.kind, NodeKind::sequence);
  EXPECT_EQ(root.find("a")->value.items.size(), 2u);
  EXPECT_EQ(root.find("a")->value.items[1].kind, NodeKind::map);
  EXPECT_EQ(root.find("o")->value.kind, NodeKind::map);

  const ConfigNode scalar = tree_ok("  \"only\"  ", ConfigFormat::json);
  EXPECT_EQ(scalar.kind, NodeKind::string);
  EXPECT_EQ(scalar.text, "only");
  EXPECT_EQ(scalar.column, 3u);
}

TEST(ConfigTree, JsonSyntaxErrorsArePlacedExactly) {
  const JsonSyntaxCase cases[] = {
      {"{\"sandbox\": {\"mounts\": [\n  {\"source\": \"a\"}\n", 3, 1, "',' or ']'"},
      {"{\"sandbox\": {\"mounts\": [", 1, 25, "a value"},
      {R"({"sandbox": {"root": "a" "readonly": true}})", 1, 26, "',' or '}'"},
      {"{\n  \"sandbox\": {\n    \"root\": \"a\",\n  }\n}", 4, 3, "a string key"},
      {R"({"sandbox": {root: "a"}})", 1, 14, "a string key"},
      {R"({"sandbox": {"root": 'a'}})", 1, 22, "a value"},
      {R"({"a" 1})", 1, 6, "':' after the key"},
      {R"({"a": [1,, 2]})", 1, 10, "a value"},
      {R"({"a": 1} x)", 1, 10, "the end of the document"},
      {R"({"a": 1}})", 1, 9, "the end of the document"},
      {R"("x" y)", 1, 5, "the end of the document"},
      {"null x", 1, 6, "the end of the document"},
      {"false/", 1, 6, "the end of the document"},
      {"nul", 1, 1, "a value"},
      {R"({"a": tru})", 1, 7, "a value"},
      {R"({"a": 01})", 1, 8, "',' or '}'"},
      {R"({"a": -})", 1, 8, "a digit"},
      {R"({"a": 1.})", 1, 9, "a digit"},
      {R"({"a": "\x"})", 1, 8, "a valid escape sequence"},
      {R"({"a": "\ud800"})", 1, 8, "a valid \\u escape"},
      {R"({"a": "\udc00\ud800"})", 1, 8, "a valid \\u escape"},
      {"{\"a\": \"x\ty\"}", 1, 9, "no control characters in a string"},
      {"{\"a\": \"x\xFF\"}", 1, 9, "well-formed UTF-8"},
      {"{\"a\": \"open}", 1, 7, "a closing quote for this string"},
      {"[1, 2]\n[3]", 2, 1, "the end of the document"},
  };
  expect_json_errors(cases);
}

TEST(ConfigTree, JsonNumbersOutOfRangeArePlacedAtTheNumber) {
  const ConfigError e = tree_error("{\"a\":\n  [1e999]}", ConfigFormat::json);
  EXPECT_EQ(place_of(e), Place("", 2, 4));
  EXPECT_EQ(e.expected.rfind("valid JSON (", 0), 0u);
  const ConfigError root = tree_error(" 1e999 ", ConfigFormat::json);
  EXPECT_EQ(place_of(root), Place("", 1, 2));
  EXPECT_EQ(root.expected, "valid JSON (a number in range)");
}

TEST(ConfigTree, JsonSyntaxLocatorAcceptsJson) {
  for (std::string_view text :
       {"{}", "[]", " 0 ", "-0.5e+7", "\"\\u00e9\\ud83d\\ude00\\n\"",
        "{\"a\": [true, false, null]}", "\xEF\xBB\xBF[1]", "[\n\t1\r\n]",
        // simdjson 3.0.1 alone refuses root literals followed by several blanks.
        "true    ", "false\t\t\t\t", "null     ", "12   \n", "[true    , false     ]"}) {
    EXPECT_FALSE(msb::json_syntax_error(text).has_value()) << text;
    tree_ok(text, ConfigFormat::json);
  }
}

// Content is judged only once the text is known to be JSON: a syntax error anywhere wins over a
// duplicate key, a NUL, a number out of range or deep nesting before it.
TEST(ConfigTree, JsonSyntaxErrorsComeBeforeContentErrors) {
  const JsonSyntaxCase cases[] = {
      {"{\"a\": 1, \"a\": 2,\n x}", 2, 2, "a string key"},
      {"{\"a\": \"\\u0000\", \"b\": tru}", 1, 22, "a value"},
      {"[1e999, 2", 1, 10, "',' or ']'"},
  };
  expect_json_errors(cases);
  expect_tree_error(std::string(70, '[') + "x", ConfigFormat::json, Place("", 1, 71), "a value");
  // Of several content errors, the first in the document is reported.
  const ConfigError e = tree_error("{\"a\": \"\\u0000\", \"b\": 1, \"b\": 2}", ConfigFormat::json);
  EXPECT_EQ(place_of(e), Place("a", 1, 7));
}

TEST(ConfigTree, JsonNumbersKeepTheirTextAndOnlyOverflowIsRefused) {
  const ConfigNode root =
      tree_ok("[1e-999, -0.0E+5, 123456789012345678901234567890]", ConfigFormat::json);
  ASSERT_EQ(root.items.size(), 3u);
  EXPECT_EQ(root.items[0].text, "1e-999");
  EXPECT_EQ(root.items[1].text, "-0.0E+5");
  EXPECT_EQ(root.items[2].kind, NodeKind::number);
  for (const std::string& text : {std::string("[-1e309]"), "[1" + std::string(400, '0') + "]",
                                  std::string("[0.001e99999]")}) {
    const ConfigError e = tree_error(text, ConfigFormat::json);
    EXPECT_EQ(place_of(e), Place("", 1, 2)) << text;
    EXPECT_EQ(e.expected, "valid JSON (a number in range)") << text;
  }
}

TEST(ConfigTree, JsonEscapesAreDecoded) {
  const ConfigNode root =
      tree_ok(R"(["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20ac\ud83d\ude00"])", ConfigFormat::json);
  ASSERT_EQ(root.items.size(), 2u);
  EXPECT_EQ(root.items[0].text, "\"\\/\b\f\n\r\t");
  EXPECT_EQ(root.items[1].text, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(ConfigTree, JsonDuplicateKeysAreFoundInLargeMaps) {
  std::string text = "{";
  for (int i = 0; i < 40; ++i)
    text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  text += "\"k17\": 0}";
  const ConfigError e = tree_error(text, ConfigFormat::json);
  EXPECT_EQ(e.key_path, "k17");
  EXPECT_EQ(e.expected.rfind("a key not already used in this mapping (first at line 1, column ", 0),
            0u);
  text.replace(text.rfind("k17"), 3, "k40");
  EXPECT_EQ(tree_ok(text, ConfigFormat::json).entries.size(), 41u);
}

TEST(ConfigTree, JsonSyntaxCheckHasNoDepthBound) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_FALSE(msb::json_syntax_error(deep).has_value());
  EXPECT_EQ(tree_error(deep, ConfigFormat::json).expected, "at most 64 levels of nesting");
}

}  // namespace
}  // namespace msb_test
