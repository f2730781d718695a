#include "git/git_layout.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

#include "common/path.h"
#include "common/sys.h"
#include "common/unique_fd.h"

namespace msb::git {
namespace {

// validate_headref reads at most this much of HEAD.
constexpr std::size_t kHeadReadBytes = 255;

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool hex_prefix(std::string_view text, std::size_t digits) {
  if (text.size() < digits) return false;
  for (std::size_t i = 0; i < digits; ++i) {
    if (!is_hex(text[i])) return false;
  }
  return true;
}

bool is_c_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Present: lstat finds it, or cannot tell (a directory we may not search).
bool present(int dir_fd, const char* name) {
  struct stat st {};
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) return true;
  return errno != ENOENT && errno != ENOTDIR;
}

// HEAD's first bytes, as validate_headref reads them; nullopt when it cannot be read.
std::optional<std::string> head_bytes(int dir_fd) {
  UniqueFd fd(::openat(dir_fd, "HEAD", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  std::array<char, kHeadReadBytes> buffer{};
  auto got =
      sys::pread_full(fd.get(), reinterpret_cast<std::uint8_t*>(buffer.data()), buffer.size(), 0);
  if (!got) return std::nullopt;
  return std::string(buffer.data(), got.value());
}

bool head_valid_at(int dir_fd) {
  struct stat st {};
  if (::fstatat(dir_fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno != ENOENT && errno != ENOTDIR;
  }
  if (S_ISLNK(st.st_mode)) {
    auto text = sys::read_link(dir_fd, "HEAD");
    return !text || valid_head_link(text.value());
  }
  if (S_ISDIR(st.st_mode)) return false;  // git's read of it fails
  if (!S_ISREG(st.st_mode)) return true;  // a FIFO or device: never opened here, counted
  auto text = head_bytes(dir_fd);
  return !text || valid_head_text(*text);
}

}  // namespace

LayoutPart layout_part(std::string_view name) {
  const std::string folded = fold_name(name);
  if (folded == "head") return LayoutPart::head;
  if (folded == "objects") return LayoutPart::objects;
  if (folded == "refs") return LayoutPart::refs;
  if (folded == "commondir") return LayoutPart::commondir;
  return LayoutPart::none;
}

bool valid_head_text(std::string_view text) {
  if (text.substr(0, 4) == "ref:") {
    std::size_t at = 4;
    while (at < text.size() && is_c_space(text[at])) ++at;
    if (text.substr(at, 5) == "refs/") return true;
  }
  return hex_prefix(text, 40) || hex_prefix(text, 64);
}

bool valid_head_link(std::string_view link_text) {
  return link_text.substr(0, 5) == "refs/";
}

std::string valid_head_file(int dir_fd) {
  struct stat st {};
  if (::fstatat(dir_fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return {};
  auto text = head_bytes(dir_fd);
  return text && valid_head_text(*text) ? *text : std::string();
}

Layout read_layout(int dir_fd) {
  Layout out;
  out.objects = present(dir_fd, "objects");
  out.refs = present(dir_fd, "refs");
  out.commondir = present(dir_fd, "commondir");
  out.head = head_valid_at(dir_fd);
  return out;
}

bool changes_repository(const Layout& before, std::string_view name, const LayoutChange& change) {
  const LayoutPart part = layout_part(name);
  if (part == LayoutPart::none) return false;
  const bool placed = change.kind == LayoutChange::Kind::place;
  Layout after = before;
  switch (part) {
    case LayoutPart::head:
      if (!placed || change.directory) {
        after.head = false;
      } else if (change.head_text) {
        after.head = valid_head_text(*change.head_text);
      } else {
        // Unknown contents: whichever answer refuses.
        after.head = !before.repository();
      }
      break;
    case LayoutPart::objects: after.objects = placed; break;
    case LayoutPart::refs: after.refs = placed; break;
    case LayoutPart::commondir: after.commondir = placed; break;
    case LayoutPart::none: break;
  }
  if (before.repository() && part == LayoutPart::head && placed && !change.head_text) return true;
  return before.repository() != after.repository();
}

bool repository_control_name(std::string_view name) {
  const std::string folded = fold_name(name);
  return folded == "config" || folded == "config.worktree" || folded == "commondir" ||
         folded == "hooks" || folded == "info" || folded == "modules" || folded == "worktrees";
}

}  // namespace msb::git
