#include "common/path.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <string_view>
#include <vector>

#include "test_util.h"

namespace {

using msb::Errc;
using msb::parse_mount_target;
using msb::parse_virtual_path;
using msb_test::code_of;

std::vector<std::string> parts_of(std::string_view text) {
  auto parsed = parse_virtual_path(text);
  EXPECT_TRUE(parsed.ok()) << "parse_virtual_path(\"" << text << "\") failed with "
                           << msb::errc_name(parsed.ok() ? Errc::ok : parsed.error().code);
  return parsed.ok() ? parsed.value().parts : std::vector<std::string>{"<error>"};
}

std::string normalized(std::string_view text) {
  auto parsed = parse_virtual_path(text);
  if (!parsed.ok())
    return std::string("<") + std::string(msb::errc_name(parsed.error().code)) + ">";
  return parsed.value().str();
}

// ---------------------------------------------------------------------------------------------
// parse_virtual_path: normalization

TEST(ParseVirtualPath, NormalizesDotsAndSlashes) {
  EXPECT_EQ(normalized("//a/./b/../c"), "/a/c");
  EXPECT_EQ(parts_of("//a/./b/../c"), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(normalized("/a//b///c"), "/a/b/c");
  EXPECT_EQ(normalized("/a/b/"), "/a/b");
  EXPECT_EQ(normalized("/a/b/."), "/a/b");
  EXPECT_EQ(normalized("/a/b/.."), "/a");
  EXPECT_EQ(normalized("/a/./././b"), "/a/b");
  EXPECT_EQ(normalized("/a/b/c/../../d"), "/a/d");
}

TEST(ParseVirtualPath, RootSpellings) {
  for (std::string_view text :
       {"/", "//", "///", "/.", "/./", "/a/..", "/a/b/../..", "/./a/../."}) {
    auto parsed = parse_virtual_path(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_TRUE(parsed.value().is_root()) << text;
    EXPECT_EQ(parsed.value().str(), "/") << text;
  }
}

TEST(ParseVirtualPath, NamesThatOnlyLookLikeDots) {
  EXPECT_EQ(parts_of("/.../..a/a../.hidden"),
            (std::vector<std::string>{"...", "..a", "a..", ".hidden"}));
  EXPECT_EQ(parts_of("/ a/b "), (std::vector<std::string>{" a", "b "}));
  EXPECT_EQ(parts_of("/back\\slash"), (std::vector<std::string>{"back\\slash"}));
}

TEST(ParseVirtualPath, RelativeAndEmptyAreInvalid) {
  for (std::string_view text : {"", "a", "a/b", "./a", "../a", ".", "..", " /a", "\\a"}) {
    EXPECT_EQ(code_of(parse_virtual_path(text)), Errc::invalid_path) << "\"" << text << "\"";
  }
}

TEST(ParseVirtualPath, NulByteIsInvalid) {
  EXPECT_EQ(code_of(parse_virtual_path(std::string_view("/a\0b", 4))), Errc::invalid_path);
  EXPECT_EQ(code_of(parse_virtual_path(std::string_view("/\0", 2))), Errc::invalid_path);
  EXPECT_EQ(code_of(parse_virtual_path(std::string_view("/a/\0/..", 7))), Errc::invalid_path);
  EXPECT_EQ(code_of(parse_virtual_path(std::string_view("\0/a", 3))), Errc::invalid_path);
}

TEST(ParseVirtualPath, IllFormedUtf8IsInvalid) {
  const std::vector<std::string> bad = {
      "/\xff",                      // never valid in UTF-8
      "/a\xfe",                     //
      "/\x80",                      // lone continuation byte
      "/\xC0\xAF",                  // overlong '/'
      "/\xC1\xBF",                  // overlong 2-byte
      "/\xE0\x80\xAF",              // overlong 3-byte '/'
      "/\xF0\x80\x80\xAF",          // overlong 4-byte '/'
      "/\xE2\x82",                  // truncated 3-byte sequence
      "/\xE2\x82/x",                // truncated, followed by more text
      "/\xF4\x90\x80\x80",          // above U+10FFFF
      "/\xF8\x88\x80\x80\x80",      // 5-byte form
      "/\xED\xA0\x80",              // encoded surrogate U+D800 (CESU/WTF-8)
      "/\xED\xBF\xBF",              // encoded surrogate U+DFFF
      "/\xED\xA0\xBD\xED\xB8\x80",  // surrogate pair spelled as two 3-byte sequences
  };
  for (const auto& text : bad) {
    EXPECT_EQ(code_of(parse_virtual_path(text)), Errc::invalid_path)
        << ::testing::PrintToString(text);
    EXPECT_FALSE(msb::is_valid_utf8(text)) << ::testing::PrintToString(text);
  }
}

TEST(ParseVirtualPath, WellFormedUtf8IsAccepted) {
  const std::vector<std::string> good = {
      "/caf\xC3\xA9",       // é
      "/\xE2\x82\xAC",      // €
      "/\xED\x9F\xBF",      // U+D7FF, just below the surrogates
      "/\xEE\x80\x80",      // U+E000, just above them
      "/\xF0\x9F\x98\x80",  // U+1F600
      "/\xF4\x8F\xBF\xBF",  // U+10FFFF
      "/\xC2\x80",          // U+0080, smallest 2-byte
      "/\xE0\xA0\x80",      // U+0800, smallest 3-byte
      "/\xF0\x90\x80\x80",  // U+10000, smallest 4-byte
  };
  for (const auto& text : good) {
    auto parsed = parse_virtual_path(text);
    ASSERT_TRUE(parsed.ok()) << ::testing::PrintToString(text);
    EXPECT_EQ(parsed.value().str(), text);
    EXPECT_TRUE(msb::is_valid_utf8(text)) << ::testing::PrintToString(text);
  }
}

TEST(ParseVirtualPath, DotDotAboveRootEscapes) {
  for (std::string_view text :
       {"/..", "/../", "/../a", "/a/../..", "/a/b/../../..", "//..//a", "/./..", "/a/../../a"}) {
    EXPECT_EQ(code_of(parse_virtual_path(text)), Errc::path_escape) << text;
  }
}

TEST(ParseVirtualPath, OverLongNames) {
  const std::string max_name(NAME_MAX, 'n');
  auto ok = parse_virtual_path("/" + max_name);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value().parts.at(0).size(), static_cast<std::size_t>(NAME_MAX));

  const std::string long_name(NAME_MAX + 1, 'n');
  EXPECT_EQ(code_of(parse_virtual_path("/" + long_name)), Errc::invalid_path);
  EXPECT_EQ(code_of(parse_virtual_path("/a/" + long_name + "/b")), Errc::invalid_path);
  // A too-long name is refused even when a later `..` would drop it.
  EXPECT_EQ(code_of(parse_virtual_path("/" + long_name + "/..")), Errc::invalid_path);
}

TEST(ParseVirtualPath, OverLongPaths) {
  // Build a path of exactly `length` bytes out of legal names.
  auto path_of_length = [](std::size_t length) {
    std::string out;
    while (length - out.size() > 201) out += "/" + std::string(100, 'p');
    out += "/" + std::string(length - out.size() - 1, 'q');  // 1..200 bytes
    return out;
  };
  const std::string fits = path_of_length(PATH_MAX - 1);
  ASSERT_EQ(fits.size(), static_cast<std::size_t>(PATH_MAX - 1));
  EXPECT_TRUE(parse_virtual_path(fits).ok());

  const std::string too_long = path_of_length(PATH_MAX);
  ASSERT_EQ(too_long.size(), static_cast<std::size_t>(PATH_MAX));
  EXPECT_EQ(code_of(parse_virtual_path(too_long)), Errc::invalid_path);
  EXPECT_EQ(code_of(parse_virtual_path(path_of_length(3 * PATH_MAX))), Errc::invalid_path);
}

// ---------------------------------------------------------------------------------------------
// parse_mount_target

TEST(ParseMountTarget, AcceptsNormalForm) {
  auto data = parse_mount_target("/data");
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data.value().parts, (std::vector<std::string>{"data"}));

  auto nested = parse_mount_target("/a/b/c");
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested.value().parts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(nested.value().str(), "/a/b/c");
}

TEST(ParseMountTarget, OneTrailingSlashIsTolerated) {
  auto data = parse_mount_target("/data/");
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data.value().parts, (std::vector<std::string>{"data"}));
  EXPECT_EQ(data.value().str(), "/data");

  auto nested = parse_mount_target("/a/b/");
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested.value().str(), "/a/b");
}

TEST(ParseMountTarget, RejectsAnythingNotInNormalForm) {
  const std::vector<std::string> bad = {
      "/",
      "//",
      "//data",
      "/data//",
      "/a//b",
      "/a/../b",
      "/a/./b",
      "/./a",
      "/..",
      "/a/..",
      "/.",
      "data",
      "",
      "./data",
      "a/b",
      "/data/.",
      "/\xff",
      "/\xED\xA0\x80",
      std::string("/a\0b", 4),
      "/" + std::string(NAME_MAX + 1, 'n'),
  };
  for (const auto& text : bad) {
    auto parsed = parse_mount_target(text);
    EXPECT_FALSE(parsed.ok()) << ::testing::PrintToString(text) << " parsed as "
                              << (parsed.ok() ? parsed.value().str() : "");
    if (!parsed.ok()) {
      const Errc code = parsed.error().code;
      EXPECT_TRUE(code == Errc::invalid_config || code == Errc::invalid_path)
          << ::testing::PrintToString(text) << " -> " << msb::errc_name(code);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// helpers

TEST(PathHelpers, HasPrefixComparesWholeComponents) {
  using V = std::vector<std::string>;
  EXPECT_TRUE(msb::has_prefix(V{"a", "b"}, V{}));
  EXPECT_TRUE(msb::has_prefix(V{"a", "b"}, V{"a"}));
  EXPECT_TRUE(msb::has_prefix(V{"a", "b"}, V{"a", "b"}));
  EXPECT_FALSE(msb::has_prefix(V{"a", "b"}, V{"a", "b", "c"}));
  EXPECT_FALSE(msb::has_prefix(V{"ab"}, V{"a"}));
  EXPECT_FALSE(msb::has_prefix(V{"a"}, V{"ab"}));
  EXPECT_FALSE(msb::has_prefix(V{}, V{"a"}));
}

TEST(PathHelpers, JoinRelative) {
  const std::vector<std::string> parts = {"a", "b", "c"};
  EXPECT_EQ(msb::join_relative(parts), "a/b/c");
  EXPECT_EQ(msb::join_relative(parts, 1), "b/c");
  EXPECT_EQ(msb::join_relative(parts, 0, 2), "a/b");
  EXPECT_EQ(msb::join_relative(parts, 3), ".");
  EXPECT_EQ(msb::join_relative(parts, 2, 1), ".");
  EXPECT_EQ(msb::join_relative(parts, 1, 99), "b/c");
  EXPECT_EQ(msb::join_relative({}), ".");
}

}  // namespace

namespace {

using Pieces = std::vector<std::string_view>;

// Every caller gets every piece, empty ones included: what an empty piece means is theirs to say.
TEST(SplitAtSlashes, KeepsEmptyPieces) {
  EXPECT_EQ(msb::split_at_slashes(""), (Pieces{""}));
  EXPECT_EQ(msb::split_at_slashes("a"), (Pieces{"a"}));
  EXPECT_EQ(msb::split_at_slashes("/"), (Pieces{"", ""}));
  EXPECT_EQ(msb::split_at_slashes("/a//b/"), (Pieces{"", "a", "", "b", ""}));
  EXPECT_EQ(msb::split_at_slashes("../x/./y"), (Pieces{"..", "x", ".", "y"}));
}

}  // namespace
