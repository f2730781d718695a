// Writes and edits: one threadpool task prepares the change (locates it, checks it, opens its
// directory) and takes the change's turn on the file it replaces (msb::FileTurns), then runs it.
// When another change of the same file holds the turn, that task ends at once instead of waiting:
// the turn, when it comes, reaches this environment's loop through its TurnMailbox, which queues
// a second task to run the change. So a change waiting for its turn holds no threadpool thread,
// and changes to other files never line up behind the changes of a busy one. While no other
// operation of the addon waits for a thread, the task that releases a turn runs the next change
// in line itself (for 4 ms at most), and only the settling goes through the loop.
#pragma once

#include <napi.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "fs/sandbox.h"
#include "operation.h"

namespace msb_binding {

struct TurnJob;

// Runs on the JS thread when a turn reached a job of this environment; env is null when the
// environment is being torn down (the turn is then passed on).
void deliver_turn(Napi::Env env, Napi::Function, std::nullptr_t*, TurnJob* job);

// One per JS environment (the main thread, each worker thread), made when the addon loads there:
// how a turn released on any thread gets to this environment's loop.
class TurnMailbox {
 public:
  static std::shared_ptr<TurnMailbox> Create(Napi::Env env);

  // Any thread: hands `job`, which now holds its turn, to the loop. False when the environment
  // is gone or going (nothing was handed over).
  bool Post(TurnJob* job);

  // JS thread: while a change is pending (from its start until its promise settles) the loop
  // stays alive, also while the change only waits for its turn and no task of it is queued.
  void Hold(Napi::Env env);
  void Release(Napi::Env env);

 private:
  using Tsfn = Napi::TypedThreadSafeFunction<std::nullptr_t, TurnJob, deliver_turn>;
  void Close();

  std::mutex mutex_;
  bool open_ = true;  // written on the JS thread only, at teardown, under mutex_
  Tsfn tsfn_;
  std::size_t holds_ = 0;  // JS thread only
};

class TurnOperation final : public Napi::AsyncWorker {
 public:
  using Prepare = std::function<msb::Result<std::unique_ptr<msb::PendingChange>>()>;

  // `prepare` runs on the threadpool; what it captures (the data, the texts) lives until the
  // change has run. `owner` is the JS sandbox, kept alive (with its error factory) until the
  // promise settles.
  static Napi::Promise Start(const Napi::Object& owner, const Napi::FunctionReference& factory,
                             const std::shared_ptr<TurnMailbox>& mailbox, std::string virtual_path,
                             Prepare prepare);

  // JS thread: the turn came for a job that waited: queue the task that runs its change.
  static void Resume(Napi::Env env, TurnJob* job);
  // JS thread: resolves or rejects the job's promise and frees it.
  static void Settle(Napi::Env env, TurnJob* job, const msb::Status& result);

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& e) override;

 private:
  TurnOperation(Napi::Env env, TurnJob* job, bool resumed);
  // Runs the changes handed to this thread as it released turns, until `until`.
  static void RunHandedOver(std::chrono::steady_clock::time_point until);
  // Runs `job`'s change holding `turn` (prepares it first and takes its turn when there is
  // none), prepared again and in another line when its directory was replaced while it waited
  // (msb::PendingChange::moved); `hand_over`: the next in line may run on this thread. True once
  // job->result is set; false when the job waits in a line (it is then no longer this thread's).
  static bool Drive(TurnJob* job, std::optional<msb::Turn> turn, bool hand_over);

  TurnJob* job_;
  bool resumed_;         // runs a change whose turn was handed to it
  bool queued_ = false;  // ended without running: the job waits in its file's line
  WaitingMark waiting_;
};

}  // namespace msb_binding
