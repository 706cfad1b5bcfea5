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
# Two clients: "pvmctl", a new dts-pvmctl -L process for each command (as
# t54 runs them: its fork, exec and pvm_mytid run at SCHED_OTHER), and
# "console", one dts-console for the whole run, as an operator keeps it
# open, its commands written to its stdin one at a time: a command's time
# runs from the write of its line to the read of its result line.
#
# Then the edge guard: short jobs start and end beside the spinning gang
# (below).
#
# Writes OUTDIR/control.csv (load,client,op,n,p50_ms,max_ms,goal_ms,met),
# OUTDIR/control-raw.csv (every command), OUTDIR/control-guard.csv
# (jobs,rescues,max_wait_ms,failsafe_releases,goal_failsafe,met) and
# OUTDIR/control.md.
# Full: N = 5, both clients; --quick: N = 1, the console only (each cycle
# starts the 64 tasks anew: minutes on a loaded machine).
. "$(dirname "$0")/common.sh"
b_init control "$@"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
command -v stress-ng > /dev/null || t_fail "needs stress-ng (quickstart installs it: missing is a failure)"
command -v python3 > /dev/null || t_fail "needs python3 (quickstart installs it: missing is a failure)"

N=5
[ "$B_QUICK" = 1 ] && N=1
OPS="spawn add delete tasks halt"
RAW=$B_OUT/control-raw.csv
CSV=$B_OUT/control.csv
CLIENTS="pvmctl console"
# --quick (CI: does it still run?) times the console only
[ "$B_QUICK" = 1 ] && CLIENTS=console
echo "load,client,op,i,ms" > "$RAW"
echo "load,client,op,n,p50_ms,max_ms,goal_ms,met" > "$CSV"

# con_start: the long-running console, driven by condrive.py (CON: the
# driver's pipes, CON_PID), in the job of the pvmds that n_control_gang
# starts (same user, same PVM_TMP).  The driver reads the console's output
# in blocks: a shell's `read` takes a pipe a byte at a time, which at
# SCHED_OTHER in the LS would be most of what is timed.
con_start() {
	coproc CON { DTS_SOCKET=$N_SOCK exec python3 "$B_SRC/tests/bench/condrive.py" \
	    "$T_LOG/console.out" "$B_BUILD/tests/pvm/spin" \
	    "$B_BUILD/console/dts-console" -f "$N_CONF"; }
	CON_DRV=$CON_PID
	t_track "$CON_DRV"
	CON_IN=${CON[1]} CON_OUT=${CON[0]}
}

# con_op OP: one command through the console, timed by the driver
# (N_OP_US).  Returns 1 if its result did not come in 20 s or was not what
# the command should do.
con_op() {
	local ms ok spins
	echo "$1" >&"$CON_IN"
	read -r -t 30 ms ok spins <&"$CON_OUT" || return 1
	N_OP_US=$(awk -v m="$ms" 'BEGIN { printf "%d", m * 1000 }')
	[ "$ok" = ok ] || return 1
	case $1 in
	tasks) [ "$spins" = "$(n_gang_pids spin | wc -w)" ] ;;
	halt) t_wait_for 10 n_gang_empty ;;
	esac
}

n_control_conf
n_start_dts
con_start
for load in quiet stress; do
	hog=
	if [ "$load" = stress ]; then
		# (--timeout: it cannot outlive a run that went wrong by much)
		stress-ng --cpu 1 --timeout 900 --quiet &
		hog=$!
		t_track "$hog"
	fi
	for i in $(seq "$N"); do
		for client in $CLIENTS; do
			n_control_gang
			for op in $OPS; do
				if [ "$client" = pvmctl ]; then
					n_control_op "$op" || t_fail "$load, cycle $i: $op: $(cat "$T_LOG/$op.out")"
				else
					con_op "$op" || t_fail "$load, cycle $i: console $op: $(tail -n 20 "$T_LOG/console.out")"
				fi
				printf '%s,%s,%s,%d,%.3f\n' "$load" "$client" "$op" "$i" "$(awk -v u="$N_OP_US" 'BEGIN { print u / 1000 }')" >> "$RAW"
			done
			t_log "$load, $client, cycle $i: $(awk -F, -v l="$load" -v c="$client" -v i="$i" '$1 == l && $2 == c && $4 == i { printf "%s %s ms  ", $3, $5 }' "$RAW")"
		done
	done
	if [ -n "$hog" ]; then
		kill -TERM "$hog"
		wait "$hog" 2>/dev/null
		t_untrack "$hog"
	fi
	for client in $CLIENTS; do
		for op in $OPS; do
			read -r n p50 _ max _ <<< "$(awk -F, -v l="$load" -v c="$client" -v o="$op" '$1 == l && $2 == c && $3 == o { print $5 }' "$RAW" | b_stats)"
			# one IP + 100 ms: a speed goal (MISSED), per command
			b_goal speed "$load-$client-$op" 'n > 0 && m <= g' n="$n" m="$max" g="$N_CTL_GOAL_MS"
			met=$B_V
			printf '%s,%s,%s,%d,%.1f,%.1f,%d,%s\n' "$load" "$client" "$op" "$n" "$p50" "$max" "$N_CTL_GOAL_MS" "$met" >> "$CSV"
		done
	done
done
# The edge guard (dts(8), The gang): short jobs start and end one after
# another beside the spinning gang (quiet).  The kernel ends each job's
# cgroup later in a worker at SCHED_OTHER that takes its cgroup lock; the
# spinning gang preempted it, and an edge waited for the lock (0.9 s once:
# dts-load's fail-safe released the gang).  Counted: the guard's rescues
# and their waits (its log lines, also those the rate limit left out),
# and dts-load's fail-safe releases.  Goal: none.
GUARD=$B_OUT/control-guard.csv
JOBS=300
[ "$B_QUICK" = 1 ] && JOBS=60
log0=$(wc -l < "$T_LOG/dts.log")
n_control_gang
# (a job ends when dts sees its gang empty: on a loaded machine the 8
# places, max_jobs, may all be taken for a moment; then wait a little)
short_job() {
	DTS_SOCKET=$N_SOCK "$B_BUILD/run/dts-run" --job "short$1" -- true > "$T_LOG/short.out" 2>&1
}
for i in $(seq "$JOBS"); do
	for try in 1 2 3 4 5; do
		short_job "$i" && break
		grep -q "runs max_jobs" "$T_LOG/short.out" && [ "$try" -lt 5 ] ||
			t_fail "short job $i: $(cat "$T_LOG/short.out")"
		t_sleep 0.5
	done
	t_sleep 0.05
done
t_sleep 1
con_op halt || t_fail "guard: console halt: $(tail -n 20 "$T_LOG/console.out")"
tail -n +"$((log0 + 1))" "$T_LOG/dts.log" > "$T_LOG/guard.log"
read -r rescues wmax failsafe <<< "$(awk '
	/edge thread has waited/ {
		n++
		if (match($0, /waited [0-9.]+ ms/)) {
			w = substr($0, RSTART + 7, RLENGTH - 10) + 0
			if (w > max) max = w
		}
		if (match($0, /\([0-9]+ similar line/))
			n += substr($0, RSTART + 1, RLENGTH - 14) + 0
	}
	/made no slice edge/ { fs++ }
	END { printf "%d %.1f %d\n", n, max, fs }' "$T_LOG/guard.log")"
echo "jobs,rescues,max_wait_ms,failsafe_releases,goal_failsafe,met" > "$GUARD"
# no fail-safe release, in the guard's part or anywhere in the run: a
# correctness fact (it fails the bench, --quick too)
b_goal fact guard-failsafe 'f == 0' f="$failsafe"
echo "$JOBS,$rescues,$wmax,$failsafe,0,$B_V" >> "$GUARD"
t_log "guard: $JOBS short jobs beside the gang: $rescues rescue(s), longest wait $wmax ms, $failsafe fail-safe release(s)"

exec {CON_IN}>&-
wait "$CON_DRV" || t_fail "the console or its driver did not end well at the end of its input"
t_untrack "$CON_DRV"
kill -TERM "$N_DTS"
n_wait_exit || t_fail "dts did not end on SIGTERM"
n_no_leftovers || t_fail "gang left stopped or RT"
FAILSAFE_ALL=$(grep -c 'made no slice edge' "$T_LOG/dts.log")
b_goal fact run-failsafe 'f == 0' f="$FAILSAFE_ALL"
FAILSAFE_V=$B_V

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
	echo "*pvmctl*: a new \`dts-pvmctl -L\` process for each command; *console*: one \`dts-console\` for the"
	echo "whole run, each command written to its stdin, timed from the write to its result line."
	echo
	echo "| load | client | command | n | p50 | max | goal | verdict |"
	echo "|---|---|---|---|---|---|---|---|"
	while IFS=, read -r load client op n p50 max goal met; do
		echo "| $load | $client | $op | $n | **$p50** | $max | $goal | $met |"
	done < <(tail -n +2 "$CSV")
	echo
	echo "**The edge guard.** $JOBS short jobs (\`dts-run --job shortN -- true\`, 50 ms apart) beside the same"
	echo "spinning gang, quiet. Each job's end makes the kernel release its cgroup later, in a worker at"
	echo "SCHED_OTHER that the gang can preempt with the kernel's cgroup lock held; an edge waiting for that"
	echo "lock once waited 0.9 s, and dts-load's fail-safe released the gang. The guard puts the gangs at"
	echo "SCHED_OTHER after 20 ms of such a wait. Goal: no fail-safe release."
	echo
	echo "| short jobs | rescues | longest wait (ms) | fail-safe releases | goal | verdict |"
	echo "|---|---|---|---|---|---|"
	IFS=, read -r j r w f g m < <(tail -n 1 "$GUARD")
	echo "| $j | $r | $w | **$f** | $g | $m |"
	echo
	echo "Fail-safe releases over the whole run (dts-load's \"made no slice edge\" in dts's log): $FAILSAFE_ALL; goal 0: $FAILSAFE_V."
	echo
	b_env_note
	echo
	echo "Every command: \`control-raw.csv\`. Run time: $(b_elapsed) s$([ "$B_QUICK" = 1 ] && echo " (--quick)")."
} > "$MD"
cat "$MD"
t_log "wrote $CSV $RAW $MD"
b_done
