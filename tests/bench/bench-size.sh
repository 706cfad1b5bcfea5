#!/bin/bash
# bench-size.sh BUILD OUTDIR [--quick] - does a job pay for its own size,
# never the owner?  ([R4 1/5] rows 5b, 6 and 7.)
#
# Row 5b: one node, a real dts with the shipped defaults (backend
# freezer, ls_policy stop), STATIC, IP 100 ms, PS 50 %; a local hog on
# CPU 1 and a job (dts-run --job, root's) on CPU 1 made by
# tests/tools/swarm: one spinning process and N sleeping ones (cases
# p10: 10; pN: SIZE_PROCS, default 4000 or as many as the node allows),
# or one process of SIZE_THREADS (4000) sleeping threads and a spinning
# one (tN).  Measured over each case's window: the hog's share of CPU 1
# (of the time the vCPU ran: t_cpu_snap) and dts's own CPU time (every
# thread, % of one CPU).  Goals: hog >= LS - 2 pt (48 %), dts <= 2 %.
# Also the LS edges' op (dts's trace, wake-up to the freeze written) and
# the freeze lead dts logged.
#
# Row 7: the edge cost of 4 gangs against one gang of the same tasks is
# bench-matrix.sh's row 4 (run that); row 6 (memory accounting on) needs
# the memory cgroups of [R4 1/5]'s memory part.
#
# Writes OUTDIR/size.csv and OUTDIR/size.md.  Full: 20 s a case; --quick
# 6 s.  Exit 1 if a goal is missed or a case could not run.
. "$(dirname "$0")/common.sh"
b_init size "$@"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
WIN=20
[ "$B_QUICK" = 1 ] && WIN=6
PROCS=${SIZE_PROCS:-4000}
THREADS=${SIZE_THREADS:-4000}
SWARM=$B_BUILD/tests/tools/swarm
[ -x "$SWARM" ] || t_fail "no $SWARM (build first)"

taskset -p -c 0 $$ > /dev/null || t_fail "cannot pin to CPU 0"
n_conf mode='"static"' ip='"100ms"' ps='"50%"' log_level='"info"'
n_start_dts
n_start_hog 1
CSV=$B_OUT/size.csv
echo "case,members,hog_pct,dts_pct,ls_op_p50_us,ls_op_p99_us,ps_op_p50_us,ps_op_p99_us,goal_hog,goal_dts,verdict" > "$CSV"
fail=0

# run_case NAME SWARM_ARGS...: the job, WIN seconds measured, a CSV row
run_case() {
	local name=$1 pid cg members since until snap0 snap1 hog dts lp50 lp99 pp50 pp99 v
	shift
	DTS_SOCKET=$N_SOCK taskset -c 1 "$B_BUILD/run/dts-run" --job "$name" -- \
	    "$SWARM" "$@" $((WIN + 60)) 2> "$T_LOG/swarm.$name.err" &
	pid=$!
	t_track "$pid"
	cg=$(n_job_cg root "$name")
	if ! t_wait_for 60 grep -q 'ready' "$T_LOG/swarm.$name.err"; then
		t_log "case $name: swarm not ready: $(cat "$T_LOG/swarm.$name.err")"
		fail=1
		kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; t_untrack "$pid"
		return
	fi
	members=$(wc -l < "$cg/cgroup.threads")
	t_sleep 2
	since=$(date +%s%N)
	t_cpu_snap snap0 1 "$N_HOG" "$N_DTS" || t_fail "dts or the hog ended"
	t_sleep "$WIN"
	t_cpu_snap snap1 1 "$N_HOG" "$N_DTS" || t_fail "dts or the hog ended"
	until=$(date +%s%N)
	hog=$(awk -v a="${snap0[3]}" -v b="${snap1[3]}" -v w=$((snap1[0] - snap0[0])) 'BEGIN { printf "%.1f", (b - a) / (w * 10) }')
	dts=$(awk -v a="${snap0[4]}" -v b="${snap1[4]}" -v w=$((snap1[0] - snap0[0])) 'BEGIN { printf "%.2f", (b - a) / (w * 10) }')
	n_send trace "$since" > "$T_DIR/trace.csv" || t_fail "no reply to trace"
	read -r _ lp50 lp99 _ < <(awk -F, -v u="$until" 'NR > 1 && $2 <= u && $1 == "LS" { print $4 / 1000 }' "$T_DIR/trace.csv" | b_stats)
	read -r _ pp50 pp99 _ < <(awk -F, -v u="$until" 'NR > 1 && $2 <= u && $1 == "PS" { print $4 / 1000 }' "$T_DIR/trace.csv" | b_stats)
	v=pass
	awk -v h="$hog" -v d="$dts" 'BEGIN { exit !(h >= 48 && d <= 2) }' || { v=FAIL; fail=1; }
	echo "$name,$members,$hog,$dts,$lp50,$lp99,$pp50,$pp99,>=48,<=2,$v" >> "$CSV"
	t_log "case $name: $members threads in the job: hog $hog %, dts $dts % of a CPU, LS op p50 $lp50 us, PS op p50 $pp50 us: $v"
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	t_untrack "$pid"
	t_wait_for 30 test ! -d "$cg" || t_log "case $name: the job's cgroup outlived it by 30 s"
}
run_case p10 -s -p 10
run_case "p$PROCS" -s -p "$PROCS"
run_case "t$THREADS" -s -t "$THREADS"
{
	echo "## Row 5b: the job pays for its own size"
	echo
	echo "STATIC, IP 100 ms, PS 50 %, shipped defaults (backend freezer, ls_policy stop); the job and a local hog on CPU 1. hog: its share of CPU 1; dts: dts's own CPU time, % of one CPU; op: wake-up to the gang operation done (dts's trace). Goals: hog >= LS - 2 pt, dts <= 2 %."
	echo
	echo "| case | threads in the job | hog % | dts % | LS op p50 µs | LS op p99 µs | PS op p50 µs | PS op p99 µs | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|"
	tail -n +2 "$CSV" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $11 }'
	echo
	grep -h 'freeze' "$T_LOG/dts.log" | tail -n 3 | sed 's/^/    /'
	echo
	b_env_note
} > "$B_OUT/size.md"
cat "$B_OUT/size.md"
[ "$fail" = 0 ] || t_fail "a goal of row 5b was missed (size.md)"
t_pass
