// Content search through a sandbox, as ripgrep searches by default: a walk of the directory by
// the sandbox's own opens (no link followed, mounts and read-only sources as they are), hidden
// entries passed over, .gitignore and .ignore files honoured when asked, every file opened
// through the sandbox (so its suffix and size rules refuse what they refuse anywhere) and read in
// chunks, never whole (file_search.h: binary data ends a file's search there), lines matched by
// RE2 (linear time, no backtracking), files shared among threads. Bounded by results, bytes read
// and CPU time, never by a count of files; each thread holds at most kGrepBytesPerThread of a
// file.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "fs/sandbox.h"
#include "search/match_span.h"

namespace msb {

inline constexpr std::size_t kDefaultGrepResults = 1000;
inline constexpr std::size_t kMaxGrepResults = 100000;
inline constexpr std::size_t kDefaultGrepLineBytes = 400;
inline constexpr std::uint64_t kDefaultGrepBytes = 1ull << 30;
inline constexpr std::uint64_t kDefaultGrepCpuMs = 30000;
inline constexpr std::uint32_t kMaxGrepContext = 20;
inline constexpr unsigned kMaxGrepThreads = 16;

// What a search reports: the lines, the files with a match (ripgrep's -l), or the number of
// matching lines in each such file (-c).
enum class GrepOutput : std::uint8_t { lines, files, count };

struct GrepOptions {
  std::string pattern;
  bool literal = false;
  bool ignore_case = false;
  bool word = false;     // only matches with no word character on either side (-w)
  bool invert = false;   // the lines without a match (-v)
  bool columns = false;  // where in each line its matches lie (GrepMatch::spans)
  GrepOutput output = GrepOutput::lines;
  // file_types.h names (-t): only files of one of these types; none: every file.
  std::vector<std::string> types;
  // Globs (glob.h syntax) for files to search and entries to pass over: without a "/" matched
  // against a name at any depth, with one against the path below the searched directory.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::uint32_t before = 0;   // lines before each match, at most kMaxGrepContext
  std::uint32_t after = 0;    // lines after each match, at most kMaxGrepContext
  std::size_t max_count = 0;  // matching lines per file at most (ripgrep's -m); 0: no bound
  std::size_t max_results = kDefaultGrepResults;
  std::size_t max_line_bytes = kDefaultGrepLineBytes;
  bool ignore_files = false;  // honour .gitignore (inside a git repository) and .ignore
  bool hidden = false;        // search entries whose names start with "."
  std::uint64_t max_bytes = kDefaultGrepBytes;
  std::uint64_t max_cpu_ms = kDefaultGrepCpuMs;
  unsigned threads = 0;  // 0: the machine's cores; at most kMaxGrepThreads
};

struct GrepLine {
  std::uint64_t number = 0;
  std::string text;  // without its line ending, cut to max_line_bytes at a UTF-8 boundary
  bool cut = false;
};

struct GrepMatch {
  std::string path;  // virtual
  GrepLine line;
  std::vector<GrepLine> before;
  std::vector<GrepLine> after;
  std::vector<MatchSpan> spans;  // with `columns`: within line.text (a cut line's, up to the cut)
};

struct GrepFileCount {
  std::string path;         // virtual
  std::uint64_t count = 0;  // matching lines (1 at most in GrepOutput::files)
};

// Why a search stopped before it had searched everything: a closed set.
enum class GrepStop : std::uint8_t { none, results, bytes, cpu, entries, cancelled };
const char* grep_stop_name(GrepStop stop) noexcept;  // "", "results", "bytes", ...

struct GrepResult {
  std::vector<GrepMatch> matches;    // by path, then line (GrepOutput::lines)
  std::vector<GrepFileCount> files;  // by path (GrepOutput::files and count)
  std::uint64_t files_searched = 0;
  std::uint64_t bytes_searched = 0;
  // Files a NUL byte stopped at (binary data): the matches in the chunks before it stand, as
  // ripgrep's do (file_search.h).
  std::uint64_t skipped_binary = 0;
  std::uint64_t skipped_refused = 0;  // read refused by the sandbox (suffix, size, a link out)
  // Files left at a line longer than kGrepLineBound (file_search.h): the rest not searched.
  std::uint64_t skipped_long_lines = 0;
  // Lines a Unicode word boundary left to PCRE2, which gave up on them (boundary_verifier.h):
  // counted as not matching.
  std::uint64_t undecided_lines = 0;
  GrepStop stopped = GrepStop::none;
};

// Searches `dir` (a virtual directory, or one file) for `options.pattern`. invalid_pattern for a
// pattern RE2 refuses (Error::index 0), an include or exclude glob the glob compiler refuses
// (index 1) or a type file_types.h does not name (index 2); the sandbox's error for a `dir` it
// refuses. `max_results` bounds the matching lines, or with GrepOutput::files and count, the
// files.
// `cancel`, when given, is polled between files and between directories.
Result<GrepResult> grep(const Sandbox& sandbox, std::string_view dir, const GrepOptions& options,
                        const std::atomic<std::int32_t>* cancel = nullptr);

}  // namespace msb
