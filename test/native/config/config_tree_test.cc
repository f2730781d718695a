// The located tree both readers build: positions, keys, limits, and its helpers.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "config/config_test_util.h"

namespace msb_test {
namespace {

TEST(ConfigTree, PositionsOfKeysAndValuesAreOneBased) {
  const ConfigNode y = tree_ok("a:\n  bb: [x, \"y\"]\n", ConfigFormat::yaml);
  const msb::ConfigEntry& bb = y.find("a")->value.entries.at(0);
  EXPECT_EQ(Place("", bb.line, bb.column), Place("", 2, 3));
  EXPECT_EQ(Place("", bb.value.line, bb.value.column), Place("", 2, 7));
  EXPECT_EQ(Place("", bb.value.items[1].line, bb.value.items[1].column), Place("", 2, 11));

  // Columns count bytes, as yaml-cpp's do: "é" is two.
  const ConfigNode j = tree_ok("{\n \"\xC3\xA9\": [1,\n   true]}", ConfigFormat::json);
  const msb::ConfigEntry& e = j.entries.at(0);
  EXPECT_EQ(Place("", e.line, e.column), Place("", 2, 2));
  EXPECT_EQ(Place("", e.value.line, e.value.column), Place("", 2, 8));
  EXPECT_EQ(Place("", e.value.items[1].line, e.value.items[1].column), Place("", 3, 4));
}

TEST(ConfigTree, EmptyYamlIsNullAndEmptyJsonIsAnError) {
  for (std::string_view text : {"", "# just a comment\n", "\n  \n", "---\n"}) {
    EXPECT_EQ(tree_ok(text, ConfigFormat::yaml).kind, NodeKind::null) << text;
  }
  EXPECT_EQ(place_of(tree_error("", ConfigFormat::json)), Place("", 1, 1));
  EXPECT_EQ(place_of(tree_error("\n  \n", ConfigFormat::json)), Place("", 3, 1));
}

TEST(ConfigTree, ByteOrderMarkIsSkipped) {
  const ConfigNode y = tree_ok(
      "\xEF\xBB\xBF"
      "a: 1\n",
      ConfigFormat::yaml);
  EXPECT_EQ(Place("", y.entries.at(0).line, y.entries.at(0).column), Place("", 1, 1));
  const ConfigNode j = tree_ok("\xEF\xBB\xBF{\"a\": 1}", ConfigFormat::json);
  EXPECT_EQ(Place("", j.entries.at(0).line, j.entries.at(0).column), Place("", 1, 2));
}

TEST(ConfigTree, DuplicateKeysAreReportedAtTheSecond) {
  expect_tree_error("top:\n  a: 1\n  b: 2\n  a: 3\n", ConfigFormat::yaml, Place("top.a", 4, 3),
                    "a key not already used in this mapping (first at line 2, column 3)");
  expect_tree_error("{\"top\": {\"a\": 1,\n \"a\": 2}}", ConfigFormat::json, Place("top.a", 2, 2),
                    "a key not already used in this mapping (first at line 1, column 10)");
  // "a" written with an escape is still "a".
  EXPECT_EQ(place_of(tree_error(R"({"a": 1, "\u0061": 2})", ConfigFormat::json)),
            Place("a", 1, 10));
}

TEST(ConfigTree, MapKeysMustBeStrings) {
  for (std::string_view text : {"1: x\n", "true: x\n", "~: x\n", "? [a]\n: x\n", "? {a: 1}\n"}) {
    const ConfigError e = tree_error(text, ConfigFormat::yaml);
    EXPECT_EQ(e.expected, "a string key") << text;
    EXPECT_EQ(e.line, 1u) << text;
  }
  EXPECT_EQ(place_of(tree_error("a:\n  5: x\n", ConfigFormat::yaml)), Place("a", 2, 3));
  EXPECT_EQ(place_of(tree_error("? [a]\n: x\n", ConfigFormat::yaml)), Place("", 1, 3));
  // Quoted, a number is a string.
  EXPECT_EQ(tree_ok("\"1\": x\n", ConfigFormat::yaml).entries.at(0).key, "1");
}

TEST(ConfigTree, NestingIsBoundedAt64Levels) {
  for (ConfigFormat format : {ConfigFormat::yaml, ConfigFormat::json}) {
    const std::string ok = std::string(64, '[') + std::string(64, ']');
    EXPECT_EQ(tree_ok(ok, format).kind, NodeKind::sequence);
    const std::string deep = std::string(65, '[') + std::string(65, ']');
    const ConfigError e = tree_error(deep, format);
    std::string path;
    for (int i = 0; i < 64; ++i) path += "[0]";
    EXPECT_EQ(place_of(e), Place(path, 1, 65));
    EXPECT_EQ(e.expected, "at most 64 levels of nesting");
  }
  // Maps count too, and the path says where.
  std::string yaml;
  for (int i = 0; i < 65; ++i) yaml += std::string(2 * i, ' ') + "k:\n";
  const ConfigError e = tree_error(yaml, ConfigFormat::yaml);
  EXPECT_EQ(e.line, 65u);
  EXPECT_EQ(e.column, 129u);
  EXPECT_EQ(e.key_path.size(), 64u * 2 - 1);
  // Far deeper than any recursion limit: refused without a crash.
  for (std::string_view open : {"[", "{\"a\":", "- "}) {
    std::string text;
    for (int i = 0; i < 100000; ++i) text += open;
    const ConfigFormat format = open == "- " ? ConfigFormat::yaml : ConfigFormat::json;
    EXPECT_FALSE(tree_error(text, format).expected.empty());
    if (open == "[") {
      EXPECT_FALSE(tree_error(text, ConfigFormat::yaml).expected.empty());
    }
  }
}

TEST(ConfigTree, InputOver1MiBIsRefusedWhereItCrossesTheLimit) {
  std::string exact = "# " + std::string(msb::kMaxConfigBytes - 3, 'x') + "\n";
  ASSERT_EQ(exact.size(), msb::kMaxConfigBytes);
  EXPECT_EQ(tree_ok(exact, ConfigFormat::yaml).kind, NodeKind::null);
  const std::string over = "a: 1\n# " + std::string(msb::kMaxConfigBytes, 'x');
  expect_tree_error(over, ConfigFormat::yaml,
                    Place("", 2, static_cast<std::uint32_t>(msb::kMaxConfigBytes - 5 + 1)),
                    "a config file of at most 1 MiB");
  const ConfigError j = tree_error(std::string(msb::kMaxConfigBytes + 1, '\n'), ConfigFormat::json);
  EXPECT_EQ(place_of(j), Place("", static_cast<std::uint32_t>(msb::kMaxConfigBytes + 1), 1));
  // A byte order mark does not count.
  EXPECT_EQ(tree_ok("\xEF\xBB\xBF" + exact, ConfigFormat::yaml).kind, NodeKind::null);
}

TEST(ConfigTree, NulAndBrokenUtf8AreRefused) {
  using namespace std::string_literals;
  EXPECT_EQ(place_of(tree_error("a: 1\nb: x\0y\n"s, ConfigFormat::yaml)), Place("", 2, 5));
  EXPECT_EQ(place_of(tree_error("a: 1\nb: x\xFFy\n", ConfigFormat::yaml)), Place("", 2, 5));
  EXPECT_EQ(place_of(tree_error("a: \"x\\0y\"\n", ConfigFormat::yaml)), Place("a", 1, 4));
  EXPECT_EQ(tree_error("a: \"x\\0y\"\n", ConfigFormat::yaml).expected,
            "text without NUL characters");
  EXPECT_EQ(place_of(tree_error("{\"a\": \"b\\u0000\"}", ConfigFormat::json)), Place("a", 1, 7));
  EXPECT_EQ(place_of(tree_error("{\"a\": \"\xC0\xAF\"}", ConfigFormat::json)), Place("", 1, 8));
  EXPECT_EQ(place_of(tree_error("{\"k\\u0000\": 1}", ConfigFormat::json)), Place("", 1, 2));
}

TEST(ConfigTree, AsUnsigned) {
  auto number = [](std::string text) {
    ConfigNode n;
    n.kind = NodeKind::number;
    n.text = std::move(text);
    return msb::as_unsigned(n);
  };
  EXPECT_EQ(number("42"), 42u);
  EXPECT_EQ(number("+42"), 42u);
  EXPECT_EQ(number("0x1f"), 31u);
  EXPECT_EQ(number("0o17"), 15u);
  EXPECT_EQ(number("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(number("18446744073709551616"), std::nullopt);
  EXPECT_EQ(number("-1"), std::nullopt);
  EXPECT_EQ(number("1.0"), std::nullopt);
  EXPECT_EQ(number("1e3"), std::nullopt);
  EXPECT_EQ(number("0x"), std::nullopt);
  EXPECT_EQ(number("0o8"), std::nullopt);
  ConfigNode text;
  text.kind = NodeKind::string;
  text.text = "42";
  EXPECT_EQ(msb::as_unsigned(text), std::nullopt);
}

TEST(ConfigTree, KeyPaths) {
  EXPECT_EQ(msb::key_path_child("", "sandbox"), "sandbox");
  EXPECT_EQ(msb::key_path_child("sandbox", "mounts"), "sandbox.mounts");
  EXPECT_EQ(msb::key_path_item("sandbox.mounts", 1), "sandbox.mounts[1]");
  EXPECT_EQ(msb::key_path_item("", 0), "[0]");
}

}  // namespace
}  // namespace msb_test
