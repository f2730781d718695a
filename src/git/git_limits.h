// What the git scan reads is written by commands, so every read is bounded and every refusal is
// typed: a scan never runs long, never follows a symlink, and never names a host path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace msb::git {

struct GitLimits {
  std::uint64_t max_gitmodules_bytes = 1u << 20;  // git's own files are a few KiB
  std::uint64_t max_gitfile_bytes = 4096;         // a ".git" file or a commondir: one line
  std::uint64_t max_index_bytes = 256u << 20;     // an index of a few million files
  std::size_t max_index_entries = 8'000'000;
  std::size_t max_submodules = 4096;    // named paths per repository (.gitmodules and gitlinks)
  std::size_t max_depth = 8;            // submodules within submodules; module directory nesting
  std::size_t max_repositories = 4096;  // git directories in one scan
  std::uint64_t max_config_bytes = 64u << 10;   // a new repository's config: a few lines
  std::size_t max_hook_entries = 256;           // a new repository's hooks/: git's samples
  std::size_t max_removed_entries = 1'000'000;  // entries of one planted tree removed after a run
};

// Why a scan refused to let a command run, or a check could not finish.
enum class GitRefusalKind : std::uint8_t {
  symlink,    // a git control entry is a symbolic link: it cannot be kept read-only
  too_large,  // a file over its byte bound
  too_many,   // more entries than the bound (submodules, index entries, repositories)
  malformed,  // an index that is not one git wrote
  io,         // the host refused a read (errno says which)
};

struct GitRefusal {
  GitRefusalKind kind = GitRefusalKind::io;
  std::string
      what;  // a name relative to the repository (".git/hooks", ".gitmodules"), never a path
  int sys_errno = 0;
};

}  // namespace msb::git
