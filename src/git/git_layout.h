// What git takes for a repository, by its layout rather than its name (git's setup.c,
// is_git_directory): a directory holding a HEAD that is a symbolic ref or an object id, and
// `objects` and `refs` (or a `commondir` file naming where they are). git's discovery tries
// `DIR/.git` and then `DIR` itself, so any directory with that layout is a repository whose
// `config` git reads and whose hooks it runs, whatever the directory is called.
//
// The rule every way in applies (the file API through the sandbox, commands through the check
// after a run): no change may complete that layout in a directory that was not a repository, or
// undo it in one that was (a HEAD moved, deleted or made invalid, `objects` or `refs` taken
// away: git's discovery would then go on to the directory above). A repository's HEAD may still
// change to another valid ref or object id, as git's own commits and checkouts change it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msb::git {

// The entries of a directory that make up the layout.
enum class LayoutPart : std::uint8_t { none, head, objects, refs, commondir };

// Which part a name is, compared as a case-folding directory would (a "head" on such a
// directory is git's HEAD); none for any other name.
LayoutPart layout_part(std::string_view name);

// Whether `text`, a HEAD file's contents, is one git's validate_headref accepts: "ref:", spaces,
// then "refs/..."; or 40 (SHA-1) or 64 (SHA-256) hexadecimal digits at its start.
bool valid_head_text(std::string_view text);
// A HEAD that is a symbolic link is valid when its text starts with "refs/".
bool valid_head_link(std::string_view link_text);

struct Layout {
  bool head = false;  // a HEAD git would accept
  bool objects = false;
  bool refs = false;
  bool commondir = false;

  // What git's discovery takes for a repository. A commondir counts whatever it names: the
  // directory it points to is not ours to judge, and nothing else makes one.
  bool repository() const noexcept { return head && ((objects && refs) || commondir); }
};

// The layout of the directory `dir_fd` as it is now, never following a link but HEAD's own
// text. An entry that is there but cannot be read counts as present and valid: what we cannot
// read, a git run by the same user may well read.
Layout read_layout(int dir_fd);

// The text of the directory's HEAD when it is a regular file git accepts, else "" (what a
// repository's HEAD is put back to when a command takes it away).
std::string valid_head_file(int dir_fd);

// A change to one entry of a directory.
struct LayoutChange {
  enum class Kind : std::uint8_t { place, remove } kind = Kind::place;
  // For a HEAD placed by a write: its new contents. nullopt where they are not known (a move,
  // a directory made): counted as valid when that makes a repository, as invalid when that
  // undoes one, so an unknown HEAD is refused either way.
  std::optional<std::string_view> head_text;
  bool directory = false;  // a directory placed (a HEAD directory is never a valid HEAD)

  static constexpr LayoutChange removal() { return {Kind::remove, std::nullopt, false}; }
  static constexpr LayoutChange file(std::string_view text) { return {Kind::place, text, false}; }
  // An entry whose contents are not known: a directory, or a file moved in.
  static constexpr LayoutChange unknown(bool directory) {
    return {Kind::place, std::nullopt, directory};
  }
};

// Whether changing the entry `name` of a directory whose layout is `before` as `change` says
// makes or undoes a repository: true when it must be refused.
bool changes_repository(const Layout& before, std::string_view name, const LayoutChange& change);

// The names inside a repository that decide what git runs (besides HEAD's layout): its config,
// hooks, info/ (attributes naming filters), commondir, the submodules' and worktrees' own git
// directories. For `.git` these are trusted names already; for a directory that is a repository
// by its layout (a bare one, or one planted under another name) they are found by this.
bool repository_control_name(std::string_view name);

}  // namespace msb::git
