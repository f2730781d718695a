#!/usr/bin/env bash
# A dependent's install of the packed package, where no build could happen: in a private mount
# namespace with cmake, the compilers, the yaml-cpp headers, CMake configs and shared
# libraries hidden, installs the tarball into fresh consumers with --ignore-scripts and with
# --strict-allow-scripts (nothing approved), compiles their strict TypeScript (ESM and CJS) and
# runs a sandbox from each. Fails unless the prebuilt binaries alone make a working package.
#
# Usage (as root): scripts/test-consumer.sh path/to/mount-sandbox-X.Y.Z.tgz
#   The tarball must come from `npm pack` after the prebuilt binaries are made (scripts/prebuild.sh,
#   `npm run prebuilds`): it needs prebuilds/linux-x64/.
set -euo pipefail

tarball=${1:?usage: $0 <mount-sandbox tarball>}
tarball=$(readlink -f "$tarball")
fixture=$(readlink -f "$(dirname "$0")/../test/consumer")
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ -z "${MSB_CONSUMER_INSIDE:-}" ]; then
  [ "$(id -u)" = 0 ] || fail "needs root, to hide the toolchain in a private mount namespace (unshare -m)"
  [ -f "$tarball" ] || fail "no tarball at $tarball"
  listing=$(tar -tzvf "$tarball")
  for f in mount_sandbox.node msb-launch; do
    grep -q " package/prebuilds/linux-x64/$f\$" <<<"$listing" ||
      fail "the tarball has no prebuilds/linux-x64/$f: make the prebuilt binaries (npm run prebuilds) before \`npm pack\`"
  done
  unpacked=$(awk '{ s += $3 } END { print s }' <<<"$listing")
  echo "tarball: $(stat -c %s "$tarball") bytes packed, $unpacked bytes unpacked, $(wc -l <<<"$listing") entries"
  # util-linux unshare makes the new namespace's mounts private, so nothing leaks to the host.
  exec unshare --mount --propagation private env MSB_CONSUMER_INSIDE=1 bash "$0" "$tarball"
fi

# --- inside the private mount namespace ---

# Mounts an empty read-only tmpfs over directories and /dev/null over files, at their real
# paths, so every symlink and alternative leading to them finds nothing usable.
hide() {
  local p real
  for p in "$@"; do
    [ -e "$p" ] || continue
    real=$(readlink -f "$p")
    if [ -d "$real" ]; then
      mount -t tmpfs -o ro,size=4k msb-hidden "$real"
    else
      mount --bind /dev/null "$real"
    fi
  done
}

shopt -s nullglob
lib=/usr/lib/x86_64-linux-gnu
hide /usr/bin/{cmake,ccmake,ctest,cpack,cc,c++,cpp,gcc,g++,clang,clang++,make,ninja} \
  /usr/bin/{gcc,g++,cpp,clang,clang++}-* /usr/bin/x86_64-linux-gnu-{gcc,g++,cpp}* \
  /usr/lib/gcc /usr/libexec/gcc /usr/lib/llvm-* /usr/share/cmake /usr/share/cmake-* \
  /usr/include/yaml-cpp $lib/libyaml-cpp* $lib/cmake/yaml-cpp* $lib/pkgconfig/yaml-cpp.pc
shopt -u nullglob

# The hiding itself is checked, or a pass could come from a toolchain still in reach.
for tool in cmake cc c++ gcc g++ clang make; do
  ! "$tool" --version >/dev/null 2>&1 || fail "$tool still runs"
done
for f in "$lib"/libyaml-cpp.so*; do
  [ ! -s "$f" ] || fail "$f is still readable"
done
[ -z "$(find /usr/include/yaml-cpp /usr/lib/gcc $lib/cmake/yaml-cpp -mindepth 1)" ] ||
  fail "headers, CMake configs or compiler internals still visible"
echo "hidden: cmake, gcc/g++/clang, make, ninja, yaml-cpp headers, libraries and CMake configs"

# An npm that does not know the option would take it silently as an unknown config key.
[[ "$(npm config get strict-allow-scripts 2>/dev/null)" =~ ^(true|false)$ ]] ||
  fail "this npm ($(npm --version)) has no --strict-allow-scripts"

work=$(mktemp -d /tmp/msb-consumer.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

# One fresh consumer per install mode; stdout says what worked and how long the install took.
consume() {
  local mode=$1 dir="$work/$1" start seconds pkg
  mkdir "$dir"
  cp "$fixture"/package.json "$fixture"/tsconfig.json "$fixture"/*.ts "$fixture"/*.cts "$dir"/
  cd "$dir"

  start=$EPOCHREALTIME
  npm install --no-audit --no-fund --"$mode" "$tarball" >npm-install.log 2>&1 ||
    { cat npm-install.log >&2; fail "npm install --$mode of the tarball failed"; }
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  echo "[$mode] npm install of the tarball: ${seconds}s"

  pkg=node_modules/mount-sandbox
  [ ! -e "$pkg/build" ] || fail "[$mode] something was built: $pkg/build exists"
  node -e 'const s = require(process.argv[1]).scripts || {};
    const hooks = ["preinstall", "install", "postinstall"].filter((k) => k in s);
    if (hooks.length) { console.error(`install scripts: ${hooks}`); process.exit(1); }' "$PWD/$pkg/package.json" ||
    fail "[$mode] the package still has install scripts"

  # The consumer's own tools, from the registry (not the package's business, so not timed).
  npm install --no-audit --no-fund --"$mode" --save-dev typescript@^5.9 @types/node@^20 >>npm-install.log 2>&1 ||
    { cat npm-install.log >&2; fail "[$mode] installing typescript failed"; }

  if ! node -e 'require.resolve("mount-sandbox/errors")' 2>/dev/null; then
    echo "FAIL: [$mode] the package has no 'mount-sandbox/errors' entry (package.json \"exports\"); skipping its consumers" >&2
    rm errors-esm.ts errors-cjs.cts
    status=1
  fi
  npx tsc -p . || fail "[$mode] the strict TypeScript consumers do not compile against the package's types"

  local program
  for program in dist/esm.js dist/cjs.cjs dist/errors-esm.js dist/errors-cjs.cjs; do
    [ -e "$program" ] || continue
    env -u MOUNT_SANDBOX_ADDON -u MOUNT_SANDBOX_LAUNCHER node "$program" ||
      fail "[$mode] $program failed"
  done
  [ ! -e "$pkg/build" ] || fail "[$mode] running the consumers built something: $pkg/build exists"
  cd "$work"
}

consume ignore-scripts
consume strict-allow-scripts
[ $status != 0 ] || echo "ok: the packed package works for a dependent with no toolchain and no install script run"
exit $status
