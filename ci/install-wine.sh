#!/usr/bin/env bash
# Installs what running the Windows tests under Wine takes (see the "Windows
# under Wine" block of ci/test.sh): Debian's Wine 8.0 (wine64) and MinGW
# (gcc-mingw-w64-x86-64-win32), a Wine prefix of the project's own, and in
# it a stand-in bcryptprimitives.dll built from ci/wine/bcryptprimitives.c:
# Go's Windows runtime needs ProcessPrng from it (Windows 10 and later), and
# Wine 8.0 has no such DLL.
#
# The prefix is $EVENTLOOP_WINEPREFIX, by default
# $HOME/.cache/eventloop-wine; ci/test.sh reads the same variable. Each step
# is skipped when its result is there already, and any step that fails
# stops the script with a message: nothing is left half-done silently.
set -euo pipefail
cd "$(dirname "$0")/.."

wine=/usr/lib/wine/wine64
prefix=${EVENTLOOP_WINEPREFIX:-$HOME/.cache/eventloop-wine}
cc=x86_64-w64-mingw32-gcc

die() { echo "install-wine: $*" >&2; exit 1; }

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	sudo=(sudo)
fi

missing=()
[ -x "$wine" ] || missing+=(wine64)
command -v "$cc" >/dev/null || missing+=(gcc-mingw-w64-x86-64-win32)
if [ "${#missing[@]}" -gt 0 ]; then
	"${sudo[@]}" apt-get update || die "apt-get update failed"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "${missing[@]}" || die "apt-get install ${missing[*]} failed"
fi
[ -x "$wine" ] || die "$wine missing after installing wine64"
command -v "$cc" >/dev/null || die "$cc missing after installing gcc-mingw-w64-x86-64-win32"

# The prefix: wineboot creates it; no Mono or Gecko (nothing here needs
# .NET or a browser engine, and their installers would ask to download).
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
sys32=$WINEPREFIX/drive_c/windows/system32
if [ ! -d "$sys32" ]; then
	mkdir -p "$WINEPREFIX"
	"$wine" wineboot --init >/dev/null 2>&1 || die "wineboot --init failed for prefix $WINEPREFIX"
	# wineboot returns before the server has written the prefix out.
	if [ -x /usr/lib/wine/wineserver ]; then
		/usr/lib/wine/wineserver -w || true
	fi
fi
[ -d "$sys32" ] || die "no $sys32 after creating the prefix"

# The stand-in DLL, rebuilt whenever its source is newer than the copy.
dll=$sys32/bcryptprimitives.dll
src=ci/wine/bcryptprimitives.c
if [ ! -f "$dll" ] || [ "$src" -nt "$dll" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	"$cc" -shared -O2 -Wall -Werror -o "$tmp/bcryptprimitives.dll" "$src" -ladvapi32 ||
		die "building $src failed"
	cp "$tmp/bcryptprimitives.dll" "$dll" || die "copying the DLL into $sys32 failed"
fi

echo "wine: $("$wine" --version), prefix $WINEPREFIX, $(basename "$dll") in place"
