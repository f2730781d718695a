// Worker files: the frontmatter and the sandbox a worker declares.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "config/config_test_util.h"

namespace msb_test {
namespace {

// =============================================================================================
// Worker files

TEST(WorkerFile, NoFrontmatterInheritsTheParentsSandbox) {
  for (std::string_view text :
       {"", "Just instructions.\n", "----\nname: x\n---\n", " ---\n---\n"}) {
    const WorkerDeclaration w = worker_ok(text);
    EXPECT_EQ(w.kind, WorkerSandboxKind::inherit) << text;
    EXPECT_EQ(w.name, "") << text;
  }
  const WorkerDeclaration w = worker_ok("---\nname: editor\ndescription: d\n---\nBody.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::inherit);
  EXPECT_EQ(w.name, "editor");
  EXPECT_EQ(worker_ok("---\nsandbox:\n---\n").kind, WorkerSandboxKind::inherit);
  EXPECT_EQ(worker_ok("---\n---\n").kind, WorkerSandboxKind::inherit);
}

TEST(WorkerFile, SandboxFalseIsAPureFunction) {
  const WorkerDeclaration w = worker_ok("---\nname: validator\nsandbox: false\n---\nValidate.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::none);
  EXPECT_EQ(w.name, "validator");
  EXPECT_EQ(worker_ok("---\nsandbox:\n  zones: []\n---\n").kind, WorkerSandboxKind::none);
}

TEST(WorkerFile, RestrictReadonlyAndApprovals) {
  const WorkerDeclaration w = worker_ok(
      "---\nname: reviewer\nsandbox:\n  restrict: /src/./lib/..//\n  readonly: true\n"
      "  approval: {write: blocked, delete: preApproved}\n---\nReview.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::restrict);
  EXPECT_EQ(w.restrict, "/src");
  EXPECT_EQ(w.readonly, true);
  EXPECT_EQ(w.approve_write, msb::Approval::blocked);
  EXPECT_EQ(w.approve_delete, msb::Approval::pre_approved);
  EXPECT_TRUE(w.zones.empty());

  const WorkerDeclaration only = worker_ok("---\nsandbox:\n  approval:\n    write: ask\n---\n");
  EXPECT_EQ(only.kind, WorkerSandboxKind::restrict);
  EXPECT_FALSE(only.restrict.has_value());
  EXPECT_FALSE(only.readonly.has_value());
  EXPECT_EQ(only.approve_write, msb::Approval::ask);
  EXPECT_FALSE(only.approve_delete.has_value());

  const WorkerDeclaration same = worker_ok("---\nsandbox: {}\n---\n");
  EXPECT_EQ(same.kind, WorkerSandboxKind::restrict);
  EXPECT_FALSE(same.restrict || same.readonly || same.approve_write || same.approve_delete);
  EXPECT_EQ(worker_ok("---\nsandbox: {readonly: false}\n---\n").readonly, false);
}

TEST(WorkerFile, Zones) {
  const WorkerDeclaration w = worker_ok(
      "---\nname: analyst\nsandbox:\n  zones:\n    - name: data\n      mode: ro\n"
      "    - {name: work}\n  approval: {write: preApproved}\n---\nAnalyse.\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::zones);
  ASSERT_EQ(w.zones.size(), 2u);
  EXPECT_EQ(w.zones[0].name, "data");
  EXPECT_TRUE(w.zones[0].readonly);
  EXPECT_EQ(Place("", w.zones[0].line, w.zones[0].column), Place("", 5, 7));
  EXPECT_EQ(w.zones[1].name, "work");
  EXPECT_FALSE(w.zones[1].readonly);
  EXPECT_EQ(Place("", w.zones[1].line, w.zones[1].column), Place("", 7, 7));
  EXPECT_EQ(w.approve_write, msb::Approval::pre_approved);
}

TEST(WorkerFile, OtherKeysBelongToTheAgentFramework) {
  const WorkerDeclaration w = worker_ok(
      "---\nname: 5\ndescription: [1, 2]\ntools: {read: true}\nmodel: ~\nsandbox: false\n---\n");
  EXPECT_EQ(w.name, "");  // not a string: not ours to complain about
  EXPECT_EQ(w.kind, WorkerSandboxKind::none);
}

TEST(WorkerFile, FrontmatterDelimiters) {
  // A byte order mark, trailing blanks, CRLF line ends and "..." as the closing line.
  const WorkerDeclaration w =
      worker_ok("\xEF\xBB\xBF---  \r\nname: x\r\nsandbox: false\r\n...\r\nBody\r\n---\r\n");
  EXPECT_EQ(w.name, "x");
  EXPECT_EQ(w.kind, WorkerSandboxKind::none);
  // Only the first closing line counts; a later "---" belongs to the instructions.
  EXPECT_EQ(worker_ok("---\nname: a\n---\nsandbox: false\n---\n").kind, WorkerSandboxKind::inherit);
  // The file may end at the closing line.
  EXPECT_EQ(worker_ok("---\nsandbox: false\n---").kind, WorkerSandboxKind::none);
}

TEST(WorkerFile, UnclosedFrontmatter) {
  for (std::string_view text : {"---", "---\n", "---\nname: x\n", "---\nname: x\n-- -\n"}) {
    const ConfigError e = worker_error(text);
    EXPECT_EQ(place_of(e), Place("", 1, 1)) << text;
    EXPECT_EQ(e.expected, "a closing --- line after the frontmatter");
  }
}

struct WorkerErrorCase {
  const char* name;
  std::string_view text;
  std::string_view key_path;
  std::uint32_t line;
  std::uint32_t column;
  std::string_view expected;
};

void PrintTo(const WorkerErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class WorkerErrors : public ::testing::TestWithParam<WorkerErrorCase> {};

TEST_P(WorkerErrors, AreReportedWithFileLineNumbers) {
  const WorkerErrorCase& c = GetParam();
  const ConfigError e = worker_error(c.text);
  EXPECT_EQ(place_of(e), Place(std::string(c.key_path), c.line, c.column)) << c.text;
  EXPECT_EQ(e.expected, c.expected);
}

const WorkerErrorCase kWorkerErrorCases[] = {
    {"sandbox_true", "---\nsandbox: true\n---\n", "sandbox", 2, 10, "false or a mapping"},
    {"sandbox_list", "---\nname: x\nsandbox: [a]\n---\n", "sandbox", 3, 10, "false or a mapping"},
    {"sandbox_string", "---\nsandbox: none\n---\n", "sandbox", 2, 10, "false or a mapping"},
    {"not_a_map", "---\n- a\n---\n", "", 2, 1, "a mapping"},
    {"unknown_key", "---\nsandbox:\n  readOnly: true\n---\n", "sandbox.readOnly", 3, 3,
     "a known key (allowed: restrict, readonly, approval, zones, network)"},
    {"restrict_relative", "---\nsandbox:\n  restrict: src\n---\n", "sandbox.restrict", 3, 13,
     "an absolute virtual path like /src"},
    {"restrict_escapes", "---\nsandbox:\n  restrict: /a/../..\n---\n", "sandbox.restrict", 3, 13,
     "an absolute virtual path like /src"},
    {"restrict_not_string", "---\nsandbox:\n  restrict: [/a]\n---\n", "sandbox.restrict", 3, 13,
     "an absolute virtual path like /src"},
    {"readonly_string", "---\nsandbox:\n  readonly: \"true\"\n---\n", "sandbox.readonly", 3, 13,
     "a boolean"},
    {"bad_approval", "---\nsandbox:\n  approval: {write: yes}\n---\n", "sandbox.approval.write", 3,
     21, "one of preApproved, ask, blocked"},
    {"unknown_approval", "---\nsandbox:\n  approval: {read: ask}\n---\n", "sandbox.approval.read",
     3, 14, "a known key (allowed: write, delete)"},
    {"zones_not_list", "---\nsandbox:\n  zones: {data: ro}\n---\n", "sandbox.zones", 3, 10,
     "a list"},
    {"zone_not_map", "---\nsandbox:\n  zones: [data]\n---\n", "sandbox.zones[0]", 3, 11,
     "a mapping with name and mode"},
    {"zone_missing_name", "---\nsandbox:\n  zones:\n    - mode: ro\n---\n", "sandbox.zones[0].name",
     4, 7, "a zone name (required)"},
    {"zone_bad_name", "---\nsandbox:\n  zones:\n    - name: a/b\n---\n", "sandbox.zones[0].name", 4,
     13, "a zone name that is one path component (not empty, no /, not . or ..)"},
    {"zone_bad_mode", "---\nsandbox:\n  zones:\n    - {name: a, mode: rx}\n---\n",
     "sandbox.zones[0].mode", 4, 23, "one of ro, rw"},
    {"zone_unknown_key", "---\nsandbox:\n  zones:\n    - {name: a, path: x}\n---\n",
     "sandbox.zones[0].path", 4, 17, "a known key (allowed: name, mode)"},
    {"duplicate_zone",
     "---\nsandbox:\n  zones:\n    - name: a\n    - {name: b}\n    - name: a\n---\n",
     "sandbox.zones[2].name", 6, 13, "a zone not already listed (a is sandbox.zones[0])"},
    {"zones_with_restrict", "---\nsandbox:\n  restrict: /a\n  zones: [{name: a}]\n---\n",
     "sandbox.zones", 4, 3, "either zones or restrict/readonly, not both"},
    {"zones_then_readonly", "---\nsandbox:\n  zones: [{name: a}]\n  readonly: true\n---\n",
     "sandbox.readonly", 4, 3, "either zones or restrict/readonly, not both"},
    {"duplicate_key", "---\nname: a\nname: b\n---\n", "name", 3, 1,
     "a key not already used in this mapping (first at line 2, column 1)"},
    {"yaml_syntax", "---\nname: a\nsandbox: [\n---\n", "", 4, 1,
     "valid YAML (end of sequence flow not found)"},
    {"after_bom", "\xEF\xBB\xBF---\n\n\nsandbox: 1\n---\n", "sandbox", 4, 10, "false or a mapping"},
};

INSTANTIATE_TEST_SUITE_P(Cases, WorkerErrors, ::testing::ValuesIn(kWorkerErrorCases),
                         [](const ::testing::TestParamInfo<WorkerErrorCase>& c) {
                           return std::string(c.param.name);
                         });

}  // namespace
}  // namespace msb_test

namespace msb_test {
namespace {

TEST(WorkerFileNetwork, NarrowsBesideRestrictOrZones) {
  const WorkerDeclaration w =
      worker_ok("---\nsandbox:\n  restrict: /src\n  network: {allow: [a.test:443]}\n---\n");
  EXPECT_EQ(w.kind, WorkerSandboxKind::restrict);
  ASSERT_EQ(w.network.kind, msb::NetworkKind::allowlist);
  EXPECT_EQ(w.network.allow.at(0).text, "a.test:443");
  const WorkerDeclaration only = worker_ok("---\nsandbox:\n  network: false\n---\n");
  EXPECT_EQ(only.kind, WorkerSandboxKind::restrict);
  EXPECT_EQ(only.network.kind, msb::NetworkKind::off);
  EXPECT_EQ(worker_ok("---\nsandbox:\n  zones: [{name: a}]\n  network: true\n---\n").network.kind,
            msb::NetworkKind::host);
  EXPECT_EQ(worker_error("---\nsandbox:\n  network: {allow: [x], deny: x}\n---\n").key_path,
            "sandbox.network.deny");
}

}  // namespace
}  // namespace msb_test
