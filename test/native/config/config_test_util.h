// What the config unit tests share: loaders that return the value or the error with a failed
// expectation that shows the other, and Place, which compares where an error is in one go.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

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

namespace msb_test {

using msb::ConfigError;
using msb::ConfigFormat;
using msb::ConfigNode;
using msb::NodeKind;
using msb::ProgramConfig;
using msb::WorkerDeclaration;
using msb::WorkerSandboxKind;

inline constexpr std::string_view kYamlFile = "/proj/cfg/golem-forge.config.yaml";
inline constexpr std::string_view kJsonFile = "/proj/cfg/golem-forge.config.json";

inline std::string_view file_for(ConfigFormat format) {
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

inline ProgramConfig config_ok(std::string_view text, ConfigFormat format = ConfigFormat::yaml) {
  return value_of(msb::parse_program_config(text, file_for(format), format));
}

inline ConfigError config_error(std::string_view text, ConfigFormat format = ConfigFormat::yaml) {
  return error_of(msb::parse_program_config(text, file_for(format), format), text);
}

inline ConfigNode tree_ok(std::string_view text, ConfigFormat format) {
  return value_of(format == ConfigFormat::json ? msb::parse_json(text) : msb::parse_yaml(text));
}

inline ConfigError tree_error(std::string_view text, ConfigFormat format) {
  return error_of(format == ConfigFormat::json ? msb::parse_json(text) : msb::parse_yaml(text),
                  text);
}

inline WorkerDeclaration worker_ok(std::string_view text) {
  return value_of(msb::parse_worker_file(text));
}

inline ConfigError worker_error(std::string_view text) {
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

inline std::ostream& operator<<(std::ostream& os, const Place& p) {
  return os << p.line << ":" << p.column << " [" << p.key_path << "]";
}

inline Place place_of(const ConfigError& e) {
  return Place{e.key_path, e.line, e.column};
}

// The tree reader refuses `text` at `at`, expecting `expected` there.
inline void expect_tree_error(std::string_view text, ConfigFormat format, const Place& at,
                              std::string_view expected) {
  const ConfigError e = tree_error(text, format);
  EXPECT_EQ(place_of(e), at) << text;
  EXPECT_EQ(e.expected, expected) << text;
}

}  // namespace msb_test
