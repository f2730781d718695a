#include "fs/file_turns.h"

#include <condition_variable>
#include <functional>
#include <utility>

namespace msb {

std::size_t EntryKeyHash::operator()(const EntryKey& key) const noexcept {
  std::size_t h = std::hash<std::string>{}(key.name);
  for (std::size_t part :
       {static_cast<std::size_t>(key.dir.dev), static_cast<std::size_t>(key.dir.ino)}) {
    h ^= part + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

Turn::Turn(Turn&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), key_(std::move(other.key_)) {}

Turn& Turn::operator=(Turn&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    key_ = std::move(other.key_);
  }
  return *this;
}

void Turn::release() noexcept {
  if (FileTurns* owner = std::exchange(owner_, nullptr)) owner->release(key_);
}

FileTurns& FileTurns::shared() {
  static FileTurns* turns = new FileTurns();  // never destroyed: threads may outlive statics
  return *turns;
}

std::optional<Turn> FileTurns::take_or_queue(const EntryKey& key,
                                             std::unique_ptr<TurnWaiter> waiter) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [line, fresh] = lines_.try_emplace(key);
  if (fresh) return Turn(this, key);
  if (waiter) line->second.waiting.push_back(std::move(waiter));
  return std::nullopt;
}

namespace {

// Parks a thread until its turn comes.
class BlockedThread final : public TurnWaiter {
 public:
  struct Slot {
    std::mutex mutex;
    std::condition_variable ready;
    std::optional<Turn> turn;
  };
  explicit BlockedThread(std::shared_ptr<Slot> slot) : slot_(std::move(slot)) {}

  bool accept(Turn& turn) noexcept override {
    std::lock_guard<std::mutex> lock(slot_->mutex);
    slot_->turn.emplace(std::move(turn));
    slot_->ready.notify_one();
    return true;
  }

 private:
  std::shared_ptr<Slot> slot_;
};

}  // namespace

Turn FileTurns::take(const EntryKey& key) {
  auto slot = std::make_shared<BlockedThread::Slot>();
  if (auto turn = take_or_queue(key, std::make_unique<BlockedThread>(slot)))
    return std::move(*turn);
  std::unique_lock<std::mutex> lock(slot->mutex);
  slot->ready.wait(lock, [&] { return slot->turn.has_value(); });
  return std::move(*slot->turn);
}

std::size_t FileTurns::held_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_.size();
}

void FileTurns::release(const EntryKey& key) noexcept {
  // Handed on in a loop, not by recursion: a waiter that declines gives the turn back here, and
  // a whole line of them (a worker thread that ended with changes queued) must not grow the stack.
  Turn turn(this, key);
  for (;;) {
    std::unique_ptr<TurnWaiter> next;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto line = lines_.find(key);
      if (line == lines_.end()) {  // cannot happen: a turn is only ever released once
        turn.owner_ = nullptr;
        return;
      }
      if (line->second.waiting.empty()) {
        lines_.erase(line);
        turn.owner_ = nullptr;  // freed, not handed on
        return;
      }
      next = std::move(line->second.waiting.front());
      line->second.waiting.pop_front();
    }
    if (next->accept(turn)) return;
  }
}

}  // namespace msb
