// A glob as a resumable walk: each run() does a bounded amount of work and returns, so a caller
// can spread a long glob over many short tasks (the binding gives the threadpool thread up
// between slices whenever another operation waits for one). Sandbox::glob() runs one to the end
// on the calling thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "fs/glob.h"
#include "fs/sandbox.h"

namespace msb {

// What one glob may cost in all: directory entries read (matching or not, files as well as
// directories, mount targets included), and units of work (see kGlobSliceWork). Past either, the
// walk stops and its result says truncated.
inline constexpr std::size_t kMaxGlobEntries = 1'000'000;
inline constexpr std::size_t kMaxGlobWork = std::size_t{1} << 30;
// The work in one slice, in units of about one matcher step each (an entry read counts for 192,
// a directory opened for 4096; glob_walk.cc): a few hundred microseconds. A single name can cost
// more, up to kMaxGlobExpandedBytes times its length, about a millisecond at worst.
inline constexpr std::size_t kGlobSliceWork = std::size_t{1} << 17;

class GlobTask {
 public:
  // No disk access and no compilation until the first run(). `sandbox` must outlive the task.
  // `limit` 0 means kDefaultGlobLimit; `max_entries` is capped at kMaxGlobEntries.
  GlobTask(const Sandbox& sandbox, std::string pattern, std::size_t limit,
           std::size_t max_entries = kMaxGlobEntries);
  ~GlobTask();
  GlobTask(const GlobTask&) = delete;
  GlobTask& operator=(const GlobTask&) = delete;

  // Does about `budget` units of work (at least one step: a batch read, an entry, a directory
  // entered or left), then returns true once the glob is over: finished, stopped by a bound, or
  // failed.
  bool run(std::size_t budget);
  // Once run() has returned true: the paths found, sorted, or why the glob failed.
  Result<GlobResult> take_result();

 private:
  struct Frame;
  struct WalkEntry;
  struct Descent;
  class Listing;

  void start();
  void step_top();
  void visit(std::size_t frame, WalkEntry entry);
  void descend(std::size_t frame, Descent descent);
  void push(VirtualPath dir, std::string text, UniqueFd fd, GlobMatcher::States states,
            std::size_t depth);
  Result<UniqueFd> open_mount_dir(const VirtualPath& path) const;
  Result<UniqueFd> open_entry(const VirtualPath& child, int fd, const WalkEntry& entry) const;
  bool add(std::string path);
  void stop();
  void fail(Error error);
  void finish();
  void close_some();

  const Sandbox& sandbox_;
  std::string pattern_;
  std::size_t limit_;
  std::size_t max_entries_;
  std::optional<GlobMatcher> matcher_;
  std::vector<Frame> stack_;
  GlobResult result_;
  std::optional<Error> error_;
  std::size_t entries_ = 0;
  std::size_t directories_ = 0;
  std::size_t work_ = 0;
  bool started_ = false;
  bool closing_ = false;  // the result is settled; the walk is being taken apart
  bool done_ = false;
};

}  // namespace msb
