#include "common/error.h"

#include <cerrno>

namespace msb {

std::string_view errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::ok: return "OK";
    case Errc::not_found: return "NOT_FOUND";
    case Errc::invalid_path: return "INVALID_PATH";
    case Errc::path_escape: return "PATH_ESCAPE";
    case Errc::read_only: return "READ_ONLY";
    case Errc::permission_escalation: return "PERMISSION_ESCALATION";
    case Errc::symlink_escape: return "SYMLINK_ESCAPE";
    case Errc::symlink_loop: return "SYMLINK_LOOP";
    case Errc::not_regular_file: return "NOT_REGULAR_FILE";
    case Errc::is_directory: return "IS_DIRECTORY";
    case Errc::not_directory: return "NOT_DIRECTORY";
    case Errc::too_large: return "TOO_LARGE";
    case Errc::mount_point: return "MOUNT_POINT";
    case Errc::access_denied: return "ACCESS_DENIED";
    case Errc::already_exists: return "ALREADY_EXISTS";
    case Errc::invalid_config: return "INVALID_CONFIG";
    case Errc::unsupported: return "UNSUPPORTED";
    case Errc::io_error: return "IO_ERROR";
    case Errc::outside_sandbox: return "OUTSIDE_SANDBOX";
    case Errc::write_blocked: return "WRITE_BLOCKED";
    case Errc::delete_blocked: return "DELETE_BLOCKED";
    case Errc::suffix_not_allowed: return "SUFFIX_NOT_ALLOWED";
    case Errc::no_match: return "NO_MATCH";
    case Errc::ambiguous_match: return "AMBIGUOUS_MATCH";
    case Errc::too_many_attachments: return "TOO_MANY_ATTACHMENTS";
    case Errc::attachments_too_large: return "ATTACHMENTS_TOO_LARGE";
    case Errc::depth_exceeded: return "DEPTH_EXCEEDED";
    case Errc::no_parent_sandbox: return "NO_PARENT_SANDBOX";
    case Errc::zone_not_found: return "ZONE_NOT_FOUND";
    case Errc::invalid_pattern: return "INVALID_PATTERN";
    case Errc::untrusted_source: return "UNTRUSTED_SOURCE";
    case Errc::proc_unavailable: return "PROC_UNAVAILABLE";
  }
  return "IO_ERROR";
}

Errc errc_from_errno(int err) noexcept {
  switch (err) {
    case ENOENT: return Errc::not_found;
    case ENOTDIR: return Errc::not_directory;
    case EISDIR: return Errc::is_directory;
    case EXDEV: return Errc::symlink_escape;
    case ELOOP: return Errc::symlink_loop;
    case EACCES:
    case EPERM: return Errc::access_denied;
    case EROFS: return Errc::read_only;
    case EEXIST: return Errc::already_exists;
    case EFBIG: return Errc::too_large;
    case ENXIO:
    case ENODEV: return Errc::not_regular_file;
    case ENAMETOOLONG: return Errc::invalid_path;
    default: return Errc::io_error;
  }
}

}  // namespace msb
