#include "fs/mount_rules.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using msb::Approval;
using msb::ApprovalRule;
using msb::FilePolicy;
using Suffixes = std::vector<std::string>;

FilePolicy policy(std::optional<Suffixes> allowed, Suffixes denied = {},
                  std::optional<std::uint64_t> max = std::nullopt) {
  FilePolicy p;
  p.allowed_suffixes = std::move(allowed);
  p.denied_suffixes = std::move(denied);
  p.max_file_bytes = max;
  return p;
}

TEST(Approval, NamesRoundTrip) {
  for (Approval a : {Approval::pre_approved, Approval::ask, Approval::blocked}) {
    EXPECT_EQ(msb::approval_from_name(msb::approval_name(a)), a);
  }
  EXPECT_EQ(msb::approval_name(Approval::pre_approved), "preApproved");
  EXPECT_EQ(msb::approval_name(Approval::ask), "ask");
  EXPECT_EQ(msb::approval_name(Approval::blocked), "blocked");
}

TEST(Approval, UnknownNamesAreRefusedExactly) {
  for (const char* name : {"", "PreApproved", "preapproved", "Ask", "block", "blocked ", "yes"}) {
    EXPECT_EQ(msb::approval_from_name(name), std::nullopt) << name;
  }
}

TEST(Approval, TighteningTakesTheStricterOfEach) {
  const ApprovalRule loose{Approval::pre_approved, Approval::pre_approved};
  const ApprovalRule mixed{Approval::blocked, Approval::ask};
  const ApprovalRule t = msb::tighten(loose, mixed);
  EXPECT_EQ(t.write, Approval::blocked);
  EXPECT_EQ(t.remove, Approval::ask);
  // A child cannot loosen what its parent set.
  const ApprovalRule back = msb::tighten(mixed, loose);
  EXPECT_EQ(back.write, Approval::blocked);
  EXPECT_EQ(back.remove, Approval::ask);
  const ApprovalRule defaults;
  EXPECT_EQ(defaults.write, Approval::ask);
  EXPECT_EQ(defaults.remove, Approval::ask);
}

TEST(FilePolicyTighten, AllowedListsIntersect) {
  const FilePolicy t = msb::tighten(policy(Suffixes{".md", ".txt", ".json"}),
                                    policy(Suffixes{".json", ".md", ".ts"}));
  ASSERT_TRUE(t.allowed_suffixes.has_value());
  EXPECT_EQ(*t.allowed_suffixes, (Suffixes{".json", ".md"}));  // in the child's order
  // Disjoint lists leave nothing allowed, which is not the same as no list.
  const FilePolicy none = msb::tighten(policy(Suffixes{".md"}), policy(Suffixes{".ts"}));
  ASSERT_TRUE(none.allowed_suffixes.has_value());
  EXPECT_TRUE(none.allowed_suffixes->empty());
  // Duplicates in the child collapse.
  const FilePolicy dup = msb::tighten(policy(Suffixes{".md"}), policy(Suffixes{".md", ".md"}));
  EXPECT_EQ(*dup.allowed_suffixes, (Suffixes{".md"}));
}

TEST(FilePolicyTighten, AMissingAllowedListTakesTheOther) {
  EXPECT_EQ(msb::tighten(policy(std::nullopt), policy(Suffixes{".md"})).allowed_suffixes,
            Suffixes{".md"});
  EXPECT_EQ(msb::tighten(policy(Suffixes{".md"}), policy(std::nullopt)).allowed_suffixes,
            Suffixes{".md"});
  EXPECT_EQ(msb::tighten(policy(std::nullopt), policy(std::nullopt)).allowed_suffixes,
            std::nullopt);
  EXPECT_EQ(msb::tighten(policy(Suffixes{}), policy(std::nullopt)).allowed_suffixes, Suffixes{});
}

TEST(FilePolicyTighten, DeniedListsUnite) {
  const FilePolicy t = msb::tighten(policy(std::nullopt, {".pem", ".key"}),
                                    policy(std::nullopt, {".key", ".exe", ".exe"}));
  EXPECT_EQ(t.denied_suffixes, (Suffixes{".pem", ".key", ".exe"}));
}

// The lists are compared under the folding the rules are matched with (ASCII letters only), so a
// parent's ".MD" and a child's ".md" are one rule, and ".\xC3\x89T" (".ÉT") and ".\xC3\xA9t"
// (".ét") stay two.
TEST(FilePolicyTighten, ListsCompareUnderAsciiFolding) {
  const FilePolicy allowed = msb::tighten(policy(Suffixes{".MD", ".\xC3\x89T"}),
                                          policy(Suffixes{".md", ".\xC3\x89t", ".\xC3\xA9t"}));
  ASSERT_TRUE(allowed.allowed_suffixes.has_value());
  EXPECT_EQ(*allowed.allowed_suffixes, (Suffixes{".md", ".\xC3\x89t"}));
  EXPECT_TRUE(msb::suffix_allowed(allowed, "README.Md"));
  EXPECT_TRUE(msb::suffix_allowed(allowed, "key.\xC3\x89T"));
  EXPECT_FALSE(msb::suffix_allowed(allowed, "key.\xC3\xA9t"));
  // A single list is stored folded too.
  EXPECT_EQ(msb::tighten(policy(Suffixes{".MD", ".md"}), policy(std::nullopt)).allowed_suffixes,
            Suffixes{".md"});
  const FilePolicy denied =
      msb::tighten(policy(std::nullopt, {".PEM"}), policy(std::nullopt, {".pem", ".Key"}));
  EXPECT_EQ(denied.denied_suffixes, (Suffixes{".pem", ".key"}));
}

TEST(FoldSuffix, FoldsAsciiLettersOnly) {
  EXPECT_EQ(msb::fold_suffix(".TaR.Gz"), ".tar.gz");
  EXPECT_EQ(msb::fold_suffix(".\xC3\x89T"), ".\xC3\x89t");  // "É" kept, "T" folded
  EXPECT_EQ(msb::fold_suffix(".[@Z]"), ".[@z]");
}

TEST(SuffixRule, FoldsAValidRule) {
  EXPECT_EQ(msb::suffix_rule(".TaR.Gz"), std::optional<std::string>(".tar.gz"));
  EXPECT_EQ(msb::suffix_rule(".\xC3\x89T"), std::optional<std::string>(".\xC3\x89t"));
  EXPECT_EQ(msb::suffix_rule(".."), std::optional<std::string>(".."));
}

TEST(SuffixRule, RefusesWhatIsNoSuffixOrCanNeverMatchAName) {
  for (std::string_view written : {"", ".", "md", " .md", "./x", ".a/b"}) {
    EXPECT_EQ(msb::suffix_rule(written), std::nullopt) << written;
  }
  EXPECT_EQ(msb::suffix_rule(std::string_view(".a\0b", 4)), std::nullopt);
}

TEST(FilePolicyTighten, TheSmallerSizeLimitWins) {
  EXPECT_EQ(
      msb::tighten(policy(std::nullopt, {}, 100), policy(std::nullopt, {}, 50)).max_file_bytes,
      50u);
  EXPECT_EQ(
      msb::tighten(policy(std::nullopt, {}, 50), policy(std::nullopt, {}, 100)).max_file_bytes,
      50u);
  EXPECT_EQ(msb::tighten(policy(std::nullopt, {}, 7), policy(std::nullopt)).max_file_bytes, 7u);
  EXPECT_EQ(msb::tighten(policy(std::nullopt), policy(std::nullopt, {}, 7)).max_file_bytes, 7u);
  EXPECT_EQ(msb::tighten(policy(std::nullopt), policy(std::nullopt)).max_file_bytes, std::nullopt);
}

TEST(HasSuffix, CaseInsensitiveAndMultiPart) {
  EXPECT_TRUE(msb::has_suffix("notes.md", ".md"));
  EXPECT_TRUE(msb::has_suffix("NOTES.MD", ".md"));
  EXPECT_TRUE(msb::has_suffix("notes.Md", ".mD"));
  EXPECT_TRUE(msb::has_suffix("a.tar.gz", ".tar.gz"));
  EXPECT_TRUE(msb::has_suffix("a.tar.gz", ".gz"));
  EXPECT_FALSE(msb::has_suffix("a.gz", ".tar.gz"));
  EXPECT_FALSE(msb::has_suffix("notes.mdx", ".md"));
  EXPECT_FALSE(msb::has_suffix("notesmd", ".md"));
  EXPECT_FALSE(msb::has_suffix("", ".md"));
  // The whole name can be the suffix (a dotfile), and the empty suffix matches anything.
  EXPECT_TRUE(msb::has_suffix(".md", ".md"));
  EXPECT_TRUE(msb::has_suffix("x", ""));
  // Only ASCII letters fold: "É" is not "é".
  EXPECT_FALSE(msb::has_suffix("a.\xC3\x89", ".\xC3\xA9"));
}

TEST(SuffixAllowed, NoRulesAllowEverything) {
  EXPECT_TRUE(msb::suffix_allowed(FilePolicy{}, "anything"));
  EXPECT_TRUE(msb::suffix_allowed(FilePolicy{}, ""));
}

TEST(SuffixAllowed, AnAllowedListAdmitsOnlyItsSuffixes) {
  const FilePolicy p = policy(Suffixes{".md", ".json"});
  EXPECT_TRUE(msb::suffix_allowed(p, "README.MD"));
  EXPECT_TRUE(msb::suffix_allowed(p, "data.json"));
  EXPECT_FALSE(msb::suffix_allowed(p, "run.sh"));
  EXPECT_FALSE(msb::suffix_allowed(p, "Makefile"));
  EXPECT_FALSE(msb::suffix_allowed(policy(Suffixes{}), "README.md"));
}

TEST(SuffixAllowed, DeniedWinsOverAllowed) {
  const FilePolicy p = policy(Suffixes{".gz"}, {".tar.gz"});
  EXPECT_TRUE(msb::suffix_allowed(p, "logs.gz"));
  EXPECT_FALSE(msb::suffix_allowed(p, "backup.tar.gz"));
  EXPECT_FALSE(msb::suffix_allowed(p, "BACKUP.TAR.GZ"));
  const FilePolicy deny_only = policy(std::nullopt, {".pem", ".key"});
  EXPECT_FALSE(msb::suffix_allowed(deny_only, "server.pem"));
  EXPECT_FALSE(msb::suffix_allowed(deny_only, "id.KEY"));
  EXPECT_TRUE(msb::suffix_allowed(deny_only, "server.crt"));
}

}  // namespace
