#!/usr/bin/env bash
# The project's test command (README): formatting, vet, the race-enabled
# tests of every package, and the driver matrix: the conformance suite once
# per driver available here (kqueue over libkqueue named explicitly, so that
# it cannot vanish behind its build tag), every build tag, and a cross-build
# and vet for every target the drivers claim. One line per cell: name,
# result, tests run, seconds. The last line sums the tests.
#
#   ci/test.sh          everything
#   ci/test.sh quick    skip the cross-compile cells
#
# On a machine without them it first installs what the cells need, saying
# so: libkqueue (Debian experimental), curl and wrk, headless Chromium,
# Wine and MinGW with
# the project's Wine prefix (ci/install-*.sh, through apt-get, with sudo
# when not root; each is skipped when present). EVENTLOOP_NO_SETUP=1 skips
# that, and the cells that need what is missing fail, naming it.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${EVENTLOOP_NO_SETUP:-}" != 1 ]; then
	for script in install-libkqueue install-http-tools install-browser install-wine; do
		echo "setup: ci/$script.sh"
		if ! bash "ci/$script.sh" 2>&1 | sed 's/^/setup:   /'; then
			echo "setup: ci/$script.sh failed; the cells that need it will fail"
		fi
	done
fi

mode=${1:-full}
failed_cells=0
passed_tests=0
failed_tests=0
skipped_tests=0
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# cell NAME CMD...: run CMD, print one line; on failure show the log's tail.
cell() {
	local name=$1
	shift
	local log="$logdir/$(echo "$name" | tr -c 'A-Za-z0-9' '_').log"
	local start=$SECONDS status
	if "$@" >"$log" 2>&1; then status=pass; else status=FAIL; fi
	local p f s
	p=$(grep -cE '^\s*--- PASS' "$log")
	f=$(grep -cE '^\s*--- FAIL' "$log")
	s=$(grep -cE '^\s*--- SKIP' "$log")
	passed_tests=$((passed_tests + p))
	failed_tests=$((failed_tests + f))
	skipped_tests=$((skipped_tests + s))
	printf '%-44s %-4s %6d tests %4ds\n' "$name" "$status" "$((p + f))" "$((SECONDS - start))"
	if [ "$status" = FAIL ]; then
		failed_cells=$((failed_cells + 1))
		grep -E -- '--- FAIL|panic:|FAIL' "$log" | head -40 | sed 's/^/    | /'
		failure_messages "$log" | head -40 | sed 's/^/    | /'
		tail -n 40 "$log" | sed 's/^/    | /'
	fi
	if [ "$s" -gt 0 ]; then
		grep -E -A2 -- '--- SKIP' "$log" | head -20 | sed 's/^/    skip | /'
	fi
}

# failure_messages LOG: what the failed tests of a go test -v log said
# (their lines file.go:N: ...), the test's name before each; the output
# of a test follows its "=== RUN", "=== CONT" or "=== NAME" line.
failure_messages() {
	awk '
		/^=== (RUN|CONT|NAME) / { cur = $3; next }
		/^[ \t]*--- FAIL: / { failed[$3] = 1; next }
		/^[ \t]+[^ \t]+\.go:[0-9]+: / { n++; who[n] = cur; line[n] = $0 }
		END { for (i = 1; i <= n; i++) if (failed[who[i]]) print who[i] ":" line[i] }
	' "$1"
}

# expect_fail NAME PATTERN CMD...: the command must fail and say PATTERN.
expect_fail() {
	local name=$1 pattern=$2
	shift 2
	cell "$name" bash -c '! "$@" >"$0" 2>&1 && grep -q -- "'"$pattern"'" "$0"' "$logdir/expect.out" "$@"
}

# Windows under Wine (ci/install-wine.sh sets it up): wine64, its prefix
# with the stand-in DLL Go's runtime needs at start-up, and MinGW's gcc,
# which -race needs (the race runtime for windows is linked through cgo).
wine=/usr/lib/wine/wine64
wine_prefix=${EVENTLOOP_WINEPREFIX:-$HOME/.cache/eventloop-wine}
have_wine() {
	[ -x "$wine" ] && command -v x86_64-w64-mingw32-gcc >/dev/null &&
		[ -f "$wine_prefix/drive_c/windows/system32/bcryptprimitives.dll" ]
}
# Wine's server exits the moment its last client does (Debian's wrapper
# passes -p0), and a client that starts just then fails at once ("wine
# client error:0: recvmsg: Connection reset by peer"): the Windows cells
# run on one persistent server, stopped when this script exits. The
# services Wine starts with its first program (winedevice.exe) live as
# long as the server and keep that program's stdout: started here by a
# program of our own with /dev/null for it, else they would hold a test's
# output pipe open and go test would wait a minute for it, then fail.
wineserver=/usr/lib/wine/wineserver64
start_wineserver() {
	[ -x "$wineserver" ] || wineserver=/usr/lib/wine/wineserver
	env WINEPREFIX="$wine_prefix" "$wineserver" -p &&
		trap 'env WINEPREFIX="$wine_prefix" "$wineserver" -k 2>/dev/null; rm -rf "$logdir"' EXIT &&
		env WINEPREFIX="$wine_prefix" WINEDEBUG=-all "$wine" cmd /c exit </dev/null >/dev/null 2>&1
}
# on_wine CMD...: CMD with the go command building for windows/amd64 (cgo
# through MinGW) and Wine set up to run what it builds.
on_wine() {
	env WINEPREFIX="$wine_prefix" WINEDEBUG=-all GOOS=windows GOARCH=amd64 \
		CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc "$@"
}
# drivers_on_wine: `eventloop drivers`, built for windows, lists both
# Windows drivers and picks afd.
drivers_on_wine() {
	on_wine go build -race -o "$logdir/eventloop.exe" ./cmd/eventloop || return 1
	local out
	out=$(on_wine "$wine" "$logdir/eventloop.exe" drivers 2>&1)
	echo "$out"
	grep -q '^drivers:  afd, stream ' <<<"$out" && grep -q '^New():    afd, because' <<<"$out"
}
gofmt_clean() { test -z "$(gofmt -l . | tee /dev/stderr)"; }
have_libkqueue() { pkg-config --exists libkqueue; }
# drivers_without_core: the drivers and their helpers import the seam
# (package driver), never the scheduler, on every build of them.
drivers_without_core() {
	local tags
	for tags in "" eventloop_libkqueue; do
		if go list -deps -tags "$tags" ./drivers/... | grep -x 'github.com/revoltgo/eventloop/core'; then
			echo "a driver package imports core (tags: ${tags:-none})"
			return 1
		fi
	done
}
# at_least N CMD...: CMD passes and runs at least N tests (a package whose
# files a build tag excludes would otherwise pass silently with none).
at_least() {
	local n=$1
	shift
	local out
	out=$("$@" 2>&1)
	local rc=$?
	echo "$out"
	local ran
	ran=$(echo "$out" | grep -cE '^\s*--- (PASS|FAIL)')
	if [ "$ran" -lt "$n" ]; then
		echo "ran $ran tests, want at least $n"
		return 1
	fi
	return $rc
}
# passes NAME CMD...: CMD passes and so does the test NAME (a full subtest
# name): a -run that misses it, or a skip, would otherwise leave only its
# parents to pass.
passes() {
	local name=$1
	shift
	local out
	out=$("$@" 2>&1)
	local rc=$?
	echo "$out"
	# grep reads a here-string, not a pipe: with pipefail, echo killed by
	# SIGPIPE when grep -q stops at its match would fail the check.
	if ! grep -qE -- "^\s*--- PASS: $name \(" <<<"$out"; then
		echo "$name did not pass; the lines that name it:"
		echo "$out" | grep -n -- "$name" | head -20
		return 1
	fi
	return $rc
}

echo "go: $(go version)"
cell "gofmt" gofmt_clean
cell "vet" go vet ./...
cell "vet tags=eventloop_libkqueue" go vet -tags eventloop_libkqueue ./...
cell "drivers import driver, never core" drivers_without_core

cell "test -race core, root, conformance" go test -race -count=1 -v . ./core/... ./internal/... ./conformance/... ./examples/... ./expvarloop/...
for d in stream epoll netpoll; do
	cell "conformance -race driver=$d" at_least 100 go test -race -count=1 -v ./drivers/$d/
done
if have_libkqueue; then
	cell "conformance -race driver=kqueue (libkqueue)" at_least 100 \
		go test -race -count=1 -v -tags eventloop_libkqueue ./drivers/kqueue/
else
	cell "conformance driver=kqueue: libkqueue missing" false
fi
cell "test -race drivers/internal" go test -race -count=1 -v ./drivers/internal/...
# Packages socket and websocket run every case (nettest.TestConn
# included) on every driver of the build; kqueue, which needs its tag,
# alone in a second cell (the tests take EVENTLOOP_DRIVER as the only
# driver when it is set). websocket's TestBrowser runs headless Chromium
# (ci/install-browser.sh).
cell "socket, websocket -race (every driver)" passes 'TestBadFrames/epoll' passes 'TestBadFrames/netpoll' \
	passes 'TestBadFrames/stream' passes 'TestBrowser/ContextTakeover=false/epoll' \
	passes 'TestBrowser/ContextTakeover=true/stream' go test -race -count=1 -v ./socket/ ./websocket/
if have_libkqueue; then
	cell "socket, websocket -race driver=kqueue (libkqueue)" passes 'TestNetConn/kqueue' passes 'TestBadFrames/kqueue' \
		passes 'TestBrowser/ContextTakeover=true/kqueue' \
		env EVENTLOOP_DRIVER=kqueue go test -race -count=1 -v -tags eventloop_libkqueue ./socket/ ./websocket/
else
	cell "socket driver=kqueue: libkqueue missing" false
fi
# Package httpserver likewise: every case on every driver, curl and wrk
# as clients among them (TestCurl, TestWrk: ci/install-http-tools.sh
# installs them), kqueue alone in a second cell.
cell "httpserver -race (every driver)" passes 'TestWrk/epoll' go test -race -count=1 -v ./httpserver/
if have_libkqueue; then
	cell "httpserver -race driver=kqueue (libkqueue)" passes 'TestWrk/kqueue' \
		env EVENTLOOP_DRIVER=kqueue go test -race -count=1 -v -tags eventloop_libkqueue ./httpserver/
else
	cell "httpserver driver=kqueue: libkqueue missing" false
fi
# Package httpclient likewise: its differential suite against net/http's
# Transport, from fibers and goroutines, on every driver; kqueue alone in
# a second cell (under Wine it runs with every other package).
cell "httpclient -race (every driver)" passes 'TestDifferential/epoll' passes 'TestDifferential/netpoll' \
	passes 'TestDifferential/stream' go test -race -count=1 -v ./httpclient/
if have_libkqueue; then
	cell "httpclient -race driver=kqueue (libkqueue)" passes 'TestDifferential/kqueue' \
		env EVENTLOOP_DRIVER=kqueue go test -race -count=1 -v -tags eventloop_libkqueue ./httpclient/
else
	cell "httpclient driver=kqueue: libkqueue missing" false
fi
# Package fiber likewise: its primitives from fibers and from goroutines,
# every case on every driver, each driver named; kqueue alone in a second
# cell.
cell "fiber -race (every driver)" passes 'TestCloseUnwindsWaits/epoll' passes 'TestCloseUnwindsWaits/netpoll' \
	passes 'TestCloseUnwindsWaits/stream' go test -race -count=1 -v ./fiber/
if have_libkqueue; then
	cell "fiber -race driver=kqueue (libkqueue)" passes 'TestCloseUnwindsWaits/kqueue' \
		env EVENTLOOP_DRIVER=kqueue go test -race -count=1 -v -tags eventloop_libkqueue ./fiber/
else
	cell "fiber driver=kqueue: libkqueue missing" false
fi
# The interop module (a go.mod of its own, so that the WebSocket libraries
# stay out of the library's): gorilla/websocket and coder/websocket on
# httpserver against their own clients, and the traps of fibers, every case
# on every driver of the build, each driver named so that none can vanish;
# kqueue alone in a second cell. The root's ./... leaves the nested module
# out, so it has a vet of its own; gofmt's "." takes it in.
cell "vet interop module" go -C interop vet ./...
cell "interop -race (every driver)" passes 'TestEcho/epoll' passes 'TestEcho/netpoll' passes 'TestEcho/stream' \
	passes 'TestNativeServer/epoll' passes 'TestNativeServer/netpoll' passes 'TestNativeServer/stream' \
	passes 'TestNativeClient/epoll' passes 'TestNativeClient/netpoll' passes 'TestNativeClient/stream' \
	go -C interop test -race -count=1 -v ./...
if have_libkqueue; then
	cell "interop -race driver=kqueue (libkqueue)" passes 'TestEcho/kqueue' \
		passes 'TestNativeServer/kqueue' passes 'TestNativeClient/kqueue' \
		env EVENTLOOP_DRIVER=kqueue go -C interop test -race -count=1 -v -tags eventloop_libkqueue ./...
else
	cell "interop driver=kqueue: libkqueue missing" false
fi
# Packages socket, websocket, httpserver and fiber, and the interop module, on windows/amd64
# under Wine with -race (have_wine and on_wine above; the Windows block
# below reports what is missing): every case on every Windows driver, each
# named so that none can vanish.
if have_wine; then
	start_wineserver
	cell "wine: socket, websocket -race (every driver)" passes 'TestNetConn/afd' passes 'TestNetConn/stream' \
		passes 'TestBadFrames/afd' passes 'TestBadFrames/stream' \
		on_wine go test -race -count=1 -v -exec "$wine" ./socket/ ./websocket/
	cell "wine: httpserver -race (every driver)" passes 'TestWatchSeesClientGo/afd' \
		passes 'TestWatchSeesClientGo/stream' on_wine go test -race -count=1 -v -exec "$wine" ./httpserver/
	cell "wine: interop -race (every driver)" passes 'TestEcho/afd' passes 'TestEcho/stream' \
		passes 'TestNativeServer/afd' passes 'TestNativeServer/stream' \
		passes 'TestNativeClient/afd' passes 'TestNativeClient/stream' \
		on_wine go -C interop test -race -count=1 -v -exec "$wine" ./...
	cell "wine: fiber -race (every driver)" passes 'TestCloseUnwindsWaits/afd' \
		passes 'TestCloseUnwindsWaits/stream' on_wine go test -race -count=1 -v -exec "$wine" ./fiber/
fi
# A short fuzz of the loop against its reference model (a count, not a
# time: a time limit can end in a spurious "context deadline exceeded" from
# the fuzzing coordinator of go1.26).
cell "fuzz FuzzLoop 20000x" go test -run '^$' -fuzz '^FuzzLoop$' -fuzztime 20000x -parallel 1 -timeout 300s ./core/
# The bounded soak (conformance.Run runs it for 2 s in every driver cell
# above): 10 s on epoll, the soak alone.
cell "soak -race 10s driver=epoll" passes TestConformance/Soak/MixedWorkload \
	env EVENTLOOP_SOAK=10s go test -race -count=1 -v -run 'TestConformance/^Soak$' ./drivers/epoll/
expect_fail "kqueue tag without cgo fails loudly" "cgo" \
	env CGO_ENABLED=0 go test -count=1 -tags eventloop_libkqueue ./drivers/kqueue/

# TestTagPicksDriver reads the driver the tag should pick from
# EVENTLOOP_EXPECT_DRIVER; it fails on a tagged build without it and on an
# untagged one with it, so a lost or misspelt tag fails the cell.
for t in stream epoll netpoll; do
	cell "tag eventloop_$t picks $t" passes TestTagPicksDriver \
		env EVENTLOOP_EXPECT_DRIVER=$t go test -count=1 -v -tags eventloop_$t -run '^TestTagPicksDriver$' .
done
cell "tag eventloop_kqueue picks kqueue (libkqueue)" passes TestTagPicksDriver \
	env EVENTLOOP_EXPECT_DRIVER=kqueue go test -count=1 -v -tags "eventloop_kqueue eventloop_libkqueue" -run '^TestTagPicksDriver$' .
expect_fail "two driver tags fail the build" "at_most_one_eventloop_driver_build_tag" \
	go build -tags "eventloop_stream eventloop_epoll" .

cell "vet bench module (peers)" go -C bench vet ./...
cell "test bench module (httppeers, wsbench, wspeers)" go -C bench test -race -count=1 ./...
cell "test -race cmd" go test -race -count=1 -v ./cmd/...
# A smoke run of the measurements, peers included: no speed is asserted.
cell "smoke: eventloop bench --quick" go run ./cmd/eventloop bench --quick
cell "smoke: eventloop bench --net --quick" go run ./cmd/eventloop bench --net --quick
cell "smoke: eventloop bench --http --quick" go run ./cmd/eventloop bench --http --quick
cell "smoke: eventloop drivers" go run ./cmd/eventloop drivers
# The WebSocket benchmark (module bench/: gorilla on net/http, nbio, gorilla
# on ours), one short repetition: every echo is checked, no speed asserted.
cell "smoke: wsbench -quick" go -C bench run ./wsbench -quick

# Windows under Wine: the tests of every package built for windows/amd64
# and run by wine64 (go test -exec), with -race: the conformance suite once
# per Windows driver, the rest in one cell (socket, websocket and httpserver, which
# run every Windows driver, have cells of their own above); then the tags
# and what `eventloop drivers` says. One cell after the other: Wine's
# server completes socket polls when it gets round to it, and a loaded
# machine shows in the timing cases.
if have_wine; then
	win_rest=$(GOOS=windows go list ./... | grep -v -x -e '.*/drivers/afd' -e '.*/drivers/stream' -e '.*/socket' \
		-e '.*/websocket' -e '.*/httpserver' -e '.*/fiber')
	for d in afd stream; do
		cell "wine: conformance -race driver=$d" at_least 100 \
			on_wine go test -race -count=1 -v -exec "$wine" ./drivers/$d/
	done
	# shellcheck disable=SC2086
	cell "wine: test -race every other package" on_wine go test -race -count=1 -v -exec "$wine" $win_rest
	for t in afd stream; do
		cell "wine: tag eventloop_$t picks $t" passes TestTagPicksDriver \
			on_wine env EVENTLOOP_EXPECT_DRIVER=$t go test -race -count=1 -v -tags eventloop_$t \
			-exec "$wine" -run '^TestTagPicksDriver$' .
	done
	cell "wine: eventloop drivers picks afd" drivers_on_wine
else
	cell "Windows under Wine: no wine64, prefix or MinGW (bash ci/install-wine.sh)" false
fi

if [ "$mode" != quick ]; then
	# The cross-vets compile the standard library once per target: run two
	# at a time (one per core), then report them in order.
	# Every package, tests included, is vetted for the targets the matrix
	# claims (linux/amd64 is the vet cell above; linux/386 catches constants
	# that overflow a 32-bit int); the 32-bit BSD ports only build the library (their vet was
	# checked by hand: on a cold cache each target costs a minute and a
	# half, most of it compiling the standard library and test deps).
	vet_targets="linux/arm64 linux/386 darwin/amd64 darwin/arm64 freebsd/amd64 freebsd/arm64
		netbsd/amd64 netbsd/arm64 openbsd/amd64 openbsd/arm64 dragonfly/amd64 windows/amd64
		solaris/amd64 illumos/amd64 aix/ppc64"
	build_targets="freebsd/386 freebsd/arm netbsd/386 netbsd/arm openbsd/386 openbsd/arm"
	export logdir
	# shellcheck disable=SC2016
	{ printf 'vet %s\n' $vet_targets; printf 'build %s\n' $build_targets; } | xargs -P 2 -L 1 bash -c '
		what=$0 t=$1; f="$logdir/cross_${what}_${t%/*}_${t#*/}"; start=$SECONDS
		if [ "$what" = vet ]; then pkgs=./...; else pkgs="./core/... ./drivers/... ."; fi
		CGO_ENABLED=0 GOOS=${t%/*} GOARCH=${t#*/} go "$what" $pkgs >"$f.log" 2>&1
		echo "$? $((SECONDS - start))" >"$f.rc"'
	for t in $vet_targets; do
		f="$logdir/cross_vet_${t%/*}_${t#*/}"
		read -r rc secs <"$f.rc"
		cell "cross vet $t (${secs}s)" bash -c 'cat "$1"; exit "$2"' _ "$f.log" "$rc"
	done
	for t in $build_targets; do
		f="$logdir/cross_build_${t%/*}_${t#*/}"
		read -r rc secs <"$f.rc"
		cell "cross build $t (${secs}s)" bash -c 'cat "$1"; exit "$2"' _ "$f.log" "$rc"
	done
fi

echo "cells failed: $failed_cells"
echo "tests: $passed_tests passed, $failed_tests failed, $skipped_tests skipped"
[ "$failed_cells" -eq 0 ]
