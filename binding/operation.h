// One file operation = one threadpool task: the core call runs in Execute() off the JS thread,
// and its result or error settles a promise back on it. An operation that may run long (glob)
// is a chain of such tasks instead, a few slices each (SlicedOperation).
#pragma once

#include <napi.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "errors.h"

namespace msb_binding {

// How many of this addon's one-task operations are queued and not started yet, process-wide
// (every thread's loop shares the one pool). A sliced operation gives its thread up whenever one
// waits.
inline std::atomic<std::size_t> waiting_operations{0};

// Counts one task from its Queue() until it starts, or until it is dropped without starting.
class WaitingMark {
 public:
  WaitingMark() = default;
  WaitingMark(const WaitingMark&) = delete;
  WaitingMark& operator=(const WaitingMark&) = delete;
  ~WaitingMark() { started(); }

  void queued() {
    waiting_operations.fetch_add(1, std::memory_order_relaxed);
    counted_ = true;
  }
  // On the pool thread; the destructor runs on the JS thread after the task completed.
  void started() {
    if (!counted_) return;
    counted_ = false;
    waiting_operations.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  bool counted_ = false;
};

// One core call on the threadpool, settling a promise on the JS thread: its value through
// `convert`, its error as the derived class says (settle_error).
template <typename T>
class PromiseTask : public Napi::AsyncWorker {
 public:
  using Work = std::function<msb::Result<T>()>;
  using Convert = Napi::Value (*)(Napi::Env, T&);

 protected:
  PromiseTask(Napi::Env env, Work work, Convert convert)
      : Napi::AsyncWorker(env, "mount-sandbox"),
        deferred_(Napi::Promise::Deferred::New(env)),
        work_(std::move(work)),
        convert_(convert) {}

  // Queues the task; the promise it settles.
  Napi::Promise QueueForPromise() {
    Napi::Promise promise = deferred_.Promise();
    waiting_.queued();
    Queue();
    return promise;
  }

  virtual void settle_error(Napi::Env env, const msb::Error& error) = 0;

  void Execute() override {
    waiting_.started();
    result_.emplace(work_());
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    // A throw here (say, a string longer than V8 allows) must reject, not end the process.
    try {
      if (result_->ok()) {
        deferred_.Resolve(convert_(env, result_->value()));
      } else {
        settle_error(env, result_->error());
      }
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

  Napi::Promise::Deferred deferred_;

 private:
  Work work_;
  Convert convert_;
  std::optional<msb::Result<T>> result_;
  WaitingMark waiting_;
};

// A task outside any sandbox (a config file step, a git scan), whose error `settle` turns into
// what its facade expects: a value describing it, or a plain rejection.
using SettleError = void (*)(Napi::Env, Napi::Promise::Deferred&, const msb::Error&);

template <typename T, SettleError settle>
class PlainTask final : public PromiseTask<T> {
 public:
  using typename PromiseTask<T>::Work;
  using typename PromiseTask<T>::Convert;

  static Napi::Promise Start(Napi::Env env, Work work, Convert convert) {
    return (new PlainTask(env, std::move(work), convert))->QueueForPromise();
  }

 protected:
  void settle_error(Napi::Env env, const msb::Error& error) override {
    settle(env, this->deferred_, error);
  }

 private:
  PlainTask(Napi::Env env, Work work, Convert convert)
      : PromiseTask<T>(env, std::move(work), convert) {}
};

// A sandbox's file operation: its error rejects the promise with the facade's error class.
template <typename T>
class Operation final : public PromiseTask<T> {
 public:
  using typename PromiseTask<T>::Work;
  using typename PromiseTask<T>::Convert;

  // `owner` is the JS sandbox, kept alive (with its error factory) until the promise settles.
  static Napi::Promise Start(const Napi::Object& owner, const Napi::FunctionReference& factory,
                             std::string virtual_path, Work work, Convert convert) {
    return Start(owner, factory, std::vector<std::string>{std::move(virtual_path)}, std::move(work),
                 convert);
  }

  // Several paths (move, copy, attachments): an error names the one its Error::index points at.
  static Napi::Promise Start(const Napi::Object& owner, const Napi::FunctionReference& factory,
                             std::vector<std::string> virtual_paths, Work work, Convert convert) {
    auto* op = new Operation(owner, factory, std::move(virtual_paths), std::move(work), convert);
    return op->QueueForPromise();
  }

 protected:
  void settle_error(Napi::Env, const msb::Error& error) override {
    const std::size_t which = error.index < paths_.size() ? error.index : 0;
    this->deferred_.Reject(make_error(owner_.Value(), factory_, error, paths_[which]));
  }

 private:
  Operation(const Napi::Object& owner, const Napi::FunctionReference& factory,
            std::vector<std::string> virtual_paths, Work work, Convert convert)
      : PromiseTask<T>(owner.Env(), std::move(work), convert),
        owner_(Napi::Persistent(owner)),
        factory_(factory),
        paths_(std::move(virtual_paths)) {}

  Napi::ObjectReference owner_;
  const Napi::FunctionReference& factory_;  // owned by the SandboxWrap that owner_ keeps alive
  std::vector<std::string> paths_;          // never empty
};

// A long operation as a chain of short threadpool tasks. A task runs slices while no one-task
// operation of this addon waits for a thread, and for at most kHold; the next task is queued
// from this one's completion on the JS thread, so it lines up behind whatever was queued
// meanwhile. So a read waits for at most one slice of each sliced operation queued or running
// ahead of it, and anything else on the pool (fs, dns, zlib) for at most kHold. Going back through
// the JS thread costs tens of microseconds on a busy machine: not worth paying while nobody
// is kept waiting.
template <typename T>
class SlicedOperation final : public Napi::AsyncWorker {
 public:
  static constexpr std::chrono::milliseconds kHold{4};

  using Slice = std::function<bool()>;  // one slice of work; true once the operation is over
  using Finish = std::function<msb::Result<T>()>;  // its outcome, after the last slice
  using Convert = Napi::Value (*)(Napi::Env, T&);

  // `owner` is the JS sandbox, kept alive (with its error factory) until the promise settles.
  static Napi::Promise Start(const Napi::Object& owner, const Napi::FunctionReference& factory,
                             std::string virtual_path, Slice slice, Finish finish,
                             Convert convert) {
    auto chain = std::make_shared<Chain>(
        Chain{Napi::Promise::Deferred::New(owner.Env()), Napi::Persistent(owner), factory,
              std::move(virtual_path), std::move(slice), std::move(finish), convert});
    Napi::Promise promise = chain->deferred.Promise();
    QueueSlice(owner.Env(), chain);
    return promise;
  }

 protected:
  void Execute() override {
    const auto until = std::chrono::steady_clock::now() + kHold;
    while (!chain_->slice()) {
      if (waiting_operations.load(std::memory_order_relaxed) > 0) return;
      if (std::chrono::steady_clock::now() >= until) return;
    }
    result_.emplace(chain_->finish());
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    // A throw here (say, a string longer than V8 allows) must reject, not end the process.
    try {
      if (!result_) return QueueSlice(env, chain_);
      if (result_->ok()) {
        chain_->deferred.Resolve(chain_->convert(env, result_->value()));
      } else {
        chain_->deferred.Reject(
            make_error(chain_->owner.Value(), chain_->factory, result_->error(), chain_->path));
      }
    } catch (const Napi::Error& e) {
      chain_->deferred.Reject(e.Value());
    }
  }

  void OnError(const Napi::Error& e) override { chain_->deferred.Reject(e.Value()); }

 private:
  // What the slices share; only ever touched on the JS thread, but for slice() and finish().
  struct Chain {
    Napi::Promise::Deferred deferred;
    Napi::ObjectReference owner;
    const Napi::FunctionReference& factory;  // owned by the SandboxWrap that owner keeps alive
    std::string path;
    Slice slice;
    Finish finish;
    Convert convert;
  };

  static void QueueSlice(Napi::Env env, const std::shared_ptr<Chain>& chain) {
    auto* next = new SlicedOperation(env, chain);
    try {
      next->Queue();
    } catch (...) {
      delete next;
      throw;
    }
  }

  SlicedOperation(Napi::Env env, std::shared_ptr<Chain> chain)
      : Napi::AsyncWorker(env, "mount-sandbox"), chain_(std::move(chain)) {}

  std::shared_ptr<Chain> chain_;
  std::optional<msb::Result<T>> result_;
};

}  // namespace msb_binding
