// A command's change set (src/changes/change_set.h), landed or judged on the pool after the run:
// sandbox.exec() hands the layers it gave the command, the core does the rest.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "changes/change_set.h"
#include "errors.h"
#include "operation.h"
#include "rules.h"
#include "sandbox_wrap.h"

namespace msb_binding {
namespace {

const char* kind_name(msb::changes::ChangeKind kind) {
  switch (kind) {
    case msb::changes::ChangeKind::file: return "file";
    case msb::changes::ChangeKind::symlink: return "symlink";
    case msb::changes::ChangeKind::directory: return "directory";
    case msb::changes::ChangeKind::removal: return "delete";
  }
  return "file";
}

const char* outcome_name(msb::changes::Outcome outcome) {
  switch (outcome) {
    case msb::changes::Outcome::applied: return "applied";
    case msb::changes::Outcome::unchanged: return "unchanged";
    case msb::changes::Outcome::refused: return "refused";
    case msb::changes::Outcome::conflict: return "conflict";
    case msb::changes::Outcome::pending: return "pending";
  }
  return "refused";
}

// { upper, target, base? }: `base`, a descriptor the caller holds open until the promise settles
// (the run's tmpfs: lib/changes/layers.js), or none for a host path.
std::vector<msb::changes::Layer> layers_from(const Napi::Array& given) {
  std::vector<msb::changes::Layer> out;
  for (uint32_t i = 0; i < given.Length(); ++i) {
    Napi::Object layer = given.Get(i).As<Napi::Object>();
    msb::changes::Layer& made = out.emplace_back();
    made.upper = layer.Get("upper").As<Napi::String>().Utf8Value();
    made.target = layer.Get("target").As<Napi::String>().Utf8Value();
    Napi::Value base = layer.Get("base");
    if (base.IsNumber()) made.base = base.As<Napi::Number>().Int32Value();
  }
  return out;
}

msb::changes::LandOptions options_from(const Napi::Object& given) {
  msb::changes::LandOptions out;
  out.rules.since_ns =
      static_cast<std::int64_t>(given.Get("sinceMs").As<Napi::Number>().DoubleValue() * 1e6);
  out.rules.dry_run = given.Get("dryRun").ToBoolean();
  out.hold_ask = given.Get("holdAsk").ToBoolean();
  Napi::Value only = given.Get("only");
  if (only.IsArray()) {
    const std::vector<std::string> paths = strings_from(only.As<Napi::Array>());
    out.only = std::set<std::string>(paths.begin(), paths.end());
  }
  return out;
}

Napi::Value to_report(Napi::Env env, msb::changes::LandReport& report) {
  Napi::Array changes = Napi::Array::New(env, report.changes.size());
  for (std::size_t i = 0; i < report.changes.size(); ++i) {
    const msb::changes::ChangeVerdict& v = report.changes[i];
    Napi::Object item = Napi::Object::New(env);
    item.Set("path", v.path);
    item.Set("kind", kind_name(v.kind));
    item.Set("size", Napi::Number::New(env, static_cast<double>(v.size)));
    item.Set("outcome", outcome_name(v.outcome));
    item.Set("approval", std::string(msb::approval_name(v.approval)));
    item.Set("replaces", v.replaces.empty() ? env.Null() : Napi::String::New(env, v.replaces));
    if (v.outcome == msb::changes::Outcome::refused ||
        v.outcome == msb::changes::Outcome::conflict) {
      item.Set("code", std::string(msb::errc_name(v.error.code)));
      item.Set("details", error_details(env, v.error));
    }
    changes.Set(static_cast<uint32_t>(i), item);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("changes", changes);
  out.Set("truncated", Napi::Boolean::New(env, report.truncated));
  return out;
}

}  // namespace

// landChanges([{ upper, target, base? }], { sinceMs, dryRun, holdAsk, only }):
// { changes: [{ path, kind, size, outcome, approval, code?, details? }], truncated }. A refusal's
// code and details are what the file API's error for the path is built from (lib/errors).
Napi::Value SandboxWrap::LandChanges(const Napi::CallbackInfo& info) {
  auto layers = layers_from(info[0].As<Napi::Array>());
  auto options = options_from(info[1].As<Napi::Object>());
  return Operation<msb::changes::LandReport>::Start(
      Value(), make_error_, "/",
      [core = core_, layers = std::move(layers), options = std::move(options)]() {
        return msb::changes::land_layers(*core, layers, options);
      },
      to_report);
}

}  // namespace msb_binding
