#!/bin/bash
# run.sh [--quick] BUILD [OUT] - run every benchmark (tests/bench/bench-*.sh)
# into OUT (default BUILD/bench-out): CSV, Markdown sections, SVG pictures.
# The full form then writes docs/performance.md; --quick only proves that
# each benchmark still runs (CI) and ends with "N passed, N failed".
# Regenerate the report with:  make bench   (or: tests/bench/run.sh BUILD)
set -u
quick=
[ "${1:-}" = --quick ] && { quick=--quick; shift; }
build=$(cd "${1:?usage: run.sh [--quick] BUILD [OUT]}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$build/bench-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
pass=0 fail=0
. "$src/tests/lock.sh"
for b in "$src"/tests/bench/bench-*.sh; do
	[ -e "$b" ] || continue
	name=$(basename "$b" .sh)
	name=${name#bench-}
	# each benchmark holds the system tests' lock (lock.sh) while it runs
	test_lock "bench-$name" || { fail=$((fail + 1)); echo "FAIL: bench: $name: no lock"; continue; }
	t0=$(date +%s)
	if bash "$b" "$build" "$out" $quick > "$out/$name.log" 2>&1 9>&- && [ -s "$out/$name.csv" ]; then
		pass=$((pass + 1)); echo "PASS: bench: $name${quick:+ (quick)} ($(( $(date +%s) - t0 )) s)"
	else
		fail=$((fail + 1)); echo "FAIL: bench: $name${quick:+ (quick)} (log: $out/$name.log)"
		tail -n 20 "$out/$name.log" | sed 's/^/    /'
	fi
	exec 9>&-
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
	doc=$src/docs/performance.md
	mkdir -p "$src/docs/img"
	cp "$out"/*.svg "$src/docs/img/" 2> /dev/null
	{
		echo "# DTS performance"
		echo
		echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs," \
		    "$(uname -r), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)."
		echo "A shared, noisy VM: compare ratios within one run, not absolute numbers."
		echo "Floors measured on this kind of machine: \`shared/reference/limits.md\`."
		echo
		echo "Regenerate everything here (tables, CSV, pictures) with"
		echo
		echo '    make bench          # = tests/bench/run.sh BUILDDIR'
		echo
		for f in "$out"/*.md; do
			[ -e "$f" ] || continue
			cat "$f"
			echo
		done
		for s in "$src"/docs/img/*.svg; do
			[ -e "$s" ] || continue
			echo "![$(basename "$s" .svg)](img/$(basename "$s"))"
			echo
		done
	} > "$doc"
	echo "wrote $doc"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
