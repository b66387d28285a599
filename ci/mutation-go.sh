#!/usr/bin/env bash
# The `go` that ci/mutation.sh puts before the real one in gremlins' PATH:
# it runs a mutant's tests in two steps, so that a package whose tests take
# half a minute (socket, httpserver) is measured in an hour, not in eight.
#
#   1. the fastest of the tests that reached the mutated line when each ran
#      alone (the index ci/mutation.sh built from one coverage profile per
#      test): a failure there is the verdict, KILLED, without running the
#      rest;
#   2. if they pass, the package's whole test run, as gremlins alone would
#      make it: LIVED means what it meant without this shim.
#
# So a verdict is never weaker than gremlins' own: only a killed mutant is
# judged on fewer tests, and a test that fails is a failing test. Any other
# go command, and a test run with no mutated file (gremlins' coverage run),
# goes to the real go unchanged.
#
# A mutant that makes the selected tests hang would hold the worker until
# gremlins' own timeout, three whole test runs. Step 1 has a timeout of its
# own instead (10 s plus three times what those tests took alone); when it
# strikes, the mutant's position goes to MUTATION_TIMEOUTS and the verdict is
# a failure, which ci/mutation.sh then counts as TIMED OUT, not as KILLED.
#
# Environment (set by ci/mutation.sh): MUTATION_REAL_GO, the real go;
# MUTATION_PKG_DIR, the package's directory in the repository (gremlins runs
# in a copy of it); MUTATION_INDEX, lines "file first-line last-line test";
# MUTATION_TIMES, lines "test seconds"; MUTATION_TIMEOUTS, where hangs go.
set -uo pipefail
real=${MUTATION_REAL_GO:?}
[ "${1:-}" = test ] && [ -n "${MUTATION_INDEX:-}" ] || exec "$real" "$@"

# The mutated file and line: the one non-test .go file here that differs
# from the repository's (gremlins changes one token and keeps the lines).
file= line= col=
for f in *.go; do
	case $f in *_test.go) continue ;; esac
	out=$(cmp -- "$f" "$MUTATION_PKG_DIR/$f" 2>/dev/null) && continue
	file=$f
	line=$(sed -n 's/.*, line \([0-9][0-9]*\).*/\1/p' <<<"$out")
	byte=$(sed -n 's/.*differ: byte \([0-9][0-9]*\),.*/\1/p' <<<"$out")
	[ -n "$line" ] && [ -n "$byte" ] && col=$((byte - $(head -n $((line - 1)) "$f" | wc -c)))
	break
done
[ -n "$file" ] && [ -n "$col" ] || exec "$real" "$@"

# The fastest of the tests that reach the line, up to 10 s of them as they
# ran alone (at least one): a line every test reaches (a Read) needs only
# one to fail, and a hang is cut short by the timeout they allow.
mapfile -t tests < <(awk -v f="$file" -v l="$line" '
	FILENAME == ARGV[1] { secs[$1] = $2; next }
	$1 == f && $2 <= l && l <= $3 && !($4 in seen) { seen[$4] = 1; print secs[$4] + 0, $4 }' \
	"${MUTATION_TIMES:-/dev/null}" "$MUTATION_INDEX" | sort -n |
	awk '{ t += $1 } NR == 1 || t <= 10 { print $2 }')
if [ ${#tests[@]} -gt 0 ]; then
	run=$(IFS='|'; echo "^(${tests[*]})\$")
	secs=$(awk -v run="$run" '$1 ~ run { t += $2 } END { printf "%d", 10 + 3 * t }' "${MUTATION_TIMES:-/dev/null}")
	out=$(mktemp)
	# -run and -timeout go before the package, the last argument gremlins
	# passes; the later -timeout wins over gremlins'.
	"$real" "${@:1:$#-1}" -run "$run" -timeout "${secs}s" "${@: -1}" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q '^panic: test timed out after' "$out"; then
		echo "$file:$line:$col" >>"${MUTATION_TIMEOUTS:-/dev/null}"
	fi
	rm -f "$out"
	[ $rc -eq 0 ] || exit $rc
fi
exec "$real" "$@"
