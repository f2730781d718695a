#include "search/file_search.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string_view>

#include "common/sys.h"

namespace msb {
namespace {

std::uint64_t count_lines(std::string_view text) {
  return static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
}

// The start of the line before the one starting at `at` (> 0).
std::size_t previous_line(std::string_view text, std::size_t at) {
  const auto newline = at >= 2 ? text.rfind('\n', at - 2) : std::string_view::npos;
  return newline == std::string_view::npos ? 0 : newline + 1;
}

// The search of one file, a region at a time: each region complete lines, in file order (only
// the file's last may lack its "\n"). What lies beyond a region's edge for context is carried:
// the last lines of the region before, and the matches still short of lines after them.
class Scan {
 public:
  Scan(const std::string& path, const LineMatcher& matcher, const GrepOptions& options,
       std::size_t limit)
      : path_(path), matcher_(matcher), options_(options), limit_(limit) {}

  void region(std::string_view text) {
    const auto lines = matcher_.matching_lines(text, limit_ - count_, options_.invert);
    count_ += lines.starts.size();
    undecided_ += lines.undecided;
    if (options_.output != GrepOutput::lines) return;  // no text, no line numbers
    give_after(text);
    std::uint64_t number = first_line_;
    std::size_t counted = 0;
    for (std::size_t start : lines.starts) {
      number += count_lines(text.substr(counted, start - counted));
      counted = start;
      found_.push_back(match_at(text, start, number));
    }
    const std::uint64_t next_line = number + count_lines(text.substr(counted));
    remember_last_lines(text, next_line);
    first_line_ = next_line;
  }

  // Enough matches, and the lines after the last of them read too.
  bool full() const noexcept { return count_ >= limit_ && wanting_.empty(); }
  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t undecided() const noexcept { return undecided_; }
  std::vector<GrepMatch> take() { return std::move(found_); }

 private:
  GrepLine line(std::string_view text, std::size_t start, std::uint64_t number) const {
    return line_at(text, start, number, options_.max_line_bytes);
  }

  GrepMatch match_at(std::string_view text, std::size_t start, std::uint64_t number) {
    GrepMatch match;
    match.path = path_;
    match.line = line(text, start, number);
    if (options_.columns && !options_.invert) match.spans = spans_in(text, start, match.line);
    std::size_t at = start;
    std::uint32_t before = 0;
    for (; before < options_.before && at > 0; ++before) {
      at = previous_line(text, at);
      match.before.insert(match.before.begin(), line(text, at, number - before - 1));
    }
    // The rest from the region before, nearest last.
    for (auto it = recent_.rbegin(); before < options_.before && it != recent_.rend(); ++it) {
      match.before.insert(match.before.begin(), *it);
      ++before;
    }
    std::size_t next = text.find('\n', start);
    while (match.after.size() < options_.after && next != std::string_view::npos &&
           next + 1 < text.size()) {
      match.after.push_back(line(text, next + 1, number + match.after.size() + 1));
      next = text.find('\n', next + 1);
    }
    if (match.after.size() < options_.after) wanting_.push_back(found_.size());
    return match;
  }

  // The matches' spans in the line at `start`, as far as its text was kept.
  std::vector<MatchSpan> spans_in(std::string_view text, std::size_t start, const GrepLine& kept) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto spans = matcher_.spans(text.substr(start, end - start));
    std::erase_if(spans, [&](const MatchSpan& s) { return s.start >= kept.text.size(); });
    for (MatchSpan& s : spans) s.end = std::min(s.end, kept.text.size());
    return spans;
  }

  // The region's first lines, to the matches before it still short of lines after them.
  void give_after(std::string_view text) {
    std::size_t at = 0;
    for (std::uint64_t n = first_line_; !wanting_.empty() && at < text.size(); ++n) {
      const GrepLine next = line(text, at, n);
      std::erase_if(wanting_, [&](std::size_t i) {
        found_[i].after.push_back(next);
        return found_[i].after.size() >= options_.after;
      });
      const auto newline = text.find('\n', at);
      if (newline == std::string_view::npos) break;
      at = newline + 1;
    }
  }

  // The region's last lines, for the first matches of the next; `next_line` is first_line_ and
  // the region's line endings.
  void remember_last_lines(std::string_view text, std::uint64_t next_line) {
    if (options_.before == 0) return;
    std::vector<GrepLine> last;
    std::size_t end = text.size();
    if (end > 0 && text[end - 1] == '\n') --end;
    // The last line is the one before next_line, unless the text ends without a "\n".
    const std::uint64_t last_number = end == text.size() ? next_line : next_line - 1;
    std::size_t at = end + 1;
    while (last.size() < options_.before && at > 0) {
      at = previous_line(text, at);
      last.push_back(line(text, at, last_number - last.size()));
    }
    for (auto it = last.rbegin(); it != last.rend(); ++it) recent_.push_back(std::move(*it));
    while (recent_.size() > options_.before) recent_.pop_front();
  }

  const std::string& path_;
  const LineMatcher& matcher_;
  const GrepOptions& options_;
  const std::size_t limit_;
  std::uint64_t first_line_ = 1;
  std::deque<GrepLine> recent_;
  std::uint64_t count_ = 0;
  std::uint64_t undecided_ = 0;
  std::vector<std::size_t> wanting_;  // indexes in found_
  std::vector<GrepMatch> found_;
};

}  // namespace

GrepLine line_at(std::string_view text, std::size_t start, std::uint64_t number,
                 std::size_t limit) {
  std::size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  GrepLine line;
  line.number = number;
  std::size_t length = end - start;
  if (length > limit) {
    length = limit;
    while (length > 0 && (static_cast<unsigned char>(text[start + length]) & 0xC0) == 0x80) {
      --length;
    }
    line.cut = true;
  }
  line.text.assign(text.substr(start, length));
  return line;
}

Result<FileFindings> search_file(const FileToSearch& file, const LineMatcher& matcher,
                                 const GrepOptions& options, std::size_t limit,
                                 std::uint64_t max_bytes, std::vector<char>& buffer) {
  FileFindings out;
  Scan scan(file.path, matcher, options, limit);
  std::size_t kept = 0;  // the start of a line the last chunk cut, at the buffer's start
  for (bool end_of_file = false; !end_of_file && !scan.full();) {
    if (out.bytes >= max_bytes) {
      out.out_of_bytes = true;
      break;
    }
    // A byte past the size fstat gave, so that one read of a small file also sees its end.
    const std::uint64_t left = file.size > out.bytes ? file.size - out.bytes : 0;
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(
        {kGrepChunkBytes, max_bytes - out.bytes, std::max<std::uint64_t>(left, 4095) + 1}));
    if (buffer.size() < kept + want) buffer.resize(kept + want);
    auto* into = reinterpret_cast<std::uint8_t*>(buffer.data() + kept);
    auto got = sys::pread_full(file.fd, into, want, out.bytes);
    if (!got) return got.error();
    out.bytes += got.value();
    const std::size_t end = kept + got.value();
    // A file that ends exactly at the byte bound (as fstat said) has been read whole.
    end_of_file = got.value() < want || (out.bytes >= max_bytes && out.bytes >= file.size);
    // Binary data: the chunk that holds it is not searched, as ripgrep leaves the buffer it
    // found a NUL in (so a small file with one is not searched at all).
    if (std::memchr(buffer.data() + kept, 0, got.value()) != nullptr) {
      out.binary = true;
      break;
    }
    std::size_t cut = end;
    if (!end_of_file) {
      const void* newline = ::memrchr(buffer.data() + kept, '\n', end - kept);
      if (newline == nullptr) {
        kept = end;
        if (kept < kGrepLineBound) continue;
        out.long_line = true;
        break;
      }
      cut = static_cast<std::size_t>(static_cast<const char*>(newline) - buffer.data()) + 1;
    }
    if (cut > 0) scan.region(std::string_view(buffer.data(), cut));
    kept = end - cut;
    std::memmove(buffer.data(), buffer.data() + cut, kept);
  }
  out.matches = scan.take();
  out.count = scan.count();
  out.undecided = scan.undecided();
  return out;
}

}  // namespace msb
