#include "glob_wrap.h"

#include <memory>
#include <string>
#include <utility>

#include "fs/glob.h"

namespace msb_binding {
namespace {

Napi::Value Matches(const Napi::CallbackInfo& info) {
  const auto* matcher = static_cast<const msb::GlobMatcher*>(info.Data());
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  return Napi::Boolean::New(info.Env(), matcher->matches(path));
}

}  // namespace

Napi::Value CompileGlob(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto compiled = msb::GlobMatcher::compile(info[0].As<Napi::String>().Utf8Value());
  if (!compiled) return env.Null();
  auto* matcher = new msb::GlobMatcher(std::move(compiled.value()));
  Napi::Function matches = Napi::Function::New(env, Matches, "matches", matcher);
  matches.AddFinalizer([](Napi::Env, msb::GlobMatcher* m) { delete m; }, matcher);
  return matches;
}

}  // namespace msb_binding
