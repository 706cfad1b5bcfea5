#!/bin/bash
# bench-control.sh BUILD OUTDIR [--quick] - the control path under load.
#
# t54's load (tests/system/node.sh, n_control_*): 64 CPU-bound PVM tasks
# spinning at real-time priority in the gang, STATIC PS 90 % of IP 1 ms,
# pvmd one RT priority above them.  Each PVM command t54 times (spawn,
# add, delete, tasks, halt: libpvm3 calls to pvmd through the PVM client
# tests/pvm/dts-pvmctl) N times, in N cycles of: the load, the commands in
# t54's order, halt.  Quiet, then with `stress-ng --cpu 1` (SCHED_OTHER)
# beside.  The goal for each command is one IP + 100 ms.
#
# Writes OUTDIR/control.csv (load,op,n,p50_ms,max_ms,goal_ms,met),
# OUTDIR/control-raw.csv (every command) and OUTDIR/control.md.
# Full: N = 5 (~2 min); --quick: N = 2.
. "$(dirname "$0")/common.sh"
b_init control "$@"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
command -v stress-ng > /dev/null || t_skip "needs stress-ng"

N=5
[ "$B_QUICK" = 1 ] && N=2
OPS="spawn add delete tasks halt"
RAW=$B_OUT/control-raw.csv
CSV=$B_OUT/control.csv
echo "load,op,i,ms" > "$RAW"
echo "load,op,n,p50_ms,max_ms,goal_ms,met" > "$CSV"

n_control_conf
n_start_dts
for load in quiet stress; do
	hog=
	if [ "$load" = stress ]; then
		# (--timeout: it cannot outlive a run that went wrong by much)
		stress-ng --cpu 1 --timeout 900 --quiet &
		hog=$!
		t_track "$hog"
	fi
	for i in $(seq "$N"); do
		n_control_gang
		for op in $OPS; do
			n_control_op "$op" || t_fail "$load, cycle $i: $op: $(cat "$T_LOG/$op.out")"
			printf '%s,%s,%d,%.3f\n' "$load" "$op" "$i" "$(awk -v u="$N_OP_US" 'BEGIN { print u / 1000 }')" >> "$RAW"
		done
		t_log "$load, cycle $i: $(awk -F, -v l="$load" -v i="$i" '$1 == l && $3 == i { printf "%s %s ms  ", $2, $4 }' "$RAW")"
	done
	if [ -n "$hog" ]; then
		kill -TERM "$hog"
		wait "$hog" 2>/dev/null
		t_untrack "$hog"
	fi
	for op in $OPS; do
		read -r n p50 _ max _ <<< "$(awk -F, -v l="$load" -v o="$op" '$1 == l && $2 == o { print $4 }' "$RAW" | b_stats)"
		met=$(awk -v m="$max" -v g="$N_CTL_GOAL_MS" 'BEGIN { print (m <= g) ? "yes" : "no" }')
		printf '%s,%s,%d,%.1f,%.1f,%d,%s\n' "$load" "$op" "$n" "$p50" "$max" "$N_CTL_GOAL_MS" "$met" >> "$CSV"
	done
done
kill -TERM "$N_DTS"
n_wait_exit || t_fail "dts did not end on SIGTERM"
n_no_leftovers || t_fail "gang left stopped or RT"

MD=$B_OUT/control.md
{
	echo "## The control path under load (bench-control)"
	echo
	echo "t54's load: $N_CTL_TASKS CPU-bound PVM tasks (\`spin\`) spinning at real-time priority in the gang,"
	echo "STATIC PS $N_CTL_PS_PCT % of IP $N_CTL_IP_MS ms, pvmd one RT priority above them. Each PVM command"
	echo "(libpvm3 calls to pvmd through the PVM client \`tests/pvm/dts-pvmctl\`: spawn one more task, add and"
	echo "delete a host that does not exist, list the tasks, halt), wall time of the client, $N times each in"
	echo "$N cycles of: the load, the commands in t54's order, halt. *quiet*: nothing else of ours runs;"
	echo "*stress*: \`stress-ng --cpu 1\` (SCHED_OTHER) beside. Goal: one IP + 100 ms = $N_CTL_GOAL_MS ms. Unit: ms."
	echo
	echo "| load | command | n | p50 | max | goal | max within goal? |"
	echo "|---|---|---|---|---|---|---|"
	while IFS=, read -r load op n p50 max goal met; do
		echo "| $load | $op | $n | **$p50** | $max | $goal | $met |"
	done < <(tail -n +2 "$CSV")
	echo
	b_env_note
	echo
	echo "Every command: \`control-raw.csv\`. Run time: $(b_elapsed) s$([ "$B_QUICK" = 1 ] && echo " (--quick)")."
} > "$MD"
cat "$MD"
t_log "wrote $CSV $RAW $MD"
exit 0
