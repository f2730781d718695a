// glob(): a directory walk over virtual paths, pruned by the compiled pattern (glob.h). Same
// discipline as sandbox.cc: the base is opened beneath its mount's pinned descriptor, every
// subdirectory from its parent's descriptor, never through a symlink. The walk keeps its own
// stack of open directories, so it can stop after any entry and resume later (glob_walk.h).
#include "fs/glob_walk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>

#include "common/path.h"
#include "common/sys.h"

namespace msb {

using sys::EntryType;

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY;
// A glob visits at most this many directories, at most this deep below its base; beyond
// either the result is marked truncated.
constexpr std::size_t kMaxGlobDirectories = 100000;
constexpr std::size_t kMaxGlobDepth = 64;
// What the walk's steps cost in the units of kGlobSliceWork (a matcher step, a few nanoseconds),
// measured rather than guessed: reading and sorting an entry costs about as much as 200 steps.
constexpr std::size_t kBatchWork = 1024;  // a getdents call
constexpr std::size_t kReadWork = 192;    // an entry read, copied and sorted
constexpr std::size_t kVisitWork = 96;    // an entry taken from a listing, before matching
constexpr std::size_t kAddWork = 256;     // a path added to the result
constexpr std::size_t kFreeWork = 16;     // an entry freed unread when a walk stops early
constexpr std::size_t kOpenWork = 4096;   // a directory opened, and closed when left

// Codes a glob walk treats as "nothing to see here" for a subdirectory: it vanished, turned
// into something else, or is closed to us. Anything else is reported.
bool skippable(Errc code) {
  return code == Errc::not_found || code == Errc::not_directory || code == Errc::access_denied ||
         code == Errc::symlink_loop || code == Errc::symlink_escape ||
         code ==
             Errc::untrusted_source ||  // a refused mount, as list() shows it: a name, no entries
         code == Errc::pseudo_filesystem;
}

// A directory inside the one `dir_fd` holds, refused if it is (or has just become) a symlink.
Result<UniqueFd> open_subdirectory(int dir_fd, const std::string& name) {
  return sys::open_at(dir_fd, name.c_str(), kDirFlags | O_NOFOLLOW);
}

std::string child_text(const std::string& dir, const std::string& name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir).append(1, '/').append(name);
  return out;
}

}  // namespace

struct GlobTask::WalkEntry {
  std::string name;
  EntryType type = EntryType::unknown;
  bool from_table = false;  // a mount target, or a directory above one
};

namespace {

// Name order; where the table and the disk both name an entry, the table's comes first.
bool before(const auto& a, const auto& b) {
  return a.name != b.name ? a.name < b.name : a.from_table > b.from_table;
}

}  // namespace

// One directory's entries in name order, read one getdents batch at a time: each batch is sorted
// on its own, and the batches are merged as the walk takes entries, so even a huge directory
// never costs more than a batch at once.
class GlobTask::Listing {
 public:
  explicit Listing(std::vector<std::string> table_names) {
    std::vector<WalkEntry> table;
    for (std::string& name : table_names) {
      table.push_back(WalkEntry{std::move(name), EntryType::directory, true});
    }
    add_run(std::move(table));
  }

  bool complete() const noexcept { return complete_; }

  // Reads the next batch from `fd` (none when fd < 0) and returns how many entries it held.
  // A directory that cannot be read for a skippable reason shows only what the table puts in it.
  Result<std::size_t> read_batch(int fd) {
    if (fd < 0) return finish_reading();
    std::vector<WalkEntry> run;
    auto more = sys::read_dir_batch(fd, [&run](std::string_view name, EntryType type) {
      run.push_back(WalkEntry{std::string(name), type, false});
    });
    if (!more) {
      if (!skippable(more.error().code)) return more.error();
      runs_.resize(1);  // keep only the table's
      return finish_reading();
    }
    if (!more.value()) return finish_reading();
    const std::size_t count = run.size();
    add_run(std::move(run));
    return count;
  }

  // The next entry in name order once complete(), or nullptr after the last; take() hands it
  // over. A name is returned once: a mount hides the disk's entry of the same name.
  const WalkEntry* peek() {
    if (!head_) head_ = pull();
    return head_ ? &*head_ : nullptr;
  }
  WalkEntry take() {
    WalkEntry entry = std::move(*head_);
    head_.reset();
    last_name_ = entry.name;
    return entry;
  }

  // Frees one batch's worth of entries, for a walk that stops before the end of a huge
  // directory; returns how many entries it freed, 0 once nothing is left.
  std::size_t drop_run() {
    heap_.clear();
    head_.reset();
    while (!runs_.empty() && runs_.back().empty()) runs_.pop_back();
    if (runs_.empty()) return 0;
    const std::size_t count = runs_.back().size();
    runs_.pop_back();
    return count;
  }

 private:
  struct Cursor {
    std::size_t run = 0;
    std::size_t at = 0;
  };

  // Entries are moved out of their batch as the merge reaches them, and a batch is freed as
  // soon as it is used up, so the cost of freeing is spread over the walk too.
  std::optional<WalkEntry> pull() {
    const auto later = [this](const Cursor& a, const Cursor& b) { return comes_later(a, b); };
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      Cursor& c = heap_.back();
      WalkEntry entry = std::move(runs_[c.run][c.at]);
      if (++c.at < runs_[c.run].size()) {
        std::push_heap(heap_.begin(), heap_.end(), later);
      } else {
        std::vector<WalkEntry>().swap(runs_[c.run]);
        heap_.pop_back();
      }
      if (last_name_ && *last_name_ == entry.name) continue;
      return entry;
    }
    return std::nullopt;
  }

  void add_run(std::vector<WalkEntry> run) {
    std::sort(run.begin(), run.end(),
              [](const WalkEntry& a, const WalkEntry& b) { return before(a, b); });
    runs_.push_back(std::move(run));
  }

  std::size_t finish_reading() {
    complete_ = true;
    for (std::size_t r = 0; r < runs_.size(); ++r) {
      if (!runs_[r].empty()) heap_.push_back(Cursor{r, 0});
    }
    std::make_heap(heap_.begin(), heap_.end(),
                   [this](const Cursor& a, const Cursor& b) { return comes_later(a, b); });
    return 0;
  }

  // Heap order: the cursor whose entry comes first in name order on top.
  bool comes_later(const Cursor& a, const Cursor& b) const {
    return before(runs_[b.run][b.at], runs_[a.run][a.at]);
  }

  std::vector<std::vector<WalkEntry>> runs_;  // runs_[0]: the table's entries
  std::vector<Cursor> heap_;
  std::optional<WalkEntry> head_;
  std::optional<std::string> last_name_;
  bool complete_ = false;
};

// A subdirectory the walk will enter once the listing reaches `key`, its name followed by "/":
// that is where the paths below it fall among its siblings' in byte order ("a-b" comes before
// "a/x"), so the walk produces its paths already sorted.
struct GlobTask::Descent {
  std::string key;
  WalkEntry entry;
  GlobMatcher::States states;
};

struct GlobTask::Frame {
  VirtualPath dir;
  std::string text;  // dir as text, "" for the root: what the paths below it start with
  UniqueFd fd;       // invalid for a directory that exists only because mounts lie below it
  GlobMatcher::States states;
  std::size_t depth = 0;
  std::unique_ptr<Listing> listing;
  std::vector<Descent> descents;  // a heap, the smallest key on top
};

namespace {

template <typename T>
bool key_after(const T& a, const T& b) {
  return a.key > b.key;
}

}  // namespace

GlobTask::GlobTask(const Sandbox& sandbox, std::string pattern, std::size_t limit,
                   std::size_t max_entries)
    : sandbox_(sandbox),
      pattern_(std::move(pattern)),
      limit_(std::min(limit == 0 ? kDefaultGlobLimit : limit, kMaxGlobLimit)),
      max_entries_(std::min(max_entries, kMaxGlobEntries)) {}

GlobTask::~GlobTask() = default;

bool GlobTask::run(std::size_t budget) {
  if (!started_) {
    started_ = true;
    start();
  }
  // Every step adds to work_, so this ends; a budget of 0 still makes progress.
  const std::size_t begin = work_;
  while (!done_) {
    if (closing_) {
      close_some();
    } else if (stack_.empty()) {
      finish();
    } else {
      step_top();
      if (!closing_ && (entries_ > max_entries_ || work_ > kMaxGlobWork)) stop();
    }
    if (work_ - begin >= budget) break;
  }
  return done_;
}

Result<GlobResult> GlobTask::take_result() {
  if (error_) return *error_;
  return std::move(result_);
}

// Opens a mount's own directory (the base, or a mount target the walk reaches) beneath its
// pinned source. An invalid descriptor, and no error, stands for a directory that exists only
// because mounts lie below it.
Result<UniqueFd> GlobTask::open_mount_dir(const VirtualPath& path) const {
  const Sandbox::Target t{path, sandbox_.table_.locate(path)};
  const bool provided = path.is_root() || sandbox_.table_.holds_mount_point(path);
  if (t.at.mount == nullptr) return UniqueFd();
  auto fd = sandbox_.open(t, kDirFlags);
  if (!fd && provided &&
      (fd.error().code == Errc::not_found || fd.error().code == Errc::not_directory)) {
    return UniqueFd();
  }
  return fd;
}

void GlobTask::start() {
  auto matcher = GlobMatcher::compile(pattern_);
  if (!matcher) return fail(matcher.error());
  matcher_.emplace(std::move(matcher.value()));
  const GlobMatcher& m = *matcher_;
  Sandbox::Target base{VirtualPath{m.base()}, {}};
  base.at = sandbox_.table_.locate(base.path);
  if (auto st = sandbox_.require_mount(base); !st && st.error().code != Errc::is_directory) {
    return fail(st.error());
  }
  auto base_fd = open_mount_dir(base.path);
  if (!base_fd) {
    const Errc code = base_fd.error().code;
    if (code == Errc::not_found || code == Errc::not_directory) return finish();
    return fail(base_fd.error());
  }
  GlobMatcher::States states = m.start();
  // "/src/**" matches "/src" itself; "/" is never a result.
  if (m.accepts(states) && !base.path.is_root()) add(base.path.str());
  if (m.can_descend(states)) {
    std::string text = base.path.is_root() ? std::string() : base.path.str();
    push(base.path, std::move(text), std::move(base_fd.value()), std::move(states), 0);
  }
}

void GlobTask::push(VirtualPath dir, std::string text, UniqueFd fd, GlobMatcher::States states,
                    std::size_t depth) {
  if (++directories_ > kMaxGlobDirectories) return stop();
  work_ += kOpenWork;
  std::vector<std::string> table_names = sandbox_.table_.mount_entries_in(dir);
  entries_ += table_names.size();
  auto listing = std::make_unique<Listing>(std::move(table_names));
  stack_.push_back(Frame{std::move(dir),
                         std::move(text),
                         std::move(fd),
                         std::move(states),
                         depth,
                         std::move(listing),
                         {}});
}

// One unit of progress on the innermost directory: a batch read, an entry visited, a
// subdirectory entered, or the directory left once all of these are done.
void GlobTask::step_top() {
  Frame& top = stack_.back();
  if (!top.listing->complete()) {
    auto read = top.listing->read_batch(top.fd.get());
    if (!read) return fail(read.error());
    entries_ += read.value();
    work_ += kBatchWork + read.value() * kReadWork;
    return;
  }
  work_ += kVisitWork;
  const WalkEntry* entry = top.listing->peek();
  if (!top.descents.empty() && (entry == nullptr || top.descents.front().key < entry->name)) {
    std::pop_heap(top.descents.begin(), top.descents.end(), key_after<Descent>);
    Descent next = std::move(top.descents.back());
    top.descents.pop_back();
    return descend(stack_.size() - 1, std::move(next));
  }
  if (entry == nullptr) {
    stack_.pop_back();
    return;
  }
  visit(stack_.size() - 1, top.listing->take());
}

Result<UniqueFd> GlobTask::open_entry(const VirtualPath& child, int fd,
                                      const WalkEntry& entry) const {
  if (!entry.from_table) return open_subdirectory(fd, entry.name);
  const Location at = sandbox_.table_.locate(child);
  if (at.mount != nullptr && at.rest_begin == child.parts.size()) return open_mount_dir(child);
  // Above a mount target: whatever host directory there is belongs to the parent's mount.
  if (fd < 0) return UniqueFd();
  auto sub = open_subdirectory(fd, entry.name);
  if (!sub && skippable(sub.error().code)) return UniqueFd();
  return sub;
}

namespace {

// Whether the walk may descend into `entry`: a real directory, never a symlink to one.
template <typename Entry>
bool is_directory(int dir_fd, const Entry& entry) {
  if (entry.from_table || entry.type == EntryType::directory) return true;
  if (entry.type != EntryType::unknown) return false;
  struct stat st;
  return ::fstatat(dir_fd, entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(st.st_mode);
}

}  // namespace

void GlobTask::visit(std::size_t index, WalkEntry entry) {
  // Names no virtual path can carry are left out rather than reported mangled.
  if (!is_valid_utf8(entry.name)) return;
  Frame& frame = stack_[index];
  GlobMatcher::States next = matcher_->step(frame.states, entry.name, &work_);
  if (next.empty()) return;
  const bool accept = matcher_->accepts(next);
  const bool descend = matcher_->can_descend(next) && is_directory(frame.fd.get(), entry);
  if (accept) {
    std::string text = child_text(frame.text, entry.name);
    if (text.size() >= PATH_MAX) return;
    if (!add(std::move(text))) return;
  }
  if (!descend) return;
  if (frame.depth + 1 > kMaxGlobDepth) {
    result_.truncated = true;
    return;
  }
  std::string key = entry.name + '/';
  frame.descents.push_back(Descent{std::move(key), std::move(entry), std::move(next)});
  std::push_heap(frame.descents.begin(), frame.descents.end(), key_after<Descent>);
}

void GlobTask::descend(std::size_t index, Descent descent) {
  const Frame& frame = stack_[index];
  std::string text = child_text(frame.text, descent.entry.name);
  if (text.size() >= PATH_MAX) return;
  VirtualPath child;
  child.parts.reserve(frame.dir.parts.size() + 1);
  child.parts = frame.dir.parts;
  child.parts.push_back(descent.entry.name);
  const std::size_t depth = frame.depth + 1;
  auto sub = open_entry(child, frame.fd.get(), descent.entry);
  if (!sub) {
    if (!skippable(sub.error().code)) fail(sub.error());
    return;
  }
  // No use of `frame` after this: the stack may move its frames.
  push(std::move(child), std::move(text), std::move(sub.value()), std::move(descent.states), depth);
}

bool GlobTask::add(std::string path) {
  work_ += kAddWork;
  if (result_.paths.size() == limit_) {
    stop();
    return false;
  }
  result_.paths.push_back(std::move(path));
  return true;
}

// A bound was reached: what was found so far is the result.
void GlobTask::stop() {
  result_.truncated = true;
  finish();
}

void GlobTask::fail(Error error) {
  error_ = error;
  finish();
}

// The result stands; what is left of the walk is freed over the next steps, a batch of entries
// or a directory at a time, so even a walk stopped inside a huge directory ends in short slices.
void GlobTask::finish() {
  closing_ = true;
}

void GlobTask::close_some() {
  work_ += kVisitWork;
  if (stack_.empty()) {
    done_ = true;
    return;
  }
  if (const std::size_t freed = stack_.back().listing->drop_run(); freed > 0) {
    work_ += freed * kFreeWork;
    return;
  }
  stack_.pop_back();  // closes its directory
}

Result<GlobResult> Sandbox::glob(std::string_view pattern, std::size_t limit) const {
  GlobTask task(*this, std::string(pattern), limit);
  while (!task.run(kGlobSliceWork)) {
  }
  return task.take_result();
}

}  // namespace msb
