#!/bin/bash
# t121-master-daemon.sh - dts-master, the cluster's master daemon, and
# dts-console as its client (dts-master(8)), over 3 real dts nodes
# (tests/system/cluster.sh):
#  1. dts-master -d on h0 (console.peer = h1) starts STATIC (IP 100ms,
#     PS 80%, SI 500ms); a standby dts-master -S -d on h1.  Every node's
#     master is h0.
#  2. root's `dts-console -c "mode balanced"` on h0 goes to the master's
#     socket: every node runs balanced within the tolerance below (the
#     bench holds the goal, 1 SI + 100 ms: tests/bench/bench-master.sh),
#     every node's master is still h0, no node refused a schedule (no
#     second master spoke), and the console printed no "own master" line.
#  3. A user outside console.operator_group: `mode static` is refused in
#     one line (status 1) and nothing changes; the user reads `jobs` (the
#     master's matrix: "mode balanced"); `--daemon` as root is refused
#     while the master answers.  The same user in the group may change the
#     mode (back to static).
#  4. kill -9 the master: the standby on h1 takes over, no node falls
#     back to its configured schedule, every node's master is h1.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t121-master-daemon
t_need_built console/dts-console
t_need_built master/dts-master

N=3
SI_MS=500
# no machine noise may fail this: the goal (SI + 100 ms) is the bench's
TOL_S=5
C_CONF_EXTRA='mode = "off";'
c_up $N --no-pvm
A0=$(c_addr h0) A1=$(c_addr h1)
nodes=
for ((k = 0; k < N; k++)); do nodes="$nodes${nodes:+, }\"$(c_addr h$k)\""; done
mkdir -p "$T_DIR/msock" && chmod 755 "$T_DIR/msock" || t_fail "mkdir msock"
C_SC_CONSOLE_EXTRA="nodes = [$nodes]; status_wait = \"300ms\"; peer = \"@PEER@\"; master_socket = \"$T_DIR/msock/@H@.sock\";"
c_sc_write_console_conf || t_fail "cannot write the console's configuration"
t_make_user --no-group
sed -e "s/@PEER@/$A1/" -e "s/@H@/h0/" -e "s/^console = {/console = { operator_group = \"$T_GROUP\";/" \
    "$C_SC_CONF" > "$T_DIR/console-h0.conf"
sed -e "s/@PEER@/$A0/" -e "s/@H@/h1/" "$C_SC_CONF" > "$T_DIR/console-h1.conf"
grep -q "operator_group = \"$T_GROUP\"" "$T_DIR/console-h0.conf" ||
    t_fail "no operator_group in console-h0.conf: $(head -c 300 "$T_DIR/console-h0.conf")"
chmod 644 "$T_DIR/console-h0.conf"
t_pub_bin "$BUILD/console/dts-console" || t_fail "t_pub_bin"
t_user_argv

# master HOST NAME ARGS...: dts-master -d on HOST; its pid in M_PID
master() {
	local h=$1 name=$2
	shift 2
	M_PID=
	c_exec "$h" "$BUILD/master/dts-master" -f "$T_DIR/console-$h.conf" -d "$@" \
	    > "$T_LOG/$name.out" 2>&1 < /dev/null || return 1
	M_PID=$(sed -n 's/^dts-master: running in the background, pid \([0-9][0-9]*\)$/\1/p' \
	    "$T_LOG/$name.out")
	[ -n "$M_PID" ] || return 1
	t_track "$M_PID"
}
# con ARGS...: root's dts-console -n on h0; output in CON_OUT, CON_ERR
con() {
	c_exec h0 "$BUILD/console/dts-console" -n -f "$T_DIR/console-h0.conf" "$@" \
	    > "$T_LOG/con.out" 2> "$T_LOG/con.err" < /dev/null
	CON_RC=$?
	CON_OUT=$(cat "$T_LOG/con.out") CON_ERR=$(cat "$T_LOG/con.err")
	{ echo "\$ dts-console $*   # $CON_RC"; echo "$CON_OUT"; echo "$CON_ERR"; } >> "$T_LOG/con.log"
	return "$CON_RC"
}
# ucon ARGS...: the same as T_USER
ucon() {
	c_exec h0 "${T_USER_ARGV[@]}" "$T_DIR/bin/dts-console" -n -f "$T_DIR/console-h0.conf" "$@" \
	    > "$T_LOG/ucon.out" 2> "$T_LOG/ucon.err" < /dev/null
	CON_RC=$?
	CON_OUT=$(cat "$T_LOG/ucon.out") CON_ERR=$(cat "$T_LOG/ucon.err")
	{ echo "\$ (user) dts-console $*   # $CON_RC"; echo "$CON_OUT"; echo "$CON_ERR"; } >> "$T_LOG/con.log"
	return "$CON_RC"
}
# masters A MODE: every node's master is A, running MODE, slicing
masters() {
	local k out
	for ((k = 0; k < N; k++)); do
		out=$(c_status h$k) || return 1
		grep -qx "master=$1" <<< "$out" && grep -qx "mode=$2" <<< "$out" &&
		    grep -qx "active=1" <<< "$out" && grep -qx "own=0" <<< "$out" || return 1
	done
}
refused() {
	local k s=0 r
	for ((k = 0; k < N; k++)); do
		r=$(c_status h$k rej_master) || return 1
		s=$((s + r))
	done
	echo "$s"
}
no_fallback() {
	local k
	for ((k = 0; k < N; k++)); do
		! grep -q "back to the configured schedule" "$T_LOG/dts-h$k.log" ||
		    t_fail "$1: h$k fell back to its configuration: $(grep 'back to the configured' "$T_LOG/dts-h$k.log")"
	done
}

# ---- 1. the master on h0, a standby on h1 -----------------------------------
master h0 master-h0 -c "mode static; ip 100ms; ps 80%; si ${SI_MS}ms; start" ||
    t_fail "dts-master on h0: $(cat "$T_LOG/master-h0.out")"
M0=$M_PID
t_wait_for 5 masters "$A0" static || t_fail "the nodes do not follow dts-master on h0: $(c_status h1)"
master h1 master-h1 -S || t_fail "standby dts-master on h1: $(cat "$T_LOG/master-h1.out")"
M1=$M_PID
[ -S "$T_DIR/msock/h0.sock" ] || t_fail "no control socket at $T_DIR/msock/h0.sock"
t_log "dts-master on h0 ($M0), standby on h1 ($M1); nodes follow h0"

# ---- 2. mode balanced from root's console -----------------------------------
r0=$(refused) || t_fail "status"
t0=$(_t_now_us)
con -c "mode balanced" || t_fail "mode balanced: $CON_ERR"
grep -qx "mode balanced (sent)" <<< "$CON_OUT" || t_fail "mode balanced said: $CON_OUT"
[ -z "$CON_ERR" ] || t_fail "the console said: $CON_ERR"
t_wait_for "$TOL_S" masters "$A0" balanced || t_fail "not every node runs balanced under h0: $(c_status h1)"
t1=$(_t_now_us)
r1=$(refused) || t_fail "status"
[ "$r1" = "$r0" ] || t_fail "the nodes refused $((r1 - r0)) schedules: a second master spoke"
t_log "mode balanced through the socket: every node balanced under h0 in $(((t1 - t0) / 1000)) ms (goal in the bench: ${SI_MS} + 100 ms), no schedule refused"
con -c "status" || t_fail "status through the master: $CON_ERR"
# (the master's own table: each node's master is "this", the master)
[ "$(grep -Ec "^h[0-9] .* balanced .* this " <<< "$CON_OUT")" = "$N" ] ||
    t_fail "status does not show $N nodes balanced under the master: $CON_OUT"

# ---- 3. users: refused to change, allowed to read ---------------------------
ucon -c "mode static" && t_fail "a user outside $T_GROUP changed the mode: $CON_OUT"
[ "$(wc -l <<< "$CON_ERR")" = 1 ] &&
    grep -q "mode static: changes the schedule, which only root and group $T_GROUP may (you are uid $T_UID)" <<< "$CON_ERR" ||
    t_fail "the refusal is not one line naming why: '$CON_ERR'"
sleep 0.6
masters "$A0" balanced || t_fail "the refused mode changed something: $(c_status h1)"
ucon -c "jobs" || t_fail "a user's jobs: $CON_ERR"
grep -q "^mode balanced, PS" <<< "$CON_OUT" || t_fail "a user's jobs is not the master's: $CON_OUT"
grep -q "console's own" <<< "$CON_OUT" && t_fail "a user's jobs is labelled the console's own: $CON_OUT"
con --daemon -c start && t_fail "dts-console --daemon started beside the master: $CON_OUT"
grep -q "a master answers at $T_DIR/msock/h0.sock" <<< "$CON_ERR" ||
    t_fail "--daemon beside the master said: $CON_ERR"
t_join_group
ucon -c "mode static" || t_fail "a user in $T_GROUP could not change the mode: $CON_ERR"
t_wait_for "$TOL_S" masters "$A0" static || t_fail "the operator's mode static did not reach the nodes: $(c_status h1)"
t_log "a user outside the operator group is refused in one line and nothing changes; the user reads the master's jobs; --daemon is refused; in the group, the user's mode static runs"

# ---- 4. kill -9 the master: the standby takes over --------------------------
kill -9 "$M0"
t_wait_for 5 eval '! _c_alive "$M0"' || t_fail "dts-master on h0 did not die"
t_untrack "$M0"
t_wait_for 10 masters "$A1" static || t_fail "the standby on h1 did not take over: $(c_status h1)"
sleep 1.5
masters "$A1" static || t_fail "the nodes left h1: $(c_status h1)"
no_fallback "after the takeover"
t_log "dts-master on h0 killed: every node follows h1, no fallback"
t_pass
