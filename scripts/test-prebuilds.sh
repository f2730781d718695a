#!/usr/bin/env bash
# Proves the prebuilt binaries run where the README says: runs Jest suites against
# prebuilds/linux-<arch>/ inside a Debian 11 (glibc 2.31) root with npm's Node, nothing of the host
# visible. x64 uses a full debootstrap base system (no yaml-cpp or newer libstdc++);
# arm64 runs under qemu-user (binfmt_misc) in the arm64 Debian 11 tree prebuild.sh unpacked.
#   scripts/test-prebuilds.sh x64 [jest args...]     # default: conformance, security (and exec) suites
#   MSB_TEST_NODE=22 scripts/test-prebuilds.sh arm64 test/conformance.test.js
# Needs root (debootstrap, mount namespaces); arm64 needs qemu-user-static and binfmt-support.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${MSB_PREBUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mount-sandbox-prebuild}
# The Debian archive of this machine's apt configuration (or $MSB_DEBIAN_MIRROR).
mirror=$("$repo/scripts/debian-mirror.sh")
node_major=${MSB_TEST_NODE:-20}
arch=${1:?usage: test-prebuilds.sh x64|arm64 [jest args...]}
shift
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  suites=(test/conformance.test.js test/security.test.js test/security-files.test.js
    test/security-input.test.js test/security-glob.test.js test/security-sources.test.js
    test/search-unicode.test.js) # PCRE2, statically linked, with its JIT on each target
  # qemu-user refuses seccomp filters, so msb-launch fails closed there (README).
  [ "$arch" = arm64 ] || suites+=(test/exec-files.test.js test/exec-network.test.js
    test/exec-processes.test.js test/exec-options.test.js test/exec-root.test.js)
fi

die() { echo "test-prebuilds: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mount namespaces)"
[ -f "$repo/prebuilds/linux-$arch/mount_sandbox.node" ] || die "no prebuilds/linux-$arch (npm run prebuilds -- $arch)"

x64_root() {
  local root=$cache/root-bullseye-amd64
  if [ ! -f "$root/.msb-complete" ]; then
    rm -rf "$root"
    debootstrap --variant=minbase bullseye "$root" "$mirror" >"$cache/debootstrap-root-amd64.log"
    touch "$root/.msb-complete"
  fi
  echo "$root"
}

arm64_root() {
  [ -f "$cache/sysroot-bullseye-arm64/.msb-complete" ] || "$repo/scripts/prebuild.sh" arm64 >&2
  # The kernel runs arm64 programs through qemu; F (fix-binary) opens the interpreter now, so it
  # need not exist inside the root.
  [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
  grep -q 'flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 || die "qemu-aarch64 binfmt lacks the F flag"
  echo "$cache/sysroot-bullseye-arm64"
}

node_dir() { # npm's node-linux-<arch> package, unpacked once
  local dir=$cache/node-linux-$arch-$node_major
  if [ ! -x "$dir/bin/node" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    local tarball
    tarball=$(cd "$dir" && npm pack --silent "node-linux-$arch@$node_major" 2>/dev/null | tail -n 1)
    tar -xzf "$dir/$tarball" -C "$dir" --strip-components=1 && rm "$dir/$tarball"
  fi
  echo "$dir"
}

# Jest's resolver (unrs-resolver) is native: the arm64 run needs the arm64 build of node_modules.
arm64_node_modules() {
  local dir=$cache/js-arm64
  if [ ! -f "$dir/.msb-complete" ] || ! cmp -s "$repo/package-lock.json" "$dir/package-lock.json.orig"; then
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$repo/package.json" "$repo/package-lock.json" "$dir/"
    cp "$repo/package-lock.json" "$dir/package-lock.json.orig"
    (cd "$dir" && npm install --silent --no-audit --no-fund --ignore-scripts --os=linux --cpu=arm64 --libc=glibc)
    touch "$dir/.msb-complete"
  fi
  echo "$dir/node_modules"
}

case $arch in
  x64) root=$(x64_root) modules=$repo/node_modules timeout=30000 ;;
  arm64) root=$(arm64_root) modules=$(arm64_node_modules) timeout=600000 ;;
  *) die "unknown arch '$arch' (x64 or arm64)" ;;
esac
node=$(node_dir)
mkdir -p "$root/msb" "$root/opt/node"

# A private mount namespace whose root is the Debian 11 tree (pivot_root, not chroot: the exec
# suite's user namespaces are refused to a chrooted process), with the repository at /msb and
# the host's file systems unmounted. The overrides make the loader take the prebuilt binaries;
# the host build in build/Release could not load there anyway (no libyaml-cpp).
unshare --mount --propagation private -- bash -euo pipefail -c '
  root=$1 repo=$2 modules=$3 node=$4 arch=$5 timeout=$6
  shift 6
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/tmp"
  mount --bind "$repo" "$root/msb"
  mount --bind "$modules" "$root/msb/node_modules"
  mount --bind "$node" "$root/opt/node"
  cd "$root"
  mkdir -p .host
  pivot_root . .host
  umount -l /.host
  exec /usr/bin/env -i PATH=/opt/node/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CI=true \
    MOUNT_SANDBOX_ADDON=/msb/prebuilds/linux-$arch/mount_sandbox.node \
    MOUNT_SANDBOX_LAUNCHER=/msb/prebuilds/linux-$arch/msb-launch \
    /bin/sh -c "cd /msb && echo \"Debian \$(cat /etc/debian_version), \$(ldd --version | head -n 1), \$(uname -m), node \$(node --version)\" &&
      node -e \"require(\\\"./lib\\\"); console.log(\\\"addon loaded from\\\", process.env.MOUNT_SANDBOX_ADDON)\" &&
      node node_modules/jest/bin/jest.js --ci --runInBand --cache=false --testTimeout=$timeout \$*" sh "$@"
' _ "$root" "$repo" "$modules" "$node" "$arch" "$timeout" "${suites[@]}"
