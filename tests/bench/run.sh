#!/bin/bash
# run.sh [--quick] [--report-only] BUILD [OUT] - run every benchmark
# (tests/bench/bench-*.sh, or those named in BENCH_ONLY="flood sync ...")
# into OUT (default BUILD/bench-out): CSV, Markdown tables, SVG pictures.
#
# Each bench exits 0 (every goal met), 1 (a correctness fact failed, or
# the bench broke) or 3 (only speed goals MISSED).  run.sh fails a bench
# on exit 1 always, and on exit 3 unless --report-only (then it passes,
# and its MISSED rows are listed).  It ends with one line per bench that
# missed something, then "N passed, N failed".
#
# The full form (make bench) then copies the tables into docs/perf/results/
# and regenerates docs/performance.md (tests/bench/mkperf.sh); --quick
# only proves that each benchmark still runs and holds its facts (CI:
# run.sh --quick --report-only BUILD).
set -u
quick= report=
while :; do
	case ${1:-} in
	--quick) quick=--quick; shift ;;
	--report-only) report=1; shift ;;
	*) break ;;
	esac
done
build=$(cd "${1:?usage: run.sh [--quick] [--report-only] BUILD [OUT]}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$build/bench-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
pass=0 fail=0
summary=()
. "$src/tests/lock.sh"
for b in "$src"/tests/bench/bench-*.sh; do
	[ -e "$b" ] || continue
	name=$(basename "$b" .sh)
	name=${name#bench-}
	if [ -n "${BENCH_ONLY:-}" ]; then
		case " $BENCH_ONLY " in *" $name "*) ;; *) continue ;; esac
	fi
	# each benchmark holds the system tests' lock (lock.sh) while it runs
	test_lock "bench-$name" || { fail=$((fail + 1)); echo "FAIL: bench: $name: no lock"; continue; }
	t0=$(date +%s)
	rm -f "$out/$name.csv"
	bash "$b" "$build" "$out" $quick > "$out/$name.log" 2>&1 9>&-
	rc=$?
	exec 9>&-
	dt=$(( $(date +%s) - t0 ))
	# the bench's own summary line ("bench-NAME: N MISSED (rows ...)")
	line=$(grep -E "^bench-$name: [0-9]+ (MISSED|FAIL)" "$out/$name.log" | tail -n 1)
	[ "$rc" = 0 ] || [ -n "$line" ] || line="bench-$name: exit $rc"
	if { [ "$rc" = 0 ] || [ "$rc" = 3 ]; } && [ ! -s "$out/$name.csv" ]; then
		rc=1 line="bench-$name: wrote no $name.csv"
	fi
	case $rc in
	0)
		pass=$((pass + 1)); echo "PASS: bench: $name${quick:+ (quick)} ($dt s)" ;;
	3)
		summary+=("$line")
		if [ -n "$report" ]; then
			pass=$((pass + 1)); echo "PASS: bench: $name${quick:+ (quick)} ($dt s; report only: $line)"
		else
			fail=$((fail + 1)); echo "FAIL: bench: $name${quick:+ (quick)} ($dt s; $line; log: $out/$name.log)"
		fi ;;
	*)
		summary+=("$line")
		fail=$((fail + 1)); echo "FAIL: bench: $name${quick:+ (quick)} ($dt s; exit $rc; log: $out/$name.log)"
		tail -n 20 "$out/$name.log" | sed 's/^/    /' ;;
	esac
done
# pictures, from whatever CSV the benchmarks wrote
if command -v python3 > /dev/null && [ -f "$src/tests/bench/svg.py" ]; then
	for kind in gantt share payoff mpi; do
		in=$out/$kind.csv
		[ "$kind" = gantt ] && in=$out/gantt-trace.csv
		[ -s "$in" ] || continue
		python3 "$src/tests/bench/svg.py" "$kind" "$in" "$out/$kind.svg" ||
		    { fail=$((fail + 1)); echo "FAIL: bench: $kind.svg"; }
	done
fi
if [ -z "$quick" ]; then
	bash "$src/tests/bench/mkperf.sh" "$out" || { fail=$((fail + 1)); echo "FAIL: bench: mkperf.sh"; }
fi
for l in ${summary[@]+"${summary[@]}"}; do echo "$l"; done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
