#!/bin/bash
# t74-cluster-modes.sh - DISTRIBUTED, HPDT and OFF on a real 3-host PVM
# virtual machine (tests/system/cluster.sh), set from dts-console.
#
# The run queue every Load agent samples is the whole machine's
# (procs_running is not per network namespace), so the hosts cannot be
# given different loads here; they are given different Table 2.1s instead
# (load.table, load.table_step 2 per host): h0 [10, 40], h1 [30, 60],
# h2 [50, 80] LS% for a load up to 2 and above it.  The same load then
# means a different LS on every host, and no two of the six values are
# equal, so the hosts' PS differ whatever the load.
#
#  1. DISTRIBUTED: every host's PS is IP - its own table's LS for the load
#     index in the same status reply, the three differ.  h1 and h2 enter
#     the mode late (their dts stopped while the console broadcasts it,
#     their dts-load releasing their gangs meanwhile; continued a third
#     and two thirds of IP after a PS start of h0), so
#     each slices from its own origin.  The console keeps sending the
#     schedule every SI (500ms), and yet, from the slice edges each node
#     recorded: every host's PS starts stay on its own grid (no sync
#     jumps), and the hosts' grids stay apart.
#     master1 and spmd complete with the right results.
#  2. OFF: every host reports off and no phase; pvmd and a spawned task of
#     every host are SCHED_OTHER and never seen stopped (nor frozen); master1 and spmd
#     complete.
#  3. HPDT: every host reports hpdt and no phase; pvmd and the task of
#     every host are SCHED_RR again and never seen stopped; master1
#     completes.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t74-cluster-modes
t_need_built console/dts-console
for p in master1 slave1 spmd; do
	t_need "$p" pvm-examples
done

N=3
IP_NS=100000000
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "80%"; si = "500ms"; sync = "arrival";'
LOADKEYS='sample = "10ms"; interval = "500ms"; window = "1s"; threshold = 0.25; per_cpu = false; table_step = 2.0;'
C_CONF_EXTRA_0="load = { $LOADKEYS table = [10, 40]; };"
C_CONF_EXTRA_1="load = { $LOADKEYS table = [30, 60]; };"
C_CONF_EXTRA_2="load = { $LOADKEYS table = [50, 80]; };"
TAB=("10 40" "30 60" "50 80")
T0=$(_t_now_us)
c_up $N --no-pvm
c_start_console_master
c_sc_link_progs slave1 spmd
c_sc_add $N
t_log "VM of $N hosts up through the console in $(_c_secs "$T0" "$(_t_now_us)") s"

# one sleeping PVM task in every host's gang
tids=$(c_pvm h0 spawn -n $N /bin/sleep 300) || t_fail "spawn sleep failed"
declare -a WATCH WHO HOST
for ((k = 0; k < N; k++)); do
	t_wait_for 10 eval '[ -n "$(c_gang_pids h$k sleep)" ]' ||
	    t_fail "h$k: no spawned sleep in its gang ($(paste -sd' ' <<< "$tids"))"
	p=$(c_pvmd_pid h$k) || t_fail "h$k: no pvmd"
	WATCH+=("$p" "$(c_gang_pids h$k sleep | head -n 1)")
	WHO+=("h$k:pvmd" "h$k:sleep") HOST+=("$k" "$k")
done

# never_stopped SECS MODE: no watched gang member stopped (state T, or in
# its frozen gang) for SECS
never_stopped() {
	local end i
	end=$(($(_t_now_us) + $(_t_secs_to_us "$1")))
	while [ "$(_t_now_us)" -lt "$end" ]; do
		for i in "${!WATCH[@]}"; do
			[ -e "/proc/${WATCH[$i]}/stat" ] ||
			    t_fail "${WHO[$i]} (${WATCH[$i]}) is gone"
			! c_is_stopped "${HOST[$i]}" "${WATCH[$i]}" ||
			    t_fail "${WHO[$i]} (${WATCH[$i]}) seen stopped in mode $2"
		done
		sleep 0.003
	done
}
policies() {	# policies CLASS MODE
	local i
	for i in "${!WATCH[@]}"; do
		[ "$(t_policy "${WATCH[$i]}")" = "$1" ] ||
		    t_fail "$2: ${WHO[$i]} is $(t_policy "${WATCH[$i]}"), not $1"
	done
}
run_master1() {	# run_master1 MODE
	c_master1 "$1: "
}
run_spmd() {	# run_spmd MODE
	local out ring n0
	n0=$(grep -c 'token ring done' "$T_DIR/h0/tmp/pvml.0")
	out=$(c_exec h0 timeout 90 dts-pvmctl run -n 4 spmd 2>&1) || t_fail "$1: spmd failed: $out"
	grep -q "^tasks=4 " <<< "$out" || t_fail "$1: spmd: $out"
	t_wait_for 10 eval '[ "$(grep -c "token ring done" "$T_DIR/h0/tmp/pvml.0")" -gt "$n0" ]' ||
	    t_fail "$1: spmd: no new 'token ring done' in the master's log"
	ring=$(sed -n 's/.*\] \([0-9]*\( -> [0-9]*\)\{4\}\) *$/\1/p' "$T_DIR/h0/tmp/pvml.0" | tail -n 1)
	read -r -a r <<< "${ring//->/}"
	[ "${#r[@]}" = 5 ] && [ "${r[0]}" = "${r[4]}" ] || t_fail "$1: spmd ring '$ring'"
}

c_sc_open
c_sc_cmd "si 500ms" || t_fail "si: $C_SC_ERR"

# ---- 1. DISTRIBUTED -----------------------------------------------------------
# stagger: the console switches to distributed while the dts of h1 and h2
# are stopped; each takes the datagram when continued, and starts slicing
# from its own origin then: h1 a third of IP after one of h0's PS starts,
# h2 two thirds.
D1=$(c_dts_pid h1) && D2=$(c_dts_pid h2) || t_fail "no dts on h1/h2"
cont_at() {	# cont_at PID OFFSET_NS: SIGCONT at h0's PS start + OFFSET (mod IP)
	local ref target
	ref=$(c_status h0 last_ps_ns) || t_fail "no status from h0"
	target=$(( ref + $2 + ( ($(($(_t_now_us) * 1000)) + 100000000 - ref - $2) / IP_NS + 1) * IP_NS ))
	t_sleep "$(awk -v d=$((target - $(($(_t_now_us) * 1000)))) 'BEGIN { printf "%.6f", d / 1e9 }')"
	kill -CONT "$1"
}
stagger() {
	kill -STOP "$D1" "$D2"
	c_sc_cmd "mode distributed" || t_fail "mode distributed: $C_SC_ERR"
	c_sc_cmd start || t_fail "start: $C_SC_ERR"
	grep -q "^started: mode distributed" <<< "$C_SC_OUT" || t_fail "start: $C_SC_OUT"
	t_wait_for 5 eval '[ "$(c_status h0 mode)" = distributed ]' || t_fail "h0 not distributed"
	t_sleep 0.25	# h0's last PS start may still be on its old grid
	cont_at "$D1" $((IP_NS / 3))
	cont_at "$D2" $((2 * IP_NS / 3))
}
stagger

# ps_us of each host against its own table and its own load
dist_ok() {
	local k st ps load want alt
	for ((k = 0; k < N; k++)); do
		st=$(c_status h$k) || return 1
		[ "$(sed -n 's/^mode=//p' <<< "$st")" = distributed ] &&
		    [ "$(sed -n 's/^active=//p' <<< "$st")" = 1 ] || return 1
		ps=$(sed -n 's/^ps_us=//p' <<< "$st")
		load=$(sed -n 's/^load=//p' <<< "$st")
		read -r want alt <<< "$(awk -v l="$load" -v t="${TAB[$k]}" 'BEGIN {
			split(t, a, " "); w = (l <= 2) ? a[1] : a[2]
			# the load is printed to 0.001: either band at the edge
			x = (l <= 2.001 && l >= 1.999) ? ((l <= 2) ? a[2] : a[1]) : w
			printf "%d %d\n", 100000 * (100 - w) / 100, 100000 * (100 - x) / 100 }')"
		[ "$ps" = "$want" ] || [ "$ps" = "$alt" ] || {
			DIST_WHY="h$k: ps_us $ps, load $load, table ${TAB[$k]}: want $want"
			return 1; }
		PS[k]=$ps LOAD[k]=$load
	done
}
declare -a PS LOAD
DIST_WHY=
t_wait_for 10 dist_ok || t_fail "distributed: $DIST_WHY"
[ "${PS[0]}" != "${PS[1]}" ] && [ "${PS[1]}" != "${PS[2]}" ] && [ "${PS[0]}" != "${PS[2]}" ] ||
    t_fail "distributed: the hosts' PS do not differ: ${PS[*]}"
t_log "distributed: PS ${PS[*]} us at loads ${LOAD[*]} (tables ${TAB[*]})"

# grids SINCE: from the PS starts each host recorded since SINCE (ns) at
# a deadline (a timer wake-up; a PS started at once because the load
# changed PS is recorded with lateness 0, and those that follow show where
# the grid is): the circular spread of its deadlines mod IP (SPREAD, us)
# and where its grid lies (ORIG, ns mod IP); NAPART = the least distance
# between two hosts' grids (us), APART = all of them.  The deadline is
# the start less its lateness, exact however late the wake-up was, so
# lateness only sorts out the immediate starts: up to 20 ms (a fifth of
# IP) counts, because under ASan or beside a build PS starts were seen
# up to 3.8 ms late, and a limit of 1 ms left a host too few of them.
# Not an overrun, though: a wake-up that passed a whole LS is recorded
# with the LS deadline it missed, in the PS it lands in (dts-console(1),
# trace), so a PS row as late as the host's LS is one (under ASan, h0 at
# PS 90 ms had one: its "spread" was the 10 ms LS).
declare -a ORIG SPREAD
grids() {
	local k a b d start spread g lim
	for ((k = 0; k < N; k++)); do
		c_send h$k trace "$1" > "$T_LOG/trace-h$k.csv" || t_fail "no trace from h$k"
	done
	for ((k = 0; k < N; k++)); do
		lim=$(( (IP_NS / 1000 - PS[k]) * 1000 ))
		[ "$lim" -le 20000000 ] || lim=20000000
		while IFS=, read -r ph r late op; do
			[ "$ph" = PS ] && [ "$late" -lt "$lim" ] && [ "$late" != 0 ] ||
			    continue
			echo "$k $(( (r - late - op) % IP_NS ))"
		done < "$T_LOG/trace-h$k.csv"
	done > "$T_DIR/grid.txt"
	g=$(awk -v ip=$IP_NS -v n=$N '
	    { c[$1]++; x[$1, c[$1]] = $2 }
	    END { for (k = 0; k < n; k++) {
		m = c[k]; if (m < 4) { printf "%d - -\n", k; continue }
		# the smallest arc that holds every point
		for (i = 1; i <= m; i++) v[i] = x[k, i]
		for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		gap = v[1] + ip - v[m]; at = 1
		for (i = 2; i <= m; i++) if (v[i] - v[i - 1] > gap) { gap = v[i] - v[i - 1]; at = i }
		printf "%d %d %.1f\n", k, v[at], (ip - gap) / 1000 } }' "$T_DIR/grid.txt")
	while read -r k start spread; do
		[ "$spread" != - ] || t_fail "distributed: h$k has too few PS starts on time"
		ORIG[k]=$start SPREAD[k]=$spread
	done <<< "$g"
	APART= NAPART=$IP_NS
	for ((a = 0; a < N; a++)); do
		for ((b = a + 1; b < N; b++)); do
			d=$(( (ORIG[a] - ORIG[b]) % IP_NS )); d=${d#-}
			[ "$d" -gt $((IP_NS / 2)) ] && d=$((IP_NS - d))
			APART="$APART h$a-h$b:$((d / 1000))us"
			[ $((d / 1000)) -lt "$NAPART" ] && NAPART=$((d / 1000))
		done
	done
}
# A busy machine can wake the stagger so late that two hosts land on one
# grid by chance: then stagger again (static first, so every host enters
# distributed anew).
for try in 1 2 3; do
	t_sleep 0.5
	t1=$(($(_t_now_us) * 1000))
	t_sleep 0.6
	grids "$t1"
	[ "$NAPART" -ge 10000 ] && break
	t_log "distributed: grids only$APART apart after the stagger: again"
	c_sc_cmd "mode static" && c_sc_cmd start || t_fail "static: $C_SC_ERR"
	t_sleep 0.5
	stagger
done
[ "$NAPART" -ge 10000 ] || t_fail "distributed: cannot stagger the hosts:$APART"
# now 3 s of slicing with the console's SI (500ms) datagrams in between:
# every host stays on its own grid, and the grids stay apart
t1=$(($(_t_now_us) * 1000))
t_sleep 3
grids "$t1"
for ((k = 0; k < N; k++)); do
	awk -v s="${SPREAD[k]}" 'BEGIN { exit !(s < 1000) }' ||
	    t_fail "distributed: h$k's PS starts spread over ${SPREAD[k]} us: it jumped (a sync?)"
done
[ "$NAPART" -ge 3000 ] ||
    t_fail "distributed: two hosts slice together:$APART (synchronized)"
t_log "distributed: each host on its own grid (within ${SPREAD[*]} us), apart by$APART"
run_master1 distributed
run_spmd distributed

# ---- 2. OFF -------------------------------------------------------------------
c_sc_cmd "mode off" && c_sc_cmd start || t_fail "off: $C_SC_ERR"
grep -q "^started: mode off" <<< "$C_SC_OUT" || t_fail "start: $C_SC_OUT"
mode_is() {	# mode_is MODE: every host reports MODE, phase none
	local k st
	for ((k = 0; k < N; k++)); do
		st=$(c_status h$k) || return 1
		[ "$(sed -n 's/^mode=//p' <<< "$st")" = "$1" ] &&
		    [ "$(sed -n 's/^phase=//p' <<< "$st")" = none ] || return 1
	done
}
t_wait_for 10 mode_is off || t_fail "not every host in off with no phase"
policies TS off
never_stopped 1.5 off
run_master1 off
run_spmd off
t_log "off: every gang SCHED_OTHER, never stopped; master1 and spmd right"

# ---- 3. HPDT (after OFF: the gangs go back to real time) -------------------
c_sc_cmd "mode hpdt" && c_sc_cmd start || t_fail "hpdt: $C_SC_ERR"
grep -q "^started: mode hpdt" <<< "$C_SC_OUT" || t_fail "start: $C_SC_OUT"
t_wait_for 10 mode_is hpdt || t_fail "not every host in hpdt with no phase"
policies RR hpdt
never_stopped 1.5 hpdt
run_master1 hpdt
policies RR hpdt
t_log "hpdt: every gang RR, never stopped; master1 right"

c_sc_close || t_fail "the console exited with status $C_SC_RC: $(cat "$T_LOG/console.err")"
t_pass
