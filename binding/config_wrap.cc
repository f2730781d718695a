#include "config_wrap.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "config/config_file.h"
#include "config/next_run_files.h"
#include "config/program_config.h"
#include "config/worker_file.h"
#include "operation.h"
#include "rules.h"

namespace msb_binding {
namespace {

Napi::Value text(Napi::Env env, const std::string& value) {
  return Napi::String::New(env, value);
}

const char* layout_name(msb::SandboxLayout layout) {
  switch (layout) {
    case msb::SandboxLayout::mounts: return "mounts";
    case msb::SandboxLayout::zones_sandboxed: return "sandboxed";
    case msb::SandboxLayout::zones_direct: return "direct";
  }
  return "mounts";
}

Napi::Array network_entries(Napi::Env env, const std::vector<msb::NetworkEntry>& entries) {
  Napi::Array out = Napi::Array::New(env, entries.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("text", text(env, entries[i].text));
    entry.Set("line", Napi::Number::New(env, entries[i].line));
    entry.Set("column", Napi::Number::New(env, entries[i].column));
    out.Set(i, entry);
  }
  return out;
}

// false, true, or { allow, deny, line, column } with each entry's place (lib/config/program.js
// checks the entries and reports a bad one where it is written). Unset: not set at all.
void set_network(Napi::Env env, Napi::Object& out, const msb::NetworkSetting& network) {
  if (network.kind == msb::NetworkKind::unset) return;
  if (network.kind != msb::NetworkKind::allowlist) {
    out.Set("network", Napi::Boolean::New(env, network.kind == msb::NetworkKind::host));
    return;
  }
  Napi::Object lists = Napi::Object::New(env);
  lists.Set("allow", network_entries(env, network.allow));
  lists.Set("deny", network_entries(env, network.deny));
  lists.Set("line", Napi::Number::New(env, network.line));
  lists.Set("column", Napi::Number::New(env, network.column));
  out.Set("network", lists);
}

Napi::Object sandbox_object(Napi::Env env, const msb::ProgramSandbox& sandbox) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("layout", text(env, layout_name(sandbox.layout)));
  out.Set("root", sandbox.root.empty() ? env.Null() : text(env, sandbox.root));
  set_mount_rules(out, sandbox.readonly, sandbox.approval, sandbox.policy);
  if (sandbox.allow_pseudo_filesystem)
    out.Set("allowPseudoFilesystem", Napi::Boolean::New(env, true));
  Napi::Array mounts = Napi::Array::New(env, sandbox.mounts.size());
  for (uint32_t i = 0; i < sandbox.mounts.size(); ++i) {
    Napi::Object mount = mount_object(env, sandbox.mounts[i]);
    if (i < sandbox.zones.size()) mount.Set("zone", text(env, sandbox.zones[i].name));
    mounts.Set(i, mount);
  }
  out.Set("mounts", mounts);
  set_network(env, out, sandbox.network);
  if (!sandbox.changes.empty()) out.Set("changes", text(env, sandbox.changes));
  if (sandbox.tmp_bytes)
    out.Set("tmpBytes", Napi::Number::New(env, static_cast<double>(*sandbox.tmp_bytes)));
  const msb::TrustedNamesSpec& trusted = sandbox.trusted;
  if (!trusted.added.empty() || !trusted.released.empty()) {
    Napi::Object names = Napi::Object::New(env);
    names.Set("add", string_array(env, trusted.added));
    names.Set("release", string_array(env, trusted.released));
    out.Set("trustedNames", names);
  }
  return out;
}

Napi::Object program_object(Napi::Env env, const msb::ProgramConfig& config) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("file", text(env, config.file));
  out.Set("dir", text(env, config.dir));
  out.Set("sandbox",
          config.sandbox ? Napi::Value(sandbox_object(env, *config.sandbox)) : env.Null());
  Napi::Object delegation = Napi::Object::New(env);
  delegation.Set("maxDepth", Napi::Number::New(env, config.max_depth));
  out.Set("delegation", delegation);
  Napi::Array worker_paths = Napi::Array::New(env, config.worker_paths.size());
  for (uint32_t i = 0; i < config.worker_paths.size(); ++i) {
    worker_paths.Set(i, text(env, config.worker_paths[i]));
  }
  out.Set("workerPaths", worker_paths);
  return out;
}

const char* kind_name(msb::WorkerSandboxKind kind) {
  switch (kind) {
    case msb::WorkerSandboxKind::inherit: return "inherit";
    case msb::WorkerSandboxKind::none: return "none";
    case msb::WorkerSandboxKind::restrict: return "restrict";
    case msb::WorkerSandboxKind::zones: return "zones";
  }
  return "inherit";
}

Napi::Object worker_object(Napi::Env env, const msb::WorkerDeclaration& worker) {
  Napi::Object sandbox = Napi::Object::New(env);
  sandbox.Set("kind", text(env, kind_name(worker.kind)));
  if (worker.restrict) sandbox.Set("restrict", text(env, *worker.restrict));
  if (worker.readonly) sandbox.Set("readonly", Napi::Boolean::New(env, *worker.readonly));
  if (worker.approve_write || worker.approve_delete) {
    Napi::Object approval = Napi::Object::New(env);
    if (worker.approve_write) {
      approval.Set("write", text(env, std::string(msb::approval_name(*worker.approve_write))));
    }
    if (worker.approve_delete) {
      approval.Set("delete", text(env, std::string(msb::approval_name(*worker.approve_delete))));
    }
    sandbox.Set("approval", approval);
  }
  if (worker.kind == msb::WorkerSandboxKind::zones) {
    Napi::Array zones = Napi::Array::New(env, worker.zones.size());
    for (uint32_t i = 0; i < worker.zones.size(); ++i) {
      Napi::Object zone = Napi::Object::New(env);
      zone.Set("name", text(env, worker.zones[i].name));
      zone.Set("mode", text(env, worker.zones[i].readonly ? "ro" : "rw"));
      zone.Set("line", Napi::Number::New(env, worker.zones[i].line));
      zone.Set("column", Napi::Number::New(env, worker.zones[i].column));
      zones.Set(i, zone);
    }
    sandbox.Set("zones", zones);
  }
  set_network(env, sandbox, worker.network);
  Napi::Object out = Napi::Object::New(env);
  out.Set("name", worker.name.empty() ? env.Null() : text(env, worker.name));
  out.Set("sandbox", sandbox);
  return out;
}

Napi::Object error_result(Napi::Env env, const msb::ConfigError& error) {
  Napi::Object details = Napi::Object::New(env);
  details.Set("line", Napi::Number::New(env, error.line));
  details.Set("column", Napi::Number::New(env, error.column));
  details.Set("keyPath", text(env, error.key_path));
  details.Set("expected", text(env, error.expected));
  Napi::Object out = Napi::Object::New(env);
  out.Set("error", details);
  return out;
}

// A core error as plain details for the facade, which builds the config error naming the file.
Napi::Object error_details(Napi::Env env, const msb::Error& error) {
  Napi::Object details = Napi::Object::New(env);
  details.Set("code", text(env, std::string(msb::errc_name(error.code))));
  if (error.code == msb::Errc::too_large) {
    details.Set("size", Napi::Number::New(env, static_cast<double>(error.size)));
    details.Set("limit", Napi::Number::New(env, static_cast<double>(error.limit)));
  }
  if (error.sys_errno != 0) details.Set("errno", Napi::Number::New(env, error.sys_errno));
  if (error.op != msb::SysOp::none) {
    details.Set("syscall", text(env, std::string(msb::sysop_name(error.op))));
  }
  if (error.filesystem != nullptr) details.Set("filesystem", text(env, error.filesystem));
  return details;
}

// One config file step on the threadpool, settling with { <value> } or { error: details }: the
// facade turns the latter into an UnreadableConfigError naming the file.
void resolve_with_details(Napi::Env env, Napi::Promise::Deferred& deferred,
                          const msb::Error& error) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("error", error_details(env, error));
  deferred.Resolve(out);
}

template <typename T>
using ConfigFileTask = PlainTask<T, resolve_with_details>;

// The opened file JS holds between opening and reading (while it judges where the file lies):
// an External whose finalizer closes the descriptor if nothing else did.
using ConfigFileHandle = msb::ConfigFile;

Napi::Value to_opened(Napi::Env env, msb::ConfigFile& file) {
  auto* handle = new ConfigFileHandle(std::move(file));
  Napi::Object out = Napi::Object::New(env);
  out.Set("realPath", text(env, handle->real_path));
  out.Set("handle", Napi::External<ConfigFileHandle>::New(
                        env, handle, [](Napi::Env, ConfigFileHandle* h) { delete h; }));
  return out;
}

Napi::Value to_text_result(Napi::Env env, std::string& content) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("text", text(env, content));
  return out;
}

ConfigFileHandle* handle_arg(const Napi::CallbackInfo& info) {
  if (!info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "expected a handle from openConfigFile()");
  }
  return info[0].As<Napi::External<ConfigFileHandle>>().Data();
}

}  // namespace

Napi::Value NextRunFiles(const Napi::CallbackInfo& info) {
  std::string config_file = info[0].As<Napi::String>().Utf8Value();
  std::vector<std::string> worker_dirs = strings_from(info[1].As<Napi::Array>());
  std::vector<std::string> areas = strings_from(info[2].As<Napi::Array>());
  return ConfigFileTask<msb::NextRunFiles>::Start(
      info.Env(),
      [config_file = std::move(config_file), worker_dirs = std::move(worker_dirs),
       areas = std::move(areas)]() { return msb::next_run_files(config_file, worker_dirs, areas); },
      [](Napi::Env env, msb::NextRunFiles& files) -> Napi::Value {
        Napi::Object out = Napi::Object::New(env);
        out.Set("existing", string_array(env, files.existing));
        out.Set("absent", string_array(env, files.absent));
        return out;
      });
}

Napi::Value OpenConfigFile(const Napi::CallbackInfo& info) {
  std::string path = info[0].As<Napi::String>().Utf8Value();
  return ConfigFileTask<msb::ConfigFile>::Start(
      info.Env(), [path] { return msb::open_config_file(path); }, to_opened);
}

Napi::Value ReadConfigFile(const Napi::CallbackInfo& info) {
  // The descriptor moves to the task: closing the handle meanwhile cannot pull it away.
  auto file = std::make_shared<msb::ConfigFile>(std::move(*handle_arg(info)));
  return ConfigFileTask<std::string>::Start(
      info.Env(), [file] { return msb::read_config_file(*file); }, to_text_result);
}

Napi::Value CloseConfigFile(const Napi::CallbackInfo& info) {
  handle_arg(info)->fd.reset();
  return info.Env().Undefined();
}

Napi::Value ParseProgramConfig(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string content = info[0].As<Napi::String>().Utf8Value();
  const std::string file = info[1].As<Napi::String>().Utf8Value();
  const auto format = info[2].As<Napi::String>().Utf8Value() == "json" ? msb::ConfigFormat::json
                                                                       : msb::ConfigFormat::yaml;
  auto parsed = msb::parse_program_config(content, file, format);
  if (!parsed) return error_result(env, parsed.error());
  Napi::Object out = Napi::Object::New(env);
  out.Set("config", program_object(env, parsed.value()));
  return out;
}

Napi::Value ParseWorkerFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string content = info[0].As<Napi::String>().Utf8Value();
  auto parsed = msb::parse_worker_file(content);
  if (!parsed) return error_result(env, parsed.error());
  Napi::Object out = Napi::Object::New(env);
  out.Set("worker", worker_object(env, parsed.value()));
  return out;
}

}  // namespace msb_binding
