#include "git_wrap.h"

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "git/git_check.h"
#include "git/git_scan.h"
#include "git/repo_settle.h"
#include "operation.h"
#include "rules.h"

namespace msb_binding {
namespace {

using ScanOutcome = std::variant<msb::git::GitScan, msb::git::GitRefusal>;
using AfterRunHandle = std::shared_ptr<msb::git::AfterRun>;

// Git tasks never fail as a sandbox operation: a refusal is a value the facade turns into its
// ExecError, so the error path only rejects with what the core could not express otherwise.
void reject_scan_failure(Napi::Env env, Napi::Promise::Deferred& deferred,
                         const msb::Error& error) {
  deferred.Reject(
      Napi::Error::New(env, "git scan failed: " + std::string(msb::errc_name(error.code))).Value());
}

template <typename T>
using GitTask = PlainTask<T, reject_scan_failure>;

const char* kind_name(msb::git::GitRefusalKind kind) {
  switch (kind) {
    case msb::git::GitRefusalKind::symlink: return "symlink";
    case msb::git::GitRefusalKind::too_large: return "too-large";
    case msb::git::GitRefusalKind::too_many: return "too-many";
    case msb::git::GitRefusalKind::malformed: return "malformed";
    case msb::git::GitRefusalKind::io: return "io";
  }
  return "io";
}

Napi::Value to_scan_result(Napi::Env env, ScanOutcome& outcome) {
  Napi::Object out = Napi::Object::New(env);
  if (auto* refusal = std::get_if<msb::git::GitRefusal>(&outcome)) {
    Napi::Object error = Napi::Object::New(env);
    error.Set("kind", Napi::String::New(env, kind_name(refusal->kind)));
    error.Set("what", Napi::String::New(env, refusal->what));
    if (refusal->sys_errno != 0) error.Set("errno", Napi::Number::New(env, refusal->sys_errno));
    out.Set("error", error);
    return out;
  }
  auto& scan = std::get<msb::git::GitScan>(outcome);
  out.Set("protect", string_array(env, scan.protect));
  out.Set("pin", string_array(env, scan.pin));
  auto* handle = new AfterRunHandle(std::move(scan.after));
  out.Set("handle", Napi::External<AfterRunHandle>::New(
                        env, handle, [](Napi::Env, AfterRunHandle* h) { delete h; }));
  return out;
}

Napi::Value to_report(Napi::Env env, msb::git::AfterRunReport& report) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("removed", string_array(env, report.removed));
  out.Set("unchecked", string_array(env, report.unchecked));
  out.Set("failed", string_array(env, report.failed));
  out.Set("repositories", string_array(env, report.repositories));
  return out;
}

// { gitDir, id: "dev:ino", head }, as findTrusted() reported them.
std::vector<msb::git::RepositorySeen> repositories_from(const Napi::Value& value) {
  std::vector<msb::git::RepositorySeen> out;
  if (!value.IsArray()) return out;
  Napi::Array given = value.As<Napi::Array>();
  for (uint32_t i = 0; i < given.Length(); ++i) {
    Napi::Object repo = given.Get(i).As<Napi::Object>();
    const std::string id = repo.Get("id").As<Napi::String>().Utf8Value();
    const auto colon = id.find(':');
    msb::git::RepositorySeen seen;
    seen.git_dir = repo.Get("gitDir").As<Napi::String>().Utf8Value();
    seen.id = msb::FileId{static_cast<dev_t>(std::stoull(id.substr(0, colon))),
                          static_cast<ino_t>(std::stoull(id.substr(colon + 1)))};
    seen.head = repo.Get("head").As<Napi::String>().Utf8Value();
    out.push_back(std::move(seen));
  }
  return out;
}

Napi::Value to_settle_report(Napi::Env env, msb::git::SettleReport& report) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("takenOut", string_array(env, report.taken_out));
  out.Set("restored", string_array(env, report.restored));
  out.Set("failed", string_array(env, report.failed));
  return out;
}

}  // namespace

Napi::Value SettleRepositories(const Napi::CallbackInfo& info) {
  auto before = repositories_from(info[0]);
  auto after = repositories_from(info[1]);
  auto roots = strings_from(info[2].As<Napi::Array>());
  return GitTask<msb::git::SettleReport>::Start(
      info.Env(),
      [before = std::move(before), after = std::move(after),
       roots = std::move(roots)]() -> msb::Result<msb::git::SettleReport> {
        return msb::git::settle_repositories(before, after, roots);
      },
      to_settle_report);
}

Napi::Value GitScan(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArray()) throw Napi::TypeError::New(env, "expected an array of paths");
  Napi::Array given = info[0].As<Napi::Array>();
  std::vector<std::string> writable;
  for (uint32_t i = 0; i < given.Length(); ++i) {
    Napi::Value value = given.Get(i);
    if (!value.IsString()) throw Napi::TypeError::New(env, "expected an array of paths");
    writable.push_back(value.As<Napi::String>().Utf8Value());
  }
  return GitTask<ScanOutcome>::Start(
      env,
      [writable = std::move(writable)]() -> msb::Result<ScanOutcome> {
        auto scan = msb::git::scan_writable(writable);
        if (!scan) return ScanOutcome(std::move(scan).error());
        return ScanOutcome(std::move(scan.value()));
      },
      to_scan_result);
}

Napi::Value GitAfterRun(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsExternal()) throw Napi::TypeError::New(env, "expected a handle from gitScan()");
  // Shared with the task: collecting the handle meanwhile leaves the state alive.
  AfterRunHandle after = *info[0].As<Napi::External<AfterRunHandle>>().Data();
  return GitTask<msb::git::AfterRunReport>::Start(
      env,
      [after]() -> msb::Result<msb::git::AfterRunReport> {
        if (!after) return msb::git::AfterRunReport{};
        return msb::git::check_after_run(*after);
      },
      to_report);
}

}  // namespace msb_binding
