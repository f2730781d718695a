#include "launcher/exec_policy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launcher/namespace_layer.h"
#include "launcher/seccomp_filter.h"
#include "test_util.h"

namespace msb {
namespace {

constexpr const char* kMinimal = R"({"argv":["ls","-l"],"cwd":"/work"})";

TEST(ExecPolicy, ParsesEveryField) {
  auto policy = parse_exec_policy(R"({
    "argv": ["sh", "-c", "echo \"hi\""],
    "env": ["PATH=/usr/bin", "EMPTY="],
    "cwd": "/srv/project",
    "paths": [{"path": "/usr", "access": "read"},
              {"path": "/srv/project", "access": "write", "id": "2049:131073"},
              {"path": "/srv/project/keep", "access": "writeKeep"},
              {"path": "/srv/project/vendor", "access": "protect"},
              {"path": "/dev/null", "access": "device"}],
    "network": true,
    "namespaces": "require",
    "allowWeaker": true,
    "scratchLayers": true
  })");
  ASSERT_TRUE(policy.ok());
  const ExecPolicy& p = policy.value();
  EXPECT_EQ(p.argv.size(), 3u);
  EXPECT_EQ(p.argv[2], "echo \"hi\"");
  EXPECT_EQ(p.env[1], "EMPTY=");
  EXPECT_EQ(p.cwd, "/srv/project");
  ASSERT_EQ(p.paths.size(), 5u);
  EXPECT_EQ(p.paths[1].access, PathAccess::write);
  ASSERT_TRUE(p.paths[1].id.has_value());
  EXPECT_EQ(p.paths[1].id->dev, 2049u);
  EXPECT_EQ(p.paths[1].id->ino, 131073u);
  EXPECT_FALSE(p.paths[0].id.has_value());
  EXPECT_EQ(p.paths[2].access, PathAccess::write_keep);
  EXPECT_EQ(p.paths[3].access, PathAccess::protect);
  EXPECT_EQ(p.paths[4].access, PathAccess::device);
  EXPECT_TRUE(p.network);
  EXPECT_EQ(p.namespaces, NamespaceMode::require);
  EXPECT_TRUE(p.allow_weaker);
  EXPECT_TRUE(p.scratch_layers);
  EXPECT_FALSE(parse_exec_policy(kMinimal).value().scratch_layers);
}

TEST(ExecPolicy, ParsesWhereTheCommandSeesEachPathAndItsLimits) {
  auto policy = parse_exec_policy(R"({
    "argv": ["pwd"],
    "cwd": "/workspace/src",
    "hostCwd": "/srv/project/src",
    "cwdId": "2049:77",
    "paths": [{"path": "/srv/project", "access": "write", "target": "/workspace"},
              {"path": "/srv/project/.git", "access": "pin"}],
    "limits": {"processes": 512, "memoryBytes": 1073741824, "cpuSeconds": 60}
  })");
  ASSERT_TRUE(policy.ok());
  const ExecPolicy& p = policy.value();
  EXPECT_EQ(p.cwd, "/workspace/src");
  EXPECT_EQ(p.host_cwd, "/srv/project/src");
  ASSERT_TRUE(p.cwd_id.has_value());
  EXPECT_EQ(p.cwd_id->ino, 77u);
  EXPECT_EQ(p.paths[0].target, "/workspace");
  EXPECT_EQ(p.paths[1].access, PathAccess::pin);
  EXPECT_TRUE(p.paths[1].target.empty());
  EXPECT_EQ(p.limits.processes, 512u);
  EXPECT_EQ(p.limits.memory_bytes, 1073741824u);
  EXPECT_EQ(p.limits.cpu_seconds, 60u);
  // Without hostCwd, the host directory is the same path (a launch without the built root).
  EXPECT_EQ(parse_exec_policy(kMinimal).value().host_cwd, "/work");
  EXPECT_EQ(parse_exec_policy(kMinimal).value().limits.processes, 0u);
}

TEST(ExecPolicy, DefaultsAreTheStrictOnes) {
  auto policy = parse_exec_policy(kMinimal);
  ASSERT_TRUE(policy.ok());
  EXPECT_FALSE(policy.value().network);
  EXPECT_FALSE(policy.value().allow_weaker);
  EXPECT_EQ(policy.value().namespaces, NamespaceMode::prefer);
}

TEST(ExecPolicy, RefusesMalformedPolicies) {
  const char* bad[] = {
      "",
      "[]",
      R"({"argv":["ls"]})",                                 // no cwd
      R"({"cwd":"/"})",                                     // no argv
      R"({"argv":[],"cwd":"/"})",                           // empty argv
      R"({"argv":[""],"cwd":"/"})",                         // empty program
      R"({"argv":["ls"],"cwd":"relative"})",                // relative cwd
      R"({"argv":["l\u0000s"],"cwd":"/"})",                 // NUL in a string
      R"({"argv":["ls"],"cwd":"/","cwd":"/tmp"})",          // duplicate key
      R"({"argv":["ls"],"cwd":"/","shell":true})",          // unknown key
      R"({"argv":["ls"],"cwd":"/","env":["NOEQUALS"]})",    // env entry without '='
      R"({"argv":["ls"],"cwd":"/","env":["=x"]})",          // env entry without a name
      R"({"argv":["ls"],"cwd":"/","network":"yes"})",       // not a boolean
      R"({"argv":["ls"],"cwd":"/","namespaces":"maybe"})",  // unknown mode
      R"({"argv":["ls"],"cwd":"/","paths":[{"path":"usr","access":"read"}]})",
      R"({"argv":["ls"],"cwd":"/","paths":[{"path":"/usr","access":"all"}]})",
      R"({"argv":["ls"],"cwd":"/","paths":[{"path":"/usr"}]})",
      R"({"argv":["ls"],"cwd":"/","paths":[{"path":"/usr","access":"read","id":"1"}]})",
      R"({"argv":["ls"],"cwd":"/","paths":[{"path":"/usr","access":"read","id":"1:x"}]})",
      R"({"argv":["ls"],"cwd":"/","paths":[{"path":"/usr","access":"read","mode":1}]})",
      R"({"argv":["ls"],"cwd":"/"} {})",  // trailing content
      R"({"argv":["ls"],"cwd":"/","paths":[{"path":"/usr","access":"read","target":"usr"}]})",
      R"({"argv":["ls"],"cwd":"/","hostCwd":"rel"})",
      R"({"argv":["ls"],"cwd":"/","cwdId":"12"})",
      R"({"argv":["ls"],"cwd":"/","limits":{"processes":-1}})",
      R"({"argv":["ls"],"cwd":"/","limits":{"processes":1.5}})",
      R"({"argv":["ls"],"cwd":"/","limits":{"threads":5}})",
      R"({"argv":["ls"],"cwd":"/","limits":[]})",
      R"({"argv":["ls"],"cwd":"/","limits":{"processes":01}})",  // leading zero
      R"({"argv":["ls"],"cwd":"/","limits":{"processes":1e2}})",
      R"({"argv":["ls"],"cwd":"/","limits":{"memoryBytes":18446744073709551616}})",
      R"({"argv":["ls"],"cwd":"/","network":null})",
      R"({"argv":["ls"],"cwd":"/",})",                    // trailing comma
      R"({"argv":["ls",],"cwd":"/"})",                    // trailing comma in an array
      R"({"argv":["ls"],"cwd":"/")",                      // unclosed object
      R"({"argv":["ls"],"cwd":"/"}x)",                    // trailing garbage
      R"({'argv':['ls'],'cwd':'/'})",                     // single quotes
      R"({"argv":["l\x"],"cwd":"/"})",                    // unknown escape
      R"({"argv":["\ud800"],"cwd":"/"})",                 // lone high surrogate
      R"({"argv":["\udc00"],"cwd":"/"})",                 // lone low surrogate
      R"({"argv":["\u12G4"],"cwd":"/"})",                 // not hex
      "{\"argv\":[\"l\ts\"],\"cwd\":\"/\"}",              // raw control character
      "{\"argv\":[\"l\xC3s\"],\"cwd\":\"/\"}",            // truncated UTF-8
      "{\"argv\":[\"\xC0\xAF\"],\"cwd\":\"/\"}",          // overlong UTF-8
      "{\"argv\":[\"\xED\xA0\x80\"],\"cwd\":\"/\"}",      // UTF-8 surrogate
      "{\"argv\":[\"\xF4\x90\x80\x80\"],\"cwd\":\"/\"}",  // past U+10FFFF
      R"({"argv":["ls"],"cwd":"/","paths":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]})",  // too deep
  };
  for (const char* json : bad) {
    auto policy = parse_exec_policy(json);
    EXPECT_FALSE(policy.ok()) << json;
    if (!policy.ok()) {
      EXPECT_EQ(policy.error().code, Errc::invalid_config) << json;
    }
  }
}

// A policy with `listen` added to the minimal one.
Result<ExecPolicy> with_listen(const std::string& listen) {
  return parse_exec_policy(R"({"argv":["ls"],"cwd":"/work","listen":)" + listen + "}");
}

TEST(ExecPolicy, ParsesTheListenersOfANetworkAllowlist) {
  auto policy = with_listen(R"({"http": 3128, "socks": 1080, "dns": true, "capture": [80, 443]})");
  ASSERT_TRUE(policy.ok());
  ASSERT_TRUE(policy.value().listen.has_value());
  const NetworkListen& listen = *policy.value().listen;
  EXPECT_EQ(listen.http, std::optional<std::uint16_t>(3128));
  EXPECT_EQ(listen.socks, std::optional<std::uint16_t>(1080));
  EXPECT_TRUE(listen.dns);
  EXPECT_EQ(listen.capture, (std::vector<std::uint16_t>{80, 443}));
  EXPECT_FALSE(policy.value().network);

  auto empty = with_listen("{}");
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty.value().listen.has_value());
  EXPECT_FALSE(empty.value().listen->http.has_value());
  EXPECT_FALSE(empty.value().listen->dns);
  EXPECT_TRUE(empty.value().listen->capture.empty());
  EXPECT_TRUE(with_listen(R"({"http": 65535, "socks": 1, "dns": false})").ok());
  EXPECT_FALSE(parse_exec_policy(kMinimal).value().listen.has_value());
}

TEST(ExecPolicy, ParsesTheRedirectOfEveryPort) {
  auto policy =
      with_listen(R"({"redirect": {"port": 15001, "network": "127.1.0.0", "prefix": 16}})");
  ASSERT_TRUE(policy.ok());
  const std::optional<PortRedirect>& redirect = policy.value().listen->redirect;
  ASSERT_TRUE(redirect.has_value());
  EXPECT_EQ(redirect->port, 15001);
  EXPECT_EQ(redirect->network, 0x7f010000U);
  EXPECT_EQ(redirect->prefix, 16);
  EXPECT_FALSE(with_listen("{}").value().listen->redirect.has_value());
}

TEST(ExecPolicy, RefusesMalformedListeners) {
  std::string sixty_one = "[";
  for (int port = 1000; port < 1061; ++port)
    sixty_one += (port > 1000 ? "," : "") + std::to_string(port);
  sixty_one += "]";
  const std::string bad[] = {
      "null",
      "[]",
      "true",
      R"({"http": 0})",
      R"({"http": 65536})",
      R"({"http": -1})",
      R"({"http": 80.5})",
      R"({"http": "80"})",
      R"({"http": 1e3})",
      R"({"socks": null})",
      R"({"dns": 1})",
      R"({"dns": "yes"})",
      R"({"capture": 80})",
      R"({"capture": [0]})",
      R"({"capture": [80, 80]})",
      R"({"capture": ["80"]})",
      R"({"http": 80, "capture": [80]})",
      R"({"http": 1080, "socks": 1080})",
      R"({"http": 1, "http": 2})",
      R"({"udp": 53})",
      R"({"capture": )" + sixty_one + "}",
      R"({"redirect": 15001})",
      R"({"redirect": {"port": 15001, "network": "127.1.0.0"}})",
      R"({"redirect": {"port": 15001, "network": "127.1.0.0", "prefix": 0}})",
      R"({"redirect": {"port": 15001, "network": "127.1.0.0", "prefix": 33}})",
      R"({"redirect": {"port": 0, "network": "127.1.0.0", "prefix": 16}})",
      R"({"redirect": {"port": 15001, "network": "127.1", "prefix": 16}})",
      R"({"redirect": {"port": 15001, "network": "::1", "prefix": 16}})",
      R"({"redirect": {"port": 15001, "network": "127.1.0.0", "prefix": 16, "x": 1}})",
      R"({"redirect": {"port": 15001, "port": 15002, "prefix": 16}})",
      R"({"http": 15001, "redirect": {"port": 15001, "network": "127.1.0.0", "prefix": 16}})",
  };
  for (const std::string& listen : bad) {
    auto policy = with_listen(listen);
    EXPECT_FALSE(policy.ok()) << listen;
    if (!policy.ok()) {
      EXPECT_EQ(policy.error().code, Errc::invalid_config) << listen;
    }
  }
  // The listeners replace the network: never both.
  EXPECT_FALSE(
      parse_exec_policy(R"({"argv":["ls"],"cwd":"/work","network":true,"listen":{"http":3128}})")
          .ok());
  EXPECT_TRUE(
      parse_exec_policy(R"({"argv":["ls"],"cwd":"/work","network":false,"listen":{"http":3128}})")
          .ok());
  // Sixty capture ports are the most a receiver takes alongside http, socks, dns and the end.
  std::string sixty = sixty_one.substr(0, sixty_one.rfind(',')) + "]";
  EXPECT_TRUE(with_listen(R"({"http":1,"socks":2,"dns":true,"capture":)" + sixty + "}").ok());
}

TEST(ExecPolicy, ReadsEscapesAndUtf8) {
  auto policy = parse_exec_policy(
      "{ \"argv\" : [\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\uD83D\\ude00\", "
      "\"\xC3\xA9\xF0\x9F\x98\x80\"],\n\t\"cwd\":\"/\", \"network\": true,"
      "\"limits\":{\"memoryBytes\":18446744073709551615, \"processes\": 0}\r\n}  ");
  ASSERT_TRUE(policy.ok());
  ASSERT_EQ(policy.value().argv.size(), 3u);
  EXPECT_EQ(policy.value().argv[0], "a\"\\/\b\f\n\r\t");
  EXPECT_EQ(policy.value().argv[1], "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(policy.value().argv[2], policy.value().argv[1]);
  EXPECT_TRUE(policy.value().network);
  EXPECT_EQ(policy.value().limits.memory_bytes, UINT64_MAX);
}

TEST(ExecPolicy, PathIsWithinComparesWholeComponents) {
  EXPECT_TRUE(path_is_within("/a/b", "/a"));
  EXPECT_TRUE(path_is_within("/a", "/a"));
  EXPECT_TRUE(path_is_within("/anything", "/"));
  EXPECT_FALSE(path_is_within("/ab", "/a"));
  EXPECT_FALSE(path_is_within("/a", "/a/b"));
}

ExecPolicy with_paths(std::vector<ExecPath> paths) {
  ExecPolicy policy;
  policy.argv = {"true"};
  policy.cwd = "/";
  policy.paths = std::move(paths);
  return policy;
}

TEST(ExecPolicy, TheSameDirectoryTwiceGetsTheMoreRestrictiveAccess) {
  ExecPolicy policy = with_paths({{"/s", PathAccess::write, {}, {}, {}, {}, {}},
                                  {"/s", PathAccess::read, {}, {}, {}, {}, {}},
                                  {"/k", PathAccess::write, {}, {}, {}, {}, {}},
                                  {"/k", PathAccess::write_keep, {}, {}, {}, {}, {}},
                                  {"/h", PathAccess::protect, {}, {}, {}, {}, {}},
                                  {"/h", PathAccess::write, {}, {}, {}, {}, {}},
                                  {"/p", PathAccess::protect, {}, {}, {}, {}, {}},
                                  {"/p", PathAccess::protect, {}, {}, {}, {}, {}}});
  merge_duplicate_paths(policy, false);
  ASSERT_EQ(policy.paths.size(), 4u);
  EXPECT_EQ(policy.paths[0].access, PathAccess::read);
  EXPECT_EQ(policy.paths[1].access, PathAccess::write_keep);
  EXPECT_EQ(policy.paths[2].access, PathAccess::read);
  EXPECT_EQ(policy.paths[3].access, PathAccess::protect);
}

TEST(ExecPolicy, InABuiltRootEachTargetStaysButReadOnlyStillWins) {
  ExecPolicy policy = with_paths({{"/s", PathAccess::write, {}, "/workspace/a", {}, {}, {}},
                                  {"/s", PathAccess::read, {}, "/workspace/b", {}, {}, {}},
                                  {"/s", PathAccess::write, {}, "/workspace/a", {}, {}, {}}});
  merge_duplicate_paths(policy, true);
  ASSERT_EQ(policy.paths.size(), 2u);
  EXPECT_EQ(policy.paths[0].target, "/workspace/a");
  EXPECT_EQ(policy.paths[0].access, PathAccess::read);
  EXPECT_EQ(policy.paths[1].target, "/workspace/b");
  EXPECT_EQ(policy.paths[1].access, PathAccess::read);
}

TEST(NamespaceLayer, NeededOnlyWhereLandlockCannotKeepAPathReadOnly) {
  // Landlock rights add up along the hierarchy: a read-only source inside a writable one.
  EXPECT_TRUE(needs_read_only_binds(with_paths({{"/p", PathAccess::write, {}, {}, {}, {}, {}},
                                                {"/p/ro", PathAccess::read, {}, {}, {}, {}, {}}})));
  EXPECT_TRUE(
      needs_read_only_binds(with_paths({{"/p", PathAccess::write, {}, {}, {}, {}, {}},
                                        {"/p/h", PathAccess::protect, {}, {}, {}, {}, {}}})));
  EXPECT_TRUE(
      needs_read_only_binds(with_paths({{"/p", PathAccess::write, {}, {}, {}, {}, {}},
                                        {"/p/k", PathAccess::write_keep, {}, {}, {}, {}, {}}})));
  EXPECT_FALSE(needs_read_only_binds(with_paths({{"/p", PathAccess::write, {}, {}, {}, {}, {}},
                                                 {"/q", PathAccess::read, {}, {}, {}, {}, {}}})));
  EXPECT_FALSE(
      needs_read_only_binds(with_paths({{"/p", PathAccess::read, {}, {}, {}, {}, {}},
                                        {"/p/w", PathAccess::write, {}, {}, {}, {}, {}}})));
  EXPECT_FALSE(needs_read_only_binds(with_paths({{"/p", PathAccess::write, {}, {}, {}, {}, {}},
                                                 {"/px", PathAccess::read, {}, {}, {}, {}, {}}})));
  EXPECT_FALSE(
      needs_read_only_binds(with_paths({{"/p", PathAccess::write, {}, {}, {}, {}, {}},
                                        {"/p/null", PathAccess::device, {}, {}, {}, {}, {}}})));
}

TEST(SeccompFilter, AssemblesForThisArchitecture) {
  // Empty would mean an unresolved or backward jump; the launcher would then refuse to run.
  for (bool network : {false, true}) {
    std::vector<sock_filter> program = seccomp_program(network);
#if defined(__x86_64__) || defined(__aarch64__)
    ASSERT_FALSE(program.empty());
    EXPECT_LT(program.size(), 128u);
#else
    EXPECT_TRUE(program.empty());
#endif
  }
  EXPECT_GT(seccomp_program(false).size(), seccomp_program(true).size());
}

// A source that now names another inode is "changed underneath" (LaunchStage::path_changed), not
// a symlink escape; one that cannot be opened names the call and its errno. Both name the entry.
TEST(OpenPolicyPaths, AnotherInodeIsChangedUnderneathAndAFailedOpenNamesTheCall) {
  msb_test::TempDir tmp;
  const std::string kept = (tmp.path() / "kept").string();
  const std::string swapped = (tmp.path() / "swapped").string();
  ASSERT_EQ(::mkdir(kept.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(swapped.c_str(), 0700), 0);
  struct stat st {};
  ASSERT_EQ(::stat(kept.c_str(), &st), 0);
  const FileId kept_id{st.st_dev, st.st_ino};

  ExecPolicy policy;
  policy.paths.push_back({kept, PathAccess::write, kept_id, "/kept", {}, {}, {}});
  policy.paths.push_back({swapped, PathAccess::write, kept_id, "/swapped", {}, {}, {}});
  auto changed = open_policy_paths(policy);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.error().code, Errc::changed_underneath);
  EXPECT_EQ(changed.error().index, 1u);
  EXPECT_EQ(changed.error().op, SysOp::none);

  policy.paths[1] = {
      (tmp.path() / "gone").string(), PathAccess::write, kept_id, "/gone", {}, {}, {}};
  auto missing = open_policy_paths(policy);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::io_error);
  EXPECT_EQ(missing.error().sys_errno, ENOENT);
  EXPECT_EQ(missing.error().op, SysOp::open);
  EXPECT_EQ(missing.error().index, 1u);

  policy.paths.pop_back();
  auto opened = open_policy_paths(policy);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened.value().size(), 1u);
}

}  // namespace
}  // namespace msb
