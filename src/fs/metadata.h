// What a new inode that takes an old file's place keeps of it besides the data: the permission
// bits, the owner and group where the process may, and the extended attributes: POSIX ACLs
// (system.posix_acl_access), security labels (security.*), trusted.* where the process sees them,
// and user.*. A rewrite must not widen who may read the file, so an attribute that cannot be
// reproduced on the new inode refuses the replacement (metadata_not_kept) instead of dropping it.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace msb {

struct Xattr {
  std::string name;
  std::string value;
};

struct FileMetadata {
  mode_t mode = 0;  // permission bits only: set-id bits are never carried
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<Xattr> xattrs;  // those to carry (xattr_carried), in the order listed
};

// Whether a replacement carries an attribute of this name. Not carried, so that new contents never
// inherit what describes the old contents or grants privileges: security.capability (file
// capabilities, like set-id bits: a rewrite must not mint a privileged program), security.ima and
// security.evm (a hash or signature of the old contents and metadata, kept up by the kernel
// where it appraises), and trusted.overlay.* (overlayfs's record of the old inode's layers).
// Dropping any of them only narrows what the file may do. Everything else is carried.
bool xattr_carried(std::string_view name) noexcept;

// The metadata of the regular file a real (not O_PATH) descriptor `fd` is open on.
Result<FileMetadata> read_metadata(int fd);

// The metadata of the regular file `name` in `dir_fd`, which fstatat found as `st` (its mode and
// owner): the attributes read by name beneath the directory, without following a symlink or
// opening anything (listxattrat and getxattrat, Linux 6.13+), else read_metadata_through_proc.
// std::nullopt when `name` holds no regular file any more: nothing to keep.
Result<std::optional<FileMetadata>> read_metadata_at(int dir_fd, const char* name,
                                                     const struct stat& st);

// The same for kernels without listxattrat: `name` looked up with O_PATH | O_NOFOLLOW (no FIFO or
// device is ever opened here), its mode and owner from that descriptor and its attributes through
// its /proc/self/fd link, so all of them are the very inode's; proc_unavailable without /proc.
Result<std::optional<FileMetadata>> read_metadata_through_proc(int dir_fd, const char* name);

// Gives `fd`, a new regular file that only this process has open and that was created
// owner-only, the metadata `meta`, so that at no moment is it more open than `meta` says: first
// the attributes (security.* only where the file does not already have the same value), then the
// ACL, which sets the permission bits from its entries, or the removal of an ACL the new file
// inherited from its directory's default ACL where `meta` has none, then the permission bits
// (which set an ACL's mask: they agree with it), then the owner and group where the process may.
// An attribute that cannot be set fails with metadata_not_kept (Error::op says the call).
Status apply_metadata(int fd, const FileMetadata& meta);

}  // namespace msb
