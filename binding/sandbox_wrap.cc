#include "sandbox_wrap.h"

#include <string>
#include <utility>
#include <vector>

#include "errors.h"
#include "operation.h"

namespace msb_binding {
namespace {

struct AddonData {
  Napi::FunctionReference constructor;
};

constexpr double kMaxReadLimit = 4294967296.0;  // Buffer's own maximum on 64-bit Node
// V8's longest string (2^29 - 24 UTF-16 units); more UTF-8 bytes than that may not fit.
constexpr std::size_t kMaxTextBytes = (std::size_t{1} << 29) - 24;

std::string string_arg(const Napi::CallbackInfo& info, std::size_t index) {
  return info[index].As<Napi::String>().Utf8Value();
}

msb::ResolverKind resolver_from(const std::string& name) {
  if (name == "openat2") return msb::ResolverKind::openat2;
  if (name == "walk") return msb::ResolverKind::walk;
  return msb::ResolverKind::automatic;
}

// The facade has already validated and normalized the config; this only converts it.
msb::SandboxOptions options_from(const Napi::Object& config) {
  msb::SandboxOptions options;
  options.root = config.Get("root").As<Napi::String>().Utf8Value();
  options.readonly = config.Get("readonly").ToBoolean();
  Napi::Array mounts = config.Get("mounts").As<Napi::Array>();
  for (uint32_t i = 0; i < mounts.Length(); ++i) {
    Napi::Object m = mounts.Get(i).As<Napi::Object>();
    options.mounts.push_back(msb::MountSpec{m.Get("source").As<Napi::String>().Utf8Value(),
                                            m.Get("target").As<Napi::String>().Utf8Value(),
                                            m.Get("readonly").ToBoolean()});
  }
  const double max_read = config.Get("maxReadBytes").As<Napi::Number>().DoubleValue();
  if (!(max_read >= 0 && max_read <= kMaxReadLimit)) {
    throw Napi::RangeError::New(config.Env(), "maxReadBytes out of range");
  }
  options.max_read_bytes = static_cast<std::uint64_t>(max_read);
  options.resolver = resolver_from(config.Get("resolver").As<Napi::String>().Utf8Value());
  return options;
}

// A Napi::Value, so that Object::Set does not take the std::string overload and convert twice.
Napi::Value text_value(Napi::Env env, const std::string& text) {
  return Napi::String::New(env, text);
}

Napi::Value to_undefined(Napi::Env env, msb::Unit&) {
  return env.Undefined();
}
Napi::Value to_boolean(Napi::Env env, bool& value) {
  return Napi::Boolean::New(env, value);
}

Napi::Value to_text(Napi::Env env, msb::Bytes& bytes) {
  return Napi::String::New(env, reinterpret_cast<const char*>(bytes.data.get()), bytes.size);
}

// Hands the malloc'ed block to an external Buffer: no copy, freed by the GC.
Napi::Value to_buffer(Napi::Env env, msb::Bytes& bytes) {
  std::uint8_t* data = bytes.data.release();
  return Napi::Buffer<std::uint8_t>::New(env, data, bytes.size,
                                         [](Napi::Env, std::uint8_t* p) { std::free(p); });
}

// One string with NUL separators (names cannot contain NUL), split by the facade: one V8 string
// instead of a thousand strings and element stores for a large directory.
Napi::Value to_names(Napi::Env env, std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    if (!joined.empty()) joined += '\0';
    joined += name;
  }
  return text_value(env, joined);
}

Napi::Value to_info(Napi::Env env, msb::FileInfo& info) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("size", Napi::Number::New(env, static_cast<double>(info.size)));
  out.Set("isDirectory", Napi::Boolean::New(env, info.is_directory));
  out.Set("isFile", Napi::Boolean::New(env, info.is_file));
  out.Set("birthtimeMs", Napi::Number::New(env, info.birth_ms));
  out.Set("mtimeMs", Napi::Number::New(env, info.modified_ms));
  return out;
}

}  // namespace

// Settles a promise on the spot with what the core answered without blocking.
template <typename T>
Napi::Promise SandboxWrap::SettleNow(msb::Result<T>& result, const std::string& path,
                                     Napi::Value (*convert)(Napi::Env, T&)) {
  Napi::Env env = Env();
  auto deferred = Napi::Promise::Deferred::New(env);
  if (result.ok()) {
    deferred.Resolve(convert(env, result.value()));
  } else {
    deferred.Reject(make_error(Value(), make_error_, result.error(), path));
  }
  return deferred.Promise();
}

Napi::Function SandboxWrap::Define(Napi::Env env) {
  Napi::Function ctor =
      DefineClass(env, "NativeSandbox",
                  {
                      InstanceMethod<&SandboxWrap::Read>("read"),
                      InstanceMethod<&SandboxWrap::ReadBinary>("readBinary"),
                      InstanceMethod<&SandboxWrap::Write>("write"),
                      InstanceMethod<&SandboxWrap::Delete>("delete"),
                      InstanceMethod<&SandboxWrap::Exists>("exists"),
                      InstanceMethod<&SandboxWrap::List>("list"),
                      InstanceMethod<&SandboxWrap::Stat>("stat"),
                      InstanceMethod<&SandboxWrap::CreateSources>("createSources"),
                      InstanceMethod<&SandboxWrap::Resolve>("resolve"),
                      InstanceMethod<&SandboxWrap::CheckPath>("checkPath"),
                      InstanceMethod<&SandboxWrap::CheckWritable>("checkWritable"),
                      InstanceMethod<&SandboxWrap::Restrict>("restrict"),
                      InstanceMethod<&SandboxWrap::Config>("config"),
                  });
  auto* data = new AddonData{Napi::Persistent(ctor)};
  env.SetInstanceData(data);
  return ctor;
}

SandboxWrap::SandboxWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SandboxWrap>(info) {
  make_error_ = Napi::Persistent(info[1].As<Napi::Function>());
  if (info[0].IsExternal()) {  // from Restrict(): an already-built core sandbox
    auto* core = info[0].As<Napi::External<std::shared_ptr<const msb::Sandbox>>>().Data();
    core_ = *core;
    return;
  }
  auto created = msb::Sandbox::create(options_from(info[0].As<Napi::Object>()));
  if (!created) throw_error(info.This().As<Napi::Object>(), make_error_, created.error(), "");
  core_ = std::move(created.value());
}

Napi::Value SandboxWrap::Read(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  if (auto now = core_->read_now(path)) return SettleNow(*now, path, to_text);
  auto core = core_;
  return Operation<msb::Bytes>::Start(
      Value(), make_error_, path,
      [core, path]() -> msb::Result<msb::Bytes> {
        auto bytes = core->read(path);
        if (bytes.ok() && bytes.value().size > kMaxTextBytes) {
          msb::Error e{msb::Errc::too_large};
          e.size = bytes.value().size;
          e.limit = kMaxTextBytes;
          return e;
        }
        return bytes;
      },
      to_text);
}

Napi::Value SandboxWrap::ReadBinary(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  if (auto now = core_->read_now(path)) return SettleNow(*now, path, to_buffer);
  auto core = core_;
  return Operation<msb::Bytes>::Start(
      Value(), make_error_, path, [core, path] { return core->read(path); }, to_buffer);
}

Napi::Value SandboxWrap::Write(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto core = core_;
  // Copied on this thread: JS may mutate, transfer or detach its buffer while the write runs.
  std::shared_ptr<std::string> bytes;
  if (info[1].IsString()) {
    bytes = std::make_shared<std::string>(info[1].As<Napi::String>().Utf8Value());
  } else {
    Napi::TypedArray array = info[1].As<Napi::TypedArray>();
    const auto* data = static_cast<const char*>(array.ArrayBuffer().Data()) + array.ByteOffset();
    bytes = std::make_shared<std::string>(data, array.ByteLength());
  }
  return Operation<msb::Unit>::Start(
      Value(), make_error_, path,
      [core, path, bytes] {
        return core->write(path, reinterpret_cast<const std::uint8_t*>(bytes->data()),
                           bytes->size());
      },
      to_undefined);
}

Napi::Value SandboxWrap::Delete(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto core = core_;
  return Operation<msb::Unit>::Start(
      Value(), make_error_, path, [core, path] { return core->remove(path); }, to_undefined);
}

Napi::Value SandboxWrap::Exists(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  if (auto now = core_->exists_now(path)) return SettleNow(*now, path, to_boolean);
  auto core = core_;
  return Operation<bool>::Start(
      Value(), make_error_, path, [core, path] { return core->exists(path); }, to_boolean);
}

Napi::Value SandboxWrap::List(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto core = core_;
  return Operation<std::vector<std::string>>::Start(
      Value(), make_error_, path, [core, path] { return core->list(path); }, to_names);
}

Napi::Value SandboxWrap::Stat(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  if (auto now = core_->stat_now(path)) return SettleNow(*now, path, to_info);
  auto core = core_;
  return Operation<msb::FileInfo>::Start(
      Value(), make_error_, path, [core, path] { return core->stat(path); }, to_info);
}

Napi::Value SandboxWrap::CreateSources(const Napi::CallbackInfo&) {
  auto core = core_;
  return Operation<msb::Unit>::Start(
      Value(), make_error_, "/", [core] { return core->create_sources(); }, to_undefined);
}

Napi::Value SandboxWrap::Resolve(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto host = core_->host_path(path);
  if (!host) throw_error(Value(), make_error_, host.error(), path);
  return Napi::String::New(info.Env(), host.value());
}

// Returns the error a path would get (or undefined), without throwing: for isValidPath.
Napi::Value SandboxWrap::CheckPath(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto parsed = msb::parse_virtual_path(path);
  if (parsed) return info.Env().Undefined();
  return make_error(Value(), make_error_, parsed.error(), path);
}

Napi::Value SandboxWrap::CheckWritable(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto status = core_->check_writable(path);
  if (status) return info.Env().Undefined();
  return make_error(Value(), make_error_, status.error(), path);
}

Napi::Value SandboxWrap::Restrict(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string sub = string_arg(info, 0);
  std::optional<bool> readonly;
  if (info[1].IsBoolean()) readonly = info[1].As<Napi::Boolean>().Value();
  auto child = core_->restrict(sub, readonly);
  if (!child) throw_error(Value(), make_error_, child.error(), sub);
  std::shared_ptr<const msb::Sandbox> core = std::move(child.value());
  auto* data = env.GetInstanceData<AddonData>();
  auto external = Napi::External<std::shared_ptr<const msb::Sandbox>>::New(env, &core);
  return data->constructor.New({external, make_error_.Value()});
}

Napi::Value SandboxWrap::Config(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const msb::MountTable& table = core_->table();
  Napi::Object out = Napi::Object::New(env);
  out.Set("root", text_value(env, table.root().anchor->host_path()));
  out.Set("readonly", Napi::Boolean::New(env, table.root().readonly));
  Napi::Array mounts = Napi::Array::New(env);
  uint32_t n = 0;
  for (const msb::Mount& m : table.mounts()) {
    if (m.target.is_root()) continue;
    Napi::Object mount = Napi::Object::New(env);
    mount.Set("source", text_value(env, m.anchor->host_path()));
    mount.Set("target", text_value(env, m.target.str()));
    mount.Set("readonly", Napi::Boolean::New(env, m.readonly));
    mounts.Set(n++, mount);
  }
  out.Set("mounts", mounts);
  return out;
}

}  // namespace msb_binding
