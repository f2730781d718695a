// One file searched as ripgrep searches it with a fixed buffer: read in chunks, never whole, so a
// file of any size costs a bounded amount of memory. Only complete lines are matched (the part of
// a line a chunk cuts is carried into the next), so a line across a chunk's edge is found as it
// is; context lines come from the chunk before or after where they lie there. A NUL byte is
// binary data: the search stops at the chunk that holds it, and the matches in the chunks before
// stand (ripgrep's "quit" detection, with its buffers: a file whose first chunk holds a NUL gives
// no match).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "search/grep.h"
#include "search/line_matcher.h"

namespace msb {

// What one search thread holds of a file: a chunk, and the line a chunk cut, which may grow to
// kGrepLineBound before the file is given up (a line longer than that is not searched; rg would
// hold it whole).
inline constexpr std::size_t kGrepChunkBytes = 256 * 1024;
inline constexpr std::size_t kGrepLineBound = 16 * 1024 * 1024;
inline constexpr std::size_t kGrepBytesPerThread = kGrepChunkBytes + kGrepLineBound;

struct FileFindings {
  std::vector<GrepMatch> matches;  // GrepOutput::lines only
  std::uint64_t count = 0;         // matching lines (with `invert`, lines without a match)
  std::uint64_t undecided = 0;     // LineMatcher::Lines::undecided, summed
  std::uint64_t bytes = 0;         // read from the file
  bool binary = false;             // a NUL byte ended the search (file_search.h)
  bool long_line = false;          // a line past kGrepLineBound ended it
  bool out_of_bytes = false;       // `max_bytes` ended it
};

struct FileToSearch {
  int fd = -1;              // open for reading
  std::uint64_t size = 0;   // as fstat said when it was opened (a hint: the file may change)
  const std::string& path;  // virtual: what the matches are reported under
};

// Searches `file` from its start for lines `matcher` matches, at most `limit` of them and
// `max_bytes` bytes read. `buffer` is the calling thread's, kept from file to file so that a
// small file costs no allocation; it grows to kGrepBytesPerThread at most.
Result<FileFindings> search_file(const FileToSearch& file, const LineMatcher& matcher,
                                 const GrepOptions& options, std::size_t limit,
                                 std::uint64_t max_bytes, std::vector<char>& buffer);

// A line's text without its ending, cut to `limit` bytes at a UTF-8 boundary.
GrepLine line_at(std::string_view text, std::size_t start, std::uint64_t number, std::size_t limit);

}  // namespace msb
