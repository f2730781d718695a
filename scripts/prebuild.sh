#!/usr/bin/env bash
# Builds the prebuilt binaries shipped in the package: prebuilds/linux-<arch>/{mount_sandbox.node,
# msb-launch} for x64 and arm64, against a Debian 11 sysroot (glibc 2.31) with yaml-cpp, RE2 and
# PCRE2 compiled from Debian's source tarballs and simdjson from its npm package, all linked statically,
# then checks them.
#   npm run prebuilds            # both
#   npm run prebuilds -- arm64   # one
# (Not "prebuild": npm would run a script of that name before every `npm run build`.)
# Needs root (debootstrap) on Debian with: debootstrap cmake curl g++-12 g++-12-aarch64-linux-gnu,
# and perl, python3 and unicode-data (RE2's Unicode tables).
# Downloads go to $MSB_PREBUILD_CACHE (default ~/.cache/mount-sandbox-prebuild), never the repo.
set -euo pipefail
# Steps run in command substitutions (build_deps, make_sysroot) stop at their first failure too.
shopt -s inherit_errexit

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${MSB_PREBUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mount-sandbox-prebuild}
# The Debian archive of this machine's apt configuration (or $MSB_DEBIAN_MIRROR).
mirror=$("$repo/scripts/debian-mirror.sh")
jobs=${MSB_PREBUILD_JOBS:-2}
suite=bullseye
toolchain=$repo/cmake/bullseye-toolchain.cmake
# gcc adds these to its search paths ahead of the sysroot.
unset LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH

# Debian 12's source tarball of the version the source build uses, pinned by its .dsc's sha256.
yamlcpp_url=$mirror/pool/main/y/yaml-cpp/yaml-cpp_0.7.0+dfsg.orig.tar.xz
yamlcpp_sha256=dc63708605404e0b963e0ca3a9619d1c8270eda2839603e6fa0384e5e51e5312
re2_url=$mirror/pool/main/r/re2/re2_20220601+dfsg.orig.tar.xz
re2_sha256=3bc61251da3b0b97be40a8a127818c517c62516e4eda11fc901d29496663df54
pcre2_url=$mirror/pool/main/p/pcre2/pcre2_10.42.orig.tar.gz
pcre2_sha256=c33b418e3b936ee3153de2c61cc638e7e4fe3156022a5c77d0711bcbb9d64f1f
# simdjson is compiled by the project's own CMake build, from the npm package @nozbe/simdjson in
# node_modules (`npm install` first), as in the source build: CMakeLists.txt pins and checks it.
simdjson_version=$(cd "$repo" && node -p "require('@nozbe/simdjson/package.json').version" 2>/dev/null) ||
  { echo "prebuild: simdjson (@nozbe/simdjson) is not installed: run npm install first" >&2; exit 1; }

die() { echo "prebuild: $*" >&2; exit 1; }

triple_of() {
  case $1 in
    x64) echo x86_64-linux-gnu ;;
    arm64) echo aarch64-linux-gnu ;;
    *) die "unknown arch '$1' (x64 or arm64)" ;;
  esac
}
debian_arch_of() { case $1 in x64) echo amd64 ;; arm64) echo arm64 ;; esac; }

check_tools() {
  local missing=() tool
  for tool in debootstrap cmake curl dpkg-deb perl python3 "$@"; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] && return
  die "missing ${missing[*]}. Install: apt-get update &&" \
    "apt-get install -y debootstrap cmake curl g++-12 g++-12-aarch64-linux-gnu perl python3 unicode-data"
}

fetch() { # url sha256 -> path of the verified file in the cache
  local url=$1 sha=$2 file=$cache/src/${1##*/}
  if [ ! -f "$file" ]; then
    mkdir -p "$cache/src"
    curl -fsSL -o "$file.part" "$url"
    echo "$sha  $file.part" | sha256sum -c --quiet - || die "checksum mismatch for $url"
    mv "$file.part" "$file"
  fi
  echo "$file"
}

# A Debian 11 tree to compile and link against: debootstrap's first stage unpacks it without running
# anything of the target architecture; the remaining packages (libc6-dev, libgcc-10-dev and their
# dependencies) are extracted by hand. Absolute symlinks would point into the host's /usr, so they
# are made relative.
make_sysroot() {
  local root=$cache/sysroot-$suite-$1
  if [ ! -f "$root/.msb-complete" ]; then
    [ "$(id -u)" = 0 ] || die "making the $suite sysroot needs root (debootstrap)"
    rm -rf "$root"
    debootstrap --foreign --arch="$1" --variant=minbase --include=libc6-dev,libgcc-10-dev \
      "$suite" "$root" "$mirror" >"$cache/debootstrap-$1.log"
    local deb link target
    for deb in "$root"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$root"; done
    while IFS= read -r -d '' link; do
      target=$(readlink "$link")
      ln -sfn "$(realpath -s -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
    done < <(find "$root" -type l -lname '/*' -print0)
    # Debian 11's unwinder, alone so that only libgcc_eh comes from gcc 10 (see the toolchain).
    mkdir -p "$root/usr/lib/msb-unwind"
    ln -sfn "../$(cd "$root/usr/lib" && echo gcc/*/10/libgcc_eh.a)" "$root/usr/lib/msb-unwind/"
    touch "$root/.msb-complete"
  fi
  echo "$root"
}

# Debian's RE2 tarball leaves out the Unicode tables upstream generates (they are made from the
# Unicode data at build time, as Debian's own build makes them): made here from Debian's
# unicode-data, with RE2's own scripts.
generate_re2_tables() {
  local src=$1
  [ -f /usr/share/unicode/CaseFolding.txt ] || die "missing /usr/share/unicode (apt-get install -y unicode-data)"
  sed -i 's|^_UNICODE_DIR = .*|_UNICODE_DIR = "/usr/share/unicode"|' "$src/re2/unicode.py"
  (cd "$src" &&
    perl re2/make_perl_groups.pl >re2/perl_groups.cc &&
    python3 re2/make_unicode_casefold.py >re2/unicode_casefold.cc &&
    python3 re2/make_unicode_groups.py >re2/unicode_groups.cc) || die "could not make RE2's Unicode tables"
}

# yaml-cpp, RE2 and PCRE2 as static, position-independent archives for the target, cached under a
# key that changes with the toolchain or the pinned sources. simdjson, compiled with the project
# and not kept here, is in the key all the same: a cache directory names every third-party
# version the binaries linked with it were made from.
build_deps() {
  local key prefix work=$cache/deps-build-$1
  key=$(echo "$yamlcpp_sha256 $re2_sha256 $pcre2_sha256 simdjson-$simdjson_version" |
    cat - "$toolchain" "${toolchain%/*}/bullseye-compat.h" |
    sha256sum | cut -c1-12)
  prefix=$cache/deps-$1-$key
  if [ ! -f "$prefix/.msb-complete" ]; then
    rm -rf "$prefix" "$work"
    mkdir -p "$work"
    tar -xf "$(fetch "$yamlcpp_url" "$yamlcpp_sha256")" -C "$work"
    local common=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_PREFIX="$prefix")
    cmake -S "$work"/yaml-cpp-* -B "$work/yaml-build" "${common[@]}" -DYAML_BUILD_SHARED_LIBS=OFF \
      -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF -DYAML_CPP_BUILD_CONTRIB=OFF >/dev/null
    cmake --build "$work/yaml-build" -j "$jobs" >/dev/null
    cmake --install "$work/yaml-build" >/dev/null
    tar -xf "$(fetch "$re2_url" "$re2_sha256")" -C "$work"
    generate_re2_tables "$work"/re2-*
    cmake -S "$work"/re2-* -B "$work/re2-build" "${common[@]}" -DBUILD_SHARED_LIBS=OFF \
      -DRE2_BUILD_TESTING=OFF >/dev/null
    cmake --build "$work/re2-build" -j "$jobs" >/dev/null
    cmake --install "$work/re2-build" >/dev/null
    # PCRE2's 8-bit library alone, with its JIT (on both targets), none of its programs.
    tar -xzf "$(fetch "$pcre2_url" "$pcre2_sha256")" -C "$work"
    cmake -S "$work"/pcre2-* -B "$work/pcre2-build" "${common[@]}" -DBUILD_SHARED_LIBS=OFF \
      -DPCRE2_STATIC_PIC=ON -DPCRE2_SUPPORT_JIT=ON -DPCRE2_BUILD_PCRE2GREP=OFF \
      -DPCRE2_BUILD_TESTS=OFF -DPCRE2_SUPPORT_LIBBZ2=OFF -DPCRE2_SUPPORT_LIBZ=OFF \
      -DPCRE2_SUPPORT_LIBREADLINE=OFF -DPCRE2_SUPPORT_LIBEDIT=OFF >/dev/null
    cmake --build "$work/pcre2-build" -j "$jobs" >/dev/null
    cmake --install "$work/pcre2-build" >/dev/null
    rm -rf "$work"
    touch "$prefix/.msb-complete"
  fi
  echo "$prefix"
}

config_dir() { # prefix package -> directory holding the package's CMake config
  dirname "$(find "$1" -name "$2-config.cmake" -o -name "$2Config.cmake" | head -n 1)"
}

build_arch() {
  local arch=$1 triple out=$repo/prebuilds/linux-$1
  triple=$(triple_of "$arch")
  check_tools "$triple-g++-12" "$triple-strip"
  export MSB_TARGET_TRIPLE=$triple
  MSB_SYSROOT=$(make_sysroot "$(debian_arch_of "$arch")")
  export MSB_SYSROOT
  MSB_DEPS_PREFIX=$(build_deps "$arch") || die "could not build the static libraries for $arch"
  [ -f "$MSB_DEPS_PREFIX/.msb-complete" ] || die "could not build the static libraries for $arch"
  export MSB_DEPS_PREFIX
  # Plain CMake with the variables cmake-js would pass (its own CMAKE_CXX_FLAGS would replace the
  # toolchain's header path): the Node-API headers, and the addon next to msb-launch in Release/.
  local build=$repo/build-prebuild-$arch napi_headers
  rm -rf "$build" # a cached configure would keep flags from an older toolchain file
  napi_headers="$(cd "$repo" && node -p "require('node-api-headers').include_dir")"
  cmake -S "$repo" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
    -DMSB_PORTABLE=ON -DMSB_WERROR=ON -DCMAKE_JS_VERSION=prebuild -DCMAKE_JS_INC="$napi_headers" \
    -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$build/Release" \
    -Dyaml-cpp_DIR="$(config_dir "$MSB_DEPS_PREFIX" yaml-cpp)" \
    -DRE2_INCLUDE_DIR="$MSB_DEPS_PREFIX/include" \
    -DRE2_LIBRARY="$(find "$MSB_DEPS_PREFIX" -name libre2.a | head -n 1)" \
    -DPCRE2_INCLUDE_DIR="$MSB_DEPS_PREFIX/include" \
    -DPCRE2_LIBRARY="$(find "$MSB_DEPS_PREFIX" -name libpcre2-8.a | head -n 1)" >/dev/null
  cmake --build "$build" -j "$jobs" --target mount_sandbox msb_launch
  mkdir -p "$out"
  "$triple-strip" --strip-unneeded -o "$out/mount_sandbox.node" "$build/Release/mount_sandbox.node"
  "$triple-strip" --strip-unneeded -o "$out/msb-launch" "$build/Release/msb-launch"
}

arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x64 arm64)
mkdir -p "$cache"
for arch in "${arches[@]}"; do
  echo "prebuild: linux-$arch"
  build_arch "$arch"
done
node "$repo/scripts/check-prebuilds.js" "${arches[@]}"
