#include "errors.h"

namespace msb_binding {

Napi::Object error_details(Napi::Env env, const msb::Error& error) {
  Napi::Object details = Napi::Object::New(env);
  if (error.size != 0 || error.limit != 0 || error.code == msb::Errc::too_large) {
    details.Set("size", Napi::Number::New(env, static_cast<double>(error.size)));
    details.Set("limit", Napi::Number::New(env, static_cast<double>(error.limit)));
  }
  if (error.index != msb::Error::kNoIndex) {
    details.Set("index", Napi::Number::New(env, static_cast<double>(error.index)));
  }
  if (error.sys_errno != 0) details.Set("errno", Napi::Number::New(env, error.sys_errno));
  if (error.filesystem != nullptr)
    details.Set("filesystem", Napi::String::New(env, error.filesystem));
  if (error.trusted != nullptr) details.Set("trusted", Napi::String::New(env, error.trusted));
  if (error.pattern_problem != nullptr)
    details.Set("patternProblem", Napi::String::New(env, error.pattern_problem));
  if (error.offset != msb::Error::kNoIndex)
    details.Set("offset", Napi::Number::New(env, static_cast<double>(error.offset)));
  if (error.op != msb::SysOp::none) {
    details.Set("syscall", Napi::String::New(env, std::string(msb::sysop_name(error.op))));
  }
  return details;
}

Napi::Value make_error(const Napi::Object& sandbox, const Napi::FunctionReference& factory,
                       const msb::Error& error, const std::string& virtual_path) {
  Napi::Env env = sandbox.Env();
  Napi::Object details = error_details(env, error);
  const std::string code(msb::errc_name(error.code));
  return factory.Call(
      sandbox, {Napi::String::New(env, code), Napi::String::New(env, virtual_path), details});
}

void throw_error(const Napi::Object& sandbox, const Napi::FunctionReference& factory,
                 const msb::Error& error, const std::string& virtual_path) {
  throw Napi::Error(sandbox.Env(), make_error(sandbox, factory, error, virtual_path));
}

}  // namespace msb_binding
