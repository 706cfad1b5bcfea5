#!/bin/bash
# dts killed with SIGKILL at any moment: the gang runs again within 100 ms
# (dts-load notices) and nothing stays at real-time priority.  SIGTERM,
# SIGINT and SIGHUP release the gang cleanly.  A killed dts-load is
# restarted.  pvmd halting makes dts exit with pvmd's status.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup failsafe
LIMIT_US=100000

# start_node: dts with a long LS (IP 1 s, PS 20%) and one PVM task
start_node() {
	n_conf mode='"static"' ip='"1s"' ps='"20%"'
	n_start
	n_spawn_spin
	spin=$N_SPIN
}
# end_node: the gang outlived dts; end it (pvm_halt) and check it is normal
end_node() {
	local p
	for p in $N_PVMD $(n_gang_pids); do
		case "$(t_policy "$p")" in FF|RR) t_fail "pid $p still real-time after dts died" ;; esac
	done
	n_pvm halt > /dev/null 2>&1
	t_wait_for 10 _n_gone "$N_PVMD" || t_fail "pvmd did not halt"
	wait "$N_DTS" 2>/dev/null
}

# 1. SIGKILL during LS, three times at different points of the LS
worst=0
for delay in 0.05 0.3 0.6; do
	start_node
	t_wait_for 5 n_is_stopped "$spin" || t_fail "gang never stopped"
	t_sleep "$delay"
	out=$("$BUILD/tests/tools/gangwatch" -k "$N_DTS" -t 2000 "$spin")
	case $? in
	0) ;;
	3) t_log "LS ended before the kill (+${delay}s)"; end_node; continue ;;
	*) t_fail "gang still stopped 2 s after kill -9 of dts" ;;
	esac
	us=${out#resumed_us=}
	t_log "kill -9 in LS (+${delay}s): gang resumed after $us us"
	[ "$us" -lt "$LIMIT_US" ] || t_fail "gang resumed only after $us us (limit $LIMIT_US)"
	[ "$us" -gt "$worst" ] && worst=$us
	t_wait_for 2 _n_gone "$N_AGENT" || t_fail "dts-load did not exit after the release"
	end_node
done
t_log "worst kill -9 resume: $worst us"

# 2. SIGKILL during PS: the gang keeps running, but not at RT priority
start_node
t_wait_for 5 n_phase_is PS || t_fail "no PS"
kill -KILL "$N_DTS"
t_wait_for 2 _n_gone "$N_AGENT" || t_fail "dts-load did not notice"
[ "$(t_proc_state "$spin")" != T ] || t_fail "gang stopped after kill -9 in PS"
end_node

# 3. SIGTERM, SIGINT, SIGHUP: released, exit 0, pvmd lives on without DTS
for sig in TERM INT HUP; do
	start_node
	t_wait_for 5 n_is_stopped "$spin" || t_fail "gang never stopped"
	kill -"$sig" "$N_DTS"
	n_wait_exit || t_fail "dts did not exit on SIG$sig"
	[ "$N_RC" = 0 ] || t_fail "dts exit status $N_RC on SIG$sig"
	[ "$(t_proc_state "$spin")" != T ] || t_fail "gang left stopped after SIG$sig"
	kill -0 "$N_PVMD" || t_fail "pvmd died with dts on SIG$sig"
	end_node
done

# 4. dts-load killed: dts starts a new one (and keeps slicing)
start_node
old=$N_AGENT
kill -KILL "$old"
new_agent() { local a; a=$(_n_child_named "$N_DTS" dts-load); [ -n "$a" ] && [ "$a" != "$old" ]; }
t_wait_for 5 new_agent || t_fail "dts-load not restarted"
grep -q "dts-load (pid $old) ended" "$T_LOG/dts.log" || t_fail "restart not logged"
s1=$(n_status slices); t_sleep 1.2; s2=$(n_status slices)
[ "$s2" -gt "$s1" ] || t_fail "slicing stopped after dts-load restart"

# 5. pvmd halts: dts continues the gang, exits with pvmd's status (0)
n_halt || t_fail "dts did not exit after pvm_halt"
[ "$N_RC" = 0 ] || t_fail "dts exit status $N_RC after halt"

# 6. pvmd killed during LS: its orphaned task is continued and normal,
# dts exits with 128 + 9
start_node
t_wait_for 5 n_is_stopped "$spin" || t_fail "gang never stopped"
kill -KILL "$N_PVMD"
n_wait_exit || t_fail "dts did not exit when pvmd died"
[ "$N_RC" = 137 ] || t_fail "dts exit status $N_RC, want 137"
t_wait_for 1 n_is_running "$spin" || t_fail "orphaned task left stopped"
[ "$(t_policy "$spin")" = TS ] || t_fail "orphaned task left at $(t_policy "$spin")"
kill -TERM "$spin"
t_pass
