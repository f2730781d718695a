#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/ignore_rules.h"
#include "search/line_matcher.h"
#include "search/unicode_classes.h"

namespace {

using msb::IgnoreRules;
using msb::LineMatcher;

TEST(IgnoreRulesTest, NamesAtAnyDepthPathsFromTheFileDirectoriesOnlyAndNegation) {
  const IgnoreRules rules =
      IgnoreRules::parse("# comment\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.md\n\n");
  EXPECT_EQ(rules.verdict("a/b/x.log", "x.log", false), true);
  EXPECT_EQ(rules.verdict("a/keep.log", "keep.log", false), false);
  EXPECT_EQ(rules.verdict("build", "build", true), true);
  EXPECT_EQ(rules.verdict("build", "build", false), std::nullopt);  // a file named build
  EXPECT_EQ(rules.verdict("top.txt", "top.txt", false), true);
  EXPECT_EQ(rules.verdict("sub/top.txt", "top.txt", false), std::nullopt);
  EXPECT_EQ(rules.verdict("docs/a.md", "a.md", false), true);
  EXPECT_EQ(rules.verdict("docs/sub/a.md", "a.md", false), std::nullopt);
}

TEST(IgnoreRulesTest, EscapesTrailingSpacesAndCrlf) {
  const IgnoreRules rules = IgnoreRules::parse("\\#hash\r\nspaced   \n\\!bang\n");
  EXPECT_EQ(rules.verdict("#hash", "#hash", false), true);
  EXPECT_EQ(rules.verdict("spaced", "spaced", false), true);
  EXPECT_EQ(rules.verdict("!bang", "!bang", false), true);
}

TEST(IgnoreRulesTest, WildcardsMatchNamesThatBeginWithADotAsGitDoes) {
  const IgnoreRules rules = IgnoreRules::parse("*.bak\n*rc\n**/cache/\n");
  EXPECT_EQ(rules.verdict(".x.bak", ".x.bak", false), true);
  EXPECT_EQ(rules.verdict("a/.bashrc", ".bashrc", false), true);
  EXPECT_EQ(rules.verdict(".config/cache", "cache", true), true);
}

std::vector<std::size_t> lines(std::string_view pattern, std::string_view text,
                               bool literal = false, bool invert = false, bool word = false) {
  auto m = LineMatcher::compile(pattern, literal, false, word);
  EXPECT_TRUE(m.ok()) << pattern;
  return m.ok() ? m.value().matching_lines(text, 100, invert).starts : std::vector<std::size_t>{};
}

TEST(LineMatcherTest, InvertedEveryLineWithoutAMatchTheLastWithoutItsEnding) {
  EXPECT_EQ(lines("b", "a\nb\nab\nc", false, true), (std::vector<std::size_t>{0, 7}));
  EXPECT_EQ(lines("x", "a\n\nx\n", false, true), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(lines("a", "a\na\n", false, true), std::vector<std::size_t>{});
}

TEST(LineMatcherTest, UnicodeWordBoundariesDecidedOnNonAsciiLines) {
  // "caf\b" must not match inside "café"; "\bé" matches where é begins a word.
  EXPECT_EQ(lines("caf\\b", "café\ncaf!\n"), std::vector<std::size_t>{6});
  EXPECT_EQ(lines("\\bé", "xé\n é\n"), std::vector<std::size_t>{4});
  EXPECT_EQ(lines("\\Bé", "xé\n é\n"), std::vector<std::size_t>{0});
  EXPECT_EQ(lines("(?-u:caf\\b)", "café\n"), std::vector<std::size_t>{0});  // ASCII words
  // An alternative that only a later branch satisfies: both engines search every path.
  EXPECT_EQ(lines("(foo|foobar)\\b", "foobarü\nfoobar é\n"), std::vector<std::size_t>{9});
}

TEST(LineMatcherTest, WordMatchesNeedNoWordCharacterAroundThem) {
  EXPECT_EQ(lines("foo", "foo\nfoobar\n-foo-\nfoö\nfooé\n", false, false, true),
            (std::vector<std::size_t>{0, 11}));
  EXPECT_EQ(lines("-x", "a -x b\na-x\n", true, false, true), std::vector<std::size_t>{0});
  auto refused = LineMatcher::compile("x[\\W]", false, false, true);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().offset, 2u);  // in the pattern as given, not as wrapped
  auto m = LineMatcher::compile("foo", false, false, true);
  ASSERT_TRUE(m.ok());
  const auto spans = m.value().spans("foo foo,foox foo");
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[1].start, 4u);
  EXPECT_EQ(spans[2].start, 13u);
}

TEST(LineMatcherTest, LineStartsOfMatchesAnchorsPerLineNoMatchAcrossLines) {
  EXPECT_EQ(lines("b", "a\nb\nab\n"), (std::vector<std::size_t>{2, 4}));
  EXPECT_EQ(lines("^a$", "a\nab\na"), (std::vector<std::size_t>{0, 5}));
  EXPECT_EQ(lines("a.b", "a\nb\n"), std::vector<std::size_t>{});
  EXPECT_EQ(lines("x", "x\n"), std::vector<std::size_t>{0});
  EXPECT_EQ(lines("^", "one\ntwo\n"),
            (std::vector<std::size_t>{0, 4}));  // no line after the last \n
  EXPECT_EQ(lines("(a", "(a\n", true), std::vector<std::size_t>{0});
}

TEST(LineMatcherTest, PatternsRe2RefusesAreInvalid) {
  EXPECT_FALSE(LineMatcher::compile("(", false, false).ok());
  EXPECT_FALSE(LineMatcher::compile("(?=x)", false, false).ok());
  EXPECT_FALSE(LineMatcher::compile("", true, false).ok());
}

TEST(UnicodeClassesTest, ClassesRewrittenOutsideAndInsideSetsAsciiModeKept) {
  auto rewrite = [](std::string_view p) {
    auto out = msb::with_unicode_classes(p);
    EXPECT_TRUE(out.ok()) << p;
    return out.ok() ? out.value().re2 : std::string();
  };
  EXPECT_EQ(rewrite("a\\db"), "a\\p{Nd}b");
  EXPECT_EQ(rewrite("[\\D_]"), "[\\P{Nd}_]");
  EXPECT_EQ(rewrite("\\w").rfind("[\\p{L}", 0), 0u);
  EXPECT_EQ(rewrite("\\W").rfind("[^\\p{L}", 0), 0u);
  EXPECT_EQ(rewrite("[\\w-]").rfind("[\\p{L}", 0), 0u);
  EXPECT_EQ(rewrite("\\Q\\w\\E\\\\w"), "\\Q\\w\\E\\\\w");
  EXPECT_EQ(rewrite("(?-u)\\w"), "\\w");
  EXPECT_EQ(rewrite("(?i-u)\\d"), "(?i)\\d");
  EXPECT_EQ(rewrite("(?-u:\\d)\\d"), "(?:\\d)\\p{Nd}");
  EXPECT_EQ(rewrite("(a(?-u)\\d)\\d"), "(a\\d)\\p{Nd}");
  EXPECT_EQ(rewrite("[[:alpha:]\\d]"), "[[:alpha:]\\p{Nd}]");
  auto refused = msb::with_unicode_classes("x[\\S]");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.error().pattern_problem), "negated-class-in-set");
  EXPECT_EQ(refused.error().offset, 2u);
}

}  // namespace
