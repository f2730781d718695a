#include "fs/mount_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

msb::Result<msb::MountTable> create_table(const std::string& root, bool readonly,
                                          const std::vector<msb::MountSpec>& specs) {
  return msb::MountTable::create(msb::RootSpec{root, readonly, {}, {}}, specs);
}

msb::Narrowing narrowing(std::optional<bool> readonly) {
  msb::Narrowing n;
  n.readonly = readonly;
  return n;
}

using msb::Errc;
using msb::MountSpec;
using msb::MountTable;
using msb::VirtualPath;
using msb_test::code_of;

// Anchors are settled by the sandbox, never by the table, so table-only tests can name host
// paths that do not exist; a subtree is described by its host path alone.
msb::Result<std::shared_ptr<msb::Anchor>> lexical_subtree(
    const std::shared_ptr<msb::Anchor>& parent, std::vector<std::string> parts) {
  std::string host = parent->host_path() == "/" ? "" : parent->host_path();
  for (const std::string& part : parts) host += "/" + part;
  return msb::Anchor::at_host_path(host);
}

MountTable make_table(const std::string& root, bool readonly, const std::vector<MountSpec>& specs) {
  auto table = create_table(root, readonly, specs);
  EXPECT_TRUE(table.ok()) << msb::errc_name(code_of(table));
  if (!table.ok()) return create_table("/nonexistent-root", false, {}).value();
  return std::move(table).value();
}

VirtualPath vp(std::string_view text) {
  auto parsed = msb::parse_virtual_path(text);
  EXPECT_TRUE(parsed.ok()) << text;
  return parsed.ok() ? parsed.value() : VirtualPath{};
}

// The mount a virtual path lands on, named by its host source.
std::string source_of(const MountTable& table, std::string_view text) {
  return table.locate(vp(text)).mount->anchor->host_path();
}

const msb::Mount* find_mount(const MountTable& table, std::string_view target) {
  for (const auto& m : table.mounts()) {
    if (m.target.str() == target && (target == "/" || !m.target.is_root())) return &m;
  }
  return nullptr;
}

std::vector<std::string> targets(const MountTable& table) {
  std::vector<std::string> out;
  for (const auto& m : table.mounts()) out.push_back(m.target.str());
  return out;
}

std::set<std::string> target_set(const MountTable& table) {
  auto list = targets(table);
  EXPECT_EQ(std::set<std::string>(list.begin(), list.end()).size(), list.size());
  return {list.begin(), list.end()};
}

std::set<std::string> entries(const MountTable& table, std::string_view dir) {
  auto names = table.mount_entries_in(vp(dir));
  return {names.begin(), names.end()};
}

bool hides(const MountTable& table, const std::string& host_path) {
  const auto& hidden = table.hidden();
  return std::any_of(hidden.begin(), hidden.end(),
                     [&](const auto& m) { return m.anchor->host_path() == host_path; });
}

// ---------------------------------------------------------------------------------------------
// create / locate

TEST(MountTableCreate, RootOnly) {
  MountTable table = make_table("/h/root", true, {});
  ASSERT_EQ(table.mounts().size(), 1u);
  EXPECT_TRUE(table.root().target.is_root());
  EXPECT_TRUE(table.root().readonly);
  EXPECT_EQ(table.root().anchor->host_path(), "/h/root");
  auto at = table.locate(vp("/a/b"));
  EXPECT_EQ(at.mount, &table.root());
  EXPECT_EQ(at.rest_begin, 0u);
}

TEST(MountTableCreate, MountsSortedLongestFirstRootLast) {
  MountTable table = make_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/a", "/a", false), msb_test::mount_spec("/h/abc", "/a/b/c", false),
       msb_test::mount_spec("/h/ab", "/a/b", true), msb_test::mount_spec("/h/z", "/z", false)});
  const auto& mounts = table.mounts();
  ASSERT_EQ(mounts.size(), 5u);
  EXPECT_TRUE(mounts.back().target.is_root());
  EXPECT_EQ(&table.root(), &mounts.back());
  for (std::size_t i = 0; i + 2 < mounts.size(); ++i) {
    EXPECT_GE(mounts[i].target.str().size(), mounts[i + 1].target.str().size())
        << "mount order: " << ::testing::PrintToString(targets(table));
  }
  EXPECT_EQ(mounts.front().target.str(), "/a/b/c");
  ASSERT_NE(find_mount(table, "/a/b"), nullptr);
  EXPECT_TRUE(find_mount(table, "/a/b")->readonly);
  EXPECT_FALSE(find_mount(table, "/a")->readonly);
}

TEST(MountTableCreate, LocatePicksLongestTarget) {
  MountTable table = make_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/a", "/a", false), msb_test::mount_spec("/h/abc", "/a/b/c", false),
       msb_test::mount_spec("/h/ab", "/a/b", false)});
  struct Case {
    const char* path;
    const char* source;
    std::size_t rest_begin;
  };
  for (const Case& c :
       {Case{"/", "/h/root", 0}, Case{"/x", "/h/root", 0}, Case{"/a", "/h/a", 1},
        Case{"/a/x/y", "/h/a", 1}, Case{"/a/b", "/h/ab", 2}, Case{"/a/b/x", "/h/ab", 2},
        Case{"/a/b/c", "/h/abc", 3}, Case{"/a/b/c/d/e", "/h/abc", 3}, Case{"/a/bc", "/h/a", 1},
        Case{"/ab", "/h/root", 0}, Case{"/a/b/cd", "/h/ab", 2}}) {
    auto at = table.locate(vp(c.path));
    EXPECT_EQ(at.mount->anchor->host_path(), c.source) << c.path;
    EXPECT_EQ(at.rest_begin, c.rest_begin) << c.path;
  }
}

TEST(MountTableCreate, DuplicateTargetsRejected) {
  auto dup = create_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/1", "/data", false), msb_test::mount_spec("/h/2", "/data", true)});
  ASSERT_EQ(code_of(dup), Errc::invalid_config);
  EXPECT_EQ(dup.error().limit, 1u);

  // Same target spelled with the tolerated trailing slash.
  auto slash = create_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/0", "/x", false), msb_test::mount_spec("/h/1", "/data", false),
       msb_test::mount_spec("/h/2", "/data/", false)});
  ASSERT_EQ(code_of(slash), Errc::invalid_config);
  EXPECT_EQ(slash.error().limit, 2u);

  // A prefix is not a duplicate.
  EXPECT_TRUE(create_table("/h/root", false,
                           {msb_test::mount_spec("/h/1", "/data", false),
                            msb_test::mount_spec("/h/2", "/data/sub", false)})
                  .ok());
}

TEST(MountTableCreate, BadConfigurationReportsIndex) {
  auto relative_root = create_table("root", false, {});
  ASSERT_EQ(code_of(relative_root), Errc::invalid_config);
  EXPECT_EQ(relative_root.error().limit, SIZE_MAX);
  EXPECT_EQ(code_of(create_table("", false, {})), Errc::invalid_config);
  EXPECT_EQ(code_of(create_table(std::string("/a\0b", 4), false, {})), Errc::invalid_config);

  auto relative_source = create_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/ok", "/ok", false), msb_test::mount_spec("h/src", "/x", false)});
  ASSERT_EQ(code_of(relative_source), Errc::invalid_config);
  EXPECT_EQ(relative_source.error().limit, 1u);

  auto empty_source = create_table("/h/root", false, {msb_test::mount_spec("", "/x", false)});
  ASSERT_EQ(code_of(empty_source), Errc::invalid_config);
  EXPECT_EQ(empty_source.error().limit, 0u);

  for (const char* target : {"/", "//data", "/a/../b", "data", "/a/./b", ""}) {
    auto bad = create_table("/h/root", false,
                            {msb_test::mount_spec("/h/ok", "/ok", false),
                             msb_test::mount_spec("/h/src", target, false)});
    ASSERT_EQ(code_of(bad), Errc::invalid_config) << target;
    EXPECT_EQ(bad.error().limit, 1u) << target;
  }
}

// ---------------------------------------------------------------------------------------------
// restrict

TEST(MountTableRestrict, OntoExactTargetMakesThatMountTheRoot) {
  MountTable table = make_table("/h/root", false,
                                {msb_test::mount_spec("/h/cfg", "/cfg", true),
                                 msb_test::mount_spec("/h/data", "/data", false)});
  auto child = table.restrict(vp("/cfg"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(child.ok()) << msb::errc_name(code_of(child));
  const MountTable& t = child.value();
  ASSERT_EQ(t.mounts().size(), 1u) << ::testing::PrintToString(targets(t));
  EXPECT_EQ(t.root().anchor, find_mount(table, "/cfg")->anchor);  // the same pinned anchor
  EXPECT_TRUE(t.root().readonly);                                 // inherited
  EXPECT_FALSE(hides(t, "/h/cfg"));                               // it is the root, not hidden

  auto writable = table.restrict(vp("/data"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(writable.ok());
  EXPECT_EQ(writable.value().root().anchor, find_mount(table, "/data")->anchor);
  EXPECT_FALSE(writable.value().root().readonly);
  EXPECT_TRUE(hides(writable.value(), "/h/cfg"));
}

TEST(MountTableRestrict, BelowAMountNarrowsItsSource) {
  MountTable table = make_table("/h/root", false, {msb_test::mount_spec("/h/src", "/src", false)});
  auto child = table.restrict(vp("/src/lib/x"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(child.value().root().anchor->host_path(), "/h/src/lib/x");
  EXPECT_EQ(child.value().mounts().size(), 1u);

  auto in_root = table.restrict(vp("/home/u"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(in_root.ok());
  EXPECT_EQ(in_root.value().root().anchor->host_path(), "/h/root/home/u");

  auto same = table.restrict(vp("/"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same.value().root().anchor, table.root().anchor);
  EXPECT_EQ(targets(same.value()), targets(table));
}

TEST(MountTableRestrict, MovesNestedMountsAndDropsOthers) {
  MountTable table = make_table("/h/root", false,
                                {msb_test::mount_spec("/h/src", "/src", false),
                                 msb_test::mount_spec("/h/vendor", "/src/vendor", true),
                                 msb_test::mount_spec("/h/gen", "/src/build/gen", false),
                                 msb_test::mount_spec("/h/other", "/other", true),
                                 msb_test::mount_spec("/h/data", "/data", false),
                                 msb_test::mount_spec("/h/srcx", "/srcx", true)});
  auto child = table.restrict(vp("/src"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(child.ok());
  const MountTable& t = child.value();
  EXPECT_EQ(target_set(t), (std::set<std::string>{"/vendor", "/build/gen", "/"}));
  EXPECT_EQ(t.root().anchor->host_path(), "/h/src");
  EXPECT_FALSE(t.root().readonly);

  const msb::Mount* vendor = find_mount(t, "/vendor");
  ASSERT_NE(vendor, nullptr);
  EXPECT_EQ(vendor->anchor, find_mount(table, "/src/vendor")->anchor);
  EXPECT_TRUE(vendor->readonly);
  ASSERT_NE(find_mount(t, "/build/gen"), nullptr);
  EXPECT_FALSE(find_mount(t, "/build/gen")->readonly);

  EXPECT_EQ(source_of(t, "/vendor/x"), "/h/vendor");
  EXPECT_EQ(source_of(t, "/build/gen/y"), "/h/gen");
  EXPECT_EQ(source_of(t, "/build/other"), "/h/src");
  EXPECT_EQ(source_of(t, "/other"), "/h/src");  // the dropped mount is not reachable by name
  EXPECT_EQ(source_of(t, "/data"), "/h/src");

  // Dropped read-only mounts are remembered; dropped writable ones are not.
  EXPECT_TRUE(hides(t, "/h/other"));
  EXPECT_TRUE(hides(t, "/h/srcx"));
  EXPECT_FALSE(hides(t, "/h/data"));
  EXPECT_FALSE(hides(t, "/h/root"));
  EXPECT_FALSE(hides(t, "/h/vendor"));  // still visible, not hidden
}

TEST(MountTableRestrict, FromAboveMountsKeepsTheirRelativePlace) {
  MountTable table = make_table("/h/root", false,
                                {msb_test::mount_spec("/h/ab", "/a/b", false),
                                 msb_test::mount_spec("/h/ac", "/a/c/d", true)});
  auto child = table.restrict(vp("/a"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(target_set(child.value()), (std::set<std::string>{"/b", "/c/d", "/"}));
  EXPECT_EQ(child.value().root().anchor->host_path(), "/h/root/a");
  EXPECT_TRUE(find_mount(child.value(), "/c/d")->readonly);
}

TEST(MountTableRestrict, ReadonlyRestrictionMakesEveryMountReadonly) {
  MountTable table = make_table("/h/root", false,
                                {msb_test::mount_spec("/h/src", "/src", false),
                                 msb_test::mount_spec("/h/vendor", "/src/vendor", false),
                                 msb_test::mount_spec("/h/gen", "/src/gen", true)});
  auto child = table.restrict(vp("/src"), narrowing(true), lexical_subtree);
  ASSERT_TRUE(child.ok());
  ASSERT_EQ(child.value().mounts().size(), 3u);
  for (const auto& m : child.value().mounts()) EXPECT_TRUE(m.readonly) << m.target.str();

  auto whole = table.restrict(vp("/"), narrowing(true), lexical_subtree);
  ASSERT_TRUE(whole.ok());
  for (const auto& m : whole.value().mounts()) EXPECT_TRUE(m.readonly) << m.target.str();
  // The parent is untouched.
  EXPECT_FALSE(table.root().readonly);
  EXPECT_FALSE(find_mount(table, "/src")->readonly);
}

TEST(MountTableRestrict, ReadWriteOntoReadonlyIsEscalation) {
  MountTable ro_root = make_table("/h/root", true, {msb_test::mount_spec("/h/w", "/w", false)});
  EXPECT_EQ(code_of(ro_root.restrict(vp("/x"), narrowing(false), lexical_subtree)),
            Errc::permission_escalation);
  EXPECT_EQ(code_of(ro_root.restrict(vp("/"), narrowing(false), lexical_subtree)),
            Errc::permission_escalation);
  auto inherit = ro_root.restrict(vp("/x"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(inherit.ok());
  EXPECT_TRUE(inherit.value().root().readonly);
  // A writable mount inside a read-only root may be selected read-write.
  auto w = ro_root.restrict(vp("/w/sub"), narrowing(false), lexical_subtree);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w.value().root().readonly);

  MountTable table = make_table("/h/root", false, {msb_test::mount_spec("/h/cfg", "/cfg", true)});
  EXPECT_EQ(code_of(table.restrict(vp("/cfg"), narrowing(false), lexical_subtree)),
            Errc::permission_escalation);
  EXPECT_EQ(code_of(table.restrict(vp("/cfg/deep"), narrowing(false), lexical_subtree)),
            Errc::permission_escalation);
  // Narrowing a read-only result to a read-only child of it: escalation only when asked.
  auto ro_child = table.restrict(vp("/"), narrowing(true), lexical_subtree);
  ASSERT_TRUE(ro_child.ok());
  EXPECT_EQ(code_of(ro_child.value().restrict(vp("/a"), narrowing(false), lexical_subtree)),
            Errc::permission_escalation);
  EXPECT_TRUE(ro_child.value().restrict(vp("/a"), narrowing(true), lexical_subtree).ok());
}

TEST(MountTableRestrict, HiddenReadonlyAccumulatesAcrossLevels) {
  MountTable table = make_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/cfg", "/cfg", true), msb_test::mount_spec("/h/src", "/src", false),
       msb_test::mount_spec("/h/lib", "/src/lib", true),
       msb_test::mount_spec("/h/docs", "/src/docs", true)});
  auto child = table.restrict(vp("/src"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(child.ok());
  EXPECT_TRUE(hides(child.value(), "/h/cfg"));
  EXPECT_FALSE(hides(child.value(), "/h/lib"));

  auto grandchild = child.value().restrict(vp("/docs"), narrowing(std::nullopt), lexical_subtree);
  ASSERT_TRUE(grandchild.ok());
  EXPECT_TRUE(grandchild.value().root().readonly);
  EXPECT_TRUE(hides(grandchild.value(), "/h/cfg"));  // inherited from the child
  EXPECT_TRUE(hides(grandchild.value(), "/h/lib"));  // dropped at this level
  EXPECT_FALSE(hides(grandchild.value(), "/h/docs"));
}

// ---------------------------------------------------------------------------------------------
// holds_mount_point / mount_entries_in

TEST(MountTableQueries, HoldsMountPoint) {
  MountTable table = make_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/ab", "/a/b", false), msb_test::mount_spec("/h/c", "/c", true)});
  EXPECT_TRUE(table.holds_mount_point(vp("/")));
  EXPECT_TRUE(table.holds_mount_point(vp("/a")));
  EXPECT_TRUE(table.holds_mount_point(vp("/a/b")));
  EXPECT_TRUE(table.holds_mount_point(vp("/c")));
  EXPECT_FALSE(table.holds_mount_point(vp("/a/b/c")));
  EXPECT_FALSE(table.holds_mount_point(vp("/a/x")));
  EXPECT_FALSE(table.holds_mount_point(vp("/ab")));
  EXPECT_FALSE(table.holds_mount_point(vp("/c/d")));
  EXPECT_FALSE(table.holds_mount_point(vp("/d")));

  MountTable plain = make_table("/h/root", false, {});
  EXPECT_FALSE(plain.holds_mount_point(vp("/")));
  EXPECT_FALSE(plain.holds_mount_point(vp("/a")));
}

TEST(MountTableQueries, MountEntriesIn) {
  MountTable table = make_table(
      "/h/root", false,
      {msb_test::mount_spec("/h/ab", "/a/b", false), msb_test::mount_spec("/h/ac", "/a/c", false),
       msb_test::mount_spec("/h/acd", "/a/c/d", false), msb_test::mount_spec("/h/x", "/x", true)});
  EXPECT_EQ(entries(table, "/"), (std::set<std::string>{"a", "x"}));
  EXPECT_EQ(entries(table, "/a"), (std::set<std::string>{"b", "c"}));
  EXPECT_EQ(entries(table, "/a/c"), (std::set<std::string>{"d"}));
  EXPECT_TRUE(entries(table, "/a/b").empty());
  EXPECT_TRUE(entries(table, "/a/c/d").empty());
  EXPECT_TRUE(entries(table, "/x").empty());
  EXPECT_TRUE(entries(table, "/y").empty());
  EXPECT_TRUE(entries(table, "/ab").empty());
}

}  // namespace
