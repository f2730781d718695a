#include "sandbox_wrap.h"

#include <string>
#include <utility>
#include <vector>

#include "errors.h"
#include "file_type.h"
#include "fs/glob_walk.h"
#include "operation.h"
#include "rules.h"
#include "trusted_wrap.h"
#include "turn_operation.h"

namespace msb_binding {
namespace {

struct AddonData {
  Napi::FunctionReference constructor;
  std::shared_ptr<TurnMailbox> turns;  // writes and edits waiting for their turn on a file
};

const std::shared_ptr<TurnMailbox>& turns_of(Napi::Env env) {
  return env.GetInstanceData<AddonData>()->turns;
}

// The ifVersion argument at `index`: a version token from stat(), or "" for none.
std::string version_arg(const Napi::CallbackInfo& info, std::size_t index) {
  return info[index].IsString() ? info[index].As<Napi::String>().Utf8Value() : std::string();
}

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
  Napi::Value root = config.Get("root");
  if (root.IsString()) options.root.source = root.As<Napi::String>().Utf8Value();
  read_mount_rules(config, options.root);
  Napi::Array mounts = config.Get("mounts").As<Napi::Array>();
  for (uint32_t i = 0; i < mounts.Length(); ++i) {
    Napi::Object m = mounts.Get(i).As<Napi::Object>();
    msb::MountSpec& spec = options.mounts.emplace_back();
    spec.source = m.Get("source").As<Napi::String>().Utf8Value();
    spec.target = m.Get("target").As<Napi::String>().Utf8Value();
    read_mount_rules(m, spec);
  }
  options.max_depth = config.Get("maxDepth").As<Napi::Number>().Uint32Value();
  const double max_read = config.Get("maxReadBytes").As<Napi::Number>().DoubleValue();
  if (!(max_read >= 0 && max_read <= kMaxReadLimit)) {
    throw Napi::RangeError::New(config.Env(), "maxReadBytes out of range");
  }
  options.max_read_bytes = static_cast<std::uint64_t>(max_read);
  options.resolver = resolver_from(config.Get("resolver").As<Napi::String>().Utf8Value());
  options.trusted = trusted_spec_from(config);
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
char type_letter(msb::sys::EntryType type) {
  switch (type) {
    case msb::sys::EntryType::file: return 'f';
    case msb::sys::EntryType::directory: return 'd';
    case msb::sys::EntryType::symlink: return 'l';
    case msb::sys::EntryType::other: return 'o';
    case msb::sys::EntryType::unknown: return 'u';
  }
  return 'u';
}

Napi::Value to_names(Napi::Env env, std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    if (!joined.empty()) joined += '\0';
    joined += name;
  }
  return text_value(env, joined);
}

// { names: joined by NUL, types: one letter per entry (f file, d directory, l symlink, o other,
// u unknown) }: two strings, however many entries.
Napi::Value to_entries(Napi::Env env, std::vector<msb::DirEntry>& entries) {
  std::string names;
  std::string types;
  for (const msb::DirEntry& entry : entries) {
    if (!names.empty()) names += '\0';
    names += entry.name;
    types += type_letter(entry.type);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("names", text_value(env, names));
  out.Set("types", text_value(env, types));
  return out;
}

Napi::Value to_glob(Napi::Env env, msb::GlobResult& result) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("paths", to_names(env, result.paths));
  out.Set("truncated", Napi::Boolean::New(env, result.truncated));
  return out;
}

Napi::Value to_buffers(Napi::Env env, std::vector<msb::Bytes>& files) {
  Napi::Array out = Napi::Array::New(env, files.size());
  for (uint32_t i = 0; i < files.size(); ++i) out.Set(i, to_buffer(env, files[i]));
  return out;
}

Napi::Value to_info(Napi::Env env, msb::FileInfo& info) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("size", Napi::Number::New(env, static_cast<double>(info.size)));
  out.Set("isDirectory", Napi::Boolean::New(env, info.is_directory));
  out.Set("isFile", Napi::Boolean::New(env, info.is_file));
  out.Set("type", Napi::String::New(env, msb_binding::file_type_name(info.file_type)));
  out.Set("birthtimeMs", Napi::Number::New(env, info.birth_ms));
  out.Set("mtimeMs", Napi::Number::New(env, info.modified_ms));
  out.Set("version", Napi::String::New(env, msb::version_token(info.version)));
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
                      InstanceMethod<&SandboxWrap::ListEntries>("listEntries"),
                      InstanceMethod<&SandboxWrap::Stat>("stat"),
                      InstanceMethod<&SandboxWrap::CreateSources>("createSources"),
                      InstanceMethod<&SandboxWrap::Resolve>("resolve"),
                      InstanceMethod<&SandboxWrap::CheckPath>("checkPath"),
                      InstanceMethod<&SandboxWrap::CheckWritable>("checkWritable"),
                      InstanceMethod<&SandboxWrap::Restrict>("restrict"),
                      InstanceMethod<&SandboxWrap::SelectZones>("selectZones"),
                      InstanceMethod<&SandboxWrap::ApprovalFor>("approvalFor"),
                      InstanceMethod<&SandboxWrap::ReadRange>("readRange"),
                      InstanceMethod<&SandboxWrap::Edit>("edit"),
                      InstanceMethod<&SandboxWrap::Move>("move"),
                      InstanceMethod<&SandboxWrap::Copy>("copy"),
                      InstanceMethod<&SandboxWrap::Mkdir>("mkdir"),
                      InstanceMethod<&SandboxWrap::Glob>("glob"),
                      InstanceMethod<&SandboxWrap::ReadAttachments>("readAttachments"),
                      InstanceMethod<&SandboxWrap::Config>("config"),
                      InstanceMethod<&SandboxWrap::ExecPaths>("execPaths"),
                      InstanceMethod<&SandboxWrap::TrustedNames>("trustedNames"),
                      InstanceMethod<&SandboxWrap::Grep>("grep"),
                      InstanceMethod<&SandboxWrap::FindTrusted>("findTrusted"),
                      InstanceMethod<&SandboxWrap::ReleasedHostPath>("releasedHostPath"),
                      InstanceMethod<&SandboxWrap::FindSharedLinks>("findSharedLinks"),
                      InstanceMethod<&SandboxWrap::LandChanges>("landChanges"),
                  });
  auto* data = new AddonData{Napi::Persistent(ctor), TurnMailbox::Create(env)};
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
      Value(), make_error_, path, [core, path] { return core->read(path, kMaxTextBytes); },
      to_text);
}

Napi::Value SandboxWrap::ReadBinary(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  if (auto now = core_->read_now(path)) return SettleNow(*now, path, to_buffer);
  auto core = core_;
  return Operation<msb::Bytes>::Start(
      Value(), make_error_, path, [core, path] { return core->read(path); }, to_buffer);
}

// write(path, content, ifVersion | undefined)
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
  return TurnOperation::Start(Value(), make_error_, turns_of(info.Env()), path,
                              [core, path, bytes, version = version_arg(info, 2)] {
                                return core->prepare_write(
                                    path, reinterpret_cast<const std::uint8_t*>(bytes->data()),
                                    bytes->size(), version);
                              });
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

Napi::Value SandboxWrap::ListEntries(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto core = core_;
  return Operation<std::vector<msb::DirEntry>>::Start(
      Value(), make_error_, path, [core, path] { return core->list_entries(path); }, to_entries);
}

Napi::Value SandboxWrap::Stat(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  if (auto now = core_->stat_now(path)) return SettleNow(*now, path, to_info);
  auto core = core_;
  return Operation<msb::FileInfo>::Start(
      Value(), make_error_, path, [core, path] { return core->stat(path); }, to_info);
}

// A source that cannot be pinned is reported under its mount's target.
Napi::Value SandboxWrap::CreateSources(const Napi::CallbackInfo&) {
  auto core = core_;
  std::vector<std::string> targets;
  for (const msb::Mount& m : core->table().mounts()) {
    targets.push_back(m.target.is_root() ? "/" : m.target.str());
  }
  return Operation<msb::Unit>::Start(
      Value(), make_error_, std::move(targets), [core] { return core->create_sources(); },
      to_undefined);
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

// checkWritable(path, 'write' | 'delete'): the lexical rules for that change, as an error or
// undefined.
Napi::Value SandboxWrap::CheckWritable(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  const bool remove = info[1].IsString() && string_arg(info, 1) == "delete";
  auto status = remove ? core_->may_delete(path) : core_->may_write(path);
  if (status) return info.Env().Undefined();
  return make_error(Value(), make_error_, status.error(), path);
}

Napi::Value SandboxWrap::Wrap(msb::Result<std::shared_ptr<msb::Sandbox>>& child,
                              const std::string& path) {
  Napi::Env env = Env();
  if (!child) throw_error(Value(), make_error_, child.error(), path);
  std::shared_ptr<const msb::Sandbox> core = std::move(child.value());
  auto* data = env.GetInstanceData<AddonData>();
  auto external = Napi::External<std::shared_ptr<const msb::Sandbox>>::New(env, &core);
  return data->constructor.New({external, make_error_.Value()});
}

// restrict(sub, readonly | undefined, approval | undefined)
Napi::Value SandboxWrap::Restrict(const Napi::CallbackInfo& info) {
  std::string sub = string_arg(info, 0);
  msb::Narrowing narrowing;
  if (info[1].IsBoolean()) narrowing.readonly = info[1].As<Napi::Boolean>().Value();
  if (info[2].IsObject()) narrowing.approval = approval_rule_from(info[2].As<Napi::Object>());
  auto child = core_->restrict(sub, narrowing);
  return Wrap(child, sub);
}

// selectZones([{ name, readonly }]): a zone error's details.index names the request.
Napi::Value SandboxWrap::SelectZones(const Napi::CallbackInfo& info) {
  Napi::Array requests = info[0].As<Napi::Array>();
  std::vector<msb::ZoneSelection> zones;
  for (uint32_t i = 0; i < requests.Length(); ++i) {
    Napi::Object z = requests.Get(i).As<Napi::Object>();
    zones.push_back(msb::ZoneSelection{z.Get("name").As<Napi::String>().Utf8Value(),
                                       z.Get("readonly").ToBoolean()});
  }
  auto child = core_->select_zones(zones);
  return Wrap(child, "/");
}

Napi::Value SandboxWrap::ApprovalFor(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  const msb::Change change =
      string_arg(info, 1) == "delete" ? msb::Change::remove : msb::Change::write;
  auto approval = core_->approval_for(path, change);
  if (!approval) throw_error(Value(), make_error_, approval.error(), path);
  return Napi::String::New(info.Env(), std::string(msb::approval_name(approval.value())));
}

// readRange(path, offset, length, binary)
Napi::Value SandboxWrap::ReadRange(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  const auto offset = static_cast<std::uint64_t>(info[1].As<Napi::Number>().DoubleValue());
  const auto length = static_cast<std::uint64_t>(info[2].As<Napi::Number>().DoubleValue());
  const bool binary = info[3].ToBoolean();
  auto core = core_;
  const std::uint64_t cap = binary ? msb::kNoCap : kMaxTextBytes;
  return Operation<msb::Bytes>::Start(
      Value(), make_error_, path,
      [core, path, offset, length, cap] { return core->read_range(path, offset, length, cap); },
      binary ? to_buffer : to_text);
}

// edit(path, oldText, newText, ifVersion | undefined)
Napi::Value SandboxWrap::Edit(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  std::string old_text = string_arg(info, 1);
  std::string new_text = string_arg(info, 2);
  auto core = core_;
  return TurnOperation::Start(Value(), make_error_, turns_of(info.Env()), path,
                              [core, path, old_text = std::move(old_text),
                               new_text = std::move(new_text), version = version_arg(info, 3)] {
                                return core->prepare_edit(path, old_text, new_text, version);
                              });
}

// move(from, to, overwrite) and copy(from, to, overwrite): an error names the end it is about.
Napi::Value SandboxWrap::Transfer(const Napi::CallbackInfo& info, TransferFn transfer) {
  std::string from = string_arg(info, 0);
  std::string to = string_arg(info, 1);
  const bool overwrite = info[2].ToBoolean();
  auto core = core_;
  return Operation<msb::Unit>::Start(
      Value(), make_error_, std::vector<std::string>{from, to},
      [core, from, to, overwrite, transfer] { return ((*core).*transfer)(from, to, overwrite); },
      to_undefined);
}

Napi::Value SandboxWrap::Move(const Napi::CallbackInfo& info) {
  return Transfer(info, &msb::Sandbox::move);
}

Napi::Value SandboxWrap::Copy(const Napi::CallbackInfo& info) {
  return Transfer(info, &msb::Sandbox::copy);
}

Napi::Value SandboxWrap::Mkdir(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 0);
  auto core = core_;
  return Operation<msb::Unit>::Start(
      Value(), make_error_, path, [core, path] { return core->make_directory(path); },
      to_undefined);
}

// glob(pattern, limit, maxEntries): the walk in slices, a few per threadpool task.
Napi::Value SandboxWrap::Glob(const Napi::CallbackInfo& info) {
  std::string pattern = string_arg(info, 0);
  const auto limit = static_cast<std::size_t>(info[1].As<Napi::Number>().DoubleValue());
  const auto max_entries = static_cast<std::size_t>(info[2].As<Napi::Number>().DoubleValue());
  auto core = core_;
  auto task = std::make_shared<msb::GlobTask>(*core, pattern, limit, max_entries);
  return SlicedOperation<msb::GlobResult>::Start(
      Value(), make_error_, pattern, [core, task] { return task->run(msb::kGlobSliceWork); },
      [core, task] { return task->take_result(); }, to_glob);
}

// readAttachments(paths, { maxAttachments, maxTotalBytes, allowedSuffixes, deniedSuffixes },
// textual): textual[i] says the facade will decode paths[i] as text, so it is held to
// kMaxTextBytes like every text this addon hands out.
Napi::Value SandboxWrap::ReadAttachments(const Napi::CallbackInfo& info) {
  std::vector<std::string> paths = strings_from(info[0].As<Napi::Array>());
  Napi::Object p = info[1].As<Napi::Object>();
  msb::AttachmentPolicy policy;
  policy.max_attachments =
      static_cast<std::size_t>(p.Get("maxAttachments").As<Napi::Number>().DoubleValue());
  policy.max_total_bytes =
      static_cast<std::uint64_t>(p.Get("maxTotalBytes").As<Napi::Number>().DoubleValue());
  policy.allowed_suffixes = strings_from(p.Get("allowedSuffixes").As<Napi::Array>());
  policy.denied_suffixes = strings_from(p.Get("deniedSuffixes").As<Napi::Array>());
  Napi::Array textual = info[2].As<Napi::Array>();
  for (uint32_t i = 0; i < textual.Length(); ++i) {
    policy.size_caps.push_back(textual.Get(i).ToBoolean() ? kMaxTextBytes : msb::kNoCap);
  }
  auto core = core_;
  std::vector<std::string> named = paths.empty() ? std::vector<std::string>{"/"} : paths;
  return Operation<std::vector<msb::Bytes>>::Start(
      Value(), make_error_, std::move(named),
      [core, paths, policy] { return core->read_attachments(paths, policy); }, to_buffers);
}

Napi::Value SandboxWrap::Config(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const msb::MountTable& table = core_->table();
  Napi::Object out = Napi::Object::New(env);
  if (table.has_root()) {
    const msb::Mount& root = table.root();
    out.Set("root", text_value(env, root.anchor->host_path()));
    set_mount_rules(out, root.readonly, root.approval, root.policy);
    if (root.anchor->origin().allows_pseudo_filesystem()) {
      out.Set("allowPseudoFilesystem", Napi::Boolean::New(env, true));
    }
  } else {
    // No root: nothing can be written or read at "/" itself.
    out.Set("root", env.Null());
    set_mount_rules(out, true, msb::ApprovalRule{msb::Approval::blocked, msb::Approval::blocked},
                    msb::FilePolicy{});
  }
  Napi::Array mounts = Napi::Array::New(env);
  uint32_t n = 0;
  for (const msb::Mount& m : table.mounts()) {
    if (m.target.is_root()) continue;
    mounts.Set(
        n++, mount_object(
                 env, msb::MountSpec{m.anchor->host_path(), m.target.str(), m.readonly, m.approval,
                                     m.policy, m.anchor->origin().allows_pseudo_filesystem()}));
  }
  out.Set("mounts", mounts);
  out.Set("depth", Napi::Number::New(env, core_->depth()));
  out.Set("maxDepth", Napi::Number::New(env, core_->max_depth()));
  return out;
}

namespace {

const char* access_name(msb::PathAccess access) {
  switch (access) {
    case msb::PathAccess::read: return "read";
    case msb::PathAccess::write: return "write";
    case msb::PathAccess::write_keep: return "writeKeep";
    case msb::PathAccess::protect: return "protect";
    case msb::PathAccess::device: return "device";
    case msb::PathAccess::pin: return "pin";
  }
  return "protect";
}

}  // namespace

// [{ path, access, id: "dev:ino", target? }] (target: the virtual path a mount appears at) for the
// exec launcher's policy (lib/exec/exec.js).
Napi::Value SandboxWrap::ExecPaths(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto paths = core_->exec_paths();
  if (!paths) {
    const msb::Error& e = paths.error();
    const auto& mounts = core_->table().mounts();
    const auto& hidden = core_->table().hidden();
    std::string target = "/";
    if (e.index < mounts.size())
      target = mounts[e.index].target.str();
    else if (e.index - mounts.size() < hidden.size())
      target = hidden[e.index - mounts.size()].target.str();
    msb::Error reported = e;
    reported.index = msb::Error::kNoIndex;
    throw_error(info.This().As<Napi::Object>(), make_error_, reported,
                target.empty() ? "/" : target);
  }
  Napi::Array out = Napi::Array::New(env);
  uint32_t n = 0;
  for (const msb::ExecPath& p : paths.value()) {
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("path", text_value(env, p.path));
    entry.Set("access", access_name(p.access));
    if (p.id) {
      entry.Set("id", std::to_string(p.id->dev) + ":" + std::to_string(p.id->ino));
    }
    if (!p.target.empty()) entry.Set("target", text_value(env, p.target));
    out.Set(n++, entry);
  }
  return out;
}

}  // namespace msb_binding
