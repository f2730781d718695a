// The program config model, and every mistake in a config at its exact place.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_test_util.h"

namespace msb_test {
namespace {

std::string describe_policy(const msb::ApprovalRule& a, const msb::FilePolicy& p) {
  std::ostringstream out;
  out << "w=" << msb::approval_name(a.write) << " d=" << msb::approval_name(a.remove);
  if (p.allowed_suffixes) {
    out << " allow=[";
    for (const auto& s : *p.allowed_suffixes) out << s << ";";
    out << "]";
  }
  out << " deny=[";
  for (const auto& s : p.denied_suffixes) out << s << ";";
  out << "]";
  if (p.max_file_bytes) out << " max=" << *p.max_file_bytes;
  return out.str();
}

// Everything but `file`, so that the same config in two formats compares equal.
std::string describe(const ProgramConfig& c) {
  std::ostringstream out;
  out << "dir=" << c.dir << " maxDepth=" << c.max_depth << "\n";
  if (!c.sandbox) return out.str() + "no sandbox\n";
  const msb::ProgramSandbox& s = *c.sandbox;
  out << "layout=" << static_cast<int>(s.layout) << " root=" << s.root << " ro=" << s.readonly
      << " " << describe_policy(s.approval, s.policy) << "\n";
  for (std::size_t i = 0; i < s.mounts.size(); ++i) {
    const msb::MountSpec& m = s.mounts[i];
    out << m.target << " <- " << m.source << " ro=" << m.readonly << " "
        << describe_policy(m.approval, m.policy);
    if (i < s.zones.size()) out << " zone=" << s.zones[i].name;
    out << "\n";
  }
  return out.str();
}

// =============================================================================================
// Program configs: the model

TEST(ProgramConfig, MountFormWithEveryKey) {
  const ProgramConfig c = config_ok(
      "model: anthropic:claude-sonnet-4\n"
      "approval:\n  mode: interactive\n"
      "workerPaths: [workers, more]\n"
      "sandbox:\n"
      "  root: project/./sub/..\n"
      "  readonly: true\n"
      "  approval:\n    write: preApproved\n    delete: blocked\n"
      "  deniedSuffixes: [\".key\", \".PEM\"]\n"
      "  maxFileBytes: 2048\n"
      "  mounts:\n"
      "    - source: ../cache\n"
      "      target: /cache/\n"
      "      readonly: true\n"
      "      allowedSuffixes: [\".JSON\", .tar.gz]\n"
      "      maxFileBytes: 0x400\n"
      "    - {source: /abs/out//x/, target: /out/deep, approval: {delete: preApproved}}\n"
      "delegation:\n  maxDepth: 3\n");
  EXPECT_EQ(c.file, kYamlFile);
  EXPECT_EQ(c.dir, "/proj/cfg");
  EXPECT_EQ(c.max_depth, 3u);
  EXPECT_EQ(c.worker_paths, (std::vector<std::string>{"/proj/cfg/workers", "/proj/cfg/more"}));
  ASSERT_TRUE(c.sandbox.has_value());
  const msb::ProgramSandbox& s = *c.sandbox;
  EXPECT_EQ(s.layout, msb::SandboxLayout::mounts);
  EXPECT_EQ(s.root, "/proj/cfg/project");
  EXPECT_TRUE(s.readonly);
  EXPECT_EQ(describe_policy(s.approval, s.policy),
            "w=preApproved d=blocked deny=[.key;.pem;] max=2048");
  ASSERT_EQ(s.mounts.size(), 2u);
  EXPECT_EQ(s.mounts[0].source, "/proj/cache");
  EXPECT_EQ(s.mounts[0].target, "/cache");
  EXPECT_TRUE(s.mounts[0].readonly);
  EXPECT_EQ(describe_policy(s.mounts[0].approval, s.mounts[0].policy),
            "w=ask d=ask allow=[.json;.tar.gz;] deny=[] max=1024");
  EXPECT_EQ(s.mounts[1].source, "/abs/out/x");
  EXPECT_EQ(s.mounts[1].target, "/out/deep");
  EXPECT_FALSE(s.mounts[1].readonly);
  EXPECT_EQ(describe_policy(s.mounts[1].approval, s.mounts[1].policy),
            "w=ask d=preApproved deny=[]");
  EXPECT_TRUE(s.zones.empty());
}

TEST(ProgramConfig, Defaults) {
  const ProgramConfig c = config_ok("sandbox: {}\n");
  ASSERT_TRUE(c.sandbox.has_value());
  EXPECT_EQ(c.max_depth, 5u);
  // golem-forge's default worker directories.
  EXPECT_EQ(c.worker_paths, (std::vector<std::string>{"/proj/cfg/workers", "/proj/cfg/.workers"}));
  EXPECT_EQ(c.sandbox->root, "/proj/cfg");
  EXPECT_FALSE(c.sandbox->readonly);
  EXPECT_EQ(describe_policy(c.sandbox->approval, c.sandbox->policy), "w=ask d=ask deny=[]");
  EXPECT_TRUE(c.sandbox->mounts.empty());
  // An empty allow list is kept: it allows nothing.
  const ProgramConfig none = config_ok("sandbox:\n  allowedSuffixes: []\n");
  ASSERT_TRUE(none.sandbox->policy.allowed_suffixes.has_value());
  EXPECT_TRUE(none.sandbox->policy.allowed_suffixes->empty());
  // Absolute roots, and roots climbing above "/", are normalized lexically.
  EXPECT_EQ(config_ok("sandbox: {root: /srv//data/}\n").sandbox->root, "/srv/data");
  EXPECT_EQ(config_ok("sandbox: {root: ../../../..}\n").sandbox->root, "/");
}

TEST(ProgramConfig, AllowPseudoFilesystemOnTheRootEachMountAndEachZone) {
  const ProgramConfig plain = config_ok("sandbox:\n  mounts: [{source: /proc/self, target: /p}]\n");
  EXPECT_FALSE(plain.sandbox->allow_pseudo_filesystem);
  EXPECT_FALSE(plain.sandbox->mounts[0].allow_pseudo_filesystem);
  const ProgramConfig mounts = config_ok(
      "sandbox:\n  root: /proc/self\n  allowPseudoFilesystem: true\n  mounts:\n"
      "    - {source: /sys, target: /s, allowPseudoFilesystem: true}\n"
      "    - {source: /dev, target: /d, allowPseudoFilesystem: false}\n");
  EXPECT_TRUE(mounts.sandbox->allow_pseudo_filesystem);
  EXPECT_TRUE(mounts.sandbox->mounts[0].allow_pseudo_filesystem);
  EXPECT_FALSE(mounts.sandbox->mounts[1].allow_pseudo_filesystem);
  const ProgramConfig zones = config_ok(
      "{\"sandbox\": {\"mode\": \"direct\", \"zones\": {\"p\": {\"path\": \"/proc/self\", "
      "\"allowPseudoFilesystem\": true}, \"q\": {}}}}",
      ConfigFormat::json);
  EXPECT_TRUE(zones.sandbox->mounts[0].allow_pseudo_filesystem);
  EXPECT_FALSE(zones.sandbox->mounts[1].allow_pseudo_filesystem);
  const ConfigError bad = config_error(
      "sandbox:\n  mounts:\n    - {source: a, target: /a, allowPseudoFilesystem: 1}\n");
  EXPECT_EQ(bad.key_path, "sandbox.mounts[0].allowPseudoFilesystem");
  EXPECT_EQ(bad.expected, "a boolean");
  // Not on the zone form's top level: it belongs beside a source.
  EXPECT_EQ(config_error("sandbox:\n  zones: {a: {}}\n  allowPseudoFilesystem: true\n").key_path,
            "sandbox.allowPseudoFilesystem");
}

TEST(ProgramConfig, TmpBytesIsASizeInBytesZeroIncluded) {
  EXPECT_EQ(config_ok("sandbox:\n  tmpBytes: 8388608\n").sandbox->tmp_bytes, 8388608u);
  EXPECT_EQ(config_ok("sandbox:\n  tmpBytes: 0\n").sandbox->tmp_bytes, 0u);
  EXPECT_FALSE(config_ok("sandbox: {}\n").sandbox->tmp_bytes.has_value());
  for (const char* bad : {"1G", "-1", "1.5", "9007199254740992"}) {
    const std::string text = std::string("sandbox:\n  tmpBytes: ") + bad + "\n";
    EXPECT_FALSE(msb::parse_program_config(text, "/p/c.yaml", ConfigFormat::yaml).ok()) << bad;
  }
}

TEST(ProgramConfig, NoSandboxSectionMeansNoFileAccess) {
  for (std::string_view text : {"", "# nothing yet\n", "\n  \n", "~\n", "model: m\n"}) {
    const ProgramConfig c = config_ok(text);
    EXPECT_FALSE(c.sandbox.has_value()) << text;
    EXPECT_EQ(c.max_depth, 5u);
  }
  EXPECT_FALSE(config_ok("{}", ConfigFormat::json).sandbox.has_value());
  EXPECT_FALSE(config_ok("null", ConfigFormat::json).sandbox.has_value());
}

TEST(ProgramConfig, ZoneFormSandboxed) {
  const ProgramConfig c = config_ok(
      "sandbox:\n"
      "  zones:\n"
      "    data: {path: data, mode: rw}\n"
      "    refs:\n      path: lib/refs\n      mode: ro\n"
      "    scratch:\n"
      "    notes:\n      approval: {write: preApproved}\n      allowedSuffixes: [.MD]\n"
      "      deniedSuffixes: [.tmp]\n      maxFileBytes: 100\n");
  ASSERT_TRUE(c.sandbox.has_value());
  const msb::ProgramSandbox& s = *c.sandbox;
  EXPECT_EQ(s.layout, msb::SandboxLayout::zones_sandboxed);
  EXPECT_EQ(s.root, "");
  EXPECT_EQ(describe(c),
            "dir=/proj/cfg maxDepth=5\n"
            "layout=1 root= ro=0 w=ask d=ask deny=[]\n"
            "/data <- /proj/cfg/.sandbox/data ro=0 w=ask d=ask deny=[] zone=data\n"
            "/refs <- /proj/cfg/.sandbox/lib/refs ro=1 w=ask d=ask deny=[] zone=refs\n"
            "/scratch <- /proj/cfg/.sandbox/scratch ro=0 w=ask d=ask deny=[] zone=scratch\n"
            "/notes <- /proj/cfg/.sandbox/notes ro=0 w=preApproved d=ask allow=[.md;] "
            "deny=[.tmp;] max=100 zone=notes\n");
  // A root of its own, and sandbox-wide readonly.
  const ProgramConfig r = config_ok(
      "sandbox:\n  mode: sandboxed\n  root: ../box\n  readonly: true\n  zones:\n    d: {path: "
      "x/.}\n");
  ASSERT_EQ(r.sandbox->mounts.size(), 1u);
  EXPECT_EQ(r.sandbox->mounts[0].source, "/proj/box/x");
  EXPECT_TRUE(r.sandbox->mounts[0].readonly);
  EXPECT_TRUE(r.sandbox->readonly);
  EXPECT_EQ(r.sandbox->zones.at(0).name, "d");
}

TEST(ProgramConfig, ZoneFormDirect) {
  const ProgramConfig c = config_ok(
      "sandbox:\n  mode: direct\n  zones:\n    workspace: {path: ., mode: rw}\n"
      "    up: {path: ../elsewhere, mode: ro}\n    abs: {path: /srv/abs}\n    same: {}\n");
  ASSERT_TRUE(c.sandbox.has_value());
  EXPECT_EQ(describe(c),
            "dir=/proj/cfg maxDepth=5\n"
            "layout=2 root= ro=0 w=ask d=ask deny=[]\n"
            "/workspace <- /proj/cfg ro=0 w=ask d=ask deny=[] zone=workspace\n"
            "/up <- /proj/elsewhere ro=1 w=ask d=ask deny=[] zone=up\n"
            "/abs <- /srv/abs ro=0 w=ask d=ask deny=[] zone=abs\n"
            "/same <- /proj/cfg/same ro=0 w=ask d=ask deny=[] zone=same\n");
}

TEST(ProgramConfig, YamlAndJsonGiveTheSameModel) {
  const std::string_view yaml =
      "model: anthropic:claude-sonnet-4\n"
      "approval: {mode: approve_all}\n"
      "workerPaths: [workers]\n"
      "sandbox:\n"
      "  root: project\n"
      "  readonly: true\n"
      "  approval: {write: blocked}\n"
      "  allowedSuffixes: [\".ts\", \".md\"]\n"
      "  mounts:\n"
      "    - {source: ../cache, target: /cache, readonly: true, maxFileBytes: 10}\n"
      "    - source: out\n"
      "      target: /out/deep\n"
      "      approval: {delete: preApproved}\n"
      "      deniedSuffixes: [\".exe\"]\n"
      "delegation: {maxDepth: 7}\n";
  const std::string_view json = R"({
    "model": "anthropic:claude-sonnet-4",
    "approval": {"mode": "approve_all"},
    "workerPaths": ["workers"],
    "sandbox": {
      "root": "project",
      "readonly": true,
      "approval": {"write": "blocked"},
      "allowedSuffixes": [".ts", ".md"],
      "mounts": [
        {"source": "../cache", "target": "/cache", "readonly": true, "maxFileBytes": 10},
        {"source": "out", "target": "/out/deep", "approval": {"delete": "preApproved"},
         "deniedSuffixes": [".exe"]}
      ]
    },
    "delegation": {"maxDepth": 7}
  })";
  const ProgramConfig y = config_ok(yaml);
  const ProgramConfig j = config_ok(json, ConfigFormat::json);
  EXPECT_EQ(describe(j), describe(y));
  EXPECT_EQ(y.max_depth, 7u);
  ASSERT_EQ(y.sandbox->mounts.size(), 2u);

  const ProgramConfig zy = config_ok(
      "sandbox:\n  mode: direct\n  zones:\n    a: {path: x, mode: ro}\n"
      "    b: {path: y, approval: {write: preApproved}}\n");
  const ProgramConfig zj = config_ok(
      R"({"sandbox": {"mode": "direct", "zones": {"a": {"path": "x", "mode": "ro"},
          "b": {"path": "y", "approval": {"write": "preApproved"}}}}})",
      ConfigFormat::json);
  EXPECT_EQ(describe(zj), describe(zy));
  EXPECT_EQ(zy.sandbox->mounts.size(), 2u);
}

TEST(ProgramConfig, TheConfigFileMustBeAbsolute) {
  for (std::string_view file : {"", "golem-forge.config.yaml", "./x.yaml"}) {
    auto parsed = msb::parse_program_config("sandbox: {}\n", file, ConfigFormat::yaml);
    ASSERT_FALSE(parsed.ok()) << file;
    const ConfigError& e = parsed.error();
    EXPECT_EQ(place_of(e), Place("", 0, 0));
    EXPECT_EQ(e.expected, "an absolute config file path");
  }
  auto parsed =
      msb::parse_program_config("sandbox: {}\n", "/golem-forge.config.yaml", ConfigFormat::yaml);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().dir, "/");
  EXPECT_EQ(parsed.value().sandbox->root, "/");
}

// =============================================================================================
// Program configs: every mistake at its exact place

struct ErrorCase {
  const char* name;
  ConfigFormat format;
  std::string_view text;
  std::string_view key_path;
  std::uint32_t line;
  std::uint32_t column;
  std::string_view expected;  // the whole phrase, or its beginning when it ends in "..."
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class ConfigErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConfigErrors, AreReportedWhereTheyAreWritten) {
  const ErrorCase& c = GetParam();
  const ConfigError e = config_error(c.text, c.format);
  EXPECT_EQ(place_of(e), Place(std::string(c.key_path), c.line, c.column)) << c.text;
  std::string_view expected = c.expected;
  if (expected.size() > 3 && expected.substr(expected.size() - 3) == "...") {
    expected.remove_suffix(3);
    EXPECT_EQ(e.expected.substr(0, expected.size()), expected) << e.expected;
  } else {
    EXPECT_EQ(e.expected, expected);
  }
}

constexpr ConfigFormat Y = ConfigFormat::yaml;
constexpr ConfigFormat J = ConfigFormat::json;

const ErrorCase kErrorCases[] = {
    // wrong types
    {"readonly_quoted", Y, "sandbox:\n  readonly: \"yes\"\n", "sandbox.readonly", 2, 13,
     "a boolean"},
    {"readonly_quoted_json", J, "{\n  \"sandbox\": {\n    \"readonly\": \"yes\"\n  }\n}",
     "sandbox.readonly", 3, 17, "a boolean"},
    {"readonly_one", Y, "sandbox:\n  readonly: 1\n", "sandbox.readonly", 2, 13, "a boolean"},
    {"readonly_yaml11_yes", Y, "sandbox:\n  readonly: yes\n", "sandbox.readonly", 2, 13,
     "a boolean"},
    {"readonly_empty_points_at_key", Y, "sandbox:\n  readonly:\n  root: x\n", "sandbox.readonly", 2,
     3, "a boolean"},
    {"mount_readonly_string", J,
     "{\"sandbox\": {\"mounts\": [\n  {\"source\": \"a\", \"target\": \"/a\"},\n"
     "  {\"source\": \"b\", \"target\": \"/b\", \"readonly\": \"true\"}\n]}}",
     "sandbox.mounts[1].readonly", 3, 47, "a boolean"},
    {"max_depth_negative", Y, "delegation:\n  maxDepth: -1\n", "delegation.maxDepth", 2, 13,
     "an integer from 1 to 100"},
    {"max_depth_zero", J, "{\"delegation\": {\"maxDepth\": 0}}", "delegation.maxDepth", 1, 29,
     "an integer from 1 to 100"},
    {"max_depth_over", Y, "delegation:\n  maxDepth: 101\n", "delegation.maxDepth", 2, 13,
     "an integer from 1 to 100"},
    {"max_depth_string", Y, "delegation:\n  maxDepth: \"3\"\n", "delegation.maxDepth", 2, 13,
     "an integer from 1 to 100"},
    {"max_depth_fraction", J, "{\"delegation\": {\"maxDepth\": 1.5}}", "delegation.maxDepth", 1, 29,
     "an integer from 1 to 100"},
    {"max_depth_huge", J, "{\"delegation\": {\"maxDepth\": 99999999999999999999999}}",
     "delegation.maxDepth", 1, 29, "an integer from 1 to 100"},
    {"max_file_bytes_over_2_53", Y, "sandbox:\n  maxFileBytes: 9007199254740993\n",
     "sandbox.maxFileBytes", 2, 17, "an integer from 1 to 9007199254740992"},
    {"max_file_bytes_negative", Y, "sandbox:\n  maxFileBytes: -5\n", "sandbox.maxFileBytes", 2, 17,
     "an integer from 1 to 9007199254740992"},
    {"max_file_bytes_string", J,
     "{\"sandbox\": {\"mounts\": [{\"source\": \"a\", \"target\": \"/a\", \"maxFileBytes\": "
     "\"10\"}]}}",
     "sandbox.mounts[0].maxFileBytes", 1, 73, "an integer from 1 to 9007199254740992"},
    {"suffixes_not_a_list", Y, "sandbox:\n  allowedSuffixes: .md\n", "sandbox.allowedSuffixes", 2,
     20, "a list"},
    {"suffix_without_dot", Y, "sandbox:\n  deniedSuffixes: [\".pem\", \"key\"]\n",
     "sandbox.deniedSuffixes[1]", 2, 28, "a file suffix starting with a dot, like .md"},
    {"suffix_only_dot", J, "{\"sandbox\": {\"deniedSuffixes\": [\".\"]}}",
     "sandbox.deniedSuffixes[0]", 1, 33, "a file suffix starting with a dot, like .md"},
    {"suffix_with_slash", Y, "sandbox:\n  allowedSuffixes: [\".a/b\"]\n",
     "sandbox.allowedSuffixes[0]", 2, 21, "a file suffix starting with a dot, like .md"},
    {"mounts_not_a_list", Y, "sandbox:\n  mounts: /data\n", "sandbox.mounts", 2, 11, "a list"},
    {"mount_not_a_map", Y, "sandbox:\n  mounts:\n    - /data\n", "sandbox.mounts[0]", 3, 7,
     "a mapping with source and target"},
    {"target_not_a_string", J, "{\"sandbox\": {\"mounts\": [{\"source\": \"a\", \"target\": 5}]}}",
     "sandbox.mounts[0].target", 1, 51, "an absolute normalized virtual path other than /, ..."},
    {"source_empty", Y, "sandbox:\n  mounts:\n    - {source: \"\", target: /a}\n",
     "sandbox.mounts[0].source", 3, 16, "a non-empty path string"},
    {"root_not_a_string", Y, "sandbox:\n  root: [a]\n", "sandbox.root", 2, 9,
     "a non-empty path string"},
    {"sandbox_not_a_map", Y, "sandbox: yes\n", "sandbox", 1, 10, "a mapping"},
    {"sandbox_list", J, "{\"sandbox\": [1]}", "sandbox", 1, 13, "a mapping"},
    {"sandbox_false", Y, "sandbox: false\n", "sandbox", 1, 10, "a mapping"},
    {"sandbox_null_json", J, "{\"sandbox\": null}", "sandbox", 1, 13, "a mapping"},
    {"sandbox_empty_yaml", Y, "sandbox:\n", "sandbox", 1, 1, "a mapping"},
    {"top_level_list", Y, "- sandbox\n", "", 1, 1, "a mapping"},
    {"top_level_list_json", J, "[]", "", 1, 1, "a mapping"},
    {"top_level_scalar", Y, "\n  hello\n", "", 2, 3, "a mapping"},
    {"worker_paths_item", Y, "workerPaths: [a, [b]]\n", "workerPaths[1]", 1, 18, "a string"},
    {"worker_paths_not_list", Y, "workerPaths: a\n", "workerPaths", 1, 14, "a list"},
    {"model_number", J, "{\"model\": 4}", "model", 1, 11, "a string"},
    {"delegation_not_map", Y, "delegation: 5\n", "delegation", 1, 13, "a mapping"},
    {"approval_not_map", Y, "sandbox:\n  approval: ask\n", "sandbox.approval", 2, 13,
     "a mapping with write and delete"},
    // unknown keys
    {"unknown_top", Y, "sandbox: {}\nsandbx:\n  root: x\n", "sandbx", 2, 1,
     "a known key (allowed: sandbox, delegation, model, approval, workerPaths)"},
    {"unknown_top_json", J, "{\n  \"sandbox\": {},\n  \"sandbx\": {}\n}", "sandbx", 3, 3,
     "a known key (allowed: ..."},
    {"unknown_sandbox_key", Y, "sandbox:\n  readOnly: true\n", "sandbox.readOnly", 2, 3,
     "a known key (allowed: root, readonly, mounts, approval, allowedSuffixes, deniedSuffixes, "
     "maxFileBytes, allowPseudoFilesystem, network, changes, tmpBytes, trustedNames, zones, "
     "mode)"},
    {"unknown_mount_key", Y,
     "sandbox:\n  mounts:\n    - source: a\n      target: /a\n      readOnly: true\n",
     "sandbox.mounts[0].readOnly", 5, 7,
     "a known key (allowed: source, target, readonly, approval, allowedSuffixes, "
     "deniedSuffixes, maxFileBytes, allowPseudoFilesystem)"},
    {"unknown_approval_key", Y, "sandbox:\n  approval:\n    write: ask\n    remove: blocked\n",
     "sandbox.approval.remove", 4, 5, "a known key (allowed: write, delete)"},
    {"unknown_top_approval_key", Y, "approval:\n  mode: interactive\n  write: ask\n",
     "approval.write", 3, 3, "a known key (allowed: mode)"},
    {"unknown_zone_key", Y, "sandbox:\n  zones:\n    data:\n      path: d\n      readonly: true\n",
     "sandbox.zones.data.readonly", 5, 7,
     "a known key (allowed: path, mode, approval, allowedSuffixes, deniedSuffixes, "
     "maxFileBytes, allowPseudoFilesystem)"},
    {"unknown_delegation_key", J, "{\"delegation\": {\"maxDepth\": 2, \"depth\": 3}}",
     "delegation.depth", 1, 32, "a known key (allowed: maxDepth)"},
    {"mode_without_zones", Y, "sandbox:\n  mode: direct\n  mounts: []\n", "sandbox.mode", 2, 3,
     "zones alongside mode (mode says where zones live)"},
    {"policy_key_in_zone_form", Y, "sandbox:\n  approval: {write: ask}\n  zones: {}\n",
     "sandbox.approval", 2, 3,
     "a key of the zone form (allowed: zones, mode, root, readonly, network, changes, "
     "tmpBytes, trustedNames)..."},
    // mounts
    {"duplicate_target", Y,
     "sandbox:\n  mounts:\n    - source: a\n      target: /data\n    - source: b\n"
     "      target: /data\n",
     "sandbox.mounts[1].target", 6, 15,
     "a target not already mounted (/data is mounted by sandbox.mounts[0])"},
    {"duplicate_target_trailing_slash", J,
     "{\"sandbox\": {\"mounts\": [\n  {\"source\": \"a\", \"target\": \"/data\"},\n"
     "  {\"source\": \"b\", \"target\": \"/data/\"}\n]}}",
     "sandbox.mounts[1].target", 3, 29,
     "a target not already mounted (/data is mounted by sandbox.mounts[0])"},
    {"target_relative", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"data\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"target_dotdot", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"/a/../b\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"target_root", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"/\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"target_empty_segment", Y, "sandbox:\n  mounts:\n    - {source: a, target: \"/a//b\"}\n",
     "sandbox.mounts[0].target", 3, 27, "an absolute normalized virtual path other than /, ..."},
    {"missing_source", Y, "sandbox:\n  mounts:\n    - {target: /a}\n", "sandbox.mounts[0].source",
     3, 7, "a source path (required)"},
    {"missing_target", Y, "sandbox:\n  mounts:\n    - source: a\n      readonly: true\n",
     "sandbox.mounts[0].target", 3, 7, "a target like /data (required)"},
    // duplicate keys
    {"duplicate_key", Y, "sandbox:\n  root: a\n  root: b\n", "sandbox.root", 3, 3,
     "a key not already used in this mapping (first at line 2, column 3)"},
    {"duplicate_top_key", Y, "sandbox: {}\nsandbox: {}\n", "sandbox", 2, 1,
     "a key not already used in this mapping (first at line 1, column 1)"},
    {"duplicate_key_json", J, "{\"sandbox\": {\"root\": \"a\",\n \"root\": \"b\"}}", "sandbox.root",
     2, 2, "a key not already used in this mapping (first at line 1, column 14)"},
    {"duplicate_key_in_flow", Y, "sandbox:\n  mounts:\n    - {source: a, target: /a, source: b}\n",
     "sandbox.mounts[0].source", 3, 31,
     "a key not already used in this mapping (first at line 3, column 8)"},
    // zones
    {"zone_name_slash", Y, "sandbox:\n  zones:\n    a/b: {path: x}\n", "sandbox.zones.a/b", 3, 5,
     "a zone name that is one path component (not empty, no /, not . or ..)"},
    {"zone_name_slash_json", J, "{\"sandbox\": {\"zones\": {\"a/b\": {\"path\": \"x\"}}}}",
     "sandbox.zones.a/b", 1, 24, "a zone name that is one path component..."},
    {"zone_name_dotdot", Y, "sandbox:\n  zones:\n    \"..\": {path: x}\n", "sandbox.zones...", 3, 5,
     "a zone name that is one path component..."},
    {"zone_name_dot", Y, "sandbox:\n  zones:\n    .: {}\n", "sandbox.zones..", 3, 5,
     "a zone name that is one path component..."},
    {"zone_name_empty", J, "{\"sandbox\": {\"zones\": {\"\": {\"path\": \"x\"}}}}",
     "sandbox.zones.", 1, 24, "a zone name that is one path component..."},
    {"zone_bad_mode", Y, "sandbox:\n  zones:\n    data: {path: d, mode: rwx}\n",
     "sandbox.zones.data.mode", 3, 27, "one of ro, rw"},
    {"zone_bad_mode_json", J,
     "{\"sandbox\": {\"zones\": {\"data\": {\"path\": \"d\", \"mode\": \"write\"}}}}",
     "sandbox.zones.data.mode", 1, 54, "one of ro, rw"},
    {"sandbox_bad_mode", Y, "sandbox:\n  mode: chroot\n  zones:\n    data: {path: d}\n",
     "sandbox.mode", 2, 9, "one of sandboxed, direct"},
    {"zone_path_escapes", Y, "sandbox:\n  zones:\n    data:\n      path: ../x\n",
     "sandbox.zones.data.path", 4, 13, "a relative path that stays inside the sandbox root"},
    {"zone_path_escapes_json", J, "{\"sandbox\": {\"zones\": {\"data\": {\"path\": \"../x\"}}}}",
     "sandbox.zones.data.path", 1, 41, "a relative path that stays inside the sandbox root"},
    {"zone_path_absolute", Y, "sandbox:\n  zones:\n    data: {path: /etc}\n",
     "sandbox.zones.data.path", 3, 18, "a relative path that stays inside the sandbox root"},
    {"zone_path_escapes_late", Y, "sandbox:\n  zones:\n    data: {path: a/../../x}\n",
     "sandbox.zones.data.path", 3, 18, "a relative path that stays inside the sandbox root"},
    {"zone_path_empty", Y, "sandbox:\n  mode: direct\n  zones:\n    data: {path: ''}\n",
     "sandbox.zones.data.path", 4, 18, "a non-empty path string"},
    {"direct_mode_with_root", Y, "sandbox:\n  mode: direct\n  root: x\n  zones: {}\n",
     "sandbox.root", 3, 3, "no root in direct mode (zone paths are relative to the config file)"},
    {"mounts_then_zones", Y,
     "sandbox:\n  mounts:\n    - {source: a, target: /a}\n  zones:\n    data: {path: d}\n",
     "sandbox.zones", 4, 3, "either mounts or zones, not both"},
    {"zones_then_mounts", J,
     "{\"sandbox\": {\"zones\": {\"data\": {\"path\": \"d\"}},\n\"mounts\": []}}", "sandbox.mounts",
     2, 1, "either mounts or zones, not both"},
    {"zones_not_a_map", Y, "sandbox:\n  zones: [a]\n", "sandbox.zones", 2, 10,
     "a mapping of zone names to zone settings"},
    {"zone_not_a_map", Y, "sandbox:\n  zones:\n    data: ro\n", "sandbox.zones.data", 3, 11,
     "a mapping"},
    // approvals
    {"bad_approval", Y, "sandbox:\n  approval:\n    write: always\n", "sandbox.approval.write", 3,
     12, "one of preApproved, ask, blocked"},
    {"bad_approval_json", J,
     "{\"sandbox\": {\"mounts\": [{\"source\": \"a\", \"target\": \"/a\", \"approval\": "
     "{\"delete\": "
     "\"no\"}}]}}",
     "sandbox.mounts[0].approval.delete", 1, 80, "one of preApproved, ask, blocked"},
    {"approval_case_matters", Y,
     "sandbox:\n  zones:\n    z:\n      path: z\n      approval: {write: PreApproved}\n",
     "sandbox.zones.z.approval.write", 5, 25, "one of preApproved, ask, blocked"},
    {"approval_mode", Y, "approval:\n  mode: yolo\n", "approval.mode", 2, 9,
     "one of interactive, approve_all, auto_deny"},
    // syntax, reported by the tree with key_path ""
    {"json_for_yaml", J, "sandbox:\n  root: r\n", "", 1, 1, "a value"},
    {"yaml_tab", Y, "sandbox:\n\troot: a\n", "", 2, 1, "spaces, not tabs, for indentation"},
    {"bom_and_comments", Y, "\xEF\xBB\xBF# header\n\n# more\nsandbox:\n  readonly: 1\n",
     "sandbox.readonly", 5, 13, "a boolean"},
};

INSTANTIATE_TEST_SUITE_P(Cases, ConfigErrors, ::testing::ValuesIn(kErrorCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& c) {
                           return std::string(c.param.name);
                         });

}  // namespace
}  // namespace msb_test

// =============================================================================================
// network: only its shape here; the entries' grammar is the facade's (lib/network/policy.js)

namespace msb_test {
namespace {

TEST(ProgramConfigNetwork, FalseTrueAndAllowlistsWithTheirPlaces) {
  EXPECT_EQ(config_ok("sandbox:\n  root: .\n").sandbox->network.kind, msb::NetworkKind::unset);
  EXPECT_EQ(config_ok("sandbox:\n  root: .\n  network: false\n").sandbox->network.kind,
            msb::NetworkKind::off);
  EXPECT_EQ(config_ok("sandbox:\n  root: .\n  network: true\n").sandbox->network.kind,
            msb::NetworkKind::host);
  const ProgramConfig c = config_ok(
      "sandbox:\n  root: .\n  network:\n    allow:\n      - a.test\n      - '*.b.test:443'\n"
      "    deny: [c.b.test]\n");
  const msb::NetworkSetting& n = c.sandbox->network;
  ASSERT_EQ(n.kind, msb::NetworkKind::allowlist);
  ASSERT_EQ(n.allow.size(), 2u);
  EXPECT_EQ(n.allow[1].text, "*.b.test:443");
  EXPECT_EQ(n.allow[1].line, 6u);
  EXPECT_EQ(n.allow[1].column, 9u);
  ASSERT_EQ(n.deny.size(), 1u);
  EXPECT_EQ(n.deny[0].text, "c.b.test");
  // The zone form takes it beside its zones.
  EXPECT_EQ(config_ok("sandbox:\n  zones: {a: {}}\n  network: {allow: []}\n").sandbox->network.kind,
            msb::NetworkKind::allowlist);
}

TEST(ProgramConfigNetwork, WrongShapesAreRefusedWhereTheyAre) {
  EXPECT_EQ(config_error("sandbox:\n  root: .\n  network: 1\n").key_path, "sandbox.network");
  EXPECT_EQ(config_error("sandbox:\n  root: .\n  network: {deny: [a]}\n").key_path,
            "sandbox.network.allow");
  EXPECT_EQ(config_error("sandbox:\n  root: .\n  network: {allow: a}\n").key_path,
            "sandbox.network.allow");
  EXPECT_EQ(config_error("sandbox:\n  root: .\n  network: {allow: [1]}\n").key_path,
            "sandbox.network.allow[0]");
  EXPECT_EQ(config_error("sandbox:\n  root: .\n  network: {allow: [], ports: [1]}\n").key_path,
            "sandbox.network.ports");
  std::string many = "sandbox:\n  root: .\n  network:\n    allow:\n";
  for (std::size_t i = 0; i <= msb::kMaxNetworkEntries; ++i) many += "      - a.test\n";
  EXPECT_EQ(config_error(many).key_path, "sandbox.network.allow");
}

}  // namespace
}  // namespace msb_test
