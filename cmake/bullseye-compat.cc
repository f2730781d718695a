// Linked into the prebuilt binaries only: what gcc 12's libstdc++.a, built on glibc 2.36, expects
// from glibc and Debian 11's glibc 2.31 lacks. Hidden, so nothing outside the binaries sees them.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>

extern "C" {

// glibc 2.32: libstdc++ skips atomic reference counts while this says the process has one thread.
// 0 means "maybe threaded", which keeps every count atomic.
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;

// glibc 2.36: std::random_device's default source. getrandom(2) (glibc 2.25) blocks until the
// kernel's pool is seeded and then never fails for 4 bytes except on a signal.
__attribute__((visibility("hidden"))) uint32_t arc4random() {
  uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
  }
  return value;
}
}
