#!/bin/bash
# Network trust on a cluster of 4 hosts: h0 h1 h2 run dts, h3 is a second
# console host (no dts).  Every node holds two console public keys, h0's
# and h3's (the two console_keys of a key change).
#  1. One master.  h0's console (--daemon, SI 500 ms) starts every node.
#     h3's console, with its own key pair, is refused by every node and
#     counted (rejected: master) while h0 speaks; `status` on h3 names h0
#     as each node's master.  `takeover` on h3 moves every node to h3,
#     which then refuses h0; h0's console says that it lost them.
#  2. Dead-man switch.  h3's console puts every node in HPDT and is
#     killed with SIGKILL: within silence (1.5 s, three SIs) + 1 s every
#     node is back on its own config's schedule (STATIC, PS 50%), slicing,
#     and says so in its STATUS and its log.
# Commands signed with a node's own key are t78's business; clock steps
# are t77's.
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t79-cluster-trust

T0=$(_t_now_us)

# the keys before c_up: h0's console key pair (the harness's) and h3's
t_keys "$T_DIR" || t_fail "cannot make the keys"
"$BUILD/console/dts-console" -k "$T_DIR/h3.key" > "$T_DIR/h3.pub" ||
    t_fail "cannot make h3's key pair"
PUB0=$(cat "$T_DIR/console.pub") PUB3=$(cat "$T_DIR/h3.pub")
C_CONF_EXTRA="mode = \"static\"; ip = \"100ms\"; ps = \"50%\"; si = \"2s\";
console_keys = [\"$PUB0\", \"$PUB3\"];"
C_DTS_HOSTS="0 1 2"
c_up 4 --no-pvm
c_ft_write_conf || t_fail "cannot write the console's configuration"
# h3's console: the same file with h3's key pair
CONF3=$T_DIR/h3/console.conf
sed "s|sign_key = \"$C_SIGN\"|sign_key = \"$T_DIR/h3.key\"|" "$C_FT_CONF" > "$CONF3"
grep -q "h3.key" "$CONF3" || t_fail "no sign_key line to replace in $C_FT_CONF"
cmp -s "$T_DIR/h3.key" "$C_SIGN" && t_fail "h3's key pair is h0's"
# con3 ARGS...: dts-console on h3; output in OUT3/ERR3, status returned
con3() {
	c_exec h3 "$BUILD/console/dts-console" -f "$CONF3" -n "$@" \
	    > "$T_LOG/con3.out" 2> "$T_LOG/con3.err" < /dev/null
	local rc=$?
	OUT3=$(cat "$T_LOG/con3.out") ERR3=$(cat "$T_LOG/con3.err")
	{ echo "\$ dts-console $*   # status $rc"; echo "$OUT3"; echo "$ERR3"; } >> "$T_LOG/con3.log"
	return $rc
}
A0=${C_ADDR[0]} A3=${C_ADDR[3]}

# st K FIELD=VALUE...: K's STATUS has every FIELD=VALUE
st() {
	local out kv k=$1
	shift
	out=$(c_status "$k") || return 1
	for kv in "$@"; do grep -qx "$kv" <<< "$out" || return 1; done
}
every_host() {	# every_host SECS FIELD=VALUE...
	local k secs=$1
	shift
	for k in 0 1 2; do
		t_wait_for "$secs" st h$k "$@" ||
		    t_fail "h$k: want $*, STATUS: $(c_status h$k | paste -sd' ')"
	done
}

# ---- 1. one master --------------------------------------------------------
# h0's console stays (commands from a fifo; its notices in console.err)
c_sc_write_console_conf || t_fail "cannot write h0's console configuration"
C_SC_ARGS=-n c_sc_open || t_fail "cannot start h0's console"
for cmd in "mode static" "ip 100ms" "ps 40%" "si 500ms" "start"; do
	c_sc_cmd "$cmd" || t_fail "h0's console, $cmd: $C_SC_ERR"
done
every_host 5 mode=static ps_us=40000 master="$A0"
declare -a R0
for k in 0 1 2; do R0[k]=$(c_status h$k rej_master); done
con3 -c "mode static; ip 100ms; ps 20%; si 500ms; start" || t_fail "start on h3: $ERR3"
t_sleep 1
con3 -c "status" || t_fail "status on h3: $ERR3"
for k in 0 1 2; do
	st h$k ps_us=40000 master="$A0" ||
	    t_fail "h$k followed the second console: $(c_status h$k | paste -sd' ')"
	[ "$(c_status h$k rej_master)" -gt "${R0[k]}" ] ||
	    t_fail "h$k did not count h3's schedule as refused"
	awk -v a="${C_ADDR[$k]}" -v m="$A0" '$2 == a && $(NF - 2) == m { f = 1 } END { exit !f }' \
	    <<< "$OUT3" || t_fail "status on h3 does not name $A0 as h$k's master: $OUT3"
done
t_log "1. h3's console refused by every node while h0 is the master: $(t_secs "$T0") s"
con3 -c "mode static; ip 100ms; ps 20%; si 500ms; takeover" || t_fail "takeover on h3: $ERR3"
grep -q "^taken over: mode static, PS 20ms of IP 100ms" <<< "$OUT3" ||
    t_fail "takeover said: $OUT3"
every_host 3 ps_us=20000 master="$A3"
for k in 0 1 2; do
	grep -q "console $A3 takes over from console $A0: it is now the master" \
	    "$T_LOG/dts-h$k.log" || t_fail "h$k did not log the takeover"
done
# h0 still sends every SI: refused now, and its console says so, once a node
lost() { [ "$(grep -c "now follows the console at $A3: this console no longer commands it" "$T_LOG/console.err")" = 3 ]; }
t_wait_for 5 lost || t_fail "h0's console did not say that it lost its 3 nodes: $(cat "$T_LOG/console.err")"
every_host 1 ps_us=20000 master="$A3"
c_sc_close
t_log "1. takeover: every node follows h3 and refuses h0: $(t_secs "$T0") s"

# ---- 2. dead-man switch: the master dies in HPDT --------------------------
con3 --daemon -c "mode hpdt; si 500ms; start" || t_fail "hpdt on h3: $ERR3"
CON3=$(sed -n 's/^dts-console: running in the background, pid \([0-9][0-9]*\)$/\1/p' <<< "$OUT3")
[ -n "$CON3" ] || t_fail "no pid of h3's console: $OUT3"
t_track "$CON3"
every_host 3 mode=hpdt master="$A3"
kill -KILL "$CON3"
t_wait_for 5 eval '! _t_alive "$CON3"' || t_fail "h3's console survived kill -9"
t_untrack "$CON3"
k0=$(_t_now_us)
# silence: 3 SIs of 500 ms = 1.5 s; the promise: within silence + 1 s
back() { st "$1" mode=static ps_us=50000 own=1 active=1 master=0.0.0.0; }
for k in 0 1 2; do
	t_wait_for 4 back h$k || t_fail "h$k not back on its config: $(c_status h$k | paste -sd' ')"
done
took=$(( ($(_t_now_us) - k0) / 1000 ))
t_log "2. master killed in HPDT: every node on its own schedule after ${took} ms (silence 1500 ms)"
[ "$took" -le 2500 ] || t_fail "nodes back on their config after $took ms, more than silence + 1 s"
for k in 0 1 2; do
	grep -q "no command from console $A3 for 1.5s: back to the configured schedule" \
	    "$T_LOG/dts-h$k.log" || t_fail "h$k did not log the dead-man switch"
	# slicing again: the count of slices grows
	n0=$(c_status h$k slices)
	t_wait_for 3 eval '[ "$(c_status h'$k' slices)" -gt "$n0" ]' ||
	    t_fail "h$k is not slicing (slices stay $n0)"
done
t_pass
