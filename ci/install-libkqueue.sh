#!/usr/bin/env bash
# Installs libkqueue-dev from Debian experimental so that drivers/kqueue can be
# tested on Linux (build tag eventloop_libkqueue). See the package doc of
# drivers/kqueue for why: the package is in no stable Debian suite, and its
# source package is not served, so there is no fallback: fail loudly.
#
# The mirror and keyring are read from the machine's own Debian source entry,
# so this script names no host. Idempotent: rerunning rewrites the same file
# and finds the package installed. Experimental is NotAutomatic, so nothing
# else upgrades from it.
set -euo pipefail

src=/etc/apt/sources.list.d/debian.sources
out=/etc/apt/sources.list.d/eventloop-experimental.sources

if pkg-config --exists libkqueue 2>/dev/null; then
	echo "libkqueue $(pkg-config --modversion libkqueue) already installed"
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	sudo=(sudo)
fi

[ -r "$src" ] || { echo "install-libkqueue: $src not found (not a deb822 Debian machine?)" >&2; exit 1; }

# Take URIs and Signed-By from the first stanza that serves a plain release
# suite (not -security, -updates, -backports).
read -r uris signedby < <(awk '
	function flush() {
		if (!done && release && uris != "") { print uris, signedby; done = 1 }
		uris = ""; signedby = ""; release = 0
	}
	/^[[:space:]]*$/ { flush(); next }
	/^URIs:/      { uris = $2 }
	/^Signed-By:/ { signedby = $2 }
	/^Suites:/    { for (i = 2; i <= NF; i++) if ($i !~ /-/) release = 1 }
	END { flush() }
' "$src")

if [ -z "${uris:-}" ] || [ -z "${signedby:-}" ]; then
	echo "install-libkqueue: no release stanza with URIs and Signed-By in $src" >&2
	exit 1
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cat >"$tmp" <<STANZA
Types: deb
URIs: $uris
Suites: experimental
Components: main
Signed-By: $signedby
STANZA
"${sudo[@]}" install -m 0644 "$tmp" "$out"

"${sudo[@]}" apt-get update
# pkg-config comes from the release suite: -t experimental would prefer its
# newer builds for every package named on the command line.
if ! command -v pkg-config >/dev/null; then
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y pkg-config
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -t experimental libkqueue-dev

if ! pkg-config --exists libkqueue; then
	echo "install-libkqueue: libkqueue-dev installed but pkg-config cannot find libkqueue" >&2
	exit 1
fi
echo "libkqueue $(pkg-config --modversion libkqueue) installed"
