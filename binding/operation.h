// One file operation = one threadpool task: the core call runs in Execute() off the JS thread,
// and its result or error settles a promise back on it.
#pragma once

#include <napi.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../src/error.h"
#include "errors.h"

namespace msb_binding {

template <typename T>
class Operation final : public Napi::AsyncWorker {
 public:
  using Work = std::function<msb::Result<T>()>;
  using Convert = Napi::Value (*)(Napi::Env, T&);

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
    Napi::Promise promise = op->deferred_.Promise();
    op->Queue();
    return promise;
  }

 protected:
  void Execute() override { result_.emplace(work_()); }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    // A throw here (say, a string longer than V8 allows) must reject, not end the process.
    try {
      if (result_->ok()) {
        deferred_.Resolve(convert_(env, result_->value()));
      } else {
        const msb::Error& error = result_->error();
        const std::size_t which = error.index < paths_.size() ? error.index : 0;
        deferred_.Reject(make_error(owner_.Value(), factory_, error, paths_[which]));
      }
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Operation(const Napi::Object& owner, const Napi::FunctionReference& factory,
            std::vector<std::string> virtual_paths, Work work, Convert convert)
      : Napi::AsyncWorker(owner.Env(), "mount-sandbox"),
        deferred_(Napi::Promise::Deferred::New(owner.Env())),
        owner_(Napi::Persistent(owner)),
        factory_(factory),
        paths_(std::move(virtual_paths)),
        work_(std::move(work)),
        convert_(convert) {}

  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference owner_;
  const Napi::FunctionReference& factory_;  // owned by the SandboxWrap that owner_ keeps alive
  std::vector<std::string> paths_;          // never empty
  Work work_;
  Convert convert_;
  std::optional<msb::Result<T>> result_;
};

}  // namespace msb_binding
