// Conversions of the per-mount rules (approvals, file policy) between JS objects and the core's
// types, shared by the sandbox and the config-file bindings.
#pragma once

#include <napi.h>

#include <string>
#include <vector>

#include "fs/mount_rules.h"
#include "fs/mount_table.h"

namespace msb_binding {

std::vector<std::string> strings_from(const Napi::Array& array);
Napi::Array string_array(Napi::Env env, const std::vector<std::string>& items);

// { write, delete } with the facade's already validated names.
msb::ApprovalRule approval_rule_from(const Napi::Object& object);
Napi::Object approval_object(Napi::Env env, const msb::ApprovalRule& rule);

// { allowedSuffixes: string[] | null, deniedSuffixes: string[], maxFileBytes: number | null }
msb::FilePolicy policy_from(const Napi::Object& object);
Napi::Object policy_object(Napi::Env env, const msb::FilePolicy& policy);

// A mount's rules as the facade gives and reads them: `readonly`, `approval`, `policy`. The root
// carries them at the top of a config, each mount beside its `source` and `target`.
template <typename Spec>  // msb::MountSpec or msb::RootSpec
void read_mount_rules(const Napi::Object& object, Spec& spec) {
  spec.readonly = object.Get("readonly").ToBoolean();
  spec.approval = approval_rule_from(object.Get("approval").As<Napi::Object>());
  spec.policy = policy_from(object.Get("policy").As<Napi::Object>());
  spec.allow_pseudo_filesystem = object.Get("allowPseudoFilesystem").ToBoolean();
}
void set_mount_rules(Napi::Object& out, bool readonly, const msb::ApprovalRule& approval,
                     const msb::FilePolicy& policy);
// { source, target, readonly, approval, policy, allowPseudoFilesystem? }: one mount, from a
// sandbox's table or a config; allowPseudoFilesystem only where it is true.
Napi::Object mount_object(Napi::Env env, const msb::MountSpec& mount);

// foldSuffixes(strings): { suffixes } folded by the core's suffix_rule, or { invalid: index } of
// the first string that is not a suffix rule. The facade validates suffixes only through this.
Napi::Value FoldSuffixes(const Napi::CallbackInfo& info);
// matchingSuffix(name, suffixes): the index of the first suffix `name` ends with under the core's
// folding (has_suffix), or -1.
Napi::Value MatchingSuffix(const Napi::CallbackInfo& info);

}  // namespace msb_binding
