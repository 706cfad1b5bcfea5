#!/bin/bash
# t107-cluster-standby.sh - a master and standby pair of consoles
# (dts-console(1), STANDBY) over 3 real dts nodes (tests/system/cluster.sh):
#  1. The master, `dts-console --daemon` on h0 (console.peer = h1), starts
#     STATIC (IP 100ms, PS 80%, SI 500ms); the standby, `dts-console
#     --daemon --standby` on h1 (console.peer = h0), follows it and sends
#     no SCHEDULE: every node's master stays h0 and no node refuses a
#     schedule as a stray master's.
#  2. kill -9 the master.  Within `silence` (3 SI, 1.5 s) every node's
#     master is h1, with the master's schedule (static, slicing, PS 80 ms,
#     IP 100 ms, SI 500 ms), and no node logged a fallback to its
#     configured schedule (dts's dead-man switch), then nor later.
#  3. The old master comes back as `--standby` on h0: for 3 s every node's
#     master stays h1 and no node refuses a schedule (it sends none).
#  4. Hand back: SIGUSR1 to the standby on h0 takes over; every node's
#     master is h0 again, h1 stands by (no node refuses a schedule of h1
#     over 2 s: it sends none), no fallback anywhere.
#  5. The operator forgets --standby: kill -9 the master on h0 (h1 takes
#     over), then start h0's console again as a plain master with
#     `start`.  It hears h1's copies while no node calls it master, so it
#     yields: every node's master stays h1, and after at most a few
#     refused schedules (sent before the first copy came) the nodes
#     refuse none over 2 s.  It is a working standby: kill -9 h1's console
#     and h0's takes over, with no fallback anywhere.
#  6. The weights the first master was given (`set weight HOST 2.5`,
#     `set weight JOB 7`) went from console to console with every
#     takeover and yield above: a new standby on h1 (fed on its stdin)
#     shows them, though the console now master on h0 was started
#     without them, and it refuses `set weight` itself.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t107-cluster-standby
t_need_built console/dts-console

N=3
C_CONF_EXTRA='mode = "off";'
c_up $N --no-pvm
A0=$(c_addr h0) A1=$(c_addr h1)
nodes=
for ((k = 0; k < N; k++)); do nodes="$nodes${nodes:+, }\"$(c_addr h$k)\""; done
C_SC_CONSOLE_EXTRA="nodes = [$nodes]; status_wait = \"300ms\"; peer = \"@PEER@\";"
c_sc_write_console_conf || t_fail "cannot write the console's configuration"
sed "s/@PEER@/$A1/" "$C_SC_CONF" > "$T_DIR/console-h0.conf"
sed "s/@PEER@/$A0/" "$C_SC_CONF" > "$T_DIR/console-h1.conf"

# con HOST NAME ARGS...: `dts-console -n -f console-HOST.conf ARGS` on
# HOST; a --daemon's pid in CON_PID (tracked)
con() {
	local h=$1 name=$2
	shift 2
	CON_PID=
	c_exec "$h" "$BUILD/console/dts-console" -n -f "$T_DIR/console-$h.conf" "$@" \
	    > "$T_LOG/$name.out" 2>&1 < /dev/null || return 1
	CON_PID=$(sed -n 's/^dts-console: running in the background, pid \([0-9][0-9]*\)$/\1/p' \
	    "$T_LOG/$name.out")
	[ -z "$CON_PID" ] || t_track "$CON_PID"
}
# masters A: every node's master is A, with the static schedule, slicing
masters() {
	local k out
	for ((k = 0; k < N; k++)); do
		out=$(c_status h$k) || return 1
		grep -qx "master=$1" <<< "$out" && grep -qx "mode=static" <<< "$out" &&
		    grep -qx "active=1" <<< "$out" && grep -qx "own=0" <<< "$out" &&
		    grep -qx "ps_us=80000" <<< "$out" && grep -qx "ip_us=100000" <<< "$out" &&
		    grep -qx "si_us=500000" <<< "$out" || return 1
	done
}
# refused: the schedules every node refused as not its master's, summed
refused() {
	local k s=0 r
	for ((k = 0; k < N; k++)); do
		r=$(c_status h$k rej_master) || return 1
		s=$((s + r))
	done
	echo "$s"
}
# no_fallback WHEN: no node's dts logged its dead-man switch
no_fallback() {
	local k
	for ((k = 0; k < N; k++)); do
		! grep -q "back to the configured schedule" "$T_LOG/dts-h$k.log" ||
		    t_fail "$1: h$k fell back to its configuration: $(grep 'back to the configured' "$T_LOG/dts-h$k.log")"
	done
}

# steady SECS A WHAT: over SECS every node keeps A as its master, with the
# static schedule, and refuses no schedule (no other console sends); no
# node fell back to its configuration.  WHAT names the situation.
steady() {
	local r0 r1
	r0=$(refused) || t_fail "status"
	sleep "$1"
	masters "$2" || t_fail "$3: a node's master is no longer $2: $(c_status h1)"
	r1=$(refused) || t_fail "status"
	[ "$r1" = "$r0" ] || t_fail "$3: the nodes refused $((r1 - r0)) schedules over $1 s: another console sends"
	no_fallback "$3"
}

# ---- 1. master on h0, standby on h1 -----------------------------------------
A2=$(c_addr h2)
W="set weight $A2 2.5; set weight alice:vm1 7"	# (6. checks they went along)
con h0 con-master --daemon -c "mode static; ip 100ms; ps 80%; si 500ms; $W; start" ||
    t_fail "master on h0: $(cat "$T_LOG/con-master.out")"
master=$CON_PID
[ -n "$master" ] || t_fail "master on h0 did not stay: $(cat "$T_LOG/con-master.out")"
t_wait_for 5 masters "$A0" || t_fail "the nodes do not follow the master h0: $(c_status h1)"
con h1 con-standby --daemon --standby || t_fail "standby on h1: $(cat "$T_LOG/con-standby.out")"
standby=$CON_PID
[ -n "$standby" ] || t_fail "standby on h1 did not stay: $(cat "$T_LOG/con-standby.out")"
steady 2 "$A0" "with the master on h0 and a standby on h1"
t_log "master h0 ($master), standby h1 ($standby): nodes follow h0, none refused"

# ---- 2. kill -9 the master ----------------------------------------------------
t0=$(_t_now_us)
kill -9 "$master"
t_wait_for 5 eval '! _c_alive "$master"' || t_fail "the master ($master) did not die"
t_untrack "$master"
t_wait_for 10 masters "$A1" || t_fail "the standby h1 did not take over: $(c_status h1)"
no_fallback "after the takeover"
# each node's own stamp of the takeover (dts logs the event's time, ms)
took=
for ((k = 0; k < N; k++)); do
	t_logged "takes over from console $A0" "$T_LOG/dts-h$k.log" ||
	    t_fail "h$k did not log the takeover by h1"
	ts=$(grep -m1 "takes over from console $A0" "$T_LOG/dts-h$k.log" | cut -d' ' -f1)
	ms=$(date -d "$ts" +%s%3N) || t_fail "h$k: no time in its log line: $ts"
	d=$((ms - t0 / 1000))
	took="$took h$k:${d}ms"
	# the takeover comes 1.5 SI (750 ms) after the master's last SCHEDULE
	# at most; silence is 3 SI (1500 ms)
	[ "$d" -ge 0 ] && [ "$d" -lt 1500 ] ||
	    t_fail "h$k: taken over ${d} ms after the kill, not within silence (1500 ms)"
done
sleep 2	# (more than silence: the new master keeps speaking)
masters "$A1" || t_fail "the nodes left h1: $(c_status h1)"
no_fallback "1.5 s after the takeover"
t_log "master killed: every node follows h1, taken over after kill:$took (silence 1500 ms), no fallback"

# ---- 3. the old master back, as standby --------------------------------------
con h0 con-back --daemon --standby || t_fail "standby on h0: $(cat "$T_LOG/con-back.out")"
back=$CON_PID
[ -n "$back" ] || t_fail "standby on h0 did not stay: $(cat "$T_LOG/con-back.out")"
steady 3 "$A1" "with the old master back as standby"
t_log "old master back on h0 ($back): stays standby, nodes follow h1"

# ---- 4. hand back: SIGUSR1 to the standby on h0 -------------------------------
kill -USR1 "$back"
t_wait_for 5 masters "$A0" || t_fail "the hand back to h0 did not happen: $(c_status h1)"
steady 2 "$A0" "after the hand back to h0"
_c_alive "$standby" || t_fail "the console on h1 ended"
t_log "hand back: nodes follow h0, h1 stands by"

# ---- 5. a master restarted without --standby ----------------------------------
kill -9 "$back"
t_wait_for 5 eval '! _c_alive "$back"' || t_fail "the console on h0 ($back) did not die"
t_untrack "$back"
t_wait_for 10 masters "$A1" || t_fail "h1 did not take over again: $(c_status h1)"
con h0 con-plain --daemon -c "mode static; ip 100ms; ps 80%; si 500ms; start" ||
    t_fail "plain master on h0: $(cat "$T_LOG/con-plain.out")"
plain=$CON_PID
[ -n "$plain" ] || t_fail "the plain master on h0 did not stay: $(cat "$T_LOG/con-plain.out")"
sleep 1.5	# 3 SI: h1's copies have reached it
steady 2 "$A1" "with a console started without --standby on h0"
kill -9 "$standby"
t_wait_for 5 eval '! _c_alive "$standby"' || t_fail "the console on h1 ($standby) did not die"
t_untrack "$standby"
t_wait_for 10 masters "$A0" || t_fail "the console started without --standby did not take over when h1 died: $(c_status h1)"
no_fallback "after h0's second takeover"
t_log "a master started without --standby yields to h1 ($(refused) schedules refused in all), and takes over when h1 dies"

# ---- 6. the weights went along ------------------------------------------------
# (4 SIs to hear a copy and the snapshot that goes with it, then show)
{ sleep 2; echo show; echo "set weight $A2 3"; } |
    c_exec h1 "$BUILD/console/dts-console" -n -f "$T_DIR/console-h1.conf" \
    --standby > "$T_LOG/con-late.out" 2>&1
grep -qx "weight       $A2 2.5; others from the PVM host speed" "$T_LOG/con-late.out" &&
    grep -qx "job weights  alice:vm1 7; others 1" "$T_LOG/con-late.out" ||
    t_fail "a standby of h0 does not show the first master's weights: $(cat "$T_LOG/con-late.out")"
grep -q "set weight: this console is standby: it takes its master's weights" "$T_LOG/con-late.out" ||
    t_fail "a standby took set weight: $(cat "$T_LOG/con-late.out")"
t_log "the first master's weights ($A2 2.5, alice:vm1 7) went through 4 takeovers to a standby started last"
t_pass
