// Config files are parsed in the core; this only converts the typed model (or the located
// error) into plain JS objects for the facade.
#pragma once

#include <napi.h>

namespace msb_binding {

// parseProgramConfig(text, absoluteFile, 'yaml' | 'json')
//   -> { config } | { error: { line, column, keyPath, expected } }
Napi::Value ParseProgramConfig(const Napi::CallbackInfo& info);
// parseWorkerFile(text) -> { worker } | { error }
Napi::Value ParseWorkerFile(const Napi::CallbackInfo& info);

}  // namespace msb_binding
