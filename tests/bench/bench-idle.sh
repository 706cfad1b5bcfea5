#!/bin/bash
# bench-idle.sh BUILD OUTDIR [--quick] - the cost of ls_policy idle's
# switch (the gang's threads to SCHED_IDLE at an LS edge, back to
# SCHED_RR at a PS edge) with many threads: op = wake-up to gang
# operation done, from dts's own trace (`sendgram trace`), per phase.
# dts in static mode, IP 100 ms, PS 50 %, on CPU 0; the gang task
# (tests/tools/churn, in the gang cgroup) on CPU 1 with a local hog:
#   sleepers   1000 threads that sleep;
#   churn      the same and 4 chains of threads that each spin 200 us,
#              start the next and end (a thread pool that churns).
# dts_cpu = dts's own CPU time over the window, % of one CPU (its edges,
# and through each idle LS its looks for threads born at SCHED_RR).
# Writes OUTDIR/idle.csv and OUTDIR/idle.md.  Full: 20 s a case; --quick
# 4 s.
. "$(dirname "$0")/common.sh"
b_init idle "$@"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
[ -x "$B_BUILD/tests/tools/churn" ] || t_fail "no tests/tools/churn in $B_BUILD (the build makes it)"
WIN=20
[ "$B_QUICK" = 1 ] && WIN=4

t_autogroup_lock
t_autogroups_off

taskset -p -c 0 $$ > /dev/null || t_fail "cannot pin to CPU 0"
N_ON=(taskset -c 0)
n_conf mode='"static"' ip='"100ms"' ps='"50%"' ls_policy='"idle"' log_level='"info"'
n_start
n_start_hog 1
[ "$(n_status ls_policy)" = idle ] || t_fail "ls_policy idle refused: see dts.log"

CSV=$B_OUT/idle.csv
echo "case,phase,edges,op_p50_us,op_p99_us,op_max_us,dts_cpu_pct" > "$CSV"
run_case() {	# run_case NAME CHAINS
	local c since until d0 d1 pct
	taskset -c 1 "$B_BUILD/tests/tools/churn" "$2" 1000 $((WIN + 3)) 200 2> /dev/null &
	c=$!
	t_track "$c"
	echo "$c" > "$N_GANG/cgroup.procs" || t_fail "cannot put churn in the gang"
	t_sleep 1
	since=$(date +%s%N)
	d0=$(t_cpu_ns "$N_DTS") || t_fail "dts ended"
	t_sleep "$WIN"
	d1=$(t_cpu_ns "$N_DTS") || t_fail "dts ended"
	until=$(date +%s%N)
	pct=$(awk -v d=$((d1 - d0)) -v w=$((until - since)) 'BEGIN { printf "%.2f", 100 * d / w }')
	n_send trace "$since" > "$T_DIR/trace.csv" || t_fail "no reply to trace"
	for ph in LS PS; do
		read -r cnt p50 p99 max _ < <(awk -F, -v u="$until" -v p="$ph" \
		    'NR > 1 && $2 <= u && $1 == p { print $4 / 1000 }' "$T_DIR/trace.csv" | b_stats)
		echo "$1,$ph,$cnt,$p50,$p99,$max,$pct" >> "$CSV"
	done
	t_wait_for $((WIN + 10)) eval '! kill -0 '"$c"' 2>/dev/null'
	wait "$c" 2> /dev/null
	t_untrack "$c"
}
run_case sleepers 0
run_case churn 4
{
	echo "## ls_policy idle: the switch with 1000 threads"
	echo
	echo "op = wake-up to the gang's threads switched (µs, dts's trace); LS: to SCHED_IDLE, PS: to SCHED_RR. dts CPU: dts's own time over the case's window, % of one CPU (both rows)."
	echo
	echo "| case | phase | edges | op p50 | op p99 | op max | dts CPU % |"
	echo "|---|---|---|---|---|---|---|"
	tail -n +2 "$CSV" | tr ',' '|' | sed 's/^/| /; s/$/ |/'
} > "$B_OUT/idle.md"
cat "$B_OUT/idle.md"
# no goal of its own (t94 holds the hog's share beside the churn): b_done
# stamps the table and checks the daemons' logs
b_done
