#!/usr/bin/env bash
# Puts an AppArmor 4 parser in .cache/apparmor-parser/ for test/apparmor.test.js, which checks the
# shipped profile with it (parse and compile, never a kernel load). Debian 12's apparmor package
# is 3.0, older than the `userns` rule and abi 4.0 the profile needs, so this takes Debian 13's
# apparmor and libc6 packages from this machine's Debian archive (scripts/debian-mirror.sh),
# unpacked beside each other (nothing is installed), and writes a wrapper that runs that parser
# with that libc and sees nothing of the host's AppArmor set-up: its configuration file, policy
# features, profile base directory and cache all lie inside the unpacked root.
# Then it checks what it got, so that a package updated by the distribution fails here, naming the
# cause, rather than in a test: the parser's version, and a compile of the shipped profile.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.cache/apparmor-parser
suite=${MSB_APPARMOR_SUITE:-trixie}
min_major=4

die() { echo "apparmor-parser: $*" >&2; exit 1; }

# The version the wrapper reports, or the parser's own error; and whether it compiles the profile
# the package ships, filled in for a launcher path (the test does the same with the real one).
check_parser() {
  local version major profile result
  version=$("$out/apparmor_parser" --version 2>&1 | head -n 1) ||
    { echo "the unpacked parser does not run: $version"; return 1; }
  major=$(sed -n 's/^AppArmor parser version \([0-9][0-9]*\)\..*/\1/p' <<<"$version")
  [ -n "$major" ] || { echo "the unpacked parser printed no version: $version"; return 1; }
  [ "$major" -ge "$min_major" ] ||
    { echo "Debian $suite's apparmor is '$version', older than the $min_major.0 the profile's abi and userns rule need"; return 1; }
  profile=$(mktemp)
  node -e 'process.stdout.write(require("./lib/exec/apparmor").profileFor("/opt/msb-check/msb-launch"))' >"$profile" ||
    { rm -f "$profile"; echo "cannot make the profile to compile (lib/exec/apparmor.js)"; return 1; }
  if ! result=$("$out/apparmor_parser" -Q -K "$profile" 2>&1); then
    rm -f "$profile"
    echo "Debian $suite's parser ($version) no longer compiles the shipped profile apparmor/msb-launch: $result"
    return 1
  fi
  rm -f "$profile"
  echo "$version"
}

if [ -x "$out/apparmor_parser" ] && check_parser >/dev/null 2>&1; then exit 0; fi
rm -rf "$out"
mkdir -p "$out/apt/lists/partial" "$out/apt/cache/archives/partial" "$out/debs" "$out/root" "$out/cache"
mirror=$(scripts/debian-mirror.sh) || die "no Debian archive to download $suite's apparmor from (above)"
echo "deb $mirror $suite main" >"$out/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$PWD/$out/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$PWD/$out/apt/lists" -o "Dir::Cache=$PWD/$out/apt/cache"
  -o Dir::State::status=/dev/null -o APT::Sandbox::User=root -o Debug::NoLocking=1)
apt-get "${apt_opts[@]}" update -qq || die "apt could not read $suite's package lists from $mirror"
(cd "$out/debs" && apt-get "${apt_opts[@]}" download -qq apparmor libc6) ||
  die "apt could not download $suite's apparmor and libc6 packages from $mirror"
for deb in "$out"/debs/*.deb; do dpkg-deb -x "$deb" "$out/root"; done
rm -rf "$out/apt" "$out/debs"

root=$PWD/$out/root
# (/usr/lib/<triple> in Debian 13's packages; /lib/<triple> in older ones.)
loader=$(find "$root" -maxdepth 4 -name 'ld-linux*.so.*' -path '*/lib*' 2>/dev/null | head -n 1 || true)
libc=$(find "$root" -maxdepth 4 -name libc.so.6 -path '*/lib*' 2>/dev/null | head -n 1 || true)
[ -n "$loader" ] && [ -n "$libc" ] || die "$suite's libc6 package holds no dynamic loader or libc.so.6"
parser=$(find "$root" -maxdepth 3 -name apparmor_parser -type f 2>/dev/null | head -n 1 || true)
[ -n "$parser" ] || die "$suite's apparmor package holds no apparmor_parser"

# The package's parser.conf with every absolute path in it moved into the unpacked root: the
# parser reads this file before its other options, and a path it names on the host (Debian 13
# names /usr/share/apparmor-features/features) is absent here or belongs to another version.
conf=$root/etc/apparmor/parser.conf
[ -f "$conf" ] || die "$suite's apparmor package holds no etc/apparmor/parser.conf"
sed -E "s#^([[:space:]]*[A-Za-z][A-Za-z-]*([[:space:]]*=[[:space:]]*|[[:space:]]+))/#\\1$root/#" \
  "$conf" >"$out/parser.conf"

cat >"$out/apparmor_parser" <<WRAPPER
#!/bin/sh
exec "$loader" --library-path "$(dirname "$libc")" "$parser" \\
  --config-file "$PWD/$out/parser.conf" --base "$root/etc/apparmor.d" \\
  --Include "$root/etc/apparmor.d" --cache-loc "$PWD/$out/cache" "\$@"
WRAPPER
chmod +x "$out/apparmor_parser"
report=$(check_parser) || die "$report"
echo "$report"
