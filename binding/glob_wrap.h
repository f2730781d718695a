// Glob patterns matched by the core (src/fs/glob.h) for callers that match names they already
// have, such as the MCP server's excludePatterns: one compile, then a native test per path, in
// time bounded by the pattern's size times the path's.
#pragma once

#include <napi.h>

namespace msb_binding {

// compileGlob(pattern): a function (virtualPath) => boolean, or null when the pattern is not one.
Napi::Value CompileGlob(const Napi::CallbackInfo& info);

}  // namespace msb_binding
