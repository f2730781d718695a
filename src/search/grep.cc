#include "search/grep.h"

#include <time.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "fs/fd_io.h"
#include "search/file_search.h"
#include "search/file_types.h"
#include "search/grep_walk.h"
#include "search/ignore_rules.h"
#include "search/line_matcher.h"

namespace msb {
namespace {

std::uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

Result<std::vector<GlobMatcher>> compile_globs(const std::vector<std::string>& globs,
                                               std::vector<bool>& by_name) {
  std::vector<GlobMatcher> out;
  for (const std::string& glob : globs) {
    std::string_view text = glob;
    while (!text.empty() && text.back() == '/') text.remove_suffix(1);
    while (!text.empty() && text.front() == '/') text.remove_prefix(1);
    auto matcher = GlobMatcher::compile(rooted(text));
    if (!matcher) return at_index(Error{Errc::invalid_pattern}, 1);
    by_name.push_back(text.find('/') == std::string_view::npos);
    out.push_back(std::move(matcher.value()));
  }
  return out;
}

// What one file gave: its matching lines, or only their count (GrepOutput::files and count).
struct FileResult {
  std::vector<GrepMatch> matches;
  std::uint64_t count = 0;
};

// The globs of the named file types, each matched against a file's name.
Result<std::vector<GlobMatcher>> type_globs(const std::vector<std::string>& names) {
  std::vector<GlobMatcher> out;
  for (const std::string& name : names) {
    const FileType* type = find_file_type(name);
    if (type == nullptr) return at_index(Error{Errc::invalid_pattern}, 2);
    std::string_view globs = type->globs;
    while (!globs.empty()) {
      const auto comma = globs.find(',');
      auto glob = GlobMatcher::compile(rooted(globs.substr(0, comma)));
      if (!glob) return at_index(Error{Errc::invalid_pattern}, 2);
      out.push_back(std::move(glob.value()));
      globs = comma == std::string_view::npos ? std::string_view() : globs.substr(comma + 1);
    }
  }
  return out;
}

// The files a walk hands over, in path order, taken one at a time by the search's threads. A
// deque, so that a path or a result slot stays where it is while more are added.
class FileQueue {
 public:
  void add(std::string path) {
    {
      std::lock_guard lock(mutex_);
      paths_.push_back(std::move(path));
      found_.emplace_back();
    }
    ready_.notify_one();
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  // The next file's index; nullopt once the walk has ended and every file was taken.
  std::optional<std::size_t> take() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return next_ < paths_.size() || closed_; });
    if (next_ == paths_.size()) return std::nullopt;
    return next_++;
  }
  const std::string& path(std::size_t i) {
    std::lock_guard lock(mutex_);
    return paths_[i];
  }
  FileResult& found(std::size_t i) {
    std::lock_guard lock(mutex_);
    return found_[i];
  }
  // Once every thread has ended.
  std::deque<FileResult>& all_found() { return found_; }
  const std::deque<std::string>& all_paths() const { return paths_; }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> paths_;
  std::deque<FileResult> found_;
  std::size_t next_ = 0;
  bool closed_ = false;
};

// The files searched by several threads while the walk still finds them, each thread taking the
// next file; what each found is kept by file index, so the result is in path order whatever the
// threads' order.
class Search {
 public:
  Search(const Sandbox& sandbox, const GrepOptions& options, const LineMatcher& matcher,
         const std::atomic<std::int32_t>* cancel)
      : sandbox_(sandbox), options_(options), matcher_(matcher), cancel_(cancel) {
    unsigned threads = options_.threads ? options_.threads : std::thread::hardware_concurrency();
    threads = std::max(1u, std::min<unsigned>(threads, kMaxGrepThreads));
    for (unsigned i = 0; i < threads; ++i) helpers_.emplace_back([this] { work(); });
  }
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;
  ~Search() { join(); }

  // false once the search has stopped (a bound, a cancellation): the walk need go no further.
  bool add(std::string path) {
    if (stop_.load() != GrepStop::none) return false;
    queue_.add(std::move(path));
    return true;
  }

  // After the last add(): this thread helps with what is left, then every thread is joined.
  void join() {
    queue_.close();
    if (helpers_.empty()) return;
    work();
    for (auto& t : helpers_) t.join();
    helpers_.clear();
  }

  GrepResult finish() {
    join();
    GrepResult out;
    out.files_searched = searched_.load();
    out.bytes_searched = bytes_.load();
    out.skipped_binary = binary_.load();
    out.skipped_refused = refused_.load();
    out.skipped_long_lines = long_lines_.load();
    out.undecided_lines = undecided_.load();
    if (options_.output == GrepOutput::lines) {
      take_matches(out);
    } else {
      take_files(out);
    }
    if (out.stopped == GrepStop::none) out.stopped = stop_.load();
    return out;
  }

 private:
  void take_matches(GrepResult& out) {
    for (FileResult& per_file : queue_.all_found()) {
      for (GrepMatch& m : per_file.matches) {
        if (out.matches.size() >= options_.max_results) {
          out.stopped = GrepStop::results;
          return;
        }
        out.matches.push_back(std::move(m));
      }
    }
  }

  void take_files(GrepResult& out) {
    const auto& paths = queue_.all_paths();
    auto& found = queue_.all_found();
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (found[i].count == 0) continue;
      if (out.files.size() >= options_.max_results) {
        out.stopped = GrepStop::results;
        return;
      }
      out.files.push_back({paths[i], found[i].count});
    }
  }

  // Matching lines one file may give: enough to fill the results (and one more, to know they
  // were cut); one to name a file; every one to count.
  std::size_t limit_per_file() const {
    std::size_t limit = options_.max_results + 1;
    if (options_.output == GrepOutput::files) limit = 1;
    if (options_.output == GrepOutput::count) limit = SIZE_MAX;
    if (options_.max_count > 0) limit = std::min(limit, options_.max_count);
    return limit;
  }

  void stop(GrepStop why) {
    GrepStop none = GrepStop::none;
    stop_.compare_exchange_strong(none, why);
  }

  // The thread's CPU clock is read every kCpuCheckFiles files (a system call each time, which
  // would otherwise cost as much as a small file's search).
  static constexpr unsigned kCpuCheckFiles = 16;

  void work() {
    std::vector<char> buffer;  // this thread's, from file to file (file_search.h)
    std::uint64_t since = thread_cpu_ns();
    for (unsigned n = 1;; ++n) {
      if (cancel_requested(cancel_)) {
        stop(GrepStop::cancelled);
      }
      if (stop_.load() != GrepStop::none) break;
      const auto i = queue_.take();
      if (!i) break;
      search_file(queue_.path(*i), queue_.found(*i), buffer);
      if (n % kCpuCheckFiles == 0) {
        const std::uint64_t now = thread_cpu_ns();
        const std::uint64_t spent = cpu_ns_.fetch_add(now - since) + (now - since);
        since = now;
        if (spent / 1'000'000 >= options_.max_cpu_ms) stop(GrepStop::cpu);
      }
    }
    cpu_ns_.fetch_add(thread_cpu_ns() - since);
  }

  void search_file(const std::string& path, FileResult& found, std::vector<char>& buffer) {
    const std::uint64_t room =
        options_.max_bytes > bytes_.load() ? options_.max_bytes - bytes_.load() : 0;
    if (room == 0) return stop(GrepStop::bytes);
    auto file = sandbox_.open_to_read(path, proc_fd_dir_.get());
    if (!file) {
      const Errc code = file.error().code;
      if (code == Errc::not_found || code == Errc::not_regular_file || code == Errc::is_directory) {
        return;
      }
      refused_.fetch_add(1);
      return;
    }
    const FileToSearch open{file.value().fd.get(), file.value().size, path};
    auto findings = msb::search_file(open, matcher_, options_, limit_per_file(), room, buffer);
    if (!findings) {
      refused_.fetch_add(1);
      return;
    }
    FileFindings& f = findings.value();
    bytes_.fetch_add(f.bytes);
    searched_.fetch_add(1);
    if (f.binary) binary_.fetch_add(1);
    if (f.long_line) long_lines_.fetch_add(1);
    undecided_.fetch_add(f.undecided);
    found.matches = std::move(f.matches);
    found.count = f.count;
    if (f.out_of_bytes) stop(GrepStop::bytes);
    // Lines, or files with a match, toward max_results.
    const std::size_t results =
        options_.output == GrepOutput::lines ? found.matches.size() : (f.count > 0 ? 1 : 0);
    if (matched_.fetch_add(results) + results > options_.max_results) {
      // Enough for the reply; files before this one may still add theirs, in order.
      stop(GrepStop::results);
    }
  }

  const Sandbox& sandbox_;
  const GrepOptions& options_;
  const LineMatcher& matcher_;
  const std::atomic<std::int32_t>* cancel_;
  const UniqueFd proc_fd_dir_ = open_proc_fd_dir();
  FileQueue queue_;
  std::atomic<std::size_t> matched_{0};
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> cpu_ns_{0};
  std::atomic<std::uint64_t> searched_{0};
  std::atomic<std::uint64_t> binary_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> long_lines_{0};
  std::atomic<std::uint64_t> undecided_{0};
  std::atomic<GrepStop> stop_{GrepStop::none};
  std::vector<std::thread> helpers_;  // last: they start once every other member exists
};

}  // namespace

const char* grep_stop_name(GrepStop stop) noexcept {
  switch (stop) {
    case GrepStop::results: return "results";
    case GrepStop::bytes: return "bytes";
    case GrepStop::cpu: return "cpu";
    case GrepStop::entries: return "entries";
    case GrepStop::cancelled: return "cancelled";
    case GrepStop::none: break;
  }
  return "";
}

Result<GrepResult> grep(const Sandbox& sandbox, std::string_view dir, const GrepOptions& options,
                        const std::atomic<std::int32_t>* cancel) {
  auto matcher =
      LineMatcher::compile(options.pattern, options.literal, options.ignore_case, options.word);
  if (!matcher) return at_index(matcher.error(), 0);
  WalkFilters filters;
  auto types = type_globs(options.types);
  if (!types) return types.error();
  filters.types = std::move(types.value());
  auto include = compile_globs(options.include, filters.include_by_name);
  if (!include) return include.error();
  auto exclude = compile_globs(options.exclude, filters.exclude_by_name);
  if (!exclude) return exclude.error();
  filters.include = std::move(include.value());
  filters.exclude = std::move(exclude.value());
  filters.ignore_files = options.ignore_files;
  filters.hidden = options.hidden;
  GrepOptions bounded = options;
  bounded.max_results = std::min(std::max<std::size_t>(options.max_results, 1), kMaxGrepResults);
  bounded.before = std::min(options.before, kMaxGrepContext);
  bounded.after = std::min(options.after, kMaxGrepContext);
  auto parsed = parse_virtual_path(dir);
  if (!parsed) return parsed.error();
  const std::string root = parsed.value().str();
  auto info = sandbox.stat(root);
  if (!info) return info.error();
  Search search(sandbox, bounded, matcher.value(), cancel);
  WalkResult walked;
  if (info.value().is_directory) {
    auto sink = [&search](std::string path) { return search.add(std::move(path)); };
    auto listed = walk_files(sandbox, root, filters, cancel, sink);
    if (!listed) return listed.error();  // ~Search joins its threads
    walked = listed.value();
  } else {
    search.add(root);
  }
  GrepResult result = search.finish();
  if (walked.cancelled && cancel_requested(cancel))
    result.stopped = GrepStop::cancelled;
  else if (walked.stopped_entries && result.stopped == GrepStop::none)
    result.stopped = GrepStop::entries;
  return result;
}

}  // namespace msb
