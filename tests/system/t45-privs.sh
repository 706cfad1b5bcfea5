#!/bin/bash
# Least privilege of the node service.  dts and dts-load run as root with
# only CAP_KILL and CAP_SYS_NICE (effective, permitted and bounding sets),
# not dumpable, at FIFO max and max-1.  A user (listed in `users`) starts
# pvmd through dts-run: pvmd, the dts-pvmjoin dts-run started beside it
# and its PVM task run as that user, with no capability, in the gang at
# RR max-2.  The gang's cgroup belongs to root:
# the user can neither write its files (freeze, procs), nor move a member
# out, nor signal or inspect dts and dts-load.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup privs

cap() {	# cap PID SET: hex capability set (CapEff, CapPrm, CapBnd, ...)
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}
ids() {	# ids PID Uid|Gid: real, effective, saved and fs ids
	awk -v k="$2:" '$1 == k { print $2, $3, $4, $5 }' "/proc/$1/status"
}
CAPS=0000000000800020	# 1 << CAP_KILL (5) | 1 << CAP_SYS_NICE (23)
NONE=0000000000000000
max=$(chrt -m | awk -F/ '/SCHED_FIFO/ { print $NF + 0 }')
prio() { chrt -p "$1" | sed -n 's/.*priority: //p'; }

t_make_user
t_user_argv
t_pub_bin "$BUILD/run/dts-run" "$BUILD/run/dts-pvmjoin" "$BUILD/tests/pvm/dts-pvmctl" "$BUILD/tests/pvm/spin" ||
    t_fail "cannot copy the test programs"
n_conf mode='"hpdt"' users="[\"$T_USER\"]" max_jobs=1
n_start_dts
N_RUN=$T_DIR/bin/dts-run n_start_pvmd "${T_USER_ARGV[@]}"
t_as_user "$T_DIR/bin/dts-pvmctl" spawn -n 1 "$T_DIR/bin/spin" 0 > /dev/null ||
    t_fail "$T_USER could not spawn a PVM task"
t_wait_for 5 n_has_task spin || t_fail "no PVM task in the gang"
spin=$(n_gang_pids spin)
t_wait_for 5 n_has_task dts-pvmjoin || t_fail "no dts-pvmjoin in the gang"
join=$(n_gang_pids dts-pvmjoin)
t_logged "adopted pid $N_PVMD (user $T_USER)" || t_fail "adoption of $T_USER's pvmd not logged"

# ---- dts and dts-load: root, two capabilities, not dumpable ---------------
for p in "$N_DTS" "$N_AGENT"; do
	who="$(cat "/proc/$p/comm") $p"
	[ "$(ids "$p" Uid)" = "0 0 0 0" ] || t_fail "$who: Uid $(ids "$p" Uid), want root"
	for set in CapEff CapPrm CapBnd; do
		[ "$(cap "$p" $set)" = $CAPS ] || t_fail "$who: $set $(cap "$p" $set), want $CAPS"
	done
	[ "$(cap "$p" CapAmb)" = "$([ "$p" = "$N_AGENT" ] && echo $CAPS || echo $NONE)" ] ||
	    t_fail "$who: CapAmb $(cap "$p" CapAmb)"
done
t_log "dts $N_DTS, dts-load $N_AGENT: uid 0, CapEff = CapPrm = CapBnd = $CAPS"
# not dumpable: a root process with the same two capabilities may read the
# environment of a dumpable one (the control), not theirs
PEER=(setpriv --inh-caps=-all --bounding-set=-all,+kill,+sys_nice --)
"${PEER[@]}" sleep 60 & ctl=$!
t_track "$ctl"
t_wait_for 2 eval '[ "$(cat /proc/$ctl/comm 2>/dev/null)" = sleep ]' || t_fail "no control process"
[ "$(cap "$ctl" CapEff)" = $CAPS ] || t_fail "control: CapEff $(cap "$ctl" CapEff)"
"${PEER[@]}" cat "/proc/$ctl/environ" > /dev/null 2>&1 ||
    t_fail "control: a peer cannot read a dumpable process's environ: the check below would prove nothing"
kill "$ctl"
for p in "$N_DTS" "$N_AGENT"; do
	"${PEER[@]}" cat "/proc/$p/environ" > /dev/null 2>&1 &&
	    t_fail "$(cat "/proc/$p/comm") $p is dumpable: a peer with the same uid and capabilities reads its environ"
	# and the gang's user can neither signal nor inspect it
	out=$(t_as_user kill -0 "$p" 2>&1) && t_fail "$T_USER can signal $(cat "/proc/$p/comm") $p"
	grep -qi "not permitted" <<< "$out" || t_fail "kill -0 $p as $T_USER: '$out', want EPERM"
	t_as_user cat "/proc/$p/environ" > /dev/null 2>&1 && t_fail "$T_USER can read /proc/$p/environ"
	t_as_user cat "/proc/$p/maps" > /dev/null 2>&1 && t_fail "$T_USER can read /proc/$p/maps"
done
t_logged "dts: uid 0, capabilities \"cap_kill,cap_sys_nice=eip\", not dumpable" ||
    t_fail "dts did not log its privileges"

# priorities: dts's edge thread and its guard (dts-guard) FIFO max, its
# other threads (main, intake) and dts-load FIFO max-1, its logger
# (dts-log) SCHED_OTHER, pvmd RR max-2, the other members RR max-3
tprio=$(for t in /proc/"$N_DTS"/task/*; do
	chrt -p "${t##*/}" | grep -q SCHED_FIFO && prio "${t##*/}" ||
	    echo "other-$(cat "$t/comm")"
done | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
[ "$tprio" = "$((max - 1)):2 $max:2 other-dts-log:1 " ] ||
    t_fail "dts threads: want 2 at FIFO $max, 2 at FIFO $((max - 1)) and the logger at SCHED_OTHER, got $tprio"
chrt -p "$N_AGENT" | grep -q SCHED_FIFO && [ "$(prio "$N_AGENT")" = $((max - 1)) ] ||
    t_fail "dts-load not at FIFO $((max - 1))"

# ---- the gang: the user's processes, no capability, RR max-2/max-3 ---------
# (a task inherits pvmd's priority at spawn; dts lowers it within 1 s)
want_prio() { [ "$1" = "$N_PVMD" ] && echo $((max - 2)) || echo $((max - 3)); }
prios_set() {
	local p
	for p in "$N_PVMD" $spin $join; do
		[ "$(prio "$p")" = "$(want_prio "$p")" ] || return 1
	done
}
t_wait_for 3 prios_set || true	# judged below, member by member
for p in "$N_PVMD" $spin $join; do
	who="$(cat "/proc/$p/comm") $p"
	n_in_gang "$p" || t_fail "$who is not in the gang"
	[ "$(ids "$p" Uid)" = "$T_UID $T_UID $T_UID $T_UID" ] || t_fail "$who: Uid $(ids "$p" Uid), want $T_UID"
	for set in CapEff CapPrm CapInh CapAmb; do
		[ "$(cap "$p" $set)" = $NONE ] || t_fail "$who: $set $(cap "$p" $set)"
	done
	chrt -p "$p" | grep -q SCHED_RR && [ "$(prio "$p")" = "$(want_prio "$p")" ] ||
	    t_fail "$who: $(chrt -p "$p" | tr '\n' ' '), want SCHED_RR $(want_prio "$p")"
done
[ "$(cat "/proc/$N_PVMD/comm")" = pvmd ] || t_fail "dts-run did not exec pvmd"
t_log "pvmd $N_PVMD, spin $spin, dts-pvmjoin $join: uid $T_UID, no capability, pvmd RR $((max - 2)), the others RR $((max - 3)), in $N_GANG"

# ---- the gang cgroup belongs to root; the user cannot change it ------------
for f in "$N_CG" "$N_GANG" "$N_GANG/cgroup.procs" "$N_GANG/cgroup.threads" \
    "$N_GANG/cgroup.freeze" "$N_GANG/cgroup.subtree_control" "$N_CG/cgroup.procs"; do
	[ "$(stat -c %u "$f")" = 0 ] || t_fail "$f belongs to uid $(stat -c %u "$f")"
	[ $((0$(stat -c %a "$f") & 022)) = 0 ] || t_fail "$f: mode $(stat -c %a "$f") lets others write it"
done
# as the user: write "1" to freeze, move pvmd out of the gang (to the parent
# and to the root cgroup), move a process in, make a child cgroup
try() {	# try WHAT FILE TEXT: writing TEXT to FILE as the user must fail
	t_as_user sh -c 'printf "%s\n" "$2" > "$1"' sh "$2" "$3" 2> /dev/null &&
	    t_fail "$T_USER could $1 ($2)"
	return 0
}
try "unfreeze the gang" "$N_GANG/cgroup.freeze" 0
try "freeze the gang" "$N_GANG/cgroup.freeze" 1
try "move pvmd out of the gang" "$N_CG/cgroup.procs" "$N_PVMD"
try "move pvmd to the root cgroup" "$(t_cg_mount)/cgroup.procs" "$N_PVMD"
try "move a thread out of the gang" "$N_CG/cgroup.threads" "$spin"
try "kill the gang" "$N_GANG/cgroup.kill" 1
t_as_user mkdir "$N_GANG/mine" 2> /dev/null && t_fail "$T_USER made a cgroup in the gang"
[ "$(cat "$N_GANG/cgroup.freeze")" = 0 ] || t_fail "cgroup.freeze changed"
n_in_gang "$N_PVMD" && n_in_gang "$spin" || t_fail "a member left the gang"
# a process of the user outside the gang cannot join it by writing procs
"${T_USER_ARGV[@]}" sleep 30 & usl=$!	# setpriv and env exec: $! is sleep
t_track "$usl"
t_wait_for 2 eval '[ "$(cat /proc/$usl/comm 2>/dev/null)" = sleep ]' || t_fail "no sleep"
[ "$(ids "$usl" Uid)" = "$T_UID $T_UID $T_UID $T_UID" ] || t_fail "the sleep is not $T_USER's"
try "join the gang" "$N_GANG/cgroup.procs" "$usl"
n_in_gang "$usl" && t_fail "$T_USER's sleep joined the gang"
t_log "as $T_USER: cgroup.freeze, cgroup.procs, cgroup.threads, cgroup.kill, mkdir: all refused"

# the listed user may not start a job beyond max_jobs (1) either
out=$(t_as_user env DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job second -- true 2>&1) &&
    t_fail "a second gang was started"
grep -q "this node runs max_jobs = 1 jobs already: $T_USER:pvm" <<< "$out" || t_fail "second gang: '$out'"

# the user halts the VM; dts keeps running as root
t_as_user "$T_DIR/bin/dts-pvmctl" halt > /dev/null 2>&1
t_wait_for 10 n_gang_empty || t_fail "the gang did not end with pvm_halt"
kill -0 "$N_DTS" || t_fail "dts ended with the user's pvmd"
kill -TERM "$N_DTS"
n_wait_exit || t_fail "dts did not exit on SIGTERM"
[ "$N_RC" = 0 ] || t_fail "dts exit status $N_RC"
t_pass
