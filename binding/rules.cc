#include "rules.h"

#include "config/program_config.h"

namespace msb_binding {
namespace {

msb::Approval approval_from(const Napi::Value& value) {
  return msb::approval_from_name(value.As<Napi::String>().Utf8Value()).value_or(msb::Approval::ask);
}

Napi::Value text(Napi::Env env, std::string_view value) {
  return Napi::String::New(env, value.data(), value.size());
}

}  // namespace

std::vector<std::string> strings_from(const Napi::Array& array) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < array.Length(); ++i) {
    out.push_back(array.Get(i).As<Napi::String>().Utf8Value());
  }
  return out;
}

Napi::Array string_array(Napi::Env env, const std::vector<std::string>& items) {
  Napi::Array out = Napi::Array::New(env, items.size());
  for (uint32_t i = 0; i < items.size(); ++i) out.Set(i, text(env, items[i]));
  return out;
}

msb::ApprovalRule approval_rule_from(const Napi::Object& object) {
  return msb::ApprovalRule{approval_from(object.Get("write")), approval_from(object.Get("delete"))};
}

Napi::Object approval_object(Napi::Env env, const msb::ApprovalRule& rule) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("write", text(env, msb::approval_name(rule.write)));
  out.Set("delete", text(env, msb::approval_name(rule.remove)));
  return out;
}

msb::FilePolicy policy_from(const Napi::Object& object) {
  msb::FilePolicy policy;
  Napi::Value allowed = object.Get("allowedSuffixes");
  if (allowed.IsArray()) policy.allowed_suffixes = strings_from(allowed.As<Napi::Array>());
  policy.denied_suffixes = strings_from(object.Get("deniedSuffixes").As<Napi::Array>());
  Napi::Value max = object.Get("maxFileBytes");
  if (max.IsNumber()) {
    // Validated by the facade against the same bound; checked again because casting NaN or a
    // double beyond 2^64 is undefined behaviour.
    const double bytes = max.As<Napi::Number>().DoubleValue();
    if (!(bytes >= 0 && bytes <= static_cast<double>(msb::kMaxFileBytesLimit))) {
      throw Napi::RangeError::New(object.Env(), "maxFileBytes out of range");
    }
    policy.max_file_bytes = static_cast<std::uint64_t>(bytes);
  }
  return policy;
}

Napi::Object policy_object(Napi::Env env, const msb::FilePolicy& policy) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("allowedSuffixes", policy.allowed_suffixes
                                 ? Napi::Value(string_array(env, *policy.allowed_suffixes))
                                 : env.Null());
  out.Set("deniedSuffixes", string_array(env, policy.denied_suffixes));
  out.Set("maxFileBytes",
          policy.max_file_bytes
              ? Napi::Value(Napi::Number::New(env, static_cast<double>(*policy.max_file_bytes)))
              : env.Null());
  return out;
}

void set_mount_rules(Napi::Object& out, bool readonly, const msb::ApprovalRule& approval,
                     const msb::FilePolicy& policy) {
  out.Set("readonly", Napi::Boolean::New(out.Env(), readonly));
  out.Set("approval", approval_object(out.Env(), approval));
  out.Set("policy", policy_object(out.Env(), policy));
}

Napi::Object mount_object(Napi::Env env, const msb::MountSpec& mount) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("source", text(env, mount.source));
  out.Set("target", text(env, mount.target));
  set_mount_rules(out, mount.readonly, mount.approval, mount.policy);
  if (mount.allow_pseudo_filesystem)
    out.Set("allowPseudoFilesystem", Napi::Boolean::New(env, true));
  return out;
}

Napi::Value FoldSuffixes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<std::string> written = strings_from(info[0].As<Napi::Array>());
  std::vector<std::string> folded;
  Napi::Object out = Napi::Object::New(env);
  for (std::size_t i = 0; i < written.size(); ++i) {
    std::optional<std::string> rule = msb::suffix_rule(written[i]);
    if (!rule) {
      out.Set("invalid", Napi::Number::New(env, static_cast<double>(i)));
      return out;
    }
    folded.push_back(std::move(*rule));
  }
  out.Set("suffixes", string_array(env, folded));
  return out;
}

Napi::Value MatchingSuffix(const Napi::CallbackInfo& info) {
  const std::string name = info[0].As<Napi::String>().Utf8Value();
  const std::vector<std::string> suffixes = strings_from(info[1].As<Napi::Array>());
  for (std::size_t i = 0; i < suffixes.size(); ++i) {
    if (msb::has_suffix(name, suffixes[i])) {
      return Napi::Number::New(info.Env(), static_cast<double>(i));
    }
  }
  return Napi::Number::New(info.Env(), -1);
}

}  // namespace msb_binding
