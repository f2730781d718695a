#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config_tree.h"
#include "config/json_reader.h"
#include "config/program_config.h"
#include "config/worker_file.h"
#include "config/yaml_reader.h"

namespace msb {

// gtest prints these by ADL, so a failed expectation shows the whole error.
inline void PrintTo(const ConfigError& e, std::ostream* os) {
  *os << e.line << ":" << e.column << " [" << e.key_path << "] expected " << e.expected;
}

}  // namespace msb

namespace {

using msb::ConfigError;
using msb::ConfigFormat;
using msb::ConfigNode;
using msb::NodeKind;
using msb::ProgramConfig;
using msb::WorkerDeclaration;
using msb::WorkerSandboxKind;

constexpr std::string_view kYamlFile = "/proj/cfg/golem-forge.config.yaml";
constexpr std::string_view kJsonFile = "/proj/cfg/golem-forge.config.json";

std::string_view file_for(ConfigFormat format) {
  return format == ConfigFormat::json ? kJsonFile : kYamlFile;
}

template <typename T>
std::string describe_error(const msb::Result<T, ConfigError>& parsed) {
  if (parsed.ok()) return "no error";
  std::ostringstream out;
  msb::PrintTo(parsed.error(), &out);
  return out.str();
}

// The value, or (with a failed expectation that shows the error) a default one.
template <typename T>
T value_of(msb::Result<T, ConfigError> parsed) {
  EXPECT_TRUE(parsed.ok()) << describe_error(parsed);
  return parsed.ok() ? std::move(parsed).value() : T{};
}

// The error, or (with a failed expectation that shows the text) an empty one.
template <typename T>
ConfigError error_of(msb::Result<T, ConfigError> parsed, std::string_view text) {
  EXPECT_FALSE(parsed.ok()) << "accepted: " << text;
  return parsed.ok() ? ConfigError{} : std::move(parsed).error();
}

ProgramConfig config_ok(std::string_view text, ConfigFormat format = ConfigFormat::yaml) {
  return value_of(msb::parse_program_config(text, file_for(format), format));
}

ConfigError config_error(std::string_view text, ConfigFormat format = ConfigFormat::yaml) {
  return error_of(msb::parse_program_config(text, file_for(format), format), text);
}

ConfigNode tree_ok(std::string_view text, ConfigFormat format) {
  return value_of(format == ConfigFormat::json ? msb::parse_json(text) : msb::parse_yaml(text));
}

ConfigError tree_error(std::string_view text, ConfigFormat format) {
  return error_of(format == ConfigFormat::json ? msb::parse_json(text) : msb::parse_yaml(text),
                  text);
}

WorkerDeclaration worker_ok(std::string_view text) {
  return value_of(msb::parse_worker_file(text));
}

ConfigError worker_error(std::string_view text) {
  return error_of(msb::parse_worker_file(text), text);
}

// Where an error is and what it says, compared in one go so a failure shows all of it.
struct Place {
  Place(std::string k, std::uint32_t l, std::uint32_t c)
      : key_path(std::move(k)), line(l), column(c) {}
  std::string key_path;
  std::uint32_t line;
  std::uint32_t column;
  bool operator==(const Place&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Place& p) {
  return os << p.line << ":" << p.column << " [" << p.key_path << "]";
}

Place place_of(const ConfigError& e) {
  return Place{e.key_path, e.line, e.column};
}

std::string describe_policy(const msb::ApprovalRule& a, const msb::FilePolicy& p) {
  std::ostringstream out;
  out << "w=" << msb::approval_name(a.write) << " d=" << msb::approval_name(a.remove);
  if (p.allowed_suffixes) {
    out << " allow=[";
    for (const auto& s : *p.allowed_suffixes) out << s << ";";
    out << "]";
  }
  out << " deny=[";
  for (const auto& s : p.denied_suffixes) out << s << ";";
  out << "]";
  if (p.max_file_bytes) out << " max=" << *p.max_file_bytes;
  return out.str();
}

// Everything but `file`, so that the same config in two formats compares equal.
std::string describe(const ProgramConfig& c) {
  std::ostringstream out;
  out << "dir=" << c.dir << " maxDepth=" << c.max_depth << "\n";
  if (!c.sandbox) return out.str() + "no sandbox\n";
  const msb::ProgramSandbox& s = *c.sandbox;
  out << "layout=" << static_cast<int>(s.layout) << " root=" << s.root << " ro=" << s.readonly
      << " " << describe_policy(s.approval, s.policy) << "\n";
  for (std::size_t i = 0; i < s.mounts.size(); ++i) {
    const msb::MountSpec& m = s.mounts[i];
    out << m.target << " <- " << m.source << " ro=" << m.readonly << " "
        << describe_policy(m.approval, m.policy);
    if (i < s.zones.size()) out << " zone=" << s.zones[i].name;
    out << "\n";
  }
  return out.str();
}

// =============================================================================================
// The document tree

TEST(ConfigTree, YamlPlainScalarsFollowTheCoreSchema) {
  const ConfigNode root = tree_ok(
      "t: true\nT: True\nf: FALSE\nn: null\ntilde: ~\nempty:\nint: 42\nneg: -7\nhex: 0x1F\n"
      "oct: 0o17\nfloat: 1.5e3\ninf: .inf\nyes: yes\nquoted: \"true\"\nsingle: '5'\n"
      "tagged: !!str 12\nword: hello world\n",
      ConfigFormat::yaml);
  ASSERT_EQ(root.kind, NodeKind::map);
  const std::vector<std::pair<std::string, NodeKind>> expected = {
      {"t", NodeKind::boolean},     {"T", NodeKind::boolean},     {"f", NodeKind::boolean},
      {"n", NodeKind::null},        {"tilde", NodeKind::null},    {"empty", NodeKind::null},
      {"int", NodeKind::number},    {"neg", NodeKind::number},    {"hex", NodeKind::number},
      {"oct", NodeKind::number},    {"float", NodeKind::number},  {"inf", NodeKind::number},
      {"yes", NodeKind::string},    {"quoted", NodeKind::string}, {"single", NodeKind::string},
      {"tagged", NodeKind::string}, {"word", NodeKind::string},
  };
  ASSERT_EQ(root.entries.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(root.entries[i].key, expected[i].first);
    EXPECT_EQ(root.entries[i].value.kind, expected[i].second) << expected[i].first;
  }
  EXPECT_TRUE(root.find("t")->value.boolean);
  EXPECT_FALSE(root.find("f")->value.boolean);
  EXPECT_EQ(root.find("hex")->value.text, "0x1F");
  EXPECT_EQ(root.find("quoted")->value.text, "true");
  EXPECT_EQ(root.find("tagged")->value.text, "12");
  EXPECT_EQ(root.find("word")->value.text, "hello world");
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
  const ConfigError y = tree_error("top:\n  a: 1\n  b: 2\n  a: 3\n", ConfigFormat::yaml);
  EXPECT_EQ(place_of(y), Place("top.a", 4, 3));
  EXPECT_EQ(y.expected, "a key not already used in this mapping (first at line 2, column 3)");
  const ConfigError j = tree_error("{\"top\": {\"a\": 1,\n \"a\": 2}}", ConfigFormat::json);
  EXPECT_EQ(place_of(j), Place("top.a", 2, 2));
  EXPECT_EQ(j.expected, "a key not already used in this mapping (first at line 1, column 10)");
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

TEST(ConfigTree, AnchorsAndAliasesAreRefused) {
  const ConfigError anchor = tree_error("a: &x 1\nb: *x\n", ConfigFormat::yaml);
  EXPECT_EQ(place_of(anchor), Place("a", 1, 4));
  EXPECT_EQ(anchor.expected, "no anchors (&name)");
  // The exponential "billion laughs" shape is stopped at its first anchor.
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) laughs += std::string(i ? ", *" : "*") + char(c - 1);
    laughs += "]\n";
  }
  EXPECT_EQ(place_of(tree_error(laughs, ConfigFormat::yaml)), Place("a", 1, 4));
  // An alias to an anchor never defined is yaml-cpp's own error.
  EXPECT_EQ(place_of(tree_error("a: *nowhere\n", ConfigFormat::yaml)), Place("", 1, 4));
  // `<<` merge keys have nothing to merge without aliases; a literal `<<` key is just a key.
  EXPECT_EQ(tree_ok("<<: 1\n", ConfigFormat::yaml).entries.at(0).key, "<<");
}

TEST(ConfigTree, TagsOtherThanStrAreRefused) {
  const ConfigError e = tree_error("a:\n  b: !!bool true\n", ConfigFormat::yaml);
  EXPECT_EQ(place_of(e), Place("a.b", 2, 6));
  EXPECT_EQ(e.expected, "no tag other than !!str");
  EXPECT_EQ(place_of(tree_error("a: !custom x\n", ConfigFormat::yaml)), Place("a", 1, 4));
  EXPECT_EQ(place_of(tree_error("a: !!set {x}\n", ConfigFormat::yaml)), Place("a", 1, 4));
}

TEST(ConfigTree, OneYamlDocumentOnly) {
  const ConfigError e = tree_error("a: 1\n---\nb: 2\n", ConfigFormat::yaml);
  EXPECT_EQ(place_of(e), Place("", 2, 1));
  EXPECT_EQ(e.expected, "a single YAML document");
  // yaml-cpp starts a new document where content stops fitting the first one.
  EXPECT_EQ(place_of(tree_error("- a\nb: c\n", ConfigFormat::yaml)), Place("", 2, 1));
  // An explicit end marker with nothing after it is fine.
  EXPECT_EQ(tree_ok("---\na: 1\n...\n", ConfigFormat::yaml).entries.size(), 1u);
}

TEST(ConfigTree, YamlSyntaxErrorsHavePositions) {
  const ConfigError flow =
      tree_error("sandbox:\n  mounts: [\n    {source: a}\n", ConfigFormat::yaml);
  EXPECT_EQ(place_of(flow), Place("", 4, 1));
  EXPECT_EQ(flow.expected, "valid YAML (end of sequence flow not found)");
  EXPECT_EQ(place_of(tree_error("a: b: c\n", ConfigFormat::yaml)), Place("", 1, 5));
  EXPECT_EQ(place_of(tree_error("a: [1, 2\nb: 1\n", ConfigFormat::yaml)), Place("", 2, 2));
}

TEST(ConfigTree, TabIndentationIsReportedAtTheTab) {
  const ConfigError e = tree_error("sandbox:\n\troot: a\n", ConfigFormat::yaml);
  EXPECT_EQ(place_of(e), Place("", 2, 1));
  EXPECT_EQ(e.expected, "spaces, not tabs, for indentation");
  EXPECT_EQ(place_of(tree_error("a:\n  b: 1\n  \tc: 2\n", ConfigFormat::yaml)), Place("", 3, 3));
  // Tabs elsewhere are fine.
  EXPECT_EQ(tree_ok("a:\t[1,\t2]\n", ConfigFormat::yaml).entries.size(), 1u);
}

TEST(ConfigTree, UnclosedYamlQuotesAreErrors) {
  // yaml-cpp would take the rest of the input as the string.
  EXPECT_EQ(place_of(tree_error("a: 1\nb: \"/data\n", ConfigFormat::yaml)), Place("b", 2, 4));
  EXPECT_EQ(place_of(tree_error("b: 'it''s\n", ConfigFormat::yaml)), Place("b", 1, 4));
  EXPECT_EQ(tree_ok("b: 'it''s'\nc: \"q\\\"\"\n", ConfigFormat::yaml).entries.at(0).value.text,
            "it's");
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
  const ConfigError e = tree_error(over, ConfigFormat::yaml);
  EXPECT_EQ(place_of(e), Place("", 2, static_cast<std::uint32_t>(msb::kMaxConfigBytes - 5 + 1)));
  EXPECT_EQ(e.expected, "a config file of at most 1 MiB");
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

struct JsonSyntaxCase {
  std::string_view text;
  std::uint32_t line;
  std::uint32_t column;
  std::string_view expected;
};

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
  for (const JsonSyntaxCase& c : cases) {
    const ConfigError e = tree_error(c.text, ConfigFormat::json);
    EXPECT_EQ(place_of(e), Place("", c.line, c.column)) << c.text;
    EXPECT_EQ(e.expected, c.expected) << c.text;
  }
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
  for (const JsonSyntaxCase& c : cases) {
    const ConfigError e = tree_error(c.text, ConfigFormat::json);
    EXPECT_EQ(place_of(e), Place("", c.line, c.column)) << c.text;
    EXPECT_EQ(e.expected, c.expected) << c.text;
  }
  const ConfigError deep = tree_error(std::string(70, '[') + "x", ConfigFormat::json);
  EXPECT_EQ(place_of(deep), Place("", 1, 71));
  EXPECT_EQ(deep.expected, "a value");
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

// =============================================================================================
// Program configs: the model

TEST(ProgramConfig, MountFormWithEveryKey) {
  const ProgramConfig c = config_ok(
      "model: anthropic:claude-sonnet-4\n"
      "approval:\n  mode: interactive\n"
      "workerPaths: [workers, more]\n"
      "sandbox:\n"
      "  root: project/./sub/..\n"
      "  readonly: true\n"
      "  approval:\n    write: preApproved\n    delete: blocked\n"
      "  deniedSuffixes: [\".key\", \".PEM\"]\n"
      "  maxFileBytes: 2048\n"
      "  mounts:\n"
      "    - source: ../cache\n"
      "      target: /cache/\n"
      "      readonly: true\n"
      "      allowedSuffixes: [\".JSON\", .tar.gz]\n"
      "      maxFileBytes: 0x400\n"
      "    - {source: /abs/out//x/, target: /out/deep, approval: {delete: preApproved}}\n"
      "delegation:\n  maxDepth: 3\n");
  EXPECT_EQ(c.file, kYamlFile);
  EXPECT_EQ(c.dir, "/proj/cfg");
  EXPECT_EQ(c.max_depth, 3u);
  EXPECT_EQ(c.worker_paths, (std::vector<std::string>{"/proj/cfg/workers", "/proj/cfg/more"}));
  ASSERT_TRUE(c.sandbox.has_value());
  const msb::ProgramSandbox& s = *c.sandbox;
  EXPECT_EQ(s.layout, msb::SandboxLayout::mounts);
  EXPECT_EQ(s.root, "/proj/cfg/project");
  EXPECT_TRUE(s.readonly);
  EXPECT_EQ(describe_policy(s.approval, s.policy),
            "w=preApproved d=blocked deny=[.key;.pem;] max=2048");
  ASSERT_EQ(s.mounts.size(), 2u);
  EXPECT_EQ(s.mounts[0].source, "/proj/cache");
  EXPECT_EQ(s.mounts[0].target, "/cache");
  EXPECT_TRUE(s.mounts[0].readonly);
  EXPECT_EQ(describe_policy(s.mounts[0].approval, s.mounts[0].policy),
            "w=ask d=ask allow=[.json;.tar.gz;] deny=[] max=1024");
  EXPECT_EQ(s.mounts[1].source, "/abs/out/x");
  EXPECT_EQ(s.mounts[1].target, "/out/deep");
  EXPECT_FALSE(s.mounts[1].readonly);
  EXPECT_EQ(describe_policy(s.mounts[1].approval, s.mounts[1].policy),
            "w=ask d=preApproved deny=[]");
  EXPECT_TRUE(s.zones.empty());
}

TEST(ProgramConfig, Defaults) {
  const ProgramConfig c = config_ok("sandbox: {}\n");
  ASSERT_TRUE(c.sandbox.has_value());
  EXPECT_EQ(c.max_depth, 5u);
  // golem-forge's default worker directories.
  EXPECT_EQ(c.worker_paths, (std::vector<std::string>{"/proj/cfg/workers", "/proj/cfg/.workers"}));
  EXPECT_EQ(c.sandbox->root, "/proj/cfg");
  EXPECT_FALSE(c.sandbox->readonly);
  EXPECT_EQ(describe_policy(c.sandbox->approval, c.sandbox->policy), "w=ask d=ask deny=[]");
  EXPECT_TRUE(c.sandbox->mounts.empty());
  // An empty allow list is kept: it allows nothing.
  const ProgramConfig none = config_ok("sandbox:\n  allowedSuffixes: []\n");
  ASSERT_TRUE(none.sandbox->policy.allowed_suffixes.has_value());
  EXPECT_TRUE(none.sandbox->policy.allowed_suffixes->empty());
  // Absolute roots, and roots climbing above "/", are normalized lexically.
  EXPECT_EQ(config_ok("sandbox: {root: /srv//data/}\n").sandbox->root, "/srv/data");
  EXPECT_EQ(config_ok("sandbox: {root: ../../../..}\n").sandbox->root, "/");
}

TEST(ProgramConfig, NoSandboxSectionMeansNoFileAccess) {
  for (std::string_view text : {"", "# nothing yet\n", "\n  \n", "~\n", "model: m\n"}) {
    const ProgramConfig c = config_ok(text);
    EXPECT_FALSE(c.sandbox.has_value()) << text;
    EXPECT_EQ(c.max_depth, 5u);
  }
  EXPECT_FALSE(config_ok("{}", ConfigFormat::json).sandbox.has_value());
  EXPECT_FALSE(config_ok("null", ConfigFormat::json).sandbox.has_value());
}

TEST(ProgramConfig, ZoneFormSandboxed) {
  const ProgramConfig c = config_ok(
      "sandbox:\n"
      "  zones:\n"
      "    data: {path: data, mode: rw}\n"
      "    refs:\n      path: lib/refs\n      mode: ro\n"
      "    scratch:\n"
      "    notes:\n      approval: {write: preApproved}\n      allowedSuffixes: [.MD]\n"
      "      deniedSuffixes: [.tmp]\n      maxFileBytes: 100\n");
  ASSERT_TRUE(c.sandbox.has_value());
  const msb::ProgramSandbox& s = *c.sandbox;
  EXPECT_EQ(s.layout, msb::SandboxLayout::zones_sandboxed);
  EXPECT_EQ(s.root, "");
  EXPECT_EQ(describe(c),
            "dir=/proj/cfg maxDepth=5\n"
            "layout=1 root= ro=0 w=ask d=ask deny=[]\n"
            "/data <- /proj/cfg/.sandbox/data ro=0 w=ask d=ask deny=[] zone=data\n"
            "/refs <- /proj/cfg/.sandbox/lib/refs ro=1 w=ask d=ask deny=[] zone=refs\n"
            "/scratch <- /proj/cfg/.sandbox/scratch ro=0 w=ask d=ask deny=[] zone=scratch\n"
            "/notes <- /proj/cfg/.sandbox/notes ro=0 w=preApproved d=ask allow=[.md;] "
            "deny=[.tmp;] max=100 zone=notes\n");
  // A root of its own, and sandbox-wide readonly.
  const ProgramConfig r = config_ok(
      "sandbox:\n  mode: sandboxed\n  root: ../box\n  readonly: true\n  zones:\n    d: {path: "
      "x/.}\n");
  ASSERT_EQ(r.sandbox->mounts.size(), 1u);
  EXPECT_EQ(r.sandbox->mounts[0].source, "/proj/box/x");
  EXPECT_TRUE(r.sandbox->mounts[0].readonly);
  EXPECT_TRUE(r.sandbox->readonly);
  EXPECT_EQ(r.sandbox->zones.at(0).name, "d");
}

TEST(ProgramConfig, ZoneFormDirect) {
  const ProgramConfig c = config_ok(
      "sandbox:\n  mode: direct\n  zones:\n    workspace: {path: ., mode: rw}\n"
      "    up: {path: ../elsewhere, mode: ro}\n    abs: {path: /srv/abs}\n    same: {}\n");
  ASSERT_TRUE(c.sandbox.has_value());
  EXPECT_EQ(describe(c),
            "dir=/proj/cfg maxDepth=5\n"
            "layout=2 root= ro=0 w=ask d=ask deny=[]\n"
            "/workspace <- /proj/cfg ro=0 w=ask d=ask deny=[] zone=workspace\n"
            "/up <- /proj/elsewhere ro=1 w=ask d=ask deny=[] zone=up\n"
            "/abs <- /srv/abs ro=0 w=ask d=ask deny=[] zone=abs\n"
            "/same <- /proj/cfg/same ro=0 w=ask d=ask deny=[] zone=same\n");
}

TEST(ProgramConfig, YamlAndJsonGiveTheSameModel) {
  const std::string_view yaml =
      "model: anthropic:claude-sonnet-4\n"
      "approval: {mode: approve_all}\n"
      "workerPaths: [workers]\n"
      "sandbox:\n"
      "  root: project\n"
      "  readonly: true\n"
      "  approval: {write: blocked}\n"
      "  allowedSuffixes: [\".ts\", \".md\"]\n"
      "  mounts:\n"
      "    - {source: ../cache, target: /cache, readonly: true, maxFileBytes: 10}\n"
      "    - source: out\n"
      "      target: /out/deep\n"
      "      approval: {delete: preApproved}\n"
      "      deniedSuffixes: [\".exe\"]\n"
      "delegation: {maxDepth: 7}\n";
  const std::string_view json = R"({
    "model": "anthropic:claude-sonnet-4",
    "approval": {"mode": "approve_all"},
    "workerPaths": ["workers"],
    "sandbox": {
      "root": "project",
      "readonly": true,
      "approval": {"write": "blocked"},
      "allowedSuffixes": [".ts", ".md"],
      "mounts": [
        {"source": "../cache", "target": "/cache", "readonly": true, "maxFileBytes": 10},
        {"source": "out", "target": "/out/deep", "approval": {"delete": "preApproved"},
         "deniedSuffixes": [".exe"]}
      ]
    },
    "delegation": {"maxDepth": 7}
  })";
  const ProgramConfig y = config_ok(yaml);
  const ProgramConfig j = config_ok(json, ConfigFormat::json);
  EXPECT_EQ(describe(j), describe(y));
  EXPECT_EQ(y.max_depth, 7u);
  ASSERT_EQ(y.sandbox->mounts.size(), 2u);

  const ProgramConfig zy = config_ok(
      "sandbox:\n  mode: direct\n  zones:\n    a: {path: x, mode: ro}\n"
      "    b: {path: y, approval: {write: preApproved}}\n");
  const ProgramConfig zj = config_ok(
      R"({"sandbox": {"mode": "direct", "zones": {"a": {"path": "x", "mode": "ro"},
          "b": {"path": "y", "approval": {"write": "preApproved"}}}}})",
      ConfigFormat::json);
  EXPECT_EQ(describe(zj), describe(zy));
  EXPECT_EQ(zy.sandbox->mounts.size(), 2u);
}

TEST(ProgramConfig, TheConfigFileMustBeAbsolute) {
  for (std::string_view file : {"", "golem-forge.config.yaml", "./x.yaml"}) {
    auto parsed = msb::parse_program_config("sandbox: {}\n", file, ConfigFormat::yaml);
    ASSERT_FALSE(parsed.ok()) << file;
    const ConfigError& e = parsed.error();
    EXPECT_EQ(place_of(e), Place("", 0, 0));
    EXPECT_EQ(e.expected, "an absolute config file path");
  }
  auto parsed =
      msb::parse_program_config("sandbox: {}\n", "/golem-forge.config.yaml", ConfigFormat::yaml);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().dir, "/");
  EXPECT_EQ(parsed.value().sandbox->root, "/");
}

// =============================================================================================
// Program configs: every mistake at its exact place

struct ErrorCase {
  const char* name;
  ConfigFormat format;
  std::string_view text;
  std::string_view key_path;
  std::uint32_t line;
  std::uint32_t column;
  std::string_view expected;  // the whole phrase, or its beginning when it ends in "..."
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class ConfigErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConfigErrors, AreReportedWhereTheyAreWritten) {
  const ErrorCase& c = GetParam();
  const ConfigError e = config_error(c.text, c.format);
  EXPECT_EQ(place_of(e), Place(std::string(c.key_path), c.line, c.column)) << c.text;
  std::string_view expected = c.expected;
  if (expected.size() > 3 && expected.substr(expected.size() - 3) == "...") {
    expected.remove_suffix(3);
    EXPECT_EQ(e.expected.substr(0, expected.size()), expected) << e.expected;
  } else {
    EXPECT_EQ(e.expected, expected);
  }
}

constexpr ConfigFormat Y = ConfigFormat::yaml;
constexpr ConfigFormat J = ConfigFormat::json;

const ErrorCase kErrorCases[] = {
    // wrong types
    {"readonly_quoted", Y, "sandbox:\n  readonly: \"yes\"\n", "sandbox.readonly", 2, 13,
     "a boolean"},
    {"readonly_quoted_json", J, "{\n  \"sandbox\": {\n    \"readonly\": \"yes\"\n  }\n}",
     "sandbox.readonly", 3, 17, "a boolean"},
    {"readonly_one", Y, "sandbox:\n  readonly: 1\n", "sandbox.readonly", 2, 13, "a boolean"},
    {"readonly_yaml11_yes", Y, "sandbox:\n  readonly: yes\n", "sandbox.readonly", 2, 13,
     "a boolean"},
    {"readonly_empty_points_at_key", Y, "sandbox:\n  readonly:\n  root: x\n", "sandbox.readonly", 2,
     3, "a boolean"},
    {"mount_readonly_string", J,
     "{\"sandbox\": {\"mounts\": [\n  {\"source\": \"a\", \"target\": \"/a\"},\n"
     "  {\"source\": \"b\", \"target\": \"/b\", \"readonly\": \"true\"}\n]}}",
     "sandbox.mounts[1].readonly", 3, 47, "a boolean"},
    {"max_depth_negative", Y, "delegation:\n  maxDepth: -1\n", "delegation.maxDepth", 2, 13,
     "an integer from 1 to 100"},
    {"max_depth_zero", J, "{\"delegation\": {\"maxDepth\": 0}}", "delegation.maxDepth", 1, 29,
     "an integer from 1 to 100"},
    {"max_depth_over", Y, "delegation:\n  maxDepth: 101\n", "delegation.maxDepth", 2, 13,
     "an integer from 1 to 100"},
    {"max_depth_string", Y, "delegation:\n  maxDepth: \"3\"\n", "delegation.maxDepth", 2, 13,
     "an integer from 1 to 100"},
    {"max_depth_fraction", J, "{\"delegation\": {\"maxDepth\": 1.5}}", "delegation.maxDepth", 1, 29,
     "an integer from 1 to 100"},
    {"max_depth_huge", J, "{\"delegation\": {\"maxDepth\": 99999999999999999999999}}",
     "delegation.maxDepth", 1, 29, "an integer from 1 to 100"},
    {"max_file_bytes_over_2_53", Y, "sandbox:\n  maxFileBytes: 9007199254740993\n",
     "sandbox.maxFileBytes", 2, 17, "an integer from 1 to 9007199254740992"},
    {"max_file_bytes_negative", Y, "sandbox:\n  maxFileBytes: -5\n", "sandbox.maxFileBytes", 2, 17,
     "an integer from 1 to 9007199254740992"},
    {"max_file_bytes_string", J,
     "{\"sandbox\": {\"mounts\": [{\"source\": \"a\", \"target\": \"/a\", \"maxFileBytes\": "
     "\"10\"}]}}",
     "sandbox.mounts[0].maxFileBytes", 1, 73, "an integer from 1 to 9007199254740992"},
    {"suffixes_not_a_list", Y, "sandbox:\n  allowedSuffixes: .md\n", "sandbox.allowedSuffixes", 2,
     20, "a list"},
    {"suffix_without_dot", Y, "sandbox:\n  deniedSuffixes: [\".pem\", \"key\"]\n",
     "sandbox.deniedSuffixes[1]", 2, 28, "a file suffix starting with a dot, like .md"},
    {"suffix_only_dot", J, "{\"sandbox\": {\"deniedSuffixes\": [\".\"]}}",
     "sandbox.deniedSuffixes[0]", 1, 33, "a file suffix starting with a dot, like .md"},
    {"suffix_with_slash", Y, "sandbox:\n  allowedSuffixes: [\".a/b\"]\n",
     "sandbox.allowedSuffixes[0]", 2, 21, "a file suffix starting with a dot, like .md"},
    {"mounts_not_a_list", Y, "sandbox:\n  mounts: /data\n", "sandbox.mounts", 2, 11, "a list"},
    {"mount_not_a_map", Y, "sandbox:\n  mounts:\n    - /data\n", "sandbox.mounts[0]", 3, 7,
     "a mapping with source and target"},
    {"target_not_a_string", J, "{\"sandbox\": {\"mounts\": [{\"source\": \"a\", \"target\": 5}]}}",
     "sandbox.mounts[0].target", 1, 51, "an absolute normalized virtual path other than /, ..."},
    {"source_empty", Y, "sandbox:\n  mounts:\n    - {source: \"\", target: /a}\n",
     "sandbox.mounts[0].source", 3, 16, "a non-empty path string"},
    {"root_not_a_string", Y, "sandbox:\n  root: [a]\n", "sandbox.root", 2, 9,
     "a non-empty path string"},
    {"sandbox_not_a_map", Y, "sandbox: yes\n", "sandbox", 1, 10, "a mapping"},
    {"sandbox_list", J, "{\"sandbox\": [1]}", "sandbox", 1, 13, "a mapping"},
    {"sandbox_false", Y, "sandbox: false\n", "sandbox", 1, 10, "a mapping"},
    {"sandbox_null_json", J, "{\"sandbox\": null}", "sandbox", 1, 13, "a mapping"},
    {"sandbox_empty_yaml", Y, "sandbox:\n", "sandbox", 1, 1, "a mapping"},
    {"top_level_list", Y, "- sandbox\n", "", 1, 1, "a mapping"},
    {"top_level_list_json", J, "[]", "", 1, 1, "a mapping"},
    {"top_level_scalar", Y, "\n  hello\n", "", 2, 3, "a mapping"},
    {"worker_paths_item", Y, "workerPaths: [a, [b]]\n", "workerPaths[1]", 1, 18, "a string"},
    {"worker_paths_not_list", Y, "workerPaths: a\n", "workerPaths", 1, 14, "a list"},
    {"model_number", J, "{\"model\": 4}", "model", 1, 11, "a string"},
    {"delegation_not_map", Y, "delegation: 5\n", "delegation", 1, 13, "a mapping"},
    {"approval_not_map", Y, "sandbox:\n  approval: ask\n", "sandbox.approval", 2, 13,
     "a mapping with write and delete"},
    // unknown keys
    {"unknown_top", Y, "sandbox: {}\nsandbx:\n  root: x\n", "sandbx", 2, 1,
     "a known key (allowed: sandbox, delegation, model, approval, workerPaths)"},
    {"unknown_top_json", J, "{\n  \"sandbox\": {},\n  \"sandbx\": {}\n}", "sandbx", 3, 3,
     "a known key (allowed: ..."},
    {"unknown_sandbox_key", Y, "sandbox:\n  readOnly: true\n", "sandbox.readOnly", 2, 3,
     "a known key (allowed: root, readonly, mounts, approval, allowedSuffixes, deniedSuffixes, "
     "maxFileBytes, zones, mode)"},
    {"unknown_mount_key", Y,
     "sandbox:\n  mounts:\n    - source: a\n      target: /a\n      readOnly: true\n",
     "sandbox.mounts[0].readOnly", 5, 7,
     "a known key (allowed: source, target, readonly, approval, allowedSuffixes, "
     "deniedSuffixes, maxFileBytes)"},
    {"unknown_approval_key", Y, "sandbox:\n  approval:\n    write: ask\n    remove: blocked\n",
     "sandbox.approval.remove", 4, 5, "a known key (allowed: write, delete)"},
    {"unknown_top_approval_key", Y, "approval:\n  mode: interactive\n  write: ask\n",
     "approval.write", 3, 3, "a known key (allowed: mode)"},
    {"unknown_zone_key", Y, "sandbox:\n  zones:\n    data:\n      path: d\n      readonly: true\n",
     "sandbox.zones.data.readonly", 5, 7,
     "a known key (allowed: path, mode, approval, allowedSuffixes, deniedSuffixes, "
     "maxFileBytes)"},
    {"unknown_delegation_key", J, "{\"delegation\": {\"maxDepth\": 2, \"depth\": 3}}",
     "delegation.depth", 1, 32, "a known key (allowed: maxDepth)"},
    {"mode_without_zones", Y, "sandbox:\n  mode: direct\n  mounts: []\n", "sandbox.mode", 2, 3,
     "zones alongside mode (mode says where zones live)"},
    {"policy_key_in_zone_form", Y, "sandbox:\n  approval: {write: ask}\n  zones: {}\n",
     "sandbox.approval", 2, 3, "a key of the zone form (allowed: zones, mode, root, readonly)..."},
    // mounts
    {"duplicate_target", Y,
     "sandbox:\n  mounts:\n    - source: a\n      target: /data\n    - source: b\n"
     "      target: /data\n",
     "sandbox.mounts[1].target", 6, 15,
     "a target not already mounted (/data is mounted by sandbox.mounts[0])"},
    {"duplicate_target_trailing_slash", J,
     "{\"sandbox\": {\"mounts\": [\n  {\"source\": \"a\", \"target\": \"/data\"},\n"
     "  {\"source\": \"b\", \"target\": \"/data/\"}\n]}}",
     "sandbox.mounts[1].target", 3, 29,
     "a target not already mounted (/data is mounted by sandbox.mounts[0])"},
    {"target_relative", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"data\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"target_dotdot", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"/a/../b\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"target_root", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"/\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"target_empty_segment", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"/a//b\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"missing_source", Y, "sandbox:\n  mounts:\n    - {target: /a}\n", "sandbox.mounts[0].source",
     3, 7, "a source path (required)"},
    {"missing_target", Y, "sandbox:\n  mounts:\n    - source: a\n      readonly: true\n",
     "sandbox.mounts[0].target", 3, 7, "a target like /data (required)"},
    // duplicate keys
    {"duplicate_key", Y, "sandbox:\n  root: a\n  root: b\n", "sandbox.root", 3, 3,
     "a key not already used in this mapping (first at line 2, column 3)"},
    {"duplicate_top_key", Y, "sandbox: {}\nsandbox: {}\n", "sandbox", 2, 1,
     "a key not already used in this mapping (first at line 1, column 1)"},
    {"duplicate_key_json", J, "{\"sandbox\": {\"root\": \"a\",\n \"root\": \"b\"}}", "sandbox.root",
     2, 2, "a key not already used in this mapping (first at line 1, column 14)"},
    {"duplicate_key_in_flow", Y, "sandbox:\n  mounts:\n    - {source: a, target: /a, source: b}\n",
     "sandbox.mounts[0].source", 3, 31,
     "a key not already used in this mapping (first at line 3, column 8)"},
    // zones
    {"zone_name_slash", Y, "sandbox:\n  zones:\n    a/b: {path: x}\n", "sandbox.zones.a/b", 3, 5,
     "a zone name that is one path component (not empty, no /, not . or ..)"},
    {"zone_name_slash_json", J, "{\"sandbox\": {\"zones\": {\"a/b\": {\"path\": \"x\"}}}}",
     "sandbox.zones.a/b", 1, 24, "a zone name that is one path component..."},
    {"zone_name_dotdot", Y, "sandbox:\n  zones:\n    \"..\": {path: x}\n", "sandbox.zones...", 3, 5,
     "a zone name that is one path component..."},
    {"zone_name_dot", Y, "sandbox:\n  zones:\n    .: {}\n", "sandbox.zones..", 3, 5,
     "a zone name that is one path component..."},
    {"zone_name_empty", J, "{\"sandbox\": {\"zones\": {\"\": {\"path\": \"x\"}}}}",
     "sandbox.zones.", 1, 24, "a zone name that is one path component..."},
    {"zone_bad_mode", Y, "sandbox:\n  zones:\n    data: {path: d, mode: rwx}\n",
     "sandbox.zones.data.mode", 3, 27, "one of ro, rw"},
    {"zone_bad_mode_json", J,
     "{\"sandbox\": {\"zones\": {\"data\": {\"path\": \"d\", \"mode\": \"write\"}}}}",
     "sandbox.zones.data.mode", 1, 54, "one of ro, rw"},
    {"sandbox_bad_mode", Y, "sandbox:\n  mode: chroot\n  zones:\n    data: {path: d}\n",
     "sandbox.mode", 2, 9, "one of sandboxed, direct"},
    {"zone_path_escapes", Y, "sandbox:\n  zones:\n    data:\n      path: ../x\n",
     "sandbox.zones.data.path", 4, 13, "a relative path that stays inside the sandbox root"},
    {"zone_path_escapes_json", J, "{\"sandbox\": {\"zones\": {\"data\": {\"path\": \"../x\"}}}}",
     "sandbox.zones.data.path", 1, 41, "a relative path that stays inside the sandbox root"},
    {"zone_path_absolute", Y, "sandbox:\n  zones:\n    data: {path: /etc}\n",
     "sandbox.zones.data.path", 3, 18, "a relative path that stays inside the sandbox root"},
    {"zone_path_escapes_late", Y, "sandbox:\n  zones:\n    data: {path: a/../../x}\n",
     "sandbox.zones.data.path", 3, 18, "a relative path that stays inside the sandbox root"},
    {"zone_path_empty", Y, "sandbox:\n  mode: direct\n  zones:\n    data: {path: ''}\n",
     "sandbox.zones.data.path", 4, 18, "a non-empty path string"},
    {"direct_mode_with_root", Y, "sandbox:\n  mode: direct\n  root: x\n  zones: {}\n",
     "sandbox.root", 3, 3, "no root in direct mode (zone paths are relative to the config file)"},
    {"mounts_then_zones", Y,
     "sandbox:\n  mounts:\n    - {source: a, target: /a}\n  zones:\n    data: {path: d}\n",
     "sandbox.zones", 4, 3, "either mounts or zones, not both"},
    {"zones_then_mounts", J,
     "{\"sandbox\": {\"zones\": {\"data\": {\"path\": \"d\"}},\n\"mounts\": []}}", "sandbox.mounts",
     2, 1, "either mounts or zones, not both"},
    {"zones_not_a_map", Y, "sandbox:\n  zones: [a]\n", "sandbox.zones", 2, 10,
     "a mapping of zone names to zone settings"},
    {"zone_not_a_map", Y, "sandbox:\n  zones:\n    data: ro\n", "sandbox.zones.data", 3, 11,
     "a mapping"},
    // approvals
    {"bad_approval", Y, "sandbox:\n  approval:\n    write: always\n", "sandbox.approval.write", 3,
     12, "one of preApproved, ask, blocked"},
    {"bad_approval_json", J,
     "{\"sandbox\": {\"mounts\": [{\"source\": \"a\", \"target\": \"/a\", \"approval\": "
     "{\"delete\": "
     "\"no\"}}]}}",
     "sandbox.mounts[0].approval.delete", 1, 80, "one of preApproved, ask, blocked"},
    {"approval_case_matters", Y,
     "sandbox:\n  zones:\n    z:\n      path: z\n      approval: {write: PreApproved}\n",
     "sandbox.zones.z.approval.write", 5, 25, "one of preApproved, ask, blocked"},
    {"approval_mode", Y, "approval:\n  mode: yolo\n", "approval.mode", 2, 9,
     "one of interactive, approve_all, auto_deny"},
    // syntax, reported by the tree with key_path ""
    {"json_for_yaml", J, "sandbox:\n  root: r\n", "", 1, 1, "a value"},
    {"yaml_tab", Y, "sandbox:\n\troot: a\n", "", 2, 1, "spaces, not tabs, for indentation"},
    {"bom_and_comments", Y, "\xEF\xBB\xBF# header\n\n# more\nsandbox:\n  readonly: 1\n",
     "sandbox.readonly", 5, 13, "a boolean"},
};

INSTANTIATE_TEST_SUITE_P(Cases, ConfigErrors, ::testing::ValuesIn(kErrorCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& c) {
                           return std::string(c.param.name);
                         });

// =============================================================================================
// Worker files

TEST(WorkerFile, NoFrontmatterInheritsTheParentsSandbox) {
  for (std::string_view text :
       {"", "Just instructions.\n", "----\nname: x\n---\n", " ---\n---\n"}) {
    const WorkerDeclaration w = worker_ok(text);
    EXPECT_EQ(w.kind, WorkerSandboxKind::inherit) << text;
    EXPECT_EQ(w.name, "") << text;
  }
  const WorkerDeclaration w = worker_ok("---\nname: editor\ndescription: d\n---\nBody.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::inherit);
  EXPECT_EQ(w.name, "editor");
  EXPECT_EQ(worker_ok("---\nsandbox:\n---\n").kind, WorkerSandboxKind::inherit);
  EXPECT_EQ(worker_ok("---\n---\n").kind, WorkerSandboxKind::inherit);
}

TEST(WorkerFile, SandboxFalseIsAPureFunction) {
  const WorkerDeclaration w = worker_ok("---\nname: validator\nsandbox: false\n---\nValidate.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::none);
  EXPECT_EQ(w.name, "validator");
  EXPECT_EQ(worker_ok("---\nsandbox:\n  zones: []\n---\n").kind, WorkerSandboxKind::none);
}

TEST(WorkerFile, RestrictReadonlyAndApprovals) {
  const WorkerDeclaration w = worker_ok(
      "---\nname: reviewer\nsandbox:\n  restrict: /src/./lib/..//\n  readonly: true\n"
      "  approval: {write: blocked, delete: preApproved}\n---\nReview.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::restrict);
  EXPECT_EQ(w.restrict, "/src");
  EXPECT_EQ(w.readonly, true);
  EXPECT_EQ(w.approve_write, msb::Approval::blocked);
  EXPECT_EQ(w.approve_delete, msb::Approval::pre_approved);
  EXPECT_TRUE(w.zones.empty());

  const WorkerDeclaration only = worker_ok("---\nsandbox:\n  approval:\n    write: ask\n---\n");
  EXPECT_EQ(only.kind, WorkerSandboxKind::restrict);
  EXPECT_FALSE(only.restrict.has_value());
  EXPECT_FALSE(only.readonly.has_value());
  EXPECT_EQ(only.approve_write, msb::Approval::ask);
  EXPECT_FALSE(only.approve_delete.has_value());

  const WorkerDeclaration same = worker_ok("---\nsandbox: {}\n---\n");
  EXPECT_EQ(same.kind, WorkerSandboxKind::restrict);
  EXPECT_FALSE(same.restrict || same.readonly || same.approve_write || same.approve_delete);
  EXPECT_EQ(worker_ok("---\nsandbox: {readonly: false}\n---\n").readonly, false);
}

TEST(WorkerFile, Zones) {
  const WorkerDeclaration w = worker_ok(
      "---\nname: analyst\nsandbox:\n  zones:\n    - name: data\n      mode: ro\n"
      "    - {name: work}\n  approval: {write: preApproved}\n---\nAnalyse.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::zones);
  ASSERT_EQ(w.zones.size(), 2u);
  EXPECT_EQ(w.zones[0].name, "data");
  EXPECT_TRUE(w.zones[0].readonly);
  EXPECT_EQ(Place("", w.zones[0].line, w.zones[0].column), Place("", 5, 7));
  EXPECT_EQ(w.zones[1].name, "work");
  EXPECT_FALSE(w.zones[1].readonly);
  EXPECT_EQ(Place("", w.zones[1].line, w.zones[1].column), Place("", 7, 7));
  EXPECT_EQ(w.approve_write, msb::Approval::pre_approved);
}

TEST(WorkerFile, OtherKeysBelongToTheAgentFramework) {
  const WorkerDeclaration w = worker_ok(
      "---\nname: 5\ndescription: [1, 2]\ntools: {read: true}\nmodel: ~\nsandbox: false\n---\n");
  EXPECT_EQ(w.name, "");  // not a string: not ours to complain about
  EXPECT_EQ(w.kind, WorkerSandboxKind::none);
}

TEST(WorkerFile, FrontmatterDelimiters) {
  // A byte order mark, trailing blanks, CRLF line ends and "..." as the closing line.
  const WorkerDeclaration w =
      worker_ok("\xEF\xBB\xBF---  \r\nname: x\r\nsandbox: false\r\n...\r\nBody\r\n---\r\n");
  EXPECT_EQ(w.name, "x");
  EXPECT_EQ(w.kind, WorkerSandboxKind::none);
  // Only the first closing line counts; a later "---" belongs to the instructions.
  EXPECT_EQ(worker_ok("---\nname: a\n---\nsandbox: false\n---\n").kind, WorkerSandboxKind::inherit);
  // The file may end at the closing line.
  EXPECT_EQ(worker_ok("---\nsandbox: false\n---").kind, WorkerSandboxKind::none);
}

TEST(WorkerFile, UnclosedFrontmatter) {
  for (std::string_view text : {"---", "---\n", "---\nname: x\n", "---\nname: x\n-- -\n"}) {
    const ConfigError e = worker_error(text);
    EXPECT_EQ(place_of(e), Place("", 1, 1)) << text;
    EXPECT_EQ(e.expected, "a closing --- line after the frontmatter");
  }
}

struct WorkerErrorCase {
  const char* name;
  std::string_view text;
  std::string_view key_path;
  std::uint32_t line;
  std::uint32_t column;
  std::string_view expected;
};

void PrintTo(const WorkerErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class WorkerErrors : public ::testing::TestWithParam<WorkerErrorCase> {};

TEST_P(WorkerErrors, AreReportedWithFileLineNumbers) {
  const WorkerErrorCase& c = GetParam();
  const ConfigError e = worker_error(c.text);
  EXPECT_EQ(place_of(e), Place(std::string(c.key_path), c.line, c.column)) << c.text;
  EXPECT_EQ(e.expected, c.expected);
}

const WorkerErrorCase kWorkerErrorCases[] = {
    {"sandbox_true", "---\nsandbox: true\n---\n", "sandbox", 2, 10, "false or a mapping"},
    {"sandbox_list", "---\nname: x\nsandbox: [a]\n---\n", "sandbox", 3, 10, "false or a mapping"},
    {"sandbox_string", "---\nsandbox: none\n---\n", "sandbox", 2, 10, "false or a mapping"},
    {"not_a_map", "---\n- a\n---\n", "", 2, 1, "a mapping"},
    {"unknown_key", "---\nsandbox:\n  readOnly: true\n---\n", "sandbox.readOnly", 3, 3,
     "a known key (allowed: restrict, readonly, approval, zones)"},
    {"restrict_relative", "---\nsandbox:\n  restrict: src\n---\n", "sandbox.restrict", 3, 13,
     "an absolute virtual path like /src"},
    {"restrict_escapes", "---\nsandbox:\n  restrict: /a/../..\n---\n", "sandbox.restrict", 3, 13,
     "an absolute virtual path like /src"},
    {"restrict_not_string", "---\nsandbox:\n  restrict: [/a]\n---\n", "sandbox.restrict", 3, 13,
     "an absolute virtual path like /src"},
    {"readonly_string", "---\nsandbox:\n  readonly: \"true\"\n---\n", "sandbox.readonly", 3, 13,
     "a boolean"},
    {"bad_approval", "---\nsandbox:\n  approval: {write: yes}\n---\n", "sandbox.approval.write", 3,
     21, "one of preApproved, ask, blocked"},
    {"unknown_approval", "---\nsandbox:\n  approval: {read: ask}\n---\n", "sandbox.approval.read",
     3, 14, "a known key (allowed: write, delete)"},
    {"zones_not_list", "---\nsandbox:\n  zones: {data: ro}\n---\n", "sandbox.zones", 3, 10,
     "a list"},
    {"zone_not_map", "---\nsandbox:\n  zones: [data]\n---\n", "sandbox.zones[0]", 3, 11,
     "a mapping with name and mode"},
    {"zone_missing_name", "---\nsandbox:\n  zones:\n    - mode: ro\n---\n", "sandbox.zones[0].name",
     4, 7, "a zone name (required)"},
    {"zone_bad_name", "---\nsandbox:\n  zones:\n    - name: a/b\n---\n", "sandbox.zones[0].name", 4,
     13, "a zone name that is one path component (not empty, no /, not . or ..)"},
    {"zone_bad_mode", "---\nsandbox:\n  zones:\n    - {name: a, mode: rx}\n---\n",
     "sandbox.zones[0].mode", 4, 23, "one of ro, rw"},
    {"zone_unknown_key", "---\nsandbox:\n  zones:\n    - {name: a, path: x}\n---\n",
     "sandbox.zones[0].path", 4, 17, "a known key (allowed: name, mode)"},
    {"duplicate_zone",
     "---\nsandbox:\n  zones:\n    - name: a\n    - {name: b}\n    - name: a\n---\n",
     "sandbox.zones[2].name", 6, 13, "a zone not already listed (a is sandbox.zones[0])"},
    {"zones_with_restrict", "---\nsandbox:\n  restrict: /a\n  zones: [{name: a}]\n---\n",
     "sandbox.zones", 4, 3, "either zones or restrict/readonly, not both"},
    {"zones_then_readonly", "---\nsandbox:\n  zones: [{name: a}]\n  readonly: true\n---\n",
     "sandbox.readonly", 4, 3, "either zones or restrict/readonly, not both"},
    {"duplicate_key", "---\nname: a\nname: b\n---\n", "name", 3, 1,
     "a key not already used in this mapping (first at line 2, column 1)"},
    {"yaml_syntax", "---\nname: a\nsandbox: [\n---\n", "", 4, 1,
     "valid YAML (end of sequence flow not found)"},
    {"after_bom", "\xEF\xBB\xBF---\n\n\nsandbox: 1\n---\n", "sandbox", 4, 10, "false or a mapping"},
};

INSTANTIATE_TEST_SUITE_P(Cases, WorkerErrors, ::testing::ValuesIn(kWorkerErrorCases),
                         [](const ::testing::TestParamInfo<WorkerErrorCase>& c) {
                           return std::string(c.param.name);
                         });

}  // namespace
