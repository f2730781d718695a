// Turns on directory entries (file_turns.cc): first come first served per entry, independent
// entries in parallel, handed on in order without a gap, past waiters that can no longer take
// them, and blocking takes for threads without an event loop.
#include "fs/file_turns.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace msb {
namespace {

EntryKey key(const std::string& name, ino_t dir = 7) {
  return EntryKey{FileId{1, dir}, name};
}

// A waiter that records the order turns reached it in, and keeps them (or declines them).
struct Record {
  std::vector<int> order;
  std::vector<Turn> kept;
};

class RecordingWaiter final : public TurnWaiter {
 public:
  RecordingWaiter(Record& record, int id, bool takes = true)
      : record_(record), id_(id), takes_(takes) {}
  bool accept(Turn& turn) noexcept override {
    record_.order.push_back(id_);
    if (!takes_) return false;
    record_.kept.push_back(std::move(turn));
    return true;
  }

 private:
  Record& record_;
  int id_;
  bool takes_;
};

TEST(FileTurns, AFreeEntryIsGrantedAtOnceAndFreedOnRelease) {
  FileTurns turns;
  Record record;
  auto first = turns.take_or_queue(key("a"), std::make_unique<RecordingWaiter>(record, 1));
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->held());
  EXPECT_EQ(turns.held_count(), 1u);
  first->release();
  EXPECT_FALSE(first->held());
  EXPECT_EQ(turns.held_count(), 0u);
  EXPECT_TRUE(record.order.empty());
  first->release();  // twice is harmless
  EXPECT_EQ(turns.held_count(), 0u);
}

TEST(FileTurns, WaitersGetTheTurnInOrderWithoutAGap) {
  FileTurns turns;
  Record record;
  auto holder = turns.take_or_queue(key("a"), nullptr);
  ASSERT_TRUE(holder.has_value());
  for (int id = 1; id <= 3; ++id) {
    EXPECT_FALSE(turns.take_or_queue(key("a"), std::make_unique<RecordingWaiter>(record, id)));
  }
  holder->release();
  ASSERT_EQ(record.order, (std::vector<int>{1}));
  // Handed over, not freed: a newcomer still queues.
  EXPECT_FALSE(turns.take_or_queue(key("a"), std::make_unique<RecordingWaiter>(record, 4)));
  for (std::size_t next = 0; next < 4; ++next) record.kept[next].release();
  EXPECT_EQ(record.order, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(turns.held_count(), 0u);
}

TEST(FileTurns, OtherEntriesDoNotWait) {
  FileTurns turns;
  auto a = turns.take_or_queue(key("a"), nullptr);
  auto b = turns.take_or_queue(key("b"), nullptr);             // another name
  auto other_dir = turns.take_or_queue(key("a", 8), nullptr);  // same name, other directory
  EXPECT_TRUE(a && b && other_dir);
  EXPECT_EQ(turns.held_count(), 3u);
}

TEST(FileTurns, AWaiterThatDeclinesPassesTheTurnOn) {
  FileTurns turns;
  Record record;
  auto holder = turns.take_or_queue(key("a"), nullptr);
  ASSERT_TRUE(holder.has_value());
  // A whole line of waiters whose loops are gone, then one that takes it.
  for (int id = 1; id <= 1000; ++id) {
    turns.take_or_queue(key("a"), std::make_unique<RecordingWaiter>(record, id, false));
  }
  turns.take_or_queue(key("a"), std::make_unique<RecordingWaiter>(record, 1001));
  holder->release();
  ASSERT_EQ(record.order.size(), 1001u);
  EXPECT_EQ(record.order.back(), 1001);
  ASSERT_EQ(record.kept.size(), 1u);
  record.kept[0].release();
  EXPECT_EQ(turns.held_count(), 0u);
  // Declined by everyone: freed.
  auto again = turns.take_or_queue(key("a"), nullptr);
  ASSERT_TRUE(again.has_value());
  turns.take_or_queue(key("a"), std::make_unique<RecordingWaiter>(record, 2000, false));
  again->release();
  EXPECT_EQ(turns.held_count(), 0u);
}

TEST(FileTurns, BlockingTakesExcludeEachOther) {
  FileTurns turns;
  int inside = 0;  // plain int: the turns alone must keep the threads apart
  int most_inside = 0;
  long total = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        Turn turn = turns.take(key("shared"));
        ++inside;
        if (inside > most_inside) most_inside = inside;
        ++total;
        --inside;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(most_inside, 1);
  EXPECT_EQ(total, 8 * 500);
  EXPECT_EQ(turns.held_count(), 0u);
}

TEST(FileTurns, ABlockedTakeWaitsForTheRelease) {
  FileTurns turns;
  auto holder = turns.take_or_queue(key("a"), nullptr);
  ASSERT_TRUE(holder.has_value());
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    Turn turn = turns.take(key("a"));
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(got.load());
  holder->release();
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(turns.held_count(), 0u);
}

TEST(FileTurns, MovingATurnMovesTheRight) {
  FileTurns turns;
  auto taken = turns.take_or_queue(key("a"), nullptr);
  ASSERT_TRUE(taken.has_value());
  Turn moved = std::move(*taken);
  EXPECT_FALSE(taken->held());
  EXPECT_TRUE(moved.held());
  Turn assigned;
  assigned = std::move(moved);
  EXPECT_TRUE(assigned.held());
  EXPECT_EQ(turns.held_count(), 1u);
  assigned = Turn();
  EXPECT_EQ(turns.held_count(), 0u);
}

}  // namespace
}  // namespace msb
