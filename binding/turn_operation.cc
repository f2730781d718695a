#include "turn_operation.h"

#include <chrono>
#include <utility>

#include "errors.h"

namespace msb_binding {

// A write or edit from its start on the JS thread until its promise settles. Owned by whichever
// task runs it, or by its place in the file's line while it waits; freed on the JS thread.
struct TurnJob {
  Napi::Promise::Deferred deferred;
  Napi::ObjectReference owner;
  const Napi::FunctionReference& factory;  // owned by the SandboxWrap that owner keeps alive
  std::string path;
  TurnOperation::Prepare prepare;
  std::shared_ptr<TurnMailbox> mailbox;
  std::unique_ptr<msb::PendingChange> change;
  std::optional<msb::Turn> turn;      // handed over while the job waited in line
  std::optional<msb::Status> result;  // its change has run (or cannot): only settling is left
};

namespace {

// How long a threadpool task goes on running the changes handed to it, one after the other, once
// its own is done (see QueuedJob::accept); as long as a glob slice at most.
constexpr std::chrono::milliseconds kRunHandedOverFor{4};

// Set on a threadpool thread while a TurnOperation releases a turn and may run the next change in
// line itself; the job handed to it then.
thread_local bool may_run_here = false;
thread_local TurnJob* handed_here = nullptr;

// A job's place in its file's line.
class QueuedJob final : public msb::TurnWaiter {
 public:
  explicit QueuedJob(TurnJob* job) : job_(job) {}

  bool accept(msb::Turn& turn) noexcept override {
    job_->turn.emplace(std::move(turn));
    // Released by a change that just ran on the threadpool, while no operation of the addon waits
    // for a thread: the same thread runs this change next, without a round trip through the JS
    // thread (which a busy machine may take long to schedule). Only settling is posted.
    if (may_run_here && handed_here == nullptr &&
        waiting_operations.load(std::memory_order_relaxed) == 0) {
      handed_here = job_;
      return true;
    }
    // Its own reference: once posted, the job may be settled and freed before Post returns.
    const std::shared_ptr<TurnMailbox> mailbox = job_->mailbox;
    if (mailbox->Post(job_)) return true;  // job_ belongs to its loop again
    // Its environment is gone (a terminated worker thread): pass the turn on. The job cannot be
    // freed off its own thread and is left behind.
    turn = std::move(*job_->turn);
    job_->turn.reset();
    return false;
  }

 private:
  TurnJob* job_;
};

}  // namespace

void deliver_turn(Napi::Env env, Napi::Function, std::nullptr_t*, TurnJob* job) {
  if (job == nullptr) return;
  if (env == nullptr) {  // torn down with the turn on its way: pass it on
    job->turn.reset();
    return;
  }
  if (job->result) {  // ran on another job's thread
    TurnOperation::Settle(env, job, *job->result);
    return;
  }
  TurnOperation::Resume(env, job);
}

std::shared_ptr<TurnMailbox> TurnMailbox::Create(Napi::Env env) {
  auto mailbox = std::make_shared<TurnMailbox>();
  std::weak_ptr<TurnMailbox> weak = mailbox;
  // Its async resource says whether it keeps the loop alive, as Node's own handles do: tools that
  // list what keeps a process running (Jest's --detectOpenHandles) ask hasRef().
  Napi::Object resource = Napi::Object::New(env);
  resource.Set("hasRef", Napi::Function::New(env, [weak](const Napi::CallbackInfo& info) {
                 auto live = weak.lock();
                 return Napi::Boolean::New(info.Env(), live && live->holds_ > 0);
               }));
  mailbox->tsfn_ = Tsfn::New(env, resource, "mount-sandbox file turns", 0, 1, nullptr);
  mailbox->tsfn_.Unref(env);  // only pending changes keep the loop alive (Hold)
  // Registered after the threadsafe function was made, so it runs before that function is torn
  // down (cleanup hooks run in reverse order): no Post can reach a function that is gone.
  env.AddCleanupHook([weak] {
    if (auto live = weak.lock()) live->Close();
  });
  return mailbox;
}

bool TurnMailbox::Post(TurnJob* job) {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_ && tsfn_.NonBlockingCall(job) == napi_ok;
}

void TurnMailbox::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_ = false;
}

void TurnMailbox::Hold(Napi::Env env) {
  if (holds_++ == 0 && open_) tsfn_.Ref(env);
}

void TurnMailbox::Release(Napi::Env env) {
  if (--holds_ == 0 && open_) tsfn_.Unref(env);
}

TurnOperation::TurnOperation(Napi::Env env, TurnJob* job, bool resumed)
    : Napi::AsyncWorker(env, "mount-sandbox"), job_(job), resumed_(resumed) {}

Napi::Promise TurnOperation::Start(const Napi::Object& owner,
                                   const Napi::FunctionReference& factory,
                                   const std::shared_ptr<TurnMailbox>& mailbox,
                                   std::string virtual_path, Prepare prepare) {
  Napi::Env env = owner.Env();
  auto* job = new TurnJob{Napi::Promise::Deferred::New(env),
                          Napi::Persistent(owner),
                          factory,
                          std::move(virtual_path),
                          std::move(prepare),
                          mailbox,
                          nullptr,
                          std::nullopt,
                          std::nullopt};
  Napi::Promise promise = job->deferred.Promise();
  auto* task = new TurnOperation(env, job, false);
  task->waiting_.queued();
  try {
    task->Queue();
  } catch (...) {
    delete task;
    delete job;
    throw;
  }
  mailbox->Hold(env);
  return promise;
}

void TurnOperation::Resume(Napi::Env env, TurnJob* job) {
  auto* task = new TurnOperation(env, job, true);
  task->waiting_.queued();
  try {
    task->Queue();
  } catch (...) {
    delete task;
    job->turn.reset();
    Settle(env, job, msb::Status(msb::Errc::io_error));
  }
}

bool TurnOperation::Drive(TurnJob* job, std::optional<msb::Turn> turn, bool hand_over) {
  // Prepared already when it holds its turn (resumed, or handed over); else prepared here.
  bool prepared = turn.has_value();
  for (int attempt = 1;; ++attempt) {
    if (!prepared) {
      auto change = job->prepare();
      if (!change) {
        job->result.emplace(change.error());
        return true;
      }
      job->change = std::move(change.value());
      if (const std::optional<msb::EntryKey>& key = job->change->key()) {
        turn = msb::FileTurns::shared().take_or_queue(*key, std::make_unique<QueuedJob>(job));
        if (!turn) return false;  // from here on job may already be running elsewhere
      }
    }
    msb::Status st = job->change->run();
    if (job->change->moved() && attempt < msb::kPrepareAttempts) {
      // Its directory was replaced while it waited: for where the path leads now, in that
      // entry's line. This turn goes on to the next in line through its loop.
      turn.reset();
      prepared = false;
      continue;
    }
    job->result.emplace(std::move(st));
    may_run_here = hand_over;
    turn.reset();  // to the next in line now, not once this settles
    may_run_here = false;
    return true;
  }
}

void TurnOperation::Execute() {
  waiting_.started();
  const auto until = std::chrono::steady_clock::now() + kRunHandedOverFor;
  std::optional<msb::Turn> turn;
  if (resumed_) {
    turn.emplace(std::move(*job_->turn));
    job_->turn.reset();
  }
  if (!Drive(job_, std::move(turn), true)) {
    queued_ = true;  // job_ waits in a line and may already be running elsewhere: not touched
    return;
  }
  RunHandedOver(until);
}

void TurnOperation::RunHandedOver(std::chrono::steady_clock::time_point until) {
  while (TurnJob* job = std::exchange(handed_here, nullptr)) {
    std::optional<msb::Turn> turn(std::move(*job->turn));
    job->turn.reset();
    if (!Drive(job, std::move(turn), std::chrono::steady_clock::now() < until)) continue;
    // Its environment gone (a terminated worker thread): nothing can be settled there.
    const std::shared_ptr<TurnMailbox> mailbox = job->mailbox;
    mailbox->Post(job);
  }
}

void TurnOperation::OnOK() {
  if (queued_) return;
  Settle(Env(), job_, *job_->result);
}

void TurnOperation::OnError(const Napi::Error&) {
  if (queued_) return;
  Settle(Env(), job_, msb::Status(msb::Errc::io_error));
}

void TurnOperation::Settle(Napi::Env env, TurnJob* job, const msb::Status& result) {
  // A throw here (the environment is ending) must neither escape nor leak the job.
  try {
    Napi::HandleScope scope(env);
    if (result.ok()) {
      job->deferred.Resolve(env.Undefined());
    } else {
      job->deferred.Reject(make_error(job->owner.Value(), job->factory, result.error(), job->path));
    }
  } catch (const Napi::Error&) {
    // nothing can be settled in an environment that is ending
  }
  job->mailbox->Release(env);
  delete job;
}

}  // namespace msb_binding
