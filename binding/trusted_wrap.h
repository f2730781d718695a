// The facade's `trusted` config key, read into the core's spec (the SandboxWrap methods that
// report the set and look for it under sources are defined in trusted_wrap.cc too).
#pragma once

#include <napi.h>

#include "fs/trusted_names.h"

namespace msb_binding {

// { builtin, add, release, hostPaths } as the facade validated it; the defaults when absent.
msb::TrustedNamesSpec trusted_spec_from(const Napi::Object& config);

// trustedEntryProblem(entry): null, or { offset, reason } (the core's trusted_entry_problem).
Napi::Value TrustedEntryProblem(const Napi::CallbackInfo& info);
// releaseCoversProtected(entry, builtin, added): whether a release names something protected.
Napi::Value ReleaseCoversProtected(const Napi::CallbackInfo& info);

}  // namespace msb_binding
