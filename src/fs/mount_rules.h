// Per-mount rules layered on top of the mount table: whether a change needs the user's consent
// (approvals) and which files a worker may read or write there (suffixes, size). Derived
// sandboxes only ever tighten them. FilePolicy keeps the facade's word (a mount's `policy`,
// FilePolicyInfo); the launcher's exec policy and golem-forge's AttachmentPolicy are other things.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msb {

// Ordered from loosest to tightest, so tightening is std::max.
enum class Approval : std::uint8_t { pre_approved = 0, ask = 1, blocked = 2 };

struct ApprovalRule {
  Approval write = Approval::ask;
  Approval remove = Approval::ask;
};

struct FilePolicy {
  // Suffixes starting with '.', matched against the end of the file name (".tar.gz" works) with
  // ASCII letters folded to lower case and every other byte exact: ".ÉT" matches "key.Ét" but not
  // "key.ét". The one folding rule of this library (lib/suffix.js agrees); stored folded by
  // fold_suffix. std::nullopt allows every suffix; an empty list allows none.
  std::optional<std::vector<std::string>> allowed_suffixes;
  std::vector<std::string> denied_suffixes;
  // Largest file a read accepts and a write may produce; std::nullopt for no limit of its own.
  std::optional<std::uint64_t> max_file_bytes;
};

std::string_view approval_name(Approval a) noexcept;  // "preApproved", "ask", "blocked"
std::optional<Approval> approval_from_name(std::string_view name) noexcept;

ApprovalRule tighten(const ApprovalRule& parent, const ApprovalRule& child) noexcept;
// Allowed lists intersect, denied lists unite (both compared and returned folded), the smaller
// size limit wins.
FilePolicy tighten(const FilePolicy& parent, const FilePolicy& child);

// Whether `name` (the last path component) passes the suffix rules.
bool suffix_allowed(const FilePolicy& policy, std::string_view name);
bool has_suffix(std::string_view name, std::string_view suffix) noexcept;
// ASCII letters to lower case, every other byte kept: the folding has_suffix compares under.
std::string fold_suffix(std::string_view suffix);
// A suffix rule as written, folded; std::nullopt when it is not one: it needs a character after
// the leading '.', and a '/' or NUL could never match a file name. The one validator for
// suffixes from config files, from configs given to the API and from attachment policies.
std::optional<std::string> suffix_rule(std::string_view written);

}  // namespace msb
