#!/usr/bin/env bash
# Prints the Debian archive this machine's apt uses, for the scripts that fetch other Debian
# releases (prebuild.sh, test-prebuilds.sh, apparmor-parser.sh): they name no host themselves, so
# they work wherever apt works, behind a proxy or a local mirror included.
#   scripts/debian-mirror.sh            # the URI, or a message naming what is missing (exit 1)
#   MSB_DEBIAN_MIRROR=<uri> ...         # used as given
# The archive is the first `deb` entry, one-line (sources.list, *.list) or deb822 (*.sources),
# that serves this machine's own release (VERSION_CODENAME) with the main component: that
# excludes security and updates suites and third-party repositories.
set -euo pipefail

if [ -n "${MSB_DEBIAN_MIRROR:-}" ]; then
  echo "${MSB_DEBIAN_MIRROR%/}"
  exit 0
fi

etc=${MSB_APT_ETC:-/etc/apt} # another apt configuration, for the tests
codename=${MSB_DEBIAN_CODENAME:-$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}
[ -n "$codename" ] || {
  echo "debian-mirror: this is not a Debian release (no VERSION_CODENAME in /etc/os-release);" \
    "set MSB_DEBIAN_MIRROR to a Debian archive URI" >&2
  exit 1
}

one_line_entries() { # file -> "uri suite components..." for each enabled deb line
  sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$1" | awk '$1 == "deb" { $1 = ""; print }'
}

deb822_entries() { # file -> "uri suite components..." for each URI x suite of enabled deb stanzas
  awk '
    function flush(   u, s, nu, ns, us, ss) {
      if (types ~ /(^| )deb( |$)/ && enabled !~ /^[Nn]o$/) {
        nu = split(uris, us, " "); ns = split(suites, ss, " ")
        for (u = 1; u <= nu; u++) for (s = 1; s <= ns; s++) print us[u], ss[s], components
      }
      types = uris = suites = components = enabled = ""
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    {
      key = tolower($1); sub(/:$/, "", key); value = $0; sub(/^[^:]*:[ \t]*/, "", value)
      if (key == "types") types = value
      else if (key == "uris") uris = value
      else if (key == "suites") suites = value
      else if (key == "components") components = value
      else if (key == "enabled") enabled = value
    }
    END { flush() }
  ' "$1"
}

all_entries() {
  local file
  for file in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
    [ -f "$file" ] && one_line_entries "$file"
  done
  for file in "$etc"/sources.list.d/*.sources; do
    [ -f "$file" ] && deb822_entries "$file"
  done
  return 0
}

mirror=$(all_entries | awk -v codename="$codename" '
  $2 == codename { for (i = 3; i <= NF; i++) if ($i == "main") { print $1; exit } }')
if [ -z "$mirror" ]; then
  echo "debian-mirror: no apt source in $etc serves $codename main; set MSB_DEBIAN_MIRROR to a" \
    "Debian archive URI" >&2
  exit 1
fi
echo "${mirror%/}"
