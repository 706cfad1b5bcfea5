#!/bin/bash
# t127-console-spawn.sh - the console's spawn with no host named is placed
# as dts-place places a program's (dts-console(1) spawn, dts-place(1)), on
# a real 3-host PVM virtual machine (tests/system/cluster.sh).
#
# As in t122, every host's load index is the machine's (t72), so the hogs
# are CPU-bound PVM tasks (spin) spawned to a named host, which the hosts
# report as their gangs' members, and the console's conf sets
# place.load_weight 0.
#
#  1. One hog on h0, two on h1, none on h2 (2 CPUs each): the console's
#     `spawn spin` goes to h2 (goodness 2.000); `spawn -n 2 spin`, in a
#     later console run, puts none on h1 (the twice-loaded host; PVM's
#     circle would put one there).  The record (dts-place.UID in h0's
#     PVM_TMP) names each placed tid; `tasks` shows the first one on h2
#     PLACED "2.000 candidate", every placed one with a goodness, and the
#     hogs (spawned with -w) "-".
#  2. No load known (a console conf without console_keys): two spawns in
#     one console run both start every task, by PVM's circle, and the
#     console says so once.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t127-console-spawn
t_need_built console/dts-console
[ "$(id -u)" = 0 ] || t_skip "needs root: dts is a root service"

c_up 3
c_sc_write_console_conf || t_fail "cannot write the console's conf"
BASE=$C_SC_CONF
grep -v '^place' "$BASE" > "$T_DIR/place.conf"
echo 'place = { load_weight = 0.0; checks = 1; interval = "200ms"; };' >> "$T_DIR/place.conf"
grep -v '^console_keys' "$T_DIR/place.conf" > "$T_DIR/nokey.conf"
SPIN=$BUILD/tests/pvm/spin
rec=$T_DIR/h0/tmp/dts-place.$(id -u)

# own K N: wait until host K's gang has N tasks besides pvmd
own() {
	OWN_H=h$1 OWN_M=$(($2 + 1))
	t_wait_for 15 eval '[ "$(c_status $OWN_H members)" = $OWN_M ]' ||
	    t_fail "$OWN_H: $OWN_M members expected in its gang, STATUS says $(c_status $OWN_H members)"
}

# spawned: the tids of the console's last "spawned N of N: tX tY" line
spawned() {
	sed -n 's/^spawned [0-9]* of [0-9]*://p' <<< "$C_SC_OUT" | tail -n 1 | sed 's/ t/ /g'
}

# host_of TID: the host `tasks` (in C_SC_OUT) shows the task on
host_of() {
	awk -v t="$1" '$2 == t { print $1 }' <<< "$C_SC_OUT"
}

# ---- 1. the free host first, the loaded one last ----------------------------
for h in h0 h1 h1; do
	c_pvm h0 spawn -w $h "$SPIN" 300 > /dev/null || t_fail "spawn spin on $h failed"
done
own 0 1; own 1 2; own 2 0
rm -f "$rec" "$rec.prom"
C_SC_CONF=$T_DIR/place.conf
c_sc_console "spawn $SPIN 60" || t_fail "spawn: console failed ($C_SC_RC): $C_SC_OUT $C_SC_ERR"
t1=$(spawned)
[ -n "$t1" ] || t_fail "spawn: no tid: $C_SC_OUT"
grep -Eq "^[0-9]+ [0-9]+ [^ ]*spin h2 1 good=2\.000 class=candidate .* tids=${t1# }\$" "$rec" ||
    t_fail "spawn: the record does not name tid$t1 on h2: $(cat "$rec" 2>&1)"
own 2 1
c_sc_console "spawn -n 2 $SPIN 60" || t_fail "spawn -n 2: console failed ($C_SC_RC): $C_SC_OUT $C_SC_ERR"
t23=$(spawned)
[ "$(wc -w <<< "$t23")" = 2 ] || t_fail "spawn -n 2: not 2 tids: $C_SC_OUT"
for t in $t23; do
	grep -Eq "tids=([0-9a-f]+,)*$t(,|\$)" "$rec" || t_fail "spawn -n 2: tid $t not in the record: $(cat "$rec")"
done
! grep -q "circle" <<< "$C_SC_OUT$C_SC_ERR" || t_fail "the console fell back to the circle: $C_SC_OUT $C_SC_ERR"

c_sc_console tasks || t_fail "tasks: console failed ($C_SC_RC): $C_SC_ERR"
got=$(awk -v t="${t1# }" '$2 == t { print $1, $7, $8 }' <<< "$C_SC_OUT")
[ "$got" = "h2 2.000 candidate" ] ||
    t_fail "tasks shows '$got' for tid$t1, not 'h2 2.000 candidate': $(paste -sd'|' <<< "$C_SC_OUT")"
where=
for t in $t23; do
	h=$(host_of "$t")
	where="$where $h"
	[ "$h" != h1 ] || t_fail "tid $t went to h1, the host with 2 hogs: $(paste -sd'|' <<< "$C_SC_OUT")"
	awk -v t="$t" '$2 == t { exit !($7 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ && $8 == "candidate") }' <<< "$C_SC_OUT" ||
	    t_fail "tasks: tid $t has no goodness and class: $(paste -sd'|' <<< "$C_SC_OUT")"
done
hogs=$(awk '$6 ~ /spin$/ && $7 == "-"' <<< "$C_SC_OUT" | wc -l)
[ "$hogs" = 3 ] || t_fail "tasks: $hogs tasks PLACED '-', not the 3 hogs: $(paste -sd'|' <<< "$C_SC_OUT")"
t_log "hogs 1, 2, 0: the console's spawn went to h2 (2.000 candidate), spawn -n 2 to$where"

# ---- 2. no load known: PVM's circle, said once -------------------------------
C_SC_CONF=$T_DIR/nokey.conf
c_sc_console "spawn -n 3 $SPIN 5; spawn -n 3 $SPIN 5" ||
    t_fail "nokey: console failed ($C_SC_RC): $C_SC_OUT $C_SC_ERR"
[ "$(grep -c '^spawned 3 of 3:' <<< "$C_SC_OUT")" = 2 ] || t_fail "nokey: 2 spawns of 3 expected: $C_SC_OUT $C_SC_ERR"
n=$(grep -c "PVM's circle places the tasks: no load known: console_keys is empty" <<< "$C_SC_OUT$C_SC_ERR")
[ "$n" = 1 ] || t_fail "nokey: the circle said $n times, not once: $C_SC_OUT $C_SC_ERR"
t_log "no load known: 2 spawns of 3 by PVM's circle, said once"
C_SC_CONF=$BASE
t_pass
