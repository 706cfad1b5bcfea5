# common.sh - shared helpers of the DTS benchmarks (bash; source it).
#
#   . "$(dirname "$0")/common.sh"
#   b_init NAME "$@"     # BUILD OUTDIR [--quick]; sources lib.sh + node.sh,
#                        # private PVM_TMP, cleanup traps; sets B_BUILD,
#                        # B_OUT, B_QUICK (0/1), B_NAME
#   b_cc floor           # gcc -O2 tests/bench/floor.c -> $B_OUT/floor
#   ... | b_stats        # numbers, one a line -> "n p50 p99 max mean"
#
# Percentiles are nearest-rank (p99 of 200 samples = the 2nd largest).

B_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

b_usage() {
	echo "usage: $0 BUILD OUTDIR [--quick]" >&2
	exit 2
}

b_init() {
	B_NAME=$1
	shift
	[ $# -ge 2 ] || b_usage
	B_BUILD=$(cd "$1" 2>/dev/null && pwd) || b_usage
	B_OUT=$2
	B_QUICK=0
	[ "${3:-}" = --quick ] && B_QUICK=1
	[ -n "${3:-}" ] && [ "$3" != --quick ] && b_usage
	mkdir -p "$B_OUT" || exit 1
	B_OUT=$(cd "$B_OUT" && pwd)
	local f
	for f in dts/dts load/dts-load tests/pvm/spin tests/pvm/dts-pvmctl \
	    tests/tools/hog tests/tools/sendgram; do
		[ -x "$B_BUILD/$f" ] || { echo "$0: $B_BUILD/$f missing (build first)" >&2; exit 1; }
	done
	export DTS_BUILD=$B_BUILD DTS_SRC=$B_SRC
	. "$B_SRC/tests/system/lib.sh"
	. "$B_SRC/tests/system/node.sh"
	t_setup "bench-$B_NAME"
	B_T0=$(_t_now_us)
}

# b_cc NAME: compile tests/bench/NAME.c into $B_OUT/NAME.
b_cc() {
	gcc -O2 -Wall -o "$B_OUT/$1" "$B_SRC/tests/bench/$1.c" ||
	    t_fail "cannot compile $1.c"
}

# b_stats: numbers on stdin -> "n p50 p99 max mean" (same unit): lib.sh's
# t_stats, the tests' one percentile.
b_stats() { t_stats; }

# b_snap PID...: B_SNAP=(wall_us cpu_ns_of_each_PID), read with bash
# builtins only (no fork between the reads: under load a subshell can take
# tens of ms, which would skew a share measured over a few seconds).
# Every thread of a process counts (dts has three).
b_snap() {
	local p ns t sum
	t=${EPOCHREALTIME/[.,]/}
	B_SNAP=("$((10#$t))")
	for p in "$@"; do
		sum=0
		for t in /proc/"$p"/task/*/schedstat; do
			read -r ns _ < "$t" 2>/dev/null && sum=$((sum + ns))
		done
		B_SNAP+=("$sum")
	done
}

# b_steal_ticks CPU: host steal of cpuCPU so far, in USER_HZ ticks.
b_steal_ticks() {
	awk -v c="cpu$1" '$1 == c { print $9 }' /proc/stat
}

# b_elapsed: seconds since b_init.
b_elapsed() {
	awk -v a="$B_T0" -v b="$(_t_now_us)" 'BEGIN { printf "%.0f\n", (b - a) / 1e6 }'
}

# b_env_note: a Markdown paragraph about where the numbers come from.
b_env_note() {
	echo "Machine: $(nproc) CPUs, kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end of the run."
	echo "These numbers come from a **shared, noisy VM**: other engineers ran CPU-heavy tests on it at the same time,"
	echo "and the host steals time from the guest. Compare figures measured in the same run, not across runs."
	local rt
	rt=$(t_foreign_rt)
	echo "When this run ended, $rt real-time (FIFO/RR) user processes of other sessions were running on the VM"
	echo "(their own dts nodes and gangs): they preempt the processes measured here whenever they are runnable."
}

# ---- verdicts (the exit convention of every bench) ------------------------
# A row with a goal gets a verdict the bench computes from what it measured:
#   b_goal speed ROW 'AWK-CONDITION' [VAR=VALUE...]  -> met, or MISSED
#   b_goal fact  ROW 'AWK-CONDITION' [VAR=VALUE...]  -> met, or FAIL
# sets B_V to the verdict (for the table) and returns 0 if met.  ROW names
# the row in the summary line.  A fact (0 SCHEDULEs missed, no fallback, a
# legitimate command followed...) fails the bench even in --quick; a speed
# goal missed is reported.  b_done ends the bench:
#   exit 1  a fact failed (or the daemons logged an unexpected error)
#   exit 3  only speed goals missed (run.sh: FAIL unless --report-only)
#   exit 0  every goal met
# and prints one summary line "bench-NAME: N MISSED (rows ...)" or
# "bench-NAME: N FAIL (rows ...)".  It also stamps OUT/NAME.md with the run
# the numbers come from (b_stamp), which docs/performance.md shows.
B_MISSED=() B_FAILED=() B_V=
b_goal() {
	local kind=$1 row=$2 cond=$3 a
	shift 3
	local -a v=()
	for a in "$@"; do v+=(-v "$a"); done
	if awk "${v[@]}" "BEGIN { exit !($cond) }"; then
		B_V=met
		return 0
	fi
	case $kind in
	speed) B_V=MISSED; B_MISSED+=("$row") ;;
	fact) B_V=FAIL; B_FAILED+=("$row") ;;
	*) t_fail "b_goal: kind $kind: speed or fact" ;;
	esac
	t_log "$B_V: row $row: $cond ($*)"
	return 1
}

# b_stamp: the run these numbers come from, one Markdown line.
b_stamp() {
	local c d
	c=$(git -C "$B_SRC" rev-parse --short HEAD 2> /dev/null) || c=unknown
	d=$(git -C "$B_SRC" status --porcelain --untracked-files=no 2> /dev/null | head -c1)
	echo "*Run: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $c${d:+ (with local changes)}," \
	    "$(nproc --all) CPUs, $(uname -r), bench-$B_NAME$([ "$B_QUICK" = 1 ] && echo ' --quick').*"
}

# b_done: the end of every bench (never a bare exit 0: t_pass checks the
# daemons' logs).
b_done() {
	local md=$B_OUT/$B_NAME.md
	[ -f "$md" ] && { echo; b_stamp; } >> "$md"
	if [ "${#B_FAILED[@]}" -gt 0 ]; then
		echo "bench-$B_NAME: ${#B_FAILED[@]} FAIL (rows ${B_FAILED[*]})${B_MISSED[*]:+; ${#B_MISSED[@]} MISSED (rows ${B_MISSED[*]})}"
		t_fail "a correctness fact failed: rows ${B_FAILED[*]} ($B_NAME.md)"
	fi
	if [ "${#B_MISSED[@]}" -gt 0 ]; then
		# t_pass's log check still runs (in t_cleanup, as the daemons
		# end, after a cluster's teardown); t_cleanup prints the
		# summary and makes the exit status 3 if that passed
		B_SUMMARY="bench-$B_NAME: ${#B_MISSED[@]} MISSED (rows ${B_MISSED[*]})"
		T_NAME="$T_NAME (correctness held; speed goals MISSED)"
	fi
	t_pass
}
