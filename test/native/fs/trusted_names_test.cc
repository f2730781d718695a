#include "fs/trusted_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using msb::EntryPlace;
using msb::TrustedKind;
using msb::TrustedNames;
using msb::TrustedNamesSpec;
using Parts = std::vector<std::string>;

TrustedNames names_of(const TrustedNamesSpec& spec = {}) {
  auto made = TrustedNames::create(spec);
  EXPECT_TRUE(made.ok());
  return made.ok() ? std::move(made.value()) : TrustedNames::create({}).value();
}

TrustedKind kind(const TrustedNames& names, Parts parts, bool directory = false,
                 std::vector<std::string> hosts = {}) {
  return names.kind_of(EntryPlace{std::move(parts), std::move(hosts)}, directory);
}

TEST(TrustedNamesTest, BuiltInNamesAtAnyDepthAndEverythingBelowThem) {
  const TrustedNames names = names_of();
  EXPECT_EQ(kind(names, {".git", "config"}), TrustedKind::git);
  EXPECT_EQ(kind(names, {"a", "b", ".git", "hooks", "pre-commit"}), TrustedKind::git);
  EXPECT_EQ(kind(names, {".git", "modules", "sub", "config"}), TrustedKind::git);
  EXPECT_EQ(kind(names, {"x", ".vscode", "tasks.json"}), TrustedKind::client);
  EXPECT_EQ(kind(names, {".mcp.json"}), TrustedKind::client);
  EXPECT_EQ(kind(names, {"home", ".bashrc"}), TrustedKind::shell);
  EXPECT_EQ(kind(names, {".envrc"}), TrustedKind::shell);
}

TEST(TrustedNamesTest, GitObjectsAndLookAlikesStayOrdinary) {
  const TrustedNames names = names_of();
  EXPECT_EQ(kind(names, {".git", "objects", "ab", "cdef"}), TrustedKind::none);
  EXPECT_EQ(kind(names, {".git", "HEAD"}), TrustedKind::none);
  EXPECT_EQ(kind(names, {"config"}), TrustedKind::none);
  EXPECT_EQ(kind(names, {"my.bashrc"}), TrustedKind::none);
  EXPECT_EQ(kind(names, {".vscodex", "a"}), TrustedKind::none);
}

TEST(TrustedNamesTest, AFileNamedDotGitIsTrustedADirectoryIsNot) {
  const TrustedNames names = names_of();
  EXPECT_EQ(kind(names, {"sub", ".git"}), TrustedKind::git);
  EXPECT_EQ(kind(names, {"sub", ".git"}, true), TrustedKind::none);
}

TEST(TrustedNamesTest, NamesFoldCaseAsACaseFoldingDirectoryWould) {
  const TrustedNames names = names_of();
  EXPECT_EQ(kind(names, {".GIT", "CONFIG"}), TrustedKind::git);
  EXPECT_EQ(kind(names, {".git", "hoo\xE2\x84\xAAs", "x"}), TrustedKind::git);  // KELVIN SIGN
  EXPECT_EQ(kind(names, {".claude",
                         "\xC5\xBF"
                         "ettings.json"}),
            TrustedKind::client);
  EXPECT_EQ(msb::fold_name("A\xE2\x84\xAA\xC5\xBFZ"), "aksz");
}

TEST(TrustedNamesTest, ReleasedNamesAndTheDirectoriesOnTheWayToThem) {
  TrustedNamesSpec spec;
  spec.released = {".vscode/settings.json"};
  spec.added = {"tools/deploy.sh"};
  const TrustedNames names = names_of(spec);
  EXPECT_EQ(kind(names, {".vscode", "settings.json"}), TrustedKind::none);
  EXPECT_EQ(kind(names, {".vscode", "tasks.json"}), TrustedKind::client);
  EXPECT_EQ(kind(names, {".vscode"}, true), TrustedKind::none);
  EXPECT_EQ(kind(names, {".vscode"}), TrustedKind::client);
  EXPECT_EQ(kind(names, {"a", "tools", "deploy.sh"}), TrustedKind::named);
  EXPECT_EQ(kind(names, {"deploy.sh"}), TrustedKind::none);
}

TEST(TrustedNamesTest, HostPathsCoverWhatIsBelowThemAndWhatLeadsToThem) {
  TrustedNamesSpec spec;
  spec.host_paths = {"/p/golem-forge.config.yaml", "/p/workers"};
  const TrustedNames names = names_of(spec);
  EXPECT_EQ(kind(names, {"golem-forge.config.yaml"}, false, {"/p/golem-forge.config.yaml"}),
            TrustedKind::sandbox);
  EXPECT_EQ(kind(names, {"workers", "a.worker"}, false, {"/p/workers/a.worker"}),
            TrustedKind::sandbox);
  EXPECT_EQ(kind(names, {"workers"}, false, {"/p/workers"}), TrustedKind::sandbox);
  EXPECT_EQ(kind(names, {"p"}, false, {"/p"}), TrustedKind::sandbox);  // a file where they lie
  EXPECT_EQ(kind(names, {"p"}, true, {"/p"}), TrustedKind::none);      // a directory: fine
  EXPECT_EQ(kind(names, {"workers2"}, false, {"/p/workers2"}), TrustedKind::none);
  EXPECT_EQ(kind(names, {"GOLEM-FORGE.CONFIG.YAML"}, false, {"/p/GOLEM-FORGE.CONFIG.YAML"}),
            TrustedKind::sandbox);
}

TEST(TrustedNamesTest, BadNamesAreRefused) {
  for (const char* bad : {"", "/abs", "a//b", "../x", "a/./b", "a/"}) {
    TrustedNamesSpec spec;
    spec.added = {bad};
    EXPECT_FALSE(TrustedNames::create(spec).ok()) << bad;
    EXPECT_FALSE(msb::valid_trusted_name(bad)) << bad;
  }
  TrustedNamesSpec relative_host;
  relative_host.host_paths = {"relative/path"};
  EXPECT_FALSE(TrustedNames::create(relative_host).ok());
}

}  // namespace
