#include "fs/mount_rules.h"

#include <algorithm>

namespace msb {
namespace {

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Suffixes equal under the folding has_suffix applies.
bool same_suffix(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && has_suffix(a, b);
}

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::any_of(list.begin(), list.end(),
                     [item](const std::string& s) { return same_suffix(s, item); });
}

// Each suffix folded, duplicates (under folding) dropped, first occurrence's order kept.
std::vector<std::string> folded(const std::vector<std::string>& list) {
  std::vector<std::string> out;
  for (const std::string& s : list) {
    if (!contains(out, s)) out.push_back(fold_suffix(s));
  }
  return out;
}

}  // namespace

std::string fold_suffix(std::string_view suffix) {
  std::string out(suffix);
  for (char& c : out) c = lower(c);
  return out;
}

std::optional<std::string> suffix_rule(std::string_view written) {
  const bool valid = written.size() > 1 && written.front() == '.' &&
                     written.find_first_of(std::string_view("/\0", 2)) == std::string_view::npos;
  if (!valid) return std::nullopt;
  return fold_suffix(written);
}

std::string_view approval_name(Approval a) noexcept {
  switch (a) {
    case Approval::pre_approved: return "preApproved";
    case Approval::ask: return "ask";
    case Approval::blocked: return "blocked";
  }
  return "blocked";
}

std::optional<Approval> approval_from_name(std::string_view name) noexcept {
  if (name == "preApproved") return Approval::pre_approved;
  if (name == "ask") return Approval::ask;
  if (name == "blocked") return Approval::blocked;
  return std::nullopt;
}

ApprovalRule tighten(const ApprovalRule& parent, const ApprovalRule& child) noexcept {
  return ApprovalRule{std::max(parent.write, child.write), std::max(parent.remove, child.remove)};
}

// Lists are compared under the same folding the rules are matched with: ".MD" and ".md" are one
// rule, so a parent's ".MD" and a child's ".md" intersect to ".md" rather than to nothing.
FilePolicy tighten(const FilePolicy& parent, const FilePolicy& child) {
  FilePolicy out;
  if (parent.allowed_suffixes && child.allowed_suffixes) {
    std::vector<std::string> both;
    for (const std::string& s : folded(*child.allowed_suffixes)) {
      if (contains(*parent.allowed_suffixes, s)) both.push_back(s);
    }
    out.allowed_suffixes = std::move(both);
  } else if (parent.allowed_suffixes || child.allowed_suffixes) {
    out.allowed_suffixes =
        folded(parent.allowed_suffixes ? *parent.allowed_suffixes : *child.allowed_suffixes);
  }
  std::vector<std::string> denied = parent.denied_suffixes;
  denied.insert(denied.end(), child.denied_suffixes.begin(), child.denied_suffixes.end());
  out.denied_suffixes = folded(denied);
  if (parent.max_file_bytes && child.max_file_bytes) {
    out.max_file_bytes = std::min(*parent.max_file_bytes, *child.max_file_bytes);
  } else {
    out.max_file_bytes = parent.max_file_bytes ? parent.max_file_bytes : child.max_file_bytes;
  }
  return out;
}

bool has_suffix(std::string_view name, std::string_view suffix) noexcept {
  if (suffix.size() > name.size()) return false;
  const std::string_view tail = name.substr(name.size() - suffix.size());
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    if (lower(tail[i]) != lower(suffix[i])) return false;
  }
  return true;
}

bool suffix_allowed(const FilePolicy& policy, std::string_view name) {
  for (const std::string& s : policy.denied_suffixes) {
    if (has_suffix(name, s)) return false;
  }
  if (!policy.allowed_suffixes) return true;
  for (const std::string& s : *policy.allowed_suffixes) {
    if (has_suffix(name, s)) return true;
  }
  return false;
}

}  // namespace msb
