// The JS-visible native sandbox. Converts arguments, schedules each file operation as one
// threadpool task, and converts results; all decisions are made in src/.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>

#include "fs/sandbox.h"

namespace msb_binding {

// The largest maxReadBytes a sandbox takes: Buffer's own maximum on 64-bit Node.
inline constexpr double kMaxReadLimit = 4294967296.0;

// V8's longest string (2^29 - 24 UTF-16 units, buffer.constants.MAX_STRING_LENGTH on 64-bit):
// UTF-8 text of more bytes may not fit in one, so every text this addon hands out (read, ranged
// reads, attachments the facade decodes) is held to it, as a too_large refusal decided from the
// file's size before it is read.
inline constexpr std::uint64_t kMaxTextBytes = (std::uint64_t{1} << 29) - 24;

class SandboxWrap : public Napi::ObjectWrap<SandboxWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  // new NativeSandbox(config, makeError)
  explicit SandboxWrap(const Napi::CallbackInfo& info);

  const std::shared_ptr<const msb::Sandbox>& core() const { return core_; }
  const Napi::FunctionReference& error_factory() const { return make_error_; }

 private:
  Napi::Value Read(const Napi::CallbackInfo& info);
  Napi::Value ReadBinary(const Napi::CallbackInfo& info);
  Napi::Value Write(const Napi::CallbackInfo& info);
  Napi::Value Delete(const Napi::CallbackInfo& info);
  Napi::Value Exists(const Napi::CallbackInfo& info);
  Napi::Value List(const Napi::CallbackInfo& info);
  Napi::Value ListEntries(const Napi::CallbackInfo& info);
  Napi::Value Stat(const Napi::CallbackInfo& info);
  Napi::Value CreateSources(const Napi::CallbackInfo& info);
  Napi::Value Resolve(const Napi::CallbackInfo& info);
  Napi::Value CheckPath(const Napi::CallbackInfo& info);
  Napi::Value CheckWritable(const Napi::CallbackInfo& info);
  Napi::Value Restrict(const Napi::CallbackInfo& info);
  Napi::Value SelectZones(const Napi::CallbackInfo& info);
  Napi::Value ApprovalFor(const Napi::CallbackInfo& info);
  Napi::Value ReadRange(const Napi::CallbackInfo& info);
  Napi::Value Edit(const Napi::CallbackInfo& info);
  Napi::Value Move(const Napi::CallbackInfo& info);
  Napi::Value Copy(const Napi::CallbackInfo& info);
  Napi::Value Mkdir(const Napi::CallbackInfo& info);
  using TransferFn = msb::Status (msb::Sandbox::*)(std::string_view, std::string_view, bool) const;
  Napi::Value Transfer(const Napi::CallbackInfo& info, TransferFn transfer);
  Napi::Value Glob(const Napi::CallbackInfo& info);
  Napi::Value ReadAttachments(const Napi::CallbackInfo& info);
  Napi::Value Config(const Napi::CallbackInfo& info);
  Napi::Value ExecPaths(const Napi::CallbackInfo& info);
  // grep_wrap.cc
  Napi::Value Grep(const Napi::CallbackInfo& info);
  // trusted_wrap.cc
  Napi::Value TrustedNames(const Napi::CallbackInfo& info);
  Napi::Value FindTrusted(const Napi::CallbackInfo& info);
  Napi::Value ReleasedHostPath(const Napi::CallbackInfo& info);
  // links_wrap.cc
  Napi::Value FindSharedLinks(const Napi::CallbackInfo& info);
  // changes_wrap.cc
  Napi::Value LandChanges(const Napi::CallbackInfo& info);

  // A JS sandbox around a derived core sandbox, or the core's refusal thrown as a JS error.
  Napi::Value Wrap(msb::Result<std::shared_ptr<msb::Sandbox>>& child, const std::string& path);

  template <typename T>
  Napi::Promise SettleNow(msb::Result<T>& result, const std::string& path,
                          Napi::Value (*convert)(Napi::Env, T&));

  std::shared_ptr<const msb::Sandbox> core_;
  Napi::FunctionReference make_error_;
};

}  // namespace msb_binding
