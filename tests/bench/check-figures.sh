#!/bin/bash
# check-figures.sh - the documentation's figures against the generated page
# (run by tests/run-all.sh's unit stage; no build, no root, a second).
#
# 1. docs/performance.md is what tests/bench/mkperf.sh writes from
#    docs/perf/ (the tables of the last runs, their stamps, the prose):
#    nobody edited the page by hand.
# 2. Every figure of README.md listed in docs/perf/figures says what the
#    page says (the same text for the same measure).
# 3. README.md quotes no other timing in µs, nor a cost in % of a CPU:
#    one that no script produces is either generated (listed in
#    docs/perf/figures) or removed.
# Exit 0 if all hold, 1 with one line per contradiction.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
doc=$src/docs/performance.md readme=$src/README.md
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
bad=0
PERF_DOC=$tmp bash "$src/tests/bench/mkperf.sh" > /dev/null || { echo "check-figures: mkperf.sh failed"; exit 1; }
if ! cmp -s "$tmp" "$doc"; then
	echo "check-figures: docs/performance.md is not what tests/bench/mkperf.sh writes from docs/perf/ (edit docs/perf/, then run it):"
	diff "$tmp" "$doc" | head -n 10 | sed 's/^/    /'
	bad=1
fi
# first  FILE ERE: the first group of the first match
first() {
	grep -oE -- "$2" "$1" | head -n 1 | sed -E "s/$2/\\1/"
}
names=()
while IFS='|' read -r name rre pre; do
	case $name in '' | '#'*) continue ;; esac
	names+=("$rre")
	r=$(first "$readme" "$rre") p=$(first "$doc" "$pre")
	if [ -z "$p" ]; then
		echo "check-figures: $name: docs/performance.md has no figure /$pre/"
		bad=1
	elif [ -z "$r" ]; then
		echo "check-figures: $name: README.md has no figure /$rre/ (the page says $p)"
		bad=1
	elif [ "$r" != "$p" ]; then
		echo "check-figures: $name: README.md says $r, docs/performance.md $p"
		bad=1
	fi
done < "$src/docs/perf/figures"
# every µs in the README is a listed figure
while IFS= read -r l; do
	ok=0
	for re in ${names[@]+"${names[@]}"}; do
		grep -qE -- "$re" <<< "$l" && ok=1
	done
	[ "$ok" = 1 ] || { echo "check-figures: README.md quotes a figure no script produces: $l"; bad=1; }
done < <(grep -nE '[0-9] ?(µs|us)\b|[0-9] ?% of (one|a) (CPU|core)' "$readme")
[ "$bad" = 0 ] && echo "check-figures: docs/performance.md as generated; README's figures agree with it"
exit "$bad"
