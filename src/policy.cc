#include "policy.h"

#include <algorithm>

namespace msb {
namespace {

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

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

FilePolicy tighten(const FilePolicy& parent, const FilePolicy& child) {
  FilePolicy out;
  if (parent.allowed_suffixes && child.allowed_suffixes) {
    std::vector<std::string> both;
    for (const std::string& s : *child.allowed_suffixes) {
      if (contains(*parent.allowed_suffixes, s) && !contains(both, s)) both.push_back(s);
    }
    out.allowed_suffixes = std::move(both);
  } else {
    out.allowed_suffixes =
        parent.allowed_suffixes ? parent.allowed_suffixes : child.allowed_suffixes;
  }
  out.denied_suffixes = parent.denied_suffixes;
  for (const std::string& s : child.denied_suffixes) {
    if (!contains(out.denied_suffixes, s)) out.denied_suffixes.push_back(s);
  }
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
