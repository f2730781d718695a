#include <napi.h>

#include <climits>

#include "common/exec_path.h"
#include "config/config_tree.h"
#include "config/program_config.h"
#include "config_wrap.h"
#include "fs/glob_walk.h"
#include "fs/resolver.h"
#include "fs/sandbox.h"
#include "git_wrap.h"
#include "glob_wrap.h"
#include "listeners_wrap.h"
#include "rules.h"
#include "sandbox_wrap.h"
#include "search/file_search.h"
#include "search/file_types.h"
#include "trusted_wrap.h"

namespace {

Napi::Number number(Napi::Env env, std::uint64_t value) {
  return Napi::Number::New(env, static_cast<double>(value));
}

// The core's limits and defaults that lib/ must also know before the addon loads (to validate
// arguments and to document defaults): test/rules-once.test.js checks lib's copies against these.
Napi::Object core_limits(Napi::Env env) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("maxPathBytes", number(env, PATH_MAX));
  out.Set("defaultGlobLimit", number(env, msb::kDefaultGlobLimit));
  out.Set("maxGlobLimit", number(env, msb::kMaxGlobLimit));
  out.Set("maxGlobEntries", number(env, msb::kMaxGlobEntries));
  out.Set("maxConfigBytes", number(env, msb::kMaxConfigBytes));
  out.Set("defaultMaxReadBytes", number(env, msb::kDefaultMaxReadBytes));
  out.Set("maxReadBytes", number(env, static_cast<std::uint64_t>(msb_binding::kMaxReadLimit)));
  out.Set("maxTextBytes", number(env, msb_binding::kMaxTextBytes));
  out.Set("defaultMaxDepth", number(env, msb::SandboxOptions{}.max_depth));
  out.Set("defaultDelegationDepth", number(env, msb::ProgramConfig{}.max_depth));
  out.Set("maxDelegationDepth", number(env, msb::kMaxDelegationDepth));
  out.Set("maxFileBytes", number(env, msb::kMaxFileBytesLimit));
  out.Set("grepBytesPerThread", number(env, msb::kGrepBytesPerThread));
  out.Set("grepLineBound", number(env, msb::kGrepLineBound));
  out.Set("maxGrepThreads", number(env, msb::kMaxGrepThreads));
  Napi::Object types = Napi::Object::New(env);  // grep's `types`: each name's globs
  for (const msb::FileType& type : msb::file_types()) {
    types.Set(std::string(type.name), Napi::String::New(env, type.globs.data(), type.globs.size()));
  }
  types.Freeze();
  out.Set("fileTypes", types);
  out.Set("defaultCommandPath",
          Napi::String::New(env, msb::kDefaultCommandPath.data(), msb::kDefaultCommandPath.size()));
  out.Freeze();
  return out;
}

Napi::Value Openat2Supported(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), msb::openat2_supported());
}

// tmpSize(tmpBytes, memoryBytes): the size the launcher gives a command's /tmp.
Napi::Value TmpSize(const Napi::CallbackInfo& info) {
  msb::ExecLimits limits;
  limits.tmp_bytes = static_cast<std::uint64_t>(info[0].As<Napi::Number>().DoubleValue());
  limits.memory_bytes = static_cast<std::uint64_t>(info[1].As<Napi::Number>().DoubleValue());
  return number(info.Env(), msb::tmp_size(limits));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("NativeSandbox", msb_binding::SandboxWrap::Define(env));
  exports.Set("openat2Supported", Napi::Function::New<Openat2Supported>(env));
  exports.Set("tmpSize", Napi::Function::New<TmpSize>(env));
  exports.Set("parseProgramConfig", Napi::Function::New<msb_binding::ParseProgramConfig>(env));
  exports.Set("parseWorkerFile", Napi::Function::New<msb_binding::ParseWorkerFile>(env));
  exports.Set("nextRunFiles", Napi::Function::New<msb_binding::NextRunFiles>(env));
  exports.Set("openConfigFile", Napi::Function::New<msb_binding::OpenConfigFile>(env));
  exports.Set("readConfigFile", Napi::Function::New<msb_binding::ReadConfigFile>(env));
  exports.Set("closeConfigFile", Napi::Function::New<msb_binding::CloseConfigFile>(env));
  exports.Set("foldSuffixes", Napi::Function::New<msb_binding::FoldSuffixes>(env));
  exports.Set("matchingSuffix", Napi::Function::New<msb_binding::MatchingSuffix>(env));
  exports.Set("trustedEntryProblem", Napi::Function::New<msb_binding::TrustedEntryProblem>(env));
  exports.Set("releaseCoversProtected",
              Napi::Function::New<msb_binding::ReleaseCoversProtected>(env));
  exports.Set("gitScan", Napi::Function::New<msb_binding::GitScan>(env));
  exports.Set("compileGlob", Napi::Function::New<msb_binding::CompileGlob>(env));
  exports.Set("settleRepositories", Napi::Function::New<msb_binding::SettleRepositories>(env));
  exports.Set("gitAfterRun", Napi::Function::New<msb_binding::GitAfterRun>(env));
  exports.Set("socketPair", Napi::Function::New<msb_binding::SocketPair>(env));
  exports.Set("receiveListeners", Napi::Function::New<msb_binding::ReceiveListeners>(env));
  exports.Set("originalDestination", Napi::Function::New<msb_binding::OriginalDestination>(env));
  exports.Set("limits", core_limits(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(mount_sandbox, Init)
