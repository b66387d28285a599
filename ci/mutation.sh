#!/usr/bin/env bash
# Mutation testing of the packages a change touched, with gremlins v0.6.0
# (installed here if missing). Not a CI cell: each mutant costs a build and
# a run of its package's tests, so a package takes from minutes (core,
# httpclient) to hours (httpserver). CONTRIBUTING.md says when to run it.
#
#   ci/mutation.sh [--base REF]            the packages whose non-test .go
#                                          files changed since the merge base
#                                          with REF (default origin/main, else
#                                          main), their changed lines only
#   ci/mutation.sh [--base REF] PKG...     those packages, changed lines only
#   ci/mutation.sh --all PKG...            every mutant of PKG (no diff)
#
#   --only REGEXP              mutate only the package's files whose name
#                              matches (e.g. '^(tick|timers)\.go$')
#   --timeout-coefficient N    a mutant's tests time out after N times the
#                              package's coverage run (default: enough for
#                              30 s, at least 3, from a timed test run: a
#                              mutant's build counts against its timeout)
#   --tags TAGS                build tags, as go test -tags
#   --no-select                run the package's whole tests for every
#                              mutant, not first the tests that reach it
#   --keep DIR                 keep the logs, the test index and the list
#                              of step-1 hangs in DIR (made if missing)
#                              instead of a temporary directory removed on
#                              exit: a run stopped halfway can then still
#                              be counted
#
# How gremlins meets the project's tests: it copies the module, applies one
# mutant and runs `go test -failfast` on the mutated package alone (no
# -race, the default driver). A mutant is KILLED when that package's tests
# fail, LIVED when they pass. Other packages' tests do not judge it: core's
# conformance cases run from drivers/*, so a core mutant only they would
# catch lives, and code only they reach counts as not covered. gremlins'
# --integration would run the whole module per mutant (hours). Test flags
# reach go test through GOFLAGS, e.g. GOFLAGS=-skip='^TestWrk$' to leave out
# a load test (say so when quoting the figures).
#
# Test selection (unless --no-select): before gremlins, the package's tests
# run one at a time, each with a coverage profile, which index the tests
# that reach each line. Each mutant's tests then run in two steps
# (ci/mutation-go.sh, gremlins' `go`): the fastest of the tests that reach
# its line (up to 10 s of them), whose failure kills it; if they pass, the
# whole package's, as without selection. A hang of the first step ends at
# its own timeout and is counted as gremlins' timeout would count it. A
# verdict is what gremlins alone would give; a killed mutant costs a few
# seconds instead of a whole test run.
#
# It prints gremlins' lines (the mutants it ran) and summary per package,
# then the survivors by file and line. Exit 0 when every run finished (survivors included), 1 when one
# failed, 2 on misuse.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
	echo "ci/mutation.sh: $* (ci/mutation.sh --help says more)" >&2
	exit 2
}

base=
all=0
only=
coefficient=
tags=
selection=1
keep=
pkgs=()
named=1
while [ $# -gt 0 ]; do
	case $1 in
	--base) [ $# -ge 2 ] || usage "--base needs a git ref"; base=$2; shift 2 ;;
	--all) all=1; shift ;;
	--only) [ $# -ge 2 ] || usage "--only needs a regexp"; only=$2; shift 2 ;;
	--timeout-coefficient)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage "--timeout-coefficient needs a positive integer"
		coefficient=$2; shift 2 ;;
	--tags) [ $# -ge 2 ] || usage "--tags needs a list"; tags=$2; shift 2 ;;
	--no-select) selection=0; shift ;;
	--keep) [ $# -ge 2 ] || usage "--keep needs a directory"; keep=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) usage "unknown option $1" ;;
	*) pkgs+=("$1"); shift ;;
	esac
done
[ "$all" = 0 ] || [ -z "$base" ] || usage "--all and --base exclude each other"
[ "$all" = 0 ] || [ ${#pkgs[@]} -gt 0 ] || usage "--all needs the packages to measure"
if [ -n "$only" ]; then
	echo x | grep -Eq -- "$only" 2>/dev/null
	[ $? -le 1 ] || usage "--only: bad regexp $only"
fi

if [ "$all" = 0 ]; then
	if [ -z "$base" ]; then
		for ref in origin/main main; do
			git rev-parse -q --verify "$ref^{commit}" >/dev/null && base=$ref && break
		done
		[ -n "$base" ] || usage "neither origin/main nor main exists: name a base with --base"
	fi
	git rev-parse -q --verify "$base^{commit}" >/dev/null || usage "--base $base: not a commit"
	if [ ${#pkgs[@]} -eq 0 ]; then
		named=0
		# The directories of the changed non-test .go files that belong to
		# this module (bench/ and interop/ are modules of their own).
		mapfile -t pkgs < <(git diff --merge-base "$base" --name-only --diff-filter=d -- '*.go' |
			grep -v '_test\.go$' | xargs -r -n1 dirname | sort -u)
		if [ ${#pkgs[@]} -eq 0 ]; then
			echo "no non-test .go file changed since the merge base with $base: nothing to mutate"
			exit 0
		fi
	fi
fi

# pkgdir DIR: DIR as a module-relative directory holding non-test Go
# files of this module, or empty.
pkgdir() {
	local d=${1#./}
	d=${d%/}
	d=${d:-.}
	[ -d "$d" ] || return
	ls "$d"/*.go 2>/dev/null | grep -qv '_test\.go$' || return
	local up=$d
	while [ "$up" != . ]; do
		[ -f "$up/go.mod" ] && return
		up=$(dirname "$up")
	done
	echo "$d"
}
dirs=()
for p in "${pkgs[@]}"; do
	d=$(pkgdir "$p")
	if [ -z "$d" ]; then
		[ "$named" = 0 ] || usage "$p: not a package directory of this module"
		echo "$p: not a package of this module, skipped"
		continue
	fi
	dirs+=("$d")
done

gremlins=$(go env GOPATH)/bin/gremlins
if ! go version -m "$gremlins" 2>/dev/null | grep -q 'github.com/go-gremlins/gremlins[[:space:]]*v0\.6\.0'; then
	echo "installing gremlins v0.6.0"
	go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0 || exit 1
fi

if [ -n "$keep" ]; then
	mkdir -p "$keep" || usage "--keep: cannot make $keep"
	logdir=$(cd "$keep" && pwd)
	rm -rf "$logdir/bin"
else
	logdir=$(mktemp -d)
	trap 'rm -rf "$logdir"' EXIT
fi

# index DIR OUT TIMES: for every test and example of the package in DIR,
# the lines it reached when it ran alone, as lines "file first last test"
# in OUT, and the seconds it took, as lines "test seconds" in TIMES. A test
# that fails alone still counts what it reached.
index() {
	local d=$1 out=$2 times=$3 prof=$logdir/cover.out n start
	: >"$out"
	: >"$times"
	mapfile -t names < <(cd "$d" && nice -n 19 go test -count=1 ${tags:+-tags "$tags"} -list '.*' . 2>/dev/null | grep -E '^(Test|Example)')
	for n in "${names[@]}"; do
		rm -f "$prof"
		start=$(date +%s%N)
		(cd "$d" && nice -n 19 go test -count=1 ${tags:+-tags "$tags"} -run "^$n\$" -coverprofile="$prof" . >/dev/null 2>&1)
		echo "$n $((($(date +%s%N) - start) / 1000000000))" >>"$times"
		[ -s "$prof" ] || continue
		awk -v t="$n" 'NR > 1 && $3 > 0 {
			split($1, a, ":"); f = a[1]; sub(/.*\//, "", f)
			split(a[2], r, ","); split(r[1], s, "."); split(r[2], e, ".")
			print f, s[1], e[1], t
		}' "$prof" >>"$out"
	done
	sort -u -o "$out" "$out"
	echo "   indexed ${#names[@]} tests and examples"
}
shim=$logdir/bin
mkdir -p "$shim"
ln -s "$(pwd)/ci/mutation-go.sh" "$shim/go"
failed=0
survivors=0
for d in "${dirs[@]}"; do
	c=$coefficient
	if [ -z "$c" ]; then
		start=$(date +%s%N)
		nice -n 19 go test -count=1 ${tags:+-tags "$tags"} "./$d" >/dev/null 2>&1 ||
			echo "== $d: its tests fail before any mutant; gremlins will say so"
		ms=$((($(date +%s%N) - start) / 1000000))
		c=$(((30000 + ms - 1) / (ms > 0 ? ms : 1)))
		[ "$c" -ge 3 ] || c=3
	fi
	args=(unleash --workers 1 --timeout-coefficient "$c" -S lktv)
	[ -z "$tags" ] || args+=(--tags "$tags")
	# Files of sub-packages are their own packages' business.
	args+=(-E /)
	if [ -n "$only" ]; then
		for f in "$d"/*.go; do
			f=${f##*/}
			grep -Eq -- "$only" <<<"$f" || args+=(-E "^${f//./\\.}\$")
		done
	fi
	# A cached coverage run would make the timeout, its time times the
	# coefficient, shorter than a mutant's build.
	env=(GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1")
	if [ "$all" = 0 ]; then
		# gremlins v0.6.0 keys its diff by paths from the repository's root
		# and its mutants by paths from the package, so in a package
		# directory every mutant would be SKIPPED (go-gremlins/gremlins
		# issue 278): git's diff.relative makes the diff speak the package's
		# paths. An empty diff would mean "mutate everything", hence the
		# check.
		env+=(GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=diff.relative GIT_CONFIG_VALUE_0=true)
		if [ -z "$(cd "$d" && env "${env[@]}" git diff --merge-base "$base" -- '*.go')" ]; then
			echo "== $d: no .go change since the merge base with $base"
			continue
		fi
		args+=(--diff "$base")
		git ls-files --others --exclude-standard -- "$d/*.go" | grep -q . &&
			echo "$d: untracked .go files are not in the diff (git add -N them)"
	fi
	log="$logdir/$(tr / _ <<<"$d").log"
	if [ "$selection" = 1 ]; then
		echo "== $d: indexing the tests that reach each line"
		idx="$logdir/$(tr / _ <<<"$d").index"
		index "$d" "$idx" "$idx.times"
		: >"$idx.hangs"
		env+=(PATH="$shim:$PATH" MUTATION_REAL_GO="$(command -v go)" MUTATION_PKG_DIR="$(pwd)/$d"
			MUTATION_INDEX="$idx" MUTATION_TIMES="$idx.times" MUTATION_TIMEOUTS="$idx.hangs")
	fi
	echo "== $d: gremlins ${args[*]}"
	(cd "$d" && env "${env[@]}" nice -n 19 "$gremlins" "${args[@]}") 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ $rc -ne 0 ] || ! grep -q '^Mutator coverage\|No results to report' "$log"; then
		echo "   gremlins failed (exit $rc)"
		failed=1
		continue
	fi
	if [ "$selection" = 1 ]; then
		# gremlins took the selected tests' hangs for failures: they are
		# timeouts, as gremlins' own timeout would have made them. The
		# shim saw the first differing byte, the operator's first or
		# second.
		sed -i 's/\x1b\[[0-9;]*m//g' "$log"
		awk -F: 'FILENAME == ARGV[1] { hang[$1 ":" $2 ":" $3] = 1; hang[$1 ":" $2 ":" ($3 - 1)] = 1; next }
			/^ *KILLED / { split($0, w, " at "); if (w[2] in hang) sub(/   KILLED/, "TIMED OUT") } { print }' \
			"$idx.hangs" "$log" >"$log.new" && mv "$log.new" "$log"
		awk '/^ *KILLED / { k++ } /^ *LIVED / { l++ } /^ *TIMED OUT / { t++ } /^Killed: .*Not covered: / { sub(/.*Not covered: /, ""); n = $1 + 0 }
			END { printf "   counting the selected tests'"'"' hangs as timeouts: killed %d, lived %d, timed out %d, not covered %d; efficacy %.2f%%, mutant coverage %.2f%%\n",
				k, l, t, n, (k + l) ? 100 * k / (k + l) : 0, (k + l + n) ? 100 * (k + l) / (k + l + n) : 0 }' "$log"
		grep '^ *TIMED OUT ' "$log" | sed 's/^/   /'
	fi
	lived=$(sed 's/\x1b\[[0-9;]*m//g' "$log" |
		awk -v d="$d" '$1 == "LIVED" { print (d == "." ? "" : d "/") $4, $2 }' |
		sort -t: -k1,1 -k2,2n -k3,3n)
	if [ -n "$lived" ]; then
		echo "   survivors:"
		sed 's/^/     /' <<<"$lived"
		survivors=$((survivors + $(wc -l <<<"$lived")))
	fi
done
echo "survivors: $survivors"
exit $failed
