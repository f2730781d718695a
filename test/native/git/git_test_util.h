// Repositories made by the real git in temporary directories, for the git scan's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "test_util.h"

namespace msb_test {

inline bool has_git() {
  return std::system("git --version >/dev/null 2>&1") == 0;
}

// Runs git in `dir` with a neutral environment; true when it succeeded.
inline bool git(const fs::path& dir, const std::string& args) {
  const std::string command =
      "cd '" + dir.string() +
      "' && env -i PATH=/usr/bin:/bin HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 "
      "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t git " +
      args + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

inline std::vector<std::uint8_t> read_bytes(const fs::path& file) {
  const std::string text = read_host(file);
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

}  // namespace msb_test

#define SKIP_WITHOUT_GIT() \
  if (!msb_test::has_git()) GTEST_SKIP() << "git is not installed"
