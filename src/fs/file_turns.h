// Turns on directory entries, process-wide: writes and edits of one file take turns, first come
// first served, while changes to other files go on in parallel. A turn is keyed by the entry a
// change replaces: the directory's identity (device, inode) and the name in it. Not the file's
// own inode, which every replacement changes: two changes keyed by the inode each saw would not
// wait for each other. Not the path either: every spelling of one file (a symlinked directory,
// another mount of the same source, another sandbox, another worker thread) shares the turn.
//
// Waiting for a turn need not hold a thread: take_or_queue() either grants the turn or queues a
// waiter that is handed the turn when it comes (an event loop queues the change's next step
// then); take() blocks the calling thread instead, for callers without an event loop.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/file_id.h"

namespace msb {

struct EntryKey {
  FileId dir;        // the directory holding the entry
  std::string name;  // the entry's name in it
  bool operator==(const EntryKey& o) const noexcept { return dir == o.dir && name == o.name; }
};

struct EntryKeyHash {
  std::size_t operator()(const EntryKey& key) const noexcept;
};

class FileTurns;

// The right to change one entry. Move-only; releasing it (or destroying it) hands it to the next
// waiter in line, or frees it.
class Turn {
 public:
  Turn() = default;
  Turn(Turn&& other) noexcept;
  Turn& operator=(Turn&& other) noexcept;
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  ~Turn() { release(); }

  bool held() const noexcept { return owner_ != nullptr; }
  void release() noexcept;

 private:
  friend class FileTurns;
  Turn(FileTurns* owner, EntryKey key) : owner_(owner), key_(std::move(key)) {}

  FileTurns* owner_ = nullptr;
  EntryKey key_;
};

// Someone queued for a turn.
class TurnWaiter {
 public:
  virtual ~TurnWaiter() = default;
  // The turn has come: called on the thread that released it, with no lock held. Returns true
  // once it has taken `turn` (moved it out); false, leaving it, when it can no longer use it (its
  // event loop is gone): the turn then goes to the next in line.
  virtual bool accept(Turn& turn) noexcept = 0;
};

class FileTurns {
 public:
  FileTurns() = default;
  FileTurns(const FileTurns&) = delete;
  FileTurns& operator=(const FileTurns&) = delete;

  // The one table of the process (every sandbox, every thread).
  static FileTurns& shared();

  // The turn for `key` if it is free; otherwise `waiter` (if any) is queued behind those already
  // waiting and std::nullopt is returned.
  std::optional<Turn> take_or_queue(const EntryKey& key, std::unique_ptr<TurnWaiter> waiter);
  // Blocks this thread until the turn for `key` is its own.
  Turn take(const EntryKey& key);

  // Entries whose turn is held now (for tests).
  std::size_t held_count() const;

 private:
  friend class Turn;
  void release(const EntryKey& key) noexcept;

  struct Line {
    std::deque<std::unique_ptr<TurnWaiter>> waiting;
  };
  mutable std::mutex mutex_;
  std::unordered_map<EntryKey, Line, EntryKeyHash> lines_;  // an entry here: its turn is held
};

}  // namespace msb
