#!/bin/bash
# t62-cluster-group.sh - console.group: the master reaches every node with
# one datagram an SI, to a multicast group the nodes joined (dts.conf
# group), on a real 3-host cluster (tests/system/cluster.sh).
#
#  1. h0 and h1 join the group (dts logs it); h2 does not (group "").
#  2. A console on h0 (-n, console.nodes = the 3 hosts, console.group,
#     console.group_if = h0's address) starts STATIC: "sent to 1
#     destination".  h0 and h1 follow it (master h0, PS 60 ms); h2, not in
#     the group, keeps its own schedule (PS 20 ms of its dts.conf) and
#     has no master: the group carried the schedule, not unicast.
#  3. A change (ps 40%) reaches h0 and h1 at once, and every SI after it
#     too (their slice counters move and they stay with the master); each
#     gets one copy (no datagram refused as a replay).
#  4. dts -n (the configuration check) refuses a group that is no
#     multicast address, in one line naming it.
#  5. (before 4) a forger on the LAN, h2, floods the group: both members
#     refuse every forgery and keep the master's schedule; h2's own
#     socket counts none.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t62-cluster-group
t_need_built console/dts-console

N=3
GROUP=239.255.77.46
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "20%"; si = "1s";'
C_CONF_EXTRA_0="group = \"$GROUP\";" C_CONF_EXTRA_1="group = \"$GROUP\";"
c_up $N --no-pvm

# ---- 1. the nodes joined ----------------------------------------------------
for k in 0 1; do
	t_logged "joined multicast group $GROUP" "$T_LOG/dts-h$k.log" ||
	    t_fail "h$k: dts did not log joining $GROUP"
done
grep -q "joined multicast group" "$T_LOG/dts-h2.log" && t_fail "h2 joined a group"

# ---- 2. one datagram: h0 and h1 follow, h2 (not in the group) does not -------
A0=$(c_addr h0)
nodes=
for ((k = 0; k < N; k++)); do nodes="$nodes${nodes:+, }\"$(c_addr h$k)\""; done
C_SC_CONSOLE_EXTRA="nodes = [$nodes]; status_wait = \"300ms\"; group = \"$GROUP\"; group_if = \"$A0\";"
C_SC_ARGS=-n c_sc_open
for cmd in "mode static" "ip 100ms" "ps 60%" "si 1s"; do
	c_sc_cmd "$cmd" || t_fail "console: $cmd: $C_SC_ERR"
done
c_sc_cmd start || t_fail "console start: $C_SC_ERR"
grep -q "^started: mode static, PS 60ms of IP 100ms, SI 1s, .*sent to 1 destination$" <<< "$C_SC_OUT" ||
    t_fail "start: $C_SC_OUT $C_SC_ERR"

# follows PS_US K: node K has the console as master and PS PS_US
follows() {
	local out
	out=$(c_status "h$2") || return 1
	grep -qx "master=$A0" <<< "$out" && grep -qx "ps_us=$1" <<< "$out"
}
for k in 0 1; do
	t_wait_for 5 follows 60000 $k || t_fail "h$k does not follow the group's schedule: $(c_status h$k | paste -sd' ')"
done
t_sleep 2.5	# two SIs of the group's schedule
st=$(c_status h2) || t_fail "h2: no status"
grep -qx "ps_us=20000" <<< "$st" && ! grep -qx "master=$A0" <<< "$st" ||
    t_fail "h2 (not in the group) took the schedule: $(paste -sd' ' <<< "$st")"

# ---- 3. a change and the SIs after it ------------------------------------------
c_sc_cmd "ps 40%" || t_fail "console: ps 40%: $C_SC_ERR"
for k in 0 1; do
	t_wait_for 3 follows 40000 $k || t_fail "h$k did not take ps 40%: $(c_status h$k | paste -sd' ')"
done
s0=$(c_status h1 slices)
t_sleep 3	# three SIs: silence (3 SI) would have sent h1 back to its own
follows 40000 1 || t_fail "h1 left the group's schedule: $(c_status h1 | paste -sd' ')"
s1=$(c_status h1 slices)
[ "$s1" -ge $((s0 + 10)) ] || t_fail "h1: slices $s0 -> $s1 in 3 s at IP 100 ms"
# one copy a node: the group's datagram reaches the shared socket only,
# not also the master's own (connected) one, which would refuse the
# second copy as a replay
for k in 0 1; do
	r=$(c_status h$k rej_replay) || t_fail "h$k: no status"
	[ "$r" = 0 ] || t_fail "h$k refused $r datagrams as replays (a second copy?)"
done
t_log "h1: slices $s0 -> $s1 in 3 s; h2 at its own PS 20 ms, no master"

# ---- 5. a forger on the LAN floods the group ------------------------------------
# Anyone on the LAN can send to the group, no key needed: h2, which did
# not join, sends 2 s of forgeries (tests/tools/flood: framed, in range,
# claiming the console key's id, a random signature) to the group's port.
# Each member takes every copy through the intake a unicast datagram
# goes through and refuses it (its rate limit or the signature); both
# keep the master's schedule; h2's own socket, not in the group, gets
# none of them.
sum_rej() { c_status "$1" | awk -F= '/^rej_/ { s += $2 } END { print s + 0 }'; }
declare -a R0
for ((k = 0; k < N; k++)); do R0[k]=$(sum_rej h$k); done
c_exec h2 ip route add 224.0.0.0/4 dev eth0 || t_fail "h2: no route to the group"
out=$(c_exec h2 "$BUILD/tests/tools/flood" -a "$GROUP" -p "$C_PORT" -t 2 -r 2000 \
    -i "${C_PUB:0:8}") || t_fail "flood from h2: $out"
sent=$(sed -n 's/^flood: sent=\([0-9]*\) .*/\1/p' <<< "$out")
[ "${sent:-0}" -ge 1000 ] || t_fail "flood from h2 sent too little: $out"
t_sleep 0.5
for k in 0 1; do
	d=$(($(sum_rej h$k) - R0[k]))
	[ "$d" -ge $((sent / 2)) ] ||
	    t_fail "h$k refused only $d of $sent forgeries sent to the group"
	follows 40000 $k || t_fail "h$k lost the master's schedule to the flood: $(c_status h$k | paste -sd' ')"
	t_log "h$k refused $d of the $sent forgeries sent to the group"
done
[ "$(sum_rej h2)" = "${R0[2]}" ] ||
    t_fail "h2, not in the group, counted $(($(sum_rej h2) - R0[2])) of the group's forgeries"
c_sc_close 2> /dev/null || true

# ---- 4. a group that is not multicast -------------------------------------------
bad=$T_DIR/bad.conf
sed "s/\"$GROUP\"/\"10.1.2.3\"/" "$T_DIR/h0/dts.conf" > "$bad"
grep -q '"10.1.2.3"' "$bad" || t_fail "no group in h0's dts.conf to replace"
out=$("$BUILD/dts/dts" -n -f "$bad" 2>&1) && t_fail "dts took group 10.1.2.3: $out"
grep -q 'group: "10.1.2.3" is not an IPv4 multicast address' <<< "$out" ||
    t_fail "dts on a bad group: $out"
t_pass
