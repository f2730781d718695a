#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <utility>

#include "common/error.h"
#include "config/config_error.h"

namespace {

using msb::ConfigError;
using msb::Errc;
using msb::Result;

// A bare code is a sandbox refusal: it must not pass for a config error, whose place it lacks.
static_assert(std::is_constructible_v<Result<int>, Errc>);
static_assert(!std::is_constructible_v<Result<int, ConfigError>, Errc>);
static_assert(std::is_same_v<decltype(std::declval<Result<int, ConfigError>&>().error()),
                             const ConfigError&>);

TEST(Result, DefaultErrorTypeKeepsTheSandboxsError) {
  const Result<int> refused = Errc::read_only;
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::read_only);
  const Result<int> value = 7;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value.value(), 7);
}

TEST(Result, HoldsAConfigErrorWithItsPlace) {
  Result<std::string, ConfigError> parsed = ConfigError{3, 14, "sandbox.root", "a string"};
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().line, 3u);
  EXPECT_EQ(parsed.error().column, 14u);
  const ConfigError moved = std::move(parsed).error();
  EXPECT_EQ(moved.key_path, "sandbox.root");
  EXPECT_EQ(moved.expected, "a string");
}

TEST(Result, ValueMovesOut) {
  Result<std::string, ConfigError> parsed = std::string(64, 'x');
  ASSERT_TRUE(parsed);
  const std::string taken = std::move(parsed).value();
  EXPECT_EQ(taken, std::string(64, 'x'));
}

}  // namespace
