#!/usr/bin/env bash
# Puts an AppArmor 4 parser in .cache/apparmor-parser/ for test/apparmor.test.js, which checks the
# shipped profile with it (parse and compile, never a kernel load). Debian 12's apparmor package
# is 3.0, older than the `userns` rule and abi 4.0 the profile needs, so this takes Debian 13's
# apparmor and libc6 packages, unpacked beside each other (nothing is installed), and writes a
# wrapper that runs the parser with that libc and that package's /etc/apparmor.d.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.cache/apparmor-parser
suite=trixie
if [ -x "$out/apparmor_parser" ] && "$out/apparmor_parser" --version >/dev/null 2>&1; then exit 0; fi
rm -rf "$out"
mkdir -p "$out/apt/lists/partial" "$out/apt/cache/archives/partial" "$out/debs" "$out/root"
echo "deb http://deb.debian.org/debian $suite main" >"$out/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$PWD/$out/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$PWD/$out/apt/lists" -o "Dir::Cache=$PWD/$out/apt/cache"
  -o Dir::State::status=/dev/null -o APT::Sandbox::User=root -o Debug::NoLocking=1)
apt-get "${apt_opts[@]}" update -qq
(cd "$out/debs" && apt-get "${apt_opts[@]}" download -qq apparmor libc6)
for deb in "$out"/debs/*.deb; do dpkg-deb -x "$deb" "$out/root"; done
rm -rf "$out/apt" "$out/debs"

root=$PWD/$out/root
loader=$(find "$root/usr/lib" "$root/usr/lib64" -maxdepth 2 -name 'ld-linux*.so.*' 2>/dev/null | head -n 1)
libc=$(find "$root/usr/lib" -maxdepth 2 -name libc.so.6 | head -n 1)
cat >"$out/apparmor_parser" <<WRAPPER
#!/bin/sh
exec "$loader" --library-path "$(dirname "$libc")" "$root/usr/sbin/apparmor_parser" \\
  --config-file "$root/etc/apparmor/parser.conf" --base "$root/etc/apparmor.d" "\$@"
WRAPPER
chmod +x "$out/apparmor_parser"
"$out/apparmor_parser" --version | head -n 1
