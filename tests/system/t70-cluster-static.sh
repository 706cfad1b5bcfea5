#!/bin/bash
# t70-cluster-static.sh - STATIC mode on a real 4-host PVM virtual machine
# (tests/system/cluster.sh), driven by dts-console as the master.
#
#  1. Every host runs its dts service; dts-console on h0 starts the master
#     pvmd through the launcher (console.launcher, console.pvm_tmp), which
#     h0's dts adopts into its gang; `add h1 h2 h3` from the console
#     starts every slave pvmd in its host's gang; `mode static; ip 100ms; ps 80%;
#     si 1030ms; start` in a console that stays (it keeps sending the
#     schedule every SI).  Every node answers the console's status:
#     static, slicing, PS 80000 / LS 20000.
#  2. All hosts stop and continue their gangs together.  From the slice
#     edges each node recorded itself (TRACE datagrams, CLOCK_REALTIME,
#     which every namespace shares): for each PS start of h1..h3 the
#     nearest PS start of h0; skew = their difference.  Over a few seconds
#     of slicing, with the console's SI syncs in between: median |skew|
#     under 1 ms with `arrival` sync and under 0.2 ms after `set sync
#     clock` (p50/p99/max printed for both).  SI is 1030ms, not a multiple
#     of IP: with arrival sync every node jumps to a PS when the schedule
#     arrives (a PS start with lateness 0, every SI) and the grid of PS
#     deadlines moves at every SI; with clock sync no node ever jumps, and
#     the PS deadlines of all hosts lie on one grid (within 0.2 ms).  A
#     window that other work on this shared machine disturbed (median
#     skew over the limit, fewer than 100 PS starts woken less than 1 ms
#     late, 6 fewer a point of CPU time the hypervisor stole) is measured
#     again, 3 times in all, before the test fails (with the numbers).
#  3. The gang of every host (pvmd and a spawned task) runs at SCHED_RR and
#     is seen stopped in some LS (frozen with the freezer backend, the
#     default; state T with the signal backend).
#  4. pvm-examples under STATIC: master1 (slave1 on every host, every
#     result right), spmd (a token ring of 4 tasks across hosts) and
#     timing (round trips and bandwidth against timing_slave on h1).
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t70-cluster-static
t_need_built console/dts-console
for p in master1 slave1 spmd timing timing_slave; do
	t_need "$p" pvm-examples
done

N=4
IP_NS=100000000
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "80%"; si = "1030ms"; sync = "arrival";'
C_SC_CONSOLE_EXTRA='status_wait = "400ms";'
T0=$(_t_now_us)
c_up $N --no-pvm
c_start_console_master
c_sc_link_progs slave1 spmd timing_slave
c_sc_add $N
t_log "VM of $N hosts up through the console in $(_c_secs "$T0" "$(_t_now_us)") s"

# ---- 1. static from a console that stays ----------------------------------
c_sc_open
for cmd in "mode static" "ip 100ms" "ps 80%" "si 1030ms"; do
	c_sc_cmd "$cmd" || t_fail "console: $cmd: $C_SC_ERR"
	[ -z "$C_SC_ERR" ] || t_fail "console: $cmd: $C_SC_ERR"
done
c_sc_cmd start || t_fail "console start: $C_SC_ERR"
grep -q "^started: mode static, PS 80ms of IP 100ms, SI 1.03s, sync arrival" <<< "$C_SC_OUT" ||
    t_fail "start: $C_SC_OUT $C_SC_ERR"

# status rows: HOST ADDRESS MODE STATE PS_US LS_US PHASE Q SLICES ...
rows_ok() {	# every host: static slicing 80000 20000 (sync = $1)
	local k
	c_sc_cmd status || return 1
	for ((k = 0; k < N; k++)); do
		awk -v h="h$k" '$1 == h && $3 == "static" && $4 == "slicing" &&
		    $5 == 80000 && $6 == 20000 { f = 1 } END { exit !f }' \
		    <<< "$C_SC_OUT" || return 1
	done
	for ((k = 0; k < N; k++)); do
		[ "$(c_status h$k sync)" = "$1" ] || return 1
	done
}
t_wait_for 10 rows_ok arrival ||
    t_fail "not every host static, slicing, PS 80000/LS 20000: $C_SC_OUT"
grep -q "^$N nodes answered" <<< "$C_SC_OUT" || t_fail "status: $C_SC_OUT"

# ---- 2. skew of the PS starts across hosts ---------------------------------
# _ps_edges K T1 T2 FILE: PS starts of host K in [T1, T2] (ns since T1)
# into FILE; the whole trace since T1 in $T_LOG/trace-hK.csv
_ps_edges() {
	local ph r
	c_send "$1" trace "$2" > "$T_LOG/trace-h$1.csv" ||
	    t_fail "no trace from h$1"
	while IFS=, read -r ph r _; do
		[ "$ph" = PS ] || continue
		[ "$r" -le "$3" ] && echo $((r - $2))
	done < "$T_LOG/trace-h$1.csv" > "$4"
	[ "$(wc -l < "$4")" -ge 20 ] ||
	    t_fail "h$1 recorded only $(wc -l < "$4") PS starts in $(( ($3 - $2) / 1000000 )) ms"
}

# skew_stats T1 T2: STATS = "p50 p99 max n" of |skew| in us over h1..h(N-1)
skew_stats() {
	local k t1=$1 t2=$2
	_ps_edges 0 "$t1" "$t2" "$T_DIR/ref.txt"
	: > "$T_DIR/skews.txt"
	for ((k = 1; k < N; k++)); do
		_ps_edges "$k" "$t1" "$t2" "$T_DIR/h$k.txt"
		# nearest PS start of h0 to each of hK's (both sorted)
		awk 'NR == FNR { a[++n] = $1; next }
		    { while (j < n && a[j + 1] <= $1) j++
		      d = 1e18
		      if (j >= 1) d = $1 - a[j]
		      if (j < n && a[j + 1] - $1 < d) d = a[j + 1] - $1
		      printf "%.3f\n", d / 1000 }' \
		    "$T_DIR/ref.txt" "$T_DIR/h$k.txt" >> "$T_DIR/skews.txt"
	done
	STATS=$(t_stats < "$T_DIR/skews.txt" |
	    awk '{ printf "%.1f %.1f %.1f %d\n", $2, $3, $4, $1 }')
}

measure() {	# measure METHOD LIMIT_US; STEAL: % of the CPUs' time stolen
	local t1 t2 p50 p99 max n b a st1 st2
	t_sleep 1.5	# past the switch
	t_cpu_ticks "" b a st1
	_t_now_us t1; t1=$((t1 * 1000))
	t_sleep 4	# 40 PS per host, 4 SI syncs
	_t_now_us t2; t2=$((t2 * 1000))
	t_cpu_ticks "" b a st2
	STEAL=$(awk -v d=$((st2 - st1)) -v w=$(((t2 - t1) / 1000000)) -v n="$(nproc)" \
	    'BEGIN { printf "%.1f", 100 * d * 10 / (w * n) }')
	skew_stats "$t1" "$t2"
	read -r p50 p99 max n <<< "$STATS"
	t_log "skew $1: p50 ${p50} us, p99 ${p99} us, max ${max} us ($n PS starts of h1..h$((N - 1)) against h0's; $STEAL % of the CPUs' time stolen)"
	echo "$1 p50=$p50 p99=$p99 max=$max n=$n" >> "$T_LOG/skew.txt"
	WHY=
	awk -v p="$p50" -v l="$2" 'BEGIN { exit !(p < l) }' ||
	    WHY="$1 sync: median skew $p50 us, want < $2 us (p99 $p99, max $max)"
	# about 40 PS starts of each of h1..h(N-1) in 4 s
	[ "$n" -ge $((30 * (N - 1))) ] || WHY="$1: only $n PS starts measured"
	[ -z "$WHY" ]
}

# grid: the circular spread (us) over every PS start of every host in the
# last traces, woken less than 1 ms late, of its deadline (edge time -
# lateness - gang op) mod IP, and how many such starts; LATE = how many
# were left out (an edge the node overran records the deadline it missed,
# and a busy machine can throttle real-time tasks, or its hypervisor run
# something else on our virtual CPU: CI saw a quarter of the PS starts of
# a window late by 1-9 ms, with no real-time process of another session).
# 100 starts on time are enough to judge the grid, however many were late
# (fewer where the hypervisor stole time: NEED).
grid() {
	local k ph r late op
	for ((k = 0; k < N; k++)); do
		while IFS=, read -r ph r late op; do
			[ "$ph" = PS ] || continue
			echo "$late $(( (r - late - op) % IP_NS ))"
		done < "$T_LOG/trace-h$k.csv"
	done > "$T_DIR/grid.txt"
	LATE=$(awk '$1 >= 1000000' "$T_DIR/grid.txt" | wc -l)
	read -r SPREAD NGRID <<< "$(awk '$1 < 1000000 { print $2 }' "$T_DIR/grid.txt" |
	    sort -n | awk -v ip=$IP_NS '
		{ p[++m] = $1 }
		END { gap = p[1] + ip - p[m]
		      for (i = 2; i <= m; i++) if (p[i] - p[i - 1] > gap) gap = p[i] - p[i - 1]
		      printf "%.1f %d\n", (ip - gap) / 1000, m }')"
	# steal goes into the bound: a stolen stretch makes every edge due in
	# it late (CI: a quarter of a window's starts late at 4.5 % stolen),
	# so each point of steal asks 6 starts on time fewer, down to 40
	NEED=$(awk -v s="$STEAL" 'BEGIN { n = int(100 - 6 * s); print (n < 40) ? 40 : n }')
	[ "$NGRID" -ge "$NEED" ] || {
		WHY="$1: $NGRID PS starts woken on time (< 1 ms late), $LATE late, want >= $NEED ($STEAL % of the CPUs' time stolen)"
		return 1
	}
}
# measure_grid METHOD LIMIT_US: measure and grid; a window that other
# work on this shared machine disturbed (skew median, late wake-ups) is
# measured again, 3 times in all; then the test fails, with the numbers
# of the last window and how many real-time processes of other sessions
# ran.  Late edges are what a scheduler regression looks like: they are
# never a skip.
measure_grid() {
	local try
	for try in 1 2 3; do
		NGRID=
		measure "$1" "$2" && grid "$1" && return 0
		[ "$try" = 3 ] &&
		    t_fail "$WHY; 3 windows ($(t_foreign_rt $$ $(_c_all_pids)) real-time processes of other sessions ran)"
		t_log "$WHY: measuring once more"
	done
}
# A PS that starts because a schedule arrived, not on the grid of the PS
# before it: its deadline (done - op - late: the sync point for a jump) is
# more than 1 ms off a whole number of IPs from the previous PS's (the
# SI, 1030 ms, moves the grid by 30 ms).
jumps() {
	awk -F, -v ip="$IP_NS" '$1 == "PS" { t = $2 - $3 - $4
		if (p != "") { d = (t - p) % ip; if (d > 1000000 && d < ip - 1000000) n++ }
		p = t } END { print n + 0 }' "$T_LOG/trace-h$1.csv"
}

# Arrival sync restarts the PS on every host at every SI (1030ms, not a
# multiple of IP): every host jumped, and the grid moved at each SI.
measure_grid arrival 1000
for ((k = 0; k < N; k++)); do
	J[k]=$(jumps $k)
	[ "${J[k]}" -ge 2 ] || t_fail "arrival sync: h$k jumped to PS only ${J[k]} times in 4 s (SI 1030ms)"
done
t_log "arrival sync: PS starts on a schedule's arrival: ${J[*]} (h0..h$((N - 1)), 4 s); deadlines spread over $SPREAD us of IP"
awk -v s="$SPREAD" 'BEGIN { exit !(s > 5000) }' ||
    t_fail "arrival sync: the PS grid did not move with the SI arrivals (spread $SPREAD us)"

c_sc_cmd "set sync clock" || t_fail "set sync clock: $C_SC_ERR"
grep -q "^sync clock (sent)" <<< "$C_SC_OUT" || t_fail "set sync clock: $C_SC_OUT $C_SC_ERR"
t_wait_for 10 rows_ok clock || t_fail "not every host on clock sync: $C_SC_OUT"
measure_grid clock 200

# With clock sync every node derives its PS starts from the origin the
# console sent: no host ever jumps on a schedule's arrival, and the PS
# deadlines of all hosts lie on one grid across the SIs (SI 1030ms: the
# datagrams arrive in the middle of slices, never racing an edge).
for ((k = 0; k < N; k++)); do
	J[k]=$(jumps $k)
	[ "${J[k]}" = 0 ] || t_fail "clock sync: h$k jumped to PS on ${J[k]} arrivals"
done
t_log "clock sync: no jumps; PS deadlines of all $N hosts within $SPREAD us of one grid ($NGRID PS starts; $LATE woken >= 1 ms late left out)"
awk -v s="$SPREAD" 'BEGIN { exit !(s < 200) }' ||
    t_fail "clock sync: PS deadlines spread over $SPREAD us, not on one grid"

# ---- 3. the gangs really slice: RR, and stopped in LS ----------------------
tids=$(c_pvm h0 spawn -n $N /bin/sleep 120) || t_fail "spawn sleep failed"
for ((k = 0; k < N; k++)); do
	t_wait_for 10 eval '[ -n "$(c_gang_pids h$k sleep)" ]' ||
	    t_fail "h$k: no spawned sleep in its gang ($(paste -sd' ' <<< "$tids"))"
done
declare -a WATCH WHO HOST
for ((k = 0; k < N; k++)); do
	p=$(c_pvmd_pid h$k) || t_fail "h$k: no pvmd"
	s=$(c_gang_pids h$k sleep | head -n 1)
	for q in $p $s; do
		[ "$(t_policy "$q")" = RR ] ||
		    t_fail "h$k: gang member $q ($(_c_comm "$q")) is $(t_policy "$q"), not RR"
		WATCH+=("$q") WHO+=("h$k:$(_c_comm "$q")") HOST+=("$k")
	done
done
# sample (c_is_stopped: no fork per read) for about 1.5 s
declare -A STOPPED
end=$(($(_t_now_us) + 1500000))
while [ "$(_t_now_us)" -lt "$end" ]; do
	for i in "${!WATCH[@]}"; do
		c_is_stopped "${HOST[$i]}" "${WATCH[$i]}" && STOPPED[$i]=$((${STOPPED[$i]:-0} + 1))
	done
	sleep 0.003
done
for i in "${!WATCH[@]}"; do
	[ "${STOPPED[$i]:-0}" -gt 0 ] ||
	    t_fail "${WHO[$i]} (pid ${WATCH[$i]}) never seen stopped while slicing"
done
t_log "every gang seen stopped: $(for i in "${!WATCH[@]}"; do printf '%s=%s ' "${WHO[$i]}" "${STOPPED[$i]}"; done)"

# ---- 4. PVM programs under STATIC ------------------------------------------
c_master1 ""

out=$(c_exec h0 timeout 90 dts-pvmctl run -n 4 spmd 2>&1) || t_fail "spmd failed: $out"
grep -q "^tasks=4 " <<< "$out" || t_fail "spmd: $out"
t_wait_for 10 grep -q 'token ring done' "$T_DIR/h0/tmp/pvml.0" ||
    t_fail "spmd: no 'token ring done' in the master's log"
ring=$(sed -n 's/.*\] \([0-9]*\( -> [0-9]*\)\{4\}\) *$/\1/p' "$T_DIR/h0/tmp/pvml.0" | tail -n 1)
grep -q 'Pass a token through the   4 tid ring' "$T_DIR/h0/tmp/pvml.0" &&
    [ -n "$ring" ] || t_fail "spmd: no ring of 4 tasks in the log: $(grep -v pvmd "$T_DIR/h0/tmp/pvml.0" | tail -n 5)"
read -r -a r <<< "${ring//->/}"
[ "${r[0]}" = "${r[4]}" ] || t_fail "spmd: the token did not come back: $ring"
nh=$(for t in "${r[@]:0:4}"; do echo $((t >> 18)); done | sort -u | wc -l)
[ "$nh" -ge 2 ] || t_fail "spmd: the ring $ring is on one host only"

# (timing's main() returns no value: its exit status means nothing)
out=$(c_exec h0 timeout 90 timing 2>&1)
rc=$?
[ "$rc" != 124 ] && [ "$rc" != 137 ] || t_fail "timing did not finish within 90 s"
grep -q "^slave is task t[0-9a-f]*" <<< "$out" &&
    grep -q "^RTT Avg uSec [0-9]" <<< "$out" &&
    grep -q "^Message size 1000000" <<< "$out" &&
    [ "$(tail -n 1 <<< "$out")" = done ] ||
    t_fail "timing: unexpected output: $(head -n 3 <<< "$out" | paste -sd'|') ... $(tail -n 3 <<< "$out" | paste -sd'|')"
t_log "timing: $(grep '^RTT Avg' <<< "$out"), $(grep -c '^Message size' <<< "$out") bandwidth tests"

# still static and slicing everywhere after all that
t_wait_for 5 rows_ok clock || t_fail "after the programs: $C_SC_OUT"
c_sc_close || t_fail "the console exited with status $C_SC_RC: $(cat "$T_LOG/console.err")"
t_pass
