#include <napi.h>

#include "config_wrap.h"
#include "fs/resolver.h"
#include "sandbox_wrap.h"

namespace {

Napi::Value Openat2Supported(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), msb::openat2_supported());
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("NativeSandbox", msb_binding::SandboxWrap::Define(env));
  exports.Set("openat2Supported", Napi::Function::New<Openat2Supported>(env));
  exports.Set("parseProgramConfig", Napi::Function::New<msb_binding::ParseProgramConfig>(env));
  exports.Set("parseWorkerFile", Napi::Function::New<msb_binding::ParseWorkerFile>(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(mount_sandbox, Init)
