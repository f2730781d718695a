#include "fs/glob.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using msb::Errc;
using msb::GlobMatcher;
using msb::kMaxGlobExpandedBytes;
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

// Every path in `yes` matches `pattern` and none in `no` does: a pattern's cases read together.
void expect_glob(std::string_view pattern, const Strings& yes, const Strings& no) {
  const GlobMatcher matcher = compiled(pattern);
  for (const auto& path : yes) EXPECT_TRUE(matcher.matches(path)) << pattern << " ~ " << path;
  for (const auto& path : no) EXPECT_FALSE(matcher.matches(path)) << pattern << " !~ " << path;
}

TEST(GlobTest, StarStaysWithinOneName) {
  // "/src/.ts.ts": dot names need a literal dot
  expect_glob("/src/*.ts", {"/src/a.ts"}, {"/src/.ts.ts", "/src/sub/a.ts", "/src/a.tsx"});
  expect_glob("/src/*", {"/src/x"}, {});
  expect_glob("/src/a*b*c", {"/src/abc", "/src/aXXbYYbZc"}, {"/src/aXXbYY"});
  expect_glob("/*/*", {"/a/b"}, {});
  expect_glob("/*", {}, {"/a/b"});
  // "**" inside a name is just a star
  expect_glob("/a**b", {"/aXb"}, {"/aX/b"});
}

TEST(GlobTest, QuestionMarkIsOneCodePoint) {
  // "é" is two bytes and one character
  expect_glob("/?.txt", {"/a.txt", "/\xC3\xA9.txt"}, {"/ab.txt", "/.txt"});
  expect_glob("/a?b", {}, {"/a/b"});
}

TEST(GlobTest, BracketSets) {
  expect_glob("/[abc].txt", {"/b.txt"}, {"/d.txt"});
  expect_glob("/[a-z][0-9]", {"/q7"}, {"/Q7"});
  expect_glob("/[!x]y", {"/zy"}, {"/xy"});
  expect_glob("/[^x]y", {"/zy"}, {});
  // leading ']' is a member
  expect_glob("/[]]", {"/]"}, {});
  // and so is one after a negation
  expect_glob("/[!]]", {"/a"}, {"/]"});
  // trailing '-' is a member
  expect_glob("/[a-]", {"/-"}, {});
  // escaped member
  expect_glob("/[\\]x]", {"/]"}, {});
  // ranges over code points
  expect_glob("/[\xC3\xA0-\xC3\xBF]", {"/\xC3\xA9"}, {});
  // braces inside a set are members
  expect_glob("/[{]", {"/{"}, {});
  // a set never opens a dot name
  expect_glob("/[.]x", {}, {"/.x"});
}

TEST(GlobTest, BracesExpand) {
  expect_glob("/{src,lib}/*.ts", {"/src/a.ts", "/lib/a.ts"}, {"/test/a.ts"});
  expect_glob("/*.{ts,tsx}", {"/a.tsx"}, {});
  // alternatives may span directories
  expect_glob("/{a/b,c}/x", {"/a/b/x", "/c/x"}, {});
  // nested braces
  expect_glob("/{a,b{c,d}}", {"/bd"}, {"/b"});
  // an empty alternative
  expect_glob("/x{,.bak}", {"/x", "/x.bak"}, {});
  expect_glob("/{a}", {"/a"}, {});
  // commas outside braces are literal
  expect_glob("/a,b", {"/a,b"}, {});
}

TEST(GlobTest, EscapesAreLiteral) {
  expect_glob("/a\\*b", {"/a*b"}, {"/aXb"});
  expect_glob("/\\{a,b\\}", {"/{a,b}"}, {});
  expect_glob("/\\[x\\]", {"/[x]"}, {});
  expect_glob("/q\\?", {"/q?"}, {"/qz"});
}

TEST(GlobTest, GlobstarSpansZeroOrMoreDirectories) {
  expect_glob("/**/*.ts", {"/a.ts", "/x/y/z/a.ts"}, {"/x/y/z/a.js"});
  expect_glob("/a/**/b", {"/a/b", "/a/x/y/b"}, {"/a/x/y/c"});
  expect_glob("/src/**", {"/src", "/src/a/b/c"}, {"/lib/a"});
  expect_glob("/**", {"/anything/at/all"}, {});
  expect_glob("/**/**/x", {"/x", "/a/b/x"}, {});
}

TEST(GlobTest, DotNamesNeedALiteralDot) {
  expect_glob("/*", {}, {"/.git"});
  expect_glob("/.*", {"/.git"}, {});
  expect_glob("/.git/*", {"/.git/config"}, {});
  // "**" does not pass through dot directories
  expect_glob("/**/x", {}, {"/.git/x"});
  expect_glob("/.git/**", {"/.git/a/b"}, {"/.git/.a/b"});
  expect_glob("/{.a,b}", {"/.a"}, {});
  expect_glob("/\\.x", {"/.x"}, {});
  expect_glob("/?git", {}, {"/.git"});
  expect_glob("/x/.env", {"/x/.env"}, {});
}

TEST(GlobTest, RelativePatternsStartAtTheRoot) {
  expect_glob("src/*.ts", {"/src/a.ts"}, {});
  expect_glob("**/*.ts", {"/a/b.ts"}, {});
  expect_glob("*.md", {"/README.md"}, {"/docs/README.md"});
  // "." and empty components vanish
  expect_glob("./a//b/./c", {"/a/b/c"}, {});
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

// Elementary matching steps for `name` from the start: counted by the matcher, not timed.
std::size_t work_for(const GlobMatcher& m, std::string_view name) {
  std::size_t work = 0;
  m.step(m.start(), name, &work);
  return work;
}

std::string repeated(std::string_view text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

TEST(GlobTest, RepeatedGlobstarsAreOneState) {
  const GlobMatcher once = compiled("/**/x");
  const GlobMatcher many = compiled(repeated("/**", 1300) + "/x");
  EXPECT_EQ(many.start(), once.start());
  EXPECT_EQ(work_for(many, "dir"), work_for(once, "dir"));
  std::string deep;
  for (int i = 0; i < 60; ++i) deep += "/d";
  EXPECT_TRUE(many.matches(deep + "/x"));
  EXPECT_FALSE(many.matches(deep + "/y"));
  EXPECT_FALSE(many.matches("/.git/x"));  // still never through a dot directory
}

TEST(GlobTest, BraceExpansionCostsRoundsNotProducts) {
  // 2^64 spellings of one name: expanded a group at a time with duplicates dropped at once.
  const std::string dup = "/" + repeated("{a,a}", 64);
  ASSERT_EQ(code_of(GlobMatcher::compile(dup)), Errc::ok);
  EXPECT_TRUE(compiled(dup).matches("/" + std::string(64, 'a')));
  const std::string nested = "/" + repeated("{a,{a,{a,a}}}", 21);
  EXPECT_TRUE(compiled(nested).matches("/" + std::string(21, 'a')));
  // Past the number of groups, or the bytes all alternatives would take, a typed refusal.
  EXPECT_EQ(code_of(GlobMatcher::compile(dup + "{a,a}")), Errc::invalid_pattern);
  EXPECT_EQ(code_of(GlobMatcher::compile("/" + repeated("{a,a}", 780))), Errc::invalid_pattern);
  const std::string six = "/" + repeated("{x,y}", 6);
  EXPECT_EQ(code_of(GlobMatcher::compile(six + "/" + std::string(100, 'n'))), Errc::ok);
  EXPECT_EQ(
      code_of(GlobMatcher::compile(six + "/" + std::string(80, 'n') + "/" + std::string(80, 'n'))),
      Errc::invalid_pattern);
}

TEST(GlobTest, ComponentsNoNameCanMatchAreRefused) {
  EXPECT_EQ(code_of(GlobMatcher::compile("/" + std::string(255, '?'))), Errc::ok);
  EXPECT_EQ(code_of(GlobMatcher::compile("/" + std::string(256, '?'))), Errc::invalid_pattern);
  EXPECT_EQ(code_of(GlobMatcher::compile("/" + repeated("*a", 255) + "*")), Errc::ok);
  EXPECT_EQ(code_of(GlobMatcher::compile("/" + repeated("*[ab]", 256))), Errc::invalid_pattern);
}

TEST(GlobTest, StepWorkIsBoundedByPatternTimesName) {
  const std::string long_a(255, 'a');
  const std::string a127(127, 'a');
  for (const std::string& pattern : {
           "/**/*" + a127 + "b*",
           "/**/*" + std::string(100, 'a') + "b*" + repeated("{x,y}", 6),
           repeated("/**", 1300) + "/*.ts",
           repeated("/**/a", 700),
           "/" + repeated("*a", 200) + "b",
           "/{" + repeated("*a?[a-z]", 20) + ",*}",
       }) {
    const GlobMatcher m = compiled(pattern);
    for (const std::string& name : {long_a, std::string("a"), a127 + "b", std::string("x.ts")}) {
      // Generous constant, but linear in each: no blow-up with repetition of any kind.
      EXPECT_LE(work_for(m, name), 4 * (kMaxGlobExpandedBytes + 1) * (name.size() + 1))
          << pattern.substr(0, 40) << " on " << name.size() << " bytes";
      EXPECT_LE(work_for(m, name), 4 * (pattern.size() * 64 + 1) * (name.size() + 1));
    }
  }
}

}  // namespace
