#!/bin/bash
# After start-up dts holds CAP_SYS_NICE only; pvmd, its tasks and dts-load
# hold no capability at all, even when they run as root; with user = X
# they run as X.  Priorities: dts FIFO max, dts-load FIFO max-1, gang RR.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup privs

cap() {	# cap PID SET: hex capability set (CapEff, CapPrm, CapBnd, ...)
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}
uid_of() { awk '$1 == "Uid:" { print $2 }' "/proc/$1/status"; }
NICE=0000000000800000	# 1 << CAP_SYS_NICE (23)
NONE=0000000000000000
max=$(chrt -m | awk -F/ '/SCHED_FIFO/ { print $NF + 0 }')

check_node() {	# check_node UID
	local p
	[ "$(cap "$N_DTS" CapEff)" = $NICE ] || t_fail "dts CapEff $(cap "$N_DTS" CapEff), want $NICE"
	[ "$(cap "$N_DTS" CapPrm)" = $NICE ] || t_fail "dts CapPrm $(cap "$N_DTS" CapPrm)"
	[ "$(cap "$N_DTS" CapBnd)" = $NICE ] || t_fail "dts CapBnd $(cap "$N_DTS" CapBnd)"
	for p in "$N_PVMD" "$N_AGENT" $(n_gang_pids spin); do
		for set in CapEff CapPrm CapInh CapAmb; do
			[ "$(cap "$p" $set)" = $NONE ] || t_fail "pid $p ($(cat /proc/$p/comm)) $set $(cap "$p" $set)"
		done
		[ "$(uid_of "$p")" = "$1" ] || t_fail "pid $p runs as uid $(uid_of "$p"), want $1"
	done
	[ "$(uid_of "$N_DTS")" = "$1" ] || t_fail "dts runs as uid $(uid_of "$N_DTS"), want $1"
	[ "$(chrt -p "$N_DTS" | grep -c "SCHED_FIFO")" = 1 ] || t_fail "dts not SCHED_FIFO"
	[ "$(chrt -p "$N_DTS" | sed -n 's/.*priority: //p')" = "$max" ] || t_fail "dts not at FIFO $max"
	[ "$(chrt -p "$N_AGENT" | sed -n 's/.*priority: //p')" = $((max - 1)) ] || t_fail "dts-load not at FIFO max-1"
	chrt -p "$N_PVMD" | grep -q SCHED_RR || t_fail "pvmd not SCHED_RR"
	[ "$(chrt -p "$N_PVMD" | sed -n 's/.*priority: //p')" = $((max - 2)) ] || t_fail "pvmd not at RR max-2"
	[ -n "$(n_gang_pids spin)" ] && ! chrt -p "$(n_gang_pids spin)" | grep -q SCHED_RR &&
	    t_fail "the PVM task did not inherit SCHED_RR"
	return 0
}

# as root
n_conf mode='"hpdt"'
n_start
n_spawn_spin
check_node 0
n_halt || t_fail "dts did not exit"

# as an unprivileged user: nobody
nobody=$(id -u nobody 2>/dev/null) || t_skip "no user nobody"
chmod 1777 "$T_TMP" "$T_HOME" "$T_LOG"
chmod 755 "$T_DIR"
rm -f "$T_TMP"/pvm*
n_conf mode='"hpdt"' user='"nobody"'
chmod 644 "$N_CONF"
n_start
[ "$(uid_of "$N_PVMD")" = "$nobody" ] || t_fail "pvmd not running as nobody"
check_node "$nobody"
kill -TERM "$N_DTS"	# nobody's pvmd: halt through a client running as nobody is overkill
n_wait_exit || t_fail "dts did not exit on SIGTERM"
kill -TERM "$N_PVMD"
t_pass
