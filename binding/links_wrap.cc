// Files in a command's writable sources that have names outside them (src/fs/link_scan.h), found
// on the pool before a run so that sandbox.exec() can bind them read-only.
#include <string>
#include <utility>
#include <vector>

#include "fs/link_scan.h"
#include "operation.h"
#include "rules.h"
#include "sandbox_wrap.h"

namespace msb_binding {
namespace {

Napi::Value to_scan(Napi::Env env, msb::LinkScan& scan) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("found", string_array(env, scan.found));
  out.Set("truncated", Napi::Boolean::New(env, scan.truncated));
  return out;
}

}  // namespace

// findSharedLinks([{ host, skip: [paths below it] }]): { found: [host paths], truncated }.
Napi::Value SandboxWrap::FindSharedLinks(const Napi::CallbackInfo& info) {
  Napi::Array given = info[0].As<Napi::Array>();
  std::vector<msb::LinkSource> sources;
  for (uint32_t i = 0; i < given.Length(); ++i) {
    Napi::Object source = given.Get(i).As<Napi::Object>();
    sources.push_back(msb::LinkSource{source.Get("host").As<Napi::String>().Utf8Value(),
                                      strings_from(source.Get("skip").As<Napi::Array>())});
  }
  return Operation<msb::LinkScan>::Start(
      Value(), make_error_, "/",
      [sources = std::move(sources)]() { return msb::find_shared_links(sources); }, to_scan);
}

}  // namespace msb_binding
