#include "git/git_config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using msb::git::config_runs_nothing;
using msb::git::ConfigEntry;
using msb::git::ConfigReader;
using msb::git::ConfigStep;
using msb::git::plain_remote_url;

// "section[.sub].key=value" for each entry, or "!" where the reader stopped as malformed.
std::vector<std::string> read_all(const std::string& text) {
  std::vector<std::string> out;
  ConfigReader reader(text);
  ConfigEntry e;
  for (;;) {
    const ConfigStep step = reader.next(e);
    if (step == ConfigStep::end) return out;
    if (step == ConfigStep::malformed) {
      out.push_back("!");
      return out;
    }
    std::string line = e.section + (e.subsection ? "." + *e.subsection : "") + "." + e.key;
    out.push_back(e.value ? line + "=" + *e.value : line);
  }
}

using Lines = std::vector<std::string>;

TEST(ConfigReader, ReadsWhatGitInitAndGitRemoteWrite) {
  const std::string text =
      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
      "[remote \"origin\"]\n\turl = https://example.invalid/x.git\n"
      "\tfetch = +refs/heads/*:refs/remotes/origin/*\n";
  EXPECT_EQ(read_all(text), (Lines{"core.repositoryformatversion=0", "core.filemode=true",
                                   "remote.origin.url=https://example.invalid/x.git",
                                   "remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*"}));
}

TEST(ConfigReader, CaseQuotesEscapesCommentsContinuationsAsGitReadsThem) {
  EXPECT_EQ(read_all("[CoRe] FsMonitor = \"a b\" ; c\n"), (Lines{"core.fsmonitor=a b"}));
  EXPECT_EQ(read_all("[core]\r\n\tpager = le\\\nss # x\r\n"), (Lines{"core.pager=less"}));
  EXPECT_EQ(read_all("[Remote \"O\\\"r\"]\nURL=x\\ty\n"), (Lines{"remote.O\"r.url=x\ty"}));
  EXPECT_EQ(read_all("[Branch.MAIN]\nmerge\n"), (Lines{"branch.main.merge"}));
  EXPECT_EQ(read_all("# top\n; more\n[user]\n  name =  A  B  \n"), (Lines{"user.name=A  B"}));
}

TEST(ConfigReader, StopsWhereGitWouldRefuse) {
  EXPECT_EQ(read_all("[core]\nx = \"open\n"), (Lines{"!"}));
  EXPECT_EQ(read_all("[core]\nx = a\\q\n"), (Lines{"!"}));
  EXPECT_EQ(read_all("[core]\nbare # c\n"), (Lines{"!"}));
  EXPECT_EQ(read_all("key = before any section\n"), (Lines{"!"}));
  EXPECT_EQ(read_all("\xEF\xBB\xBF[core]\n"), (Lines{"!"}));
  EXPECT_EQ(read_all("[core \"x\" ]\n"), (Lines{"!"}));
  EXPECT_EQ(read_all("[]\n"), (Lines{"!"}));
  EXPECT_EQ(read_all("[core]\nbare = 1\n[core\n"), (Lines{"core.bare=1", "!"}));
}

TEST(ConfigReader, LinearOnLongLines) {
  const std::string text = "[core]\nbare = " + std::string(4u << 20, ' ') + "x\n";
  EXPECT_EQ(read_all(text).size(), 1u);
  EXPECT_EQ(read_all("[" + std::string(4u << 20, 'a')), (Lines{"!"}));
}

TEST(PlainRemoteUrl, RefusesTransportHelpersAndOptions) {
  EXPECT_TRUE(plain_remote_url("https://example.invalid/x.git"));
  EXPECT_TRUE(plain_remote_url("git@example.invalid:me/x.git"));
  EXPECT_TRUE(plain_remote_url("origin"));
  EXPECT_TRUE(plain_remote_url("../other"));
  EXPECT_FALSE(plain_remote_url("ext::sh -c touch% x"));
  EXPECT_FALSE(plain_remote_url("fd::3"));
  EXPECT_FALSE(plain_remote_url("https://x::y"));
  EXPECT_FALSE(plain_remote_url("-oProxyCommand=x"));
  EXPECT_FALSE(plain_remote_url(""));
  EXPECT_FALSE(plain_remote_url("a\nb"));
}

TEST(ConfigRunsNothing, AcceptsWhatOrdinaryWorkWrites) {
  EXPECT_TRUE(config_runs_nothing(""));
  EXPECT_TRUE(config_runs_nothing(
      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
      "\tlogallrefupdates = true\n\tignorecase = false\n\tprecomposeunicode = false\n"
      "\tsymlinks = true\n[extensions]\n\tobjectformat = sha256\n[init]\n\tdefaultBranch = main\n"
      "[user]\n\tname = A\n\temail = a@example.invalid\n"
      "[remote \"origin\"]\n\turl = https://example.invalid/x.git\n\tfetch = +refs/heads/*:x\n"
      "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"));
}

TEST(ConfigRunsNothing, RefusesEverythingElse) {
  for (const char* text :
       {"[core]\n\tfsmonitor = /x\n", "[core]\n\thooksPath = /x\n", "[core]\n\tpager = x\n",
        "[core]\n\tsshCommand = x\n", "[core]\n\teditor = x\n", "[diff]\n\texternal = x\n",
        "[filter \"x\"]\n\tclean = x\n", "[alias]\n\tst = !x\n", "[include]\n\tpath = x\n",
        "[includeIf \"gitdir:/\"]\n\tpath = x\n", "[remote \"o\"]\n\turl = ext::sh\n",
        "[remote \"o\"]\n\tuploadpack = x\n", "[branch \"m\"]\n\tremote = ext::sh\n",
        "[extensions]\n\tworktreeConfig = true\n", "[core \"x\"]\n\tbare = true\n",
        "[user]\n\tname\n", "[core]\n\tbare = \"x\n", "[core.x]\n\tbare = true\n",
        "[remote]\n\turl = https://x\n"}) {
    EXPECT_FALSE(config_runs_nothing(text)) << text;
  }
}

}  // namespace
