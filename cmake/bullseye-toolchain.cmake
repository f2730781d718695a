# Toolchain for the prebuilt binaries: the host's gcc 12 (native, or Debian's aarch64 cross
# compiler) against a Debian 11 (glibc 2.31) sysroot, so the binaries need nothing newer than
# Debian 11 / Ubuntu 20.04 ship. Read from the environment, not the cache, because try_compile
# re-reads this file without the cache; scripts/prebuild.sh sets MSB_SYSROOT, MSB_TARGET_TRIPLE
# and MSB_DEPS_PREFIX.
set(MSB_TARGET_TRIPLE $ENV{MSB_TARGET_TRIPLE})
set(MSB_SYSROOT $ENV{MSB_SYSROOT})
if(NOT MSB_TARGET_TRIPLE OR NOT MSB_SYSROOT)
  message(FATAL_ERROR "bullseye-toolchain.cmake needs MSB_TARGET_TRIPLE and MSB_SYSROOT in the environment")
endif()
string(REGEX REPLACE "-.*" "" MSB_TARGET_CPU ${MSB_TARGET_TRIPLE})

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${MSB_TARGET_CPU})
set(CMAKE_SYSROOT ${MSB_SYSROOT})
set(CMAKE_C_COMPILER ${MSB_TARGET_TRIPLE}-gcc-12)
set(CMAKE_CXX_COMPILER ${MSB_TARGET_TRIPLE}-g++-12)

# gcc searches its own prefix before the sysroot: the host's /usr/include and /usr/lib/<triple>
# (native), /usr/aarch64-linux-gnu/{include,lib} (cross) hold Debian 12's glibc 2.36, whose headers
# and crt1.o would pull in symbol versions Debian 11 lacks. So the header path is spelled out: the
# compiler's own C++ and builtin headers, then only the sysroot's C headers; and the sysroot's
# libraries and start files come first at link time.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -x c++ -E -v /dev/null
                ERROR_VARIABLE MSB_CXX_VERBOSE OUTPUT_QUIET)
string(REGEX MATCHALL "\n [^\n]*/c\\+\\+/[^\n]*" MSB_CXX_HEADER_DIRS "${MSB_CXX_VERBOSE}")
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=include
                OUTPUT_VARIABLE MSB_GCC_HEADER_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
set(MSB_C_INCLUDES "-nostdinc -isystem ${MSB_GCC_HEADER_DIR}"
    " -isystem ${MSB_SYSROOT}/usr/include/${MSB_TARGET_TRIPLE} -isystem ${MSB_SYSROOT}/usr/include")
string(CONCAT MSB_C_INCLUDES ${MSB_C_INCLUDES})
set(MSB_CXX_INCLUDES "-nostdinc")
foreach(dir IN LISTS MSB_CXX_HEADER_DIRS)
  string(STRIP "${dir}" dir)
  string(APPEND MSB_CXX_INCLUDES " -isystem ${dir}")
endforeach()
string(REPLACE "-nostdinc" "" MSB_C_ONLY_INCLUDES "${MSB_C_INCLUDES}")
string(APPEND MSB_CXX_INCLUDES "${MSB_C_ONLY_INCLUDES}")
# What glibc 2.36 declares and 2.31 lacks (the mount API, newer syscall numbers).
set(MSB_COMPAT "-include ${CMAKE_CURRENT_LIST_DIR}/bullseye-compat.h")
set(CMAKE_C_FLAGS_INIT "${MSB_C_INCLUDES} ${MSB_COMPAT}")
set(CMAKE_CXX_FLAGS_INIT "${MSB_CXX_INCLUDES} ${MSB_COMPAT}")
# gcc 12's static unwinder (libgcc_eh.a) calls glibc 2.35's _dl_find_object; Debian 11's gcc 10
# unwinder, which prebuild.sh puts alone in usr/lib/msb-unwind, walks dl_iterate_phdr instead.
set(MSB_SYSROOT_LINK "-B${MSB_SYSROOT}/usr/lib/${MSB_TARGET_TRIPLE}"
    " -L${MSB_SYSROOT}/usr/lib/msb-unwind"
    " -L${MSB_SYSROOT}/usr/lib/${MSB_TARGET_TRIPLE} -L${MSB_SYSROOT}/lib/${MSB_TARGET_TRIPLE}")
string(CONCAT MSB_SYSROOT_LINK ${MSB_SYSROOT_LINK})
set(CMAKE_EXE_LINKER_FLAGS_INIT "${MSB_SYSROOT_LINK}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${MSB_SYSROOT_LINK}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${MSB_SYSROOT_LINK}")

# Libraries and headers only from the sysroot and the vendored dependency prefix; programs (node,
# cmake's helpers) from the host.
list(APPEND CMAKE_FIND_ROOT_PATH $ENV{MSB_DEPS_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
