/* Force-included (-include) into every file the prebuilt binaries compile against the Debian 11
 * sysroot: what glibc 2.34 and 2.36 declare and glibc 2.31 lacks. The syscall numbers are the same
 * on x86_64 and arm64 (every architecture shares the numbers from 424 on); the mount API and
 * close_range go through syscall(2) instead of glibc's wrappers, so no GLIBC_2.34/2.36 symbol is
 * needed. */
#ifndef MSB_BULLSEYE_COMPAT_H
#define MSB_BULLSEYE_COMPAT_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#if !__GLIBC_PREREQ(2, 34)
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
static inline int close_range(unsigned int first, unsigned int last, int flags) {
  return (int)syscall(SYS_close_range, first, last, flags);
}
#endif

#if !__GLIBC_PREREQ(2, 36)
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

/* <linux/mount.h> cannot be included beside glibc 2.31's <sys/mount.h> (both define MS_*). */
#define OPEN_TREE_CLONE 1
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#define MOUNT_ATTR_NOEXEC 0x00000008

struct mount_attr {
  uint64_t attr_set;
  uint64_t attr_clr;
  uint64_t propagation;
  uint64_t userns_fd;
};

static inline int open_tree(int dfd, const char *path, unsigned int flags) {
  return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static inline int move_mount(int from_dfd, const char *from_path, int to_dfd, const char *to_path,
                             unsigned int flags) {
  return (int)syscall(SYS_move_mount, from_dfd, from_path, to_dfd, to_path, flags);
}

static inline int mount_setattr(int dfd, const char *path, unsigned int flags,
                                struct mount_attr *attr, size_t size) {
  return (int)syscall(SYS_mount_setattr, dfd, path, flags, attr, size);
}

/* The new mount API's filesystem contexts (copy-on-write layers: src/launcher/change_layer.cc). */
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#define FSOPEN_CLOEXEC 0x00000001
#define FSMOUNT_CLOEXEC 0x00000001
#define FSCONFIG_SET_FLAG 0
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6

static inline int fsopen(const char *fs_name, unsigned int flags) {
  return (int)syscall(SYS_fsopen, fs_name, flags);
}

static inline int fsconfig(int fd, unsigned int cmd, const char *key, const void *value, int aux) {
  return (int)syscall(SYS_fsconfig, fd, cmd, key, value, aux);
}

static inline int fsmount(int fd, unsigned int flags, unsigned int attr_flags) {
  return (int)syscall(SYS_fsmount, fd, flags, attr_flags);
}

#endif
#endif
