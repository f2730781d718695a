#include "glob.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using msb::Errc;
using msb::GlobMatcher;
using msb_test::code_of;
using Strings = std::vector<std::string>;

GlobMatcher compiled(std::string_view pattern) {
  auto m = GlobMatcher::compile(pattern);
  EXPECT_TRUE(m.ok()) << pattern << ": " << msb::errc_name(code_of(m));
  if (!m.ok()) return GlobMatcher::compile("/never-matches-anything").value();
  return std::move(m.value());
}

bool matches(std::string_view pattern, std::string_view path) {
  return compiled(pattern).matches(path);
}

TEST(GlobTest, StarStaysWithinOneName) {
  EXPECT_TRUE(matches("/src/*.ts", "/src/a.ts"));
  EXPECT_TRUE(matches("/src/*.ts", "/src/.ts.ts") == false);  // dot names need a literal dot
  EXPECT_TRUE(matches("/src/*", "/src/x"));
  EXPECT_FALSE(matches("/src/*.ts", "/src/sub/a.ts"));
  EXPECT_FALSE(matches("/src/*.ts", "/src/a.tsx"));
  EXPECT_TRUE(matches("/src/a*b*c", "/src/abc"));
  EXPECT_TRUE(matches("/src/a*b*c", "/src/aXXbYYbZc"));
  EXPECT_FALSE(matches("/src/a*b*c", "/src/aXXbYY"));
  EXPECT_TRUE(matches("/*/*", "/a/b"));
  EXPECT_FALSE(matches("/*", "/a/b"));
  EXPECT_TRUE(matches("/a**b", "/aXb"));  // "**" inside a name is just a star
  EXPECT_FALSE(matches("/a**b", "/aX/b"));
}

TEST(GlobTest, QuestionMarkIsOneCodePoint) {
  EXPECT_TRUE(matches("/?.txt", "/a.txt"));
  EXPECT_TRUE(matches("/?.txt", "/\xC3\xA9.txt"));  // é: two bytes, one character
  EXPECT_FALSE(matches("/?.txt", "/ab.txt"));
  EXPECT_FALSE(matches("/?.txt", "/.txt"));
  EXPECT_FALSE(matches("/a?b", "/a/b"));
}

TEST(GlobTest, BracketSets) {
  EXPECT_TRUE(matches("/[abc].txt", "/b.txt"));
  EXPECT_FALSE(matches("/[abc].txt", "/d.txt"));
  EXPECT_TRUE(matches("/[a-z][0-9]", "/q7"));
  EXPECT_FALSE(matches("/[a-z][0-9]", "/Q7"));
  EXPECT_TRUE(matches("/[!x]y", "/zy"));
  EXPECT_FALSE(matches("/[!x]y", "/xy"));
  EXPECT_TRUE(matches("/[^x]y", "/zy"));
  EXPECT_TRUE(matches("/[]]", "/]"));   // leading ']' is a member
  EXPECT_TRUE(matches("/[!]]", "/a"));  // and after a negation
  EXPECT_FALSE(matches("/[!]]", "/]"));
  EXPECT_TRUE(matches("/[a-]", "/-"));                        // trailing '-' is a member
  EXPECT_TRUE(matches("/[\\]x]", "/]"));                      // escaped member
  EXPECT_TRUE(matches("/[\xC3\xA0-\xC3\xBF]", "/\xC3\xA9"));  // ranges over code points
  EXPECT_TRUE(matches("/[{]", "/{"));                         // braces inside a set are members
  EXPECT_FALSE(matches("/[.]x", "/.x"));                      // a set never opens a dot name
}

TEST(GlobTest, BracesExpand) {
  EXPECT_TRUE(matches("/{src,lib}/*.ts", "/src/a.ts"));
  EXPECT_TRUE(matches("/{src,lib}/*.ts", "/lib/a.ts"));
  EXPECT_FALSE(matches("/{src,lib}/*.ts", "/test/a.ts"));
  EXPECT_TRUE(matches("/*.{ts,tsx}", "/a.tsx"));
  EXPECT_TRUE(matches("/{a/b,c}/x", "/a/b/x"));  // alternatives may span directories
  EXPECT_TRUE(matches("/{a/b,c}/x", "/c/x"));
  EXPECT_TRUE(matches("/{a,b{c,d}}", "/bd"));  // nested
  EXPECT_FALSE(matches("/{a,b{c,d}}", "/b"));
  EXPECT_TRUE(matches("/x{,.bak}", "/x"));  // an empty alternative
  EXPECT_TRUE(matches("/x{,.bak}", "/x.bak"));
  EXPECT_TRUE(matches("/{a}", "/a"));
  EXPECT_TRUE(matches("/a,b", "/a,b"));  // commas outside braces are literal
}

TEST(GlobTest, EscapesAreLiteral) {
  EXPECT_TRUE(matches("/a\\*b", "/a*b"));
  EXPECT_FALSE(matches("/a\\*b", "/aXb"));
  EXPECT_TRUE(matches("/\\{a,b\\}", "/{a,b}"));
  EXPECT_TRUE(matches("/\\[x\\]", "/[x]"));
  EXPECT_TRUE(matches("/q\\?", "/q?"));
  EXPECT_FALSE(matches("/q\\?", "/qz"));
}

TEST(GlobTest, GlobstarSpansZeroOrMoreDirectories) {
  EXPECT_TRUE(matches("/**/*.ts", "/a.ts"));
  EXPECT_TRUE(matches("/**/*.ts", "/x/y/z/a.ts"));
  EXPECT_FALSE(matches("/**/*.ts", "/x/y/z/a.js"));
  EXPECT_TRUE(matches("/a/**/b", "/a/b"));
  EXPECT_TRUE(matches("/a/**/b", "/a/x/y/b"));
  EXPECT_FALSE(matches("/a/**/b", "/a/x/y/c"));
  EXPECT_TRUE(matches("/src/**", "/src"));
  EXPECT_TRUE(matches("/src/**", "/src/a/b/c"));
  EXPECT_FALSE(matches("/src/**", "/lib/a"));
  EXPECT_TRUE(matches("/**", "/anything/at/all"));
  EXPECT_TRUE(matches("/**/**/x", "/x"));
  EXPECT_TRUE(matches("/**/**/x", "/a/b/x"));
}

TEST(GlobTest, DotNamesNeedALiteralDot) {
  EXPECT_FALSE(matches("/*", "/.git"));
  EXPECT_TRUE(matches("/.*", "/.git"));
  EXPECT_TRUE(matches("/.git/*", "/.git/config"));
  EXPECT_FALSE(matches("/**/x", "/.git/x"));  // "**" does not pass through dot directories
  EXPECT_TRUE(matches("/.git/**", "/.git/a/b"));
  EXPECT_FALSE(matches("/.git/**", "/.git/.a/b"));
  EXPECT_TRUE(matches("/{.a,b}", "/.a"));
  EXPECT_TRUE(matches("/\\.x", "/.x"));
  EXPECT_FALSE(matches("/?git", "/.git"));
  EXPECT_TRUE(matches("/x/.env", "/x/.env"));
}

TEST(GlobTest, RelativePatternsStartAtTheRoot) {
  EXPECT_TRUE(matches("src/*.ts", "/src/a.ts"));
  EXPECT_TRUE(matches("**/*.ts", "/a/b.ts"));
  EXPECT_TRUE(matches("*.md", "/README.md"));
  EXPECT_FALSE(matches("*.md", "/docs/README.md"));
  EXPECT_TRUE(matches("./a//b/./c", "/a/b/c"));  // "." and empty components vanish
}

TEST(GlobTest, BaseIsTheSharedLiteralPrefix) {
  EXPECT_EQ(compiled("/src/app/*.ts").base(), (Strings{"src", "app"}));
  EXPECT_EQ(compiled("/src/{a,b}/*.ts").base(), (Strings{"src"}));
  EXPECT_EQ(compiled("/{src/a,src/b}/x").base(), (Strings{"src"}));
  EXPECT_EQ(compiled("/a/b/c.txt").base(), (Strings{"a", "b"}));  // never the last component
  EXPECT_EQ(compiled("**/*.ts").base(), Strings{});
  EXPECT_EQ(compiled("/src/**").base(), (Strings{"src"}));
  EXPECT_EQ(compiled("/a\\*/x").base(), (Strings{"a*"}));  // escaped: a literal name
}

TEST(GlobTest, StatesDrivePruning) {
  const GlobMatcher m = compiled("/src/**/*.ts");
  auto states = m.start();
  EXPECT_FALSE(m.accepts(states));
  EXPECT_TRUE(m.can_descend(states));
  auto file = m.step(states, "a.ts");
  EXPECT_TRUE(m.accepts(file));
  auto dir = m.step(states, "sub");
  EXPECT_FALSE(m.accepts(dir));
  EXPECT_TRUE(m.can_descend(dir));
  EXPECT_TRUE(m.step(states, ".hidden").empty());  // nothing below a dot directory can match

  const GlobMatcher shallow = compiled("/src/*.ts");
  auto leaf = shallow.step(shallow.start(), "a.ts");
  EXPECT_TRUE(shallow.accepts(leaf));
  EXPECT_FALSE(shallow.can_descend(leaf));  // no reason to open anything below
  EXPECT_TRUE(shallow.step(shallow.start(), "b.js").empty());
}

TEST(GlobTest, MalformedPatternsAreRefused) {
  for (const char* pattern : {"", "/a\\", "/[abc", "/[]", "/[!]", "/{a,b", "/a}", "/{}", "/a/../b",
                              "..", "/[z-a]", "/a\\/b", "/{{{{{a}}}}}", "/a/[b/c]"}) {
    EXPECT_EQ(code_of(GlobMatcher::compile(pattern)), Errc::invalid_pattern) << pattern;
  }
  EXPECT_EQ(code_of(GlobMatcher::compile(std::string_view("/a\0b", 4))), Errc::invalid_pattern);
  EXPECT_EQ(code_of(GlobMatcher::compile("/\xC3")), Errc::invalid_pattern);
  EXPECT_EQ(code_of(GlobMatcher::compile("/" + std::string(5000, 'a'))), Errc::invalid_pattern);
  EXPECT_EQ(code_of(GlobMatcher::compile("/" + std::string(300, 'a'))), Errc::invalid_pattern);
  // Nesting up to the bound is fine.
  EXPECT_EQ(code_of(GlobMatcher::compile("/{{{{a}}}}")), Errc::ok);
}

TEST(GlobTest, AlternativesAreBounded) {
  std::string wide = "/{";
  for (int i = 0; i < 64; ++i) wide += (i ? "," : "") + std::to_string(i);
  EXPECT_EQ(code_of(GlobMatcher::compile(wide + "}")), Errc::ok);
  EXPECT_EQ(code_of(GlobMatcher::compile(wide + ",64}")), Errc::invalid_pattern);
  // Products count too: 2^6 is fine, 2^7 is not.
  std::string product = "/";
  for (int i = 0; i < 6; ++i) product += "{a,b}";
  EXPECT_EQ(code_of(GlobMatcher::compile(product)), Errc::ok);
  EXPECT_EQ(code_of(GlobMatcher::compile(product + "{a,b}")), Errc::invalid_pattern);
  // Duplicates collapse before counting.
  std::string same = "/";
  for (int i = 0; i < 10; ++i) same += "{a,a}";
  EXPECT_EQ(code_of(GlobMatcher::compile(same)), Errc::ok);
}

TEST(GlobTest, PathologicalPatternsStayFast) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name(250, 'a');
  EXPECT_FALSE(matches("/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "/" + name));
  EXPECT_TRUE(matches("/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", "/" + name));
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "/d";
  EXPECT_FALSE(matches("/**/**/**/**/**/**/**/**/**/**/x", deep));
  EXPECT_TRUE(matches("/**/**/**/**/**/**/**/**/**/**/d", deep));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 2000);
}

}  // namespace
