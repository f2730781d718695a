// What only the YAML reader has to handle: the core schema, anchors, tags, documents.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config_test_util.h"

namespace msb_test {
namespace {

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
  expect_tree_error("a:\n  b: !!bool true\n", ConfigFormat::yaml, Place("a.b", 2, 6),
                    "no tag other than !!str");
  EXPECT_EQ(place_of(tree_error("a: !custom x\n", ConfigFormat::yaml)), Place("a", 1, 4));
  EXPECT_EQ(place_of(tree_error("a: !!set {x}\n", ConfigFormat::yaml)), Place("a", 1, 4));
}

TEST(ConfigTree, OneYamlDocumentOnly) {
  expect_tree_error("a: 1\n---\nb: 2\n", ConfigFormat::yaml, Place("", 2, 1),
                    "a single YAML document");
  // yaml-cpp starts a new document where content stops fitting the first one.
  EXPECT_EQ(place_of(tree_error("- a\nb: c\n", ConfigFormat::yaml)), Place("", 2, 1));
  // An explicit end marker with nothing after it is fine.
  EXPECT_EQ(tree_ok("---\na: 1\n...\n", ConfigFormat::yaml).entries.size(), 1u);
}

TEST(ConfigTree, YamlSyntaxErrorsHavePositions) {
  expect_tree_error("sandbox:\n  mounts: [\n    {source: a}\n", ConfigFormat::yaml, Place("", 4, 1),
                    "valid YAML (end of sequence flow not found)");
  EXPECT_EQ(place_of(tree_error("a: b: c\n", ConfigFormat::yaml)), Place("", 1, 5));
  EXPECT_EQ(place_of(tree_error("a: [1, 2\nb: 1\n", ConfigFormat::yaml)), Place("", 2, 2));
}

TEST(ConfigTree, TabIndentationIsReportedAtTheTab) {
  expect_tree_error("sandbox:\n\troot: a\n", ConfigFormat::yaml, Place("", 2, 1),
                    "spaces, not tabs, for indentation");
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

}  // namespace
}  // namespace msb_test
