// The names the host trusts next, as a sandbox keeps them (src/fs/trusted_names.h): read from
// the facade's config, reported to it, and looked for under writable sources before and after a
// command (src/fs/trusted_scan.h).
#include "trusted_wrap.h"

#include <string>
#include <utility>
#include <vector>

#include "fs/trusted_scan.h"
#include "operation.h"
#include "rules.h"
#include "sandbox_wrap.h"

namespace msb_binding {
namespace {

Napi::Array repositories_array(Napi::Env env, const std::vector<msb::git::RepositorySeen>& repos) {
  Napi::Array out = Napi::Array::New(env, repos.size());
  for (uint32_t i = 0; i < repos.size(); ++i) {
    Napi::Object repo = Napi::Object::New(env);
    repo.Set("gitDir", Napi::String::New(env, repos[i].git_dir));
    repo.Set("id", Napi::String::New(env, std::to_string(repos[i].id.dev) + ":" +
                                              std::to_string(repos[i].id.ino)));
    repo.Set("head", Napi::String::New(env, repos[i].head));
    out.Set(i, repo);
  }
  return out;
}

Napi::Value to_scans(Napi::Env env, std::vector<msb::TrustedScan>& scans) {
  Napi::Array out = Napi::Array::New(env, scans.size());
  for (uint32_t i = 0; i < scans.size(); ++i) {
    Napi::Object scan = Napi::Object::New(env);
    scan.Set("found", string_array(env, scans[i].found));
    scan.Set("repositories", repositories_array(env, scans[i].repositories));
    scan.Set("workTrees", string_array(env, scans[i].work_trees));
    scan.Set("truncated", Napi::Boolean::New(env, scans[i].truncated));
    out.Set(i, scan);
  }
  return out;
}

}  // namespace

msb::TrustedNamesSpec trusted_spec_from(const Napi::Object& config) {
  msb::TrustedNamesSpec spec;
  Napi::Value given = config.Get("trusted");
  if (!given.IsObject()) return spec;
  Napi::Object trusted = given.As<Napi::Object>();
  spec.builtin = trusted.Get("builtin").ToBoolean();
  spec.added = strings_from(trusted.Get("add").As<Napi::Array>());
  spec.released = strings_from(trusted.Get("release").As<Napi::Array>());
  spec.host_paths = strings_from(trusted.Get("hostPaths").As<Napi::Array>());
  return spec;
}

Napi::Value TrustedEntryProblem(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto problem = msb::trusted_entry_problem(info[0].As<Napi::String>().Utf8Value());
  if (!problem) return env.Null();
  Napi::Object out = Napi::Object::New(env);
  out.Set("offset", Napi::Number::New(env, static_cast<double>(problem->offset)));
  out.Set("reason", Napi::String::New(env, problem->reason));
  return out;
}

Napi::Value ReleaseCoversProtected(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(
      info.Env(),
      msb::release_covers_protected(info[0].As<Napi::String>().Utf8Value(), info[1].ToBoolean(),
                                    strings_from(info[2].As<Napi::Array>())));
}

// trustedNames(): { names: [{ name, kind }], released, hostPaths }
Napi::Value SandboxWrap::TrustedNames(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const msb::TrustedNames& trusted = core_->trusted();
  Napi::Array names = Napi::Array::New(env, trusted.names().size());
  for (uint32_t i = 0; i < trusted.names().size(); ++i) {
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("name", Napi::String::New(env, trusted.names()[i].name));
    entry.Set("kind", Napi::String::New(env, msb::trusted_kind_name(trusted.names()[i].kind)));
    names.Set(i, entry);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("names", names);
  out.Set("released", string_array(env, trusted.released_names()));
  out.Set("hostPaths", string_array(env, trusted.host_paths()));
  out.Set("hookDirs", string_array(env, trusted.hook_dirs()));
  return out;
}

// findTrusted([source host paths]): for each, { found: [host paths], truncated }, on the pool.
Napi::Value SandboxWrap::FindTrusted(const Napi::CallbackInfo& info) {
  std::vector<std::string> sources = strings_from(info[0].As<Napi::Array>());
  auto core = core_;
  return Operation<std::vector<msb::TrustedScan>>::Start(
      Value(), make_error_, "/",
      [core, sources]() -> msb::Result<std::vector<msb::TrustedScan>> {
        std::vector<msb::TrustedScan> scans;
        for (const std::string& source : sources) {
          auto scan = msb::find_trusted_entries(core->trusted(), source);
          // A source that cannot be read holds nothing a command could change either.
          scans.push_back(scan ? std::move(scan.value()) : msb::TrustedScan{});
        }
        return scans;
      },
      to_scans);
}

// releasedHostPath(host): whether a release covers the entry there (any-depth releases are
// matched on the host path's own components).
Napi::Value SandboxWrap::ReleasedHostPath(const Napi::CallbackInfo& info) {
  const std::string host = info[0].As<Napi::String>().Utf8Value();
  msb::EntryPlace place;
  for (std::string_view part : msb::split_at_slashes(host)) {
    if (!part.empty()) place.parts.emplace_back(part);
  }
  place.hosts.push_back(host);
  return Napi::Boolean::New(info.Env(), core_->trusted().released(place));
}

}  // namespace msb_binding
