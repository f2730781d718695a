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

// Config and .worker files are read from the disk as the file sandbox reads files
// (src/config/config_file.h), in two threadpool steps so that the facade can judge where the
// file lies before it is read. Failures settle as { error: { code, errno?, syscall?, size?,
// limit?, filesystem? } }.
// nextRunFiles(configFile, workerDirs, writableAreas) -> Promise<{ existing, absent } | { error }>:
// what the next run trusts of a program config (src/config/next_run_files.h).
Napi::Value NextRunFiles(const Napi::CallbackInfo& info);
// openConfigFile(absolutePath) -> Promise<{ handle, realPath } | { error }>
Napi::Value OpenConfigFile(const Napi::CallbackInfo& info);
// readConfigFile(handle) -> Promise<{ text } | { error }>; takes the handle's descriptor.
Napi::Value ReadConfigFile(const Napi::CallbackInfo& info);
// closeConfigFile(handle): closes it now rather than when collected.
Napi::Value CloseConfigFile(const Napi::CallbackInfo& info);

}  // namespace msb_binding
