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
  EXPECT_EQ(kind(names, {".envrc"}), TrustedKind::tool);
  EXPECT_EQ(kind(names, {"a", "b", "c", "d", "e", ".npmrc"}), TrustedKind::tool);
  EXPECT_EQ(kind(names, {".cargo", "config.toml"}), TrustedKind::tool);
  EXPECT_EQ(kind(names, {".config", "git", "config"}), TrustedKind::git);
  EXPECT_EQ(kind(names, {".ssh", "authorized_keys"}), TrustedKind::shell);
  EXPECT_EQ(kind(names, {".local", "bin", "git"}), TrustedKind::shell);
  EXPECT_EQ(kind(names, {"p", ".devcontainer.json"}), TrustedKind::client);
  EXPECT_EQ(kind(names, {"opencode.jsonc"}), TrustedKind::client);
  EXPECT_EQ(kind(names, {".hg", "hgrc"}), TrustedKind::tool);
  EXPECT_EQ(kind(names, {".hg", "store", "data"}), TrustedKind::none);
  EXPECT_EQ(kind(names, {".cargo", "registry", "x"}), TrustedKind::none);
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

TEST(TrustedNamesTest, EntriesNameAPlaceOrEveryDepthWithAnExplicitPrefix) {
  TrustedNamesSpec spec;
  spec.places = {{"/", "/p"}, {"/data", "/d"}};
  spec.released = {".vscode/settings.json", "**/.claude/settings.json"};
  spec.added = {"tools/deploy.sh", "**/Makefile", "data/run.sh"};
  const TrustedNames names = names_of(spec);
  const auto at = [&](Parts parts, std::string host, bool directory = false) {
    return kind(names, std::move(parts), directory, {std::move(host)});
  };
  EXPECT_EQ(at({".vscode", "settings.json"}, "/p/.vscode/settings.json"), TrustedKind::none);
  EXPECT_EQ(at({"a", ".vscode", "settings.json"}, "/p/a/.vscode/settings.json"),
            TrustedKind::client);
  EXPECT_EQ(at({".vscode", "tasks.json"}, "/p/.vscode/tasks.json"), TrustedKind::client);
  EXPECT_EQ(at({".vscode"}, "/p/.vscode", true), TrustedKind::none);  // on the way to a release
  EXPECT_EQ(at({".vscode"}, "/p/.vscode"), TrustedKind::client);
  EXPECT_EQ(at({"x", "y", ".claude", "settings.json"}, "/p/x/y/.claude/settings.json"),
            TrustedKind::none);
  EXPECT_EQ(at({"tools", "deploy.sh"}, "/p/tools/deploy.sh"), TrustedKind::named);
  EXPECT_EQ(at({"a", "tools", "deploy.sh"}, "/p/a/tools/deploy.sh"), TrustedKind::none);
  EXPECT_EQ(at({"q", "Makefile"}, "/p/q/Makefile"), TrustedKind::named);
  EXPECT_EQ(at({"run.sh"}, "/d/run.sh"), TrustedKind::named);  // under a mount's target
  EXPECT_EQ(at({"run.sh"}, "/p/run.sh"), TrustedKind::none);
}

TEST(TrustedNamesTest, EntriesWithGlobsOrNamingNothingProtectedAreRefused) {
  EXPECT_FALSE(msb::trusted_entry_problem(".vscode/settings.json"));
  EXPECT_FALSE(msb::trusted_entry_problem("**/deploy.sh"));
  const auto glob = msb::trusted_entry_problem("deploy/*.sh");
  ASSERT_TRUE(glob);
  EXPECT_EQ(glob->offset, 7u);
  EXPECT_NE(glob->reason.find("glob character"), std::string::npos);
  for (const char* bad : {"*.sh", "a/?", "[ab]", "a\\b", "!x", "**/", "**/*", "a/**/b"}) {
    EXPECT_TRUE(msb::trusted_entry_problem(bad)) << bad;
  }
  EXPECT_TRUE(msb::release_covers_protected(".claude/settings.json", true, {}));
  EXPECT_TRUE(msb::release_covers_protected("**/.git/config", true, {}));
  EXPECT_FALSE(msb::release_covers_protected("settings.json", true, {}));
  EXPECT_FALSE(msb::release_covers_protected("config", true, {}));
  EXPECT_TRUE(msb::release_covers_protected("tools/deploy.sh", true, {"tools"}));
  TrustedNamesSpec spec;
  spec.places = {{"/", "/p"}};
  spec.released = {"settings.json"};
  EXPECT_FALSE(TrustedNames::create(spec).ok());
  spec.released = {};
  spec.added = {"*.sh"};
  EXPECT_FALSE(TrustedNames::create(spec).ok());
  TrustedNamesSpec rootless;
  rootless.places = {{"/data", "/d"}};
  rootless.added = {"other/x"};
  EXPECT_FALSE(TrustedNames::create(rootless).ok());
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
    EXPECT_TRUE(msb::trusted_entry_problem(bad)) << bad;
  }
  TrustedNamesSpec relative_host;
  relative_host.host_paths = {"relative/path"};
  EXPECT_FALSE(TrustedNames::create(relative_host).ok());
}

}  // namespace
