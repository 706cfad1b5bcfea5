#!/bin/bash
# run-all.sh BUILD [PART...] - the whole test suite: unit tests (cmocka),
# man page lint, system tests on a real pvmd, a short fuzz run, every
# benchmark once in its --quick form, the unit and system tests again
# under ASan/UBSan, the unit tests under valgrind, and `make distcheck`.
# Prints one line per check with the seconds it took (and one per unit
# case cmocka skipped), then each part's time and the slowest checks, and
# ends with "N passed, N failed, N skipped".
# PARTs run only those parts, in the suite's order: unit man system fuzz
# bench asan valgrind distcheck (all by default).
set -u
usage="usage: run-all.sh BUILD [unit|man|system|fuzz|bench|asan|valgrind|distcheck ...]"
build=$(cd "${1:?$usage}" && pwd)
shift
all="unit man system fuzz bench asan valgrind distcheck"
for p in "$@"; do
	case " $all " in
	*" $p "*) ;;
	*) echo "run-all.sh: no part \"$p\"; $usage" >&2; exit 2 ;;
	esac
done
parts=" ${*:-$all} "
want() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }
src=$(cd "$(dirname "$0")/.." && pwd)
out=$build/test-results
rm -rf "$out" && mkdir -p "$out"
pass=0 fail=0 skip=0 failed=
# the seconds each check and each part took: the slow ones show in every run
stages= times=
t_run=$SECONDS
stage() {	# stage PART: PART starts (and the one before ends)
	[ -n "${stage_name:-}" ] &&
	    stages="$stages${stages:+, }$stage_name $((SECONDS - stage_t0)) s"
	stage_name=${1:-} stage_t0=$SECONDS
}
took() {	# took NAME T0 [LOG]: dt="N s" since T0 (and the wait for the lock)
	local w
	dt=$((SECONDS - $2))
	w=$(sed -n 's/^# check\.sh: waited \([0-9]*\) s for the lock$/\1/p' "${3:-/dev/null}" 2>/dev/null | tail -1)
	[ -n "$w" ] && dt=$((dt - w))
	times="$times$dt $1
"
	dt="$dt s${w:+, after $w s waiting for the lock}"
}

result() {	# result NAME RC [LOG]
	case $2 in
	0) pass=$((pass + 1)); echo "PASS: $1" ;;
	77) skip=$((skip + 1)); echo "SKIP: $1${3:+ ($(grep -m1 '^SKIP' "$3" 2>/dev/null | cut -d: -f3- | sed 's/^ //'))}" ;;
	*) fail=$((fail + 1)); echo "FAIL: $1${3:+ (log: $3)}"
	   failed="$failed$1: $(grep -m1 -E '^(FAIL: |not ok|\[  FAILED  \]|.*: ERROR: )' "${3:-/dev/null}" 2>/dev/null | cut -c1-300)
"
	   # the reason first (t_fail's line, a failed assertion), then the tail
	   [ -n "${3:-}" ] && { grep -m3 -E '^(FAIL: |not ok|\[  FAILED  \]|.*: ERROR: )' "$3"
	       tail -n 25 "$3"; } | sed 's/^/    /' ;;
	esac
}

unit_tests() {	# [unit_jobs=N] unit_tests BUILDDIR TAG [WRAPPER...]
	local b=$1 tag=$2 t; shift 2
	# N at a time (valgrind's runs: nothing is measured beside them, and
	# each test uses files and ports of its own), reported in order
	for t in "$b"/tests/unit/test_*; do
		[ -x "$t" ] || continue
		while [ "$(jobs -rp | wc -l)" -ge "${unit_jobs:-1}" ]; do wait -n; done
		local log="$out/$tag-$(basename "$t").log"
		( s=$SECONDS; "$@" "$t" > "$log" 2>&1; echo "$? $((SECONDS - s))" > "$log.rc" ) &
	done
	wait
	for t in "$b"/tests/unit/test_*; do
		[ -x "$t" ] || continue
		local name; name=$(basename "$t")
		local log="$out/$tag-$name.log"
		local rc=1 secs=0
		read -r rc secs < "$log.rc"
		rm -f "$log.rc"
		local n; n=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		took "$tag: $name" $((SECONDS - secs))
		result "$tag: $name (${n:-0} cases, $dt)" $rc "$log"
		# a case cmocka skipped (the machine cannot run it: not root,
		# no real-time budget) counts and shows as a skip of its own
		local c
		for c in $(sed -n 's/^\[  SKIPPED \] \([A-Za-z0-9_]*\)$/\1/p' "$log"); do
			skip=$((skip + 1))
			echo "SKIP: $tag: $name: $c (log: $log)"
		done
	done
}

# 1. unit tests
want unit && stage unit && unit_tests "$build" unit
# and the shell tests' waits: t_wait_for's CMD is expanded once, by its
# caller, so `t_wait_for N test -n "$(...)"` polls a value read once (t61
# failed so, rarely, for sessions): a value read again goes in a function
# or in eval '...'
if want unit; then
	log="$out/lint-waits.log"
	grep -rnE 't_wait_for [^ ]+ (test|\[) [^|]*\$\(' "$src/tests" --include='*.sh' |
	    grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' > "$log"
	[ -s "$log" ] && rc=1 || rc=0
	result "lint: no t_wait_for on a value read once" $rc "$log"
fi

# and every figure the README quotes is the generated page's
if want unit; then
	log="$out/check-figures.log"
	bash "$src/tests/bench/check-figures.sh" > "$log" 2>&1
	result "lint: README figures from docs/performance.md" $? "$log"
fi

# and the layout follows the programs: master/ includes no console/
# header, no include cycle, the engine prints nothing
if want unit; then
	log="$out/layout.log"
	bash "$src/tests/layout.sh" > "$log" 2>&1
	result "layout: master/ apart from console/, no include cycle" $? "$log"
fi

# 2. man pages: lint clean
want man && stage man && for m in "$build"/man/*.[0-9]; do
	log="$out/man-$(basename "$m").log"
	{ mandoc -Tlint -W warning "$m"; groff -man -ww -z "$m"; } > "$log" 2>&1
	[ -s "$log" ] && rc=1 || rc=0
	result "man: $(basename "$m") lint" $rc "$log"
done

# 3. system tests, each with its own private run directory, through the
# wrapper `make check` uses (DTS_BUILD, 300 s, one at a time per machine)
systest() {	# systest BUILD TEST LOG
	sh "$src/tests/system/check.sh" "$1" "$2" > "$3" 2>&1
}
want system && stage system && for t in "$src"/tests/system/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	log="$out/system-$name.log"
	t0=$SECONDS
	systest "$build" "$t" "$log"
	rc=$?
	took "system: $name" $t0 "$log"
	result "system: $name ($dt)" $rc "$log"
done

# 4. fuzz the datagram decoder briefly
if want fuzz; then
	stage fuzz
	log="$out/fuzz.log"
	sh "$src/tests/fuzz/run.sh" "$src" "$build/fuzz" "${FUZZ_SECONDS:-20}" > "$log" 2>&1
	result "fuzz: datagram decoder (${FUZZ_SECONDS:-20} s)" $? "$log"
fi

# 4b. every benchmark once in its --quick form: they still work
if want bench; then
	stage bench
	log="$out/bench-quick.log"
	# speed goals are reported (MISSED), correctness facts fail
	bash "$src/tests/bench/run.sh" --quick --report-only "$build" "$build/bench-quick" > "$log" 2>&1
	grep -E '^(PASS|FAIL): bench|^bench-[a-z]+: [0-9]+ (MISSED|FAIL)' "$log"
	times="$times$(sed -n 's/^\(PASS\|FAIL\): \(bench: [a-z]*\) (quick) (\([0-9]*\) s.*/\3 \2/p' "$log")
"
	pass=$((pass + $(grep -c '^PASS: bench' "$log")))
	fail=$((fail + $(grep -c '^FAIL: bench' "$log")))
	# a failed bench's reason (its t_fail line) and its log's tail, here
	# and in the list above the count, as result() gives a check's
	while IFS= read -r line; do
		blog=$(sed -n 's/.*; log: \(.*\))$/\1/p' <<< "$line")
		why=$(grep -m1 -E '^(FAIL: |.*: ERROR: )' "${blog:-/dev/null}" 2>/dev/null | cut -c1-300)
		failed="$failed${line#FAIL: }: $why
"
		[ -n "$blog" ] && { echo "  $line"; grep -m3 -E '^(FAIL: |.*: ERROR: )' "$blog"
		    grep -v -E '^#   .*debug: ' "$blog" | tail -n 25; } | sed 's/^/    /'
	done < <(grep '^FAIL: bench' "$log")
fi

# 5. ASan + UBSan: unit tests and the system tests that exercise dts
san=$build/_sanitize
log="$out/sanitize-build.log"
if ! want asan; then
	:
elif stage asan && { mkdir -p "$san" && cd "$san" &&
     { [ -f Makefile ] || "$src/configure" -q --enable-sanitizers; } &&
     make -j2 all && make -j2 check TESTS=; } > "$log" 2>&1; then
	cd "$src"
	unit_tests "$san" asan
	# dts hands its stderr to pvmd and then closes it: reports go to files
	rep=$out/asan-reports && mkdir -p "$rep"
	export ASAN_OPTIONS=detect_leaks=1:log_path=$rep/asan
	export UBSAN_OPTIONS=print_stacktrace=1:log_path=$rep/ubsan
	for t in $(ls "$src"/tests/system/t[0-9]*.sh | grep -E "${SAN_SYSTEM:-datagram|modes|failsafe|adopt|agent-lost}"); do
		name=$(basename "$t" .sh)
		log="$out/asan-system-$name.log"
		rm -f "$rep"/*
		t0=$SECONDS
		systest "$san" "$t" "$log"
		rc=$?
		took "asan: system $name" $t0 "$log"
		for r in "$rep"/*; do
			[ -e "$r" ] || continue
			rc=1; { echo "--- $r"; cat "$r"; } >> "$log"
		done
		result "asan: system $name ($dt)" $rc "$log"
	done
	unset ASAN_OPTIONS UBSAN_OPTIONS
else
	cd "$src"
	result "asan: build" 1 "$log"
fi

# 6. valgrind over the unit tests
if ! want valgrind; then
	:
elif command -v valgrind > /dev/null && stage valgrind; then
	unit_jobs=$(nproc) unit_tests "$build" valgrind valgrind -q --error-exitcode=99 --leak-check=full
else
	result "valgrind: not installed: quickstart installs it (apt-get install valgrind)" 1
fi

# 7. make distcheck: the tarball builds, installs and uninstalls cleanly
# and its unit tests pass (the system tests ran above, from this tree).
# Its own TMPDIR: distuninstallcheck installs into $TMPDIR/am-dc-PID.
# On every CPU (-j): nothing is measured beside it, and the unit tests
# it runs two at a time each use files and ports of their own.
if want distcheck; then
	stage distcheck
	t0=$SECONDS
	log="$out/distcheck.log"
	if tmp=$(mktemp -d "${TMPDIR:-/tmp}/dts-distcheck.XXXXXX"); then
		TMPDIR=$tmp DTS_SYSTEM_TESTS=no make -C "$build" -j"$(nproc)" distcheck > "$log" 2>&1
		rc=$?
		rm -rf "$tmp"
	else
		rc=1; echo "mktemp -d failed" > "$log"
	fi
	took distcheck $t0
	result "distcheck ($dt)" $rc "$log"
fi

# each part's time, and the slowest checks
stage
echo "time: $((SECONDS - t_run)) s: $stages"
[ -z "$times" ] ||
    echo "slowest: $(printf '%s' "$times" | sort -rn | head -n 8 | sed 's/^\([0-9]*\) \(.*\)/\2 \1 s/' | paste -sd, - | sed 's/,/, /g')"
# the failures again, one line each, just above the count: a reader of
# the last lines of a long run sees what failed without the middle
if [ -n "${failed:-}" ]; then
	echo "failed:"
	printf '%s' "$failed" | sed 's/^/  /'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
