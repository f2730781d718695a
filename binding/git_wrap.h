// The git scan (src/git) on the threadpool: before a run it names what to bind read-only and
// what to pin, after the run it removes what the command planted. Only converts and schedules.
#pragma once

#include <napi.h>

namespace msb_binding {

// gitScan(writableRealPaths) -> Promise<{ protect, pin, handle } | { error: { kind, what, errno }
// }> kind: "symlink" | "too-large" | "too-many" | "malformed" | "io"; `what` names a git entry
// (".git/hooks", ".gitmodules", "index"), never a host path.
Napi::Value GitScan(const Napi::CallbackInfo& info);
// gitAfterRun(handle) -> Promise<{ removed, unchecked, failed }>: host paths.
Napi::Value GitAfterRun(const Napi::CallbackInfo& info);
// settleRepositories(before, after, writableRoots) -> Promise<{ takenOut, restored, failed }>:
// the repositories findTrusted() reported before and after a run (src/git/repo_settle.h).
Napi::Value SettleRepositories(const Napi::CallbackInfo& info);

}  // namespace msb_binding
