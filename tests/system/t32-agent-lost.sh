#!/bin/bash
# dts-load is the gang's fail-safe.  If it dies and cannot be started
# again (here: its binary lost its execute bits), dts says why in one line
# and releases the gang - running, SCHED_OTHER - instead of slicing it
# without a fail-safe.  Once dts-load can run again, dts restarts it (with
# its back-off) and slicing resumes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup agent-lost

t_pub_bin "$BUILD/load/dts-load" || t_fail "cannot copy dts-load"
agent=$T_DIR/bin/dts-load
n_conf mode='"static"' ip='"100ms"' ps='"50%"' load_agent="\"$agent\""
n_start
n_spawn_spin
t_wait_for 5 n_phase_is LS || t_fail "not slicing"

chmod 644 "$agent"
kill -KILL "$N_AGENT"
t_wait_for 5 grep -q "cannot run $agent: exec: Permission denied; no fail-safe" \
    "$T_LOG/dts.log" || t_fail "dts did not say why dts-load is gone"

released() { [ "$(n_status phase)" = none ] && n_is_running "$N_SPIN" &&
    [ "$(t_policy "$N_SPIN")" = TS ]; }
t_wait_for 2 released || t_fail "gang not released without its fail-safe: phase \
$(n_status phase), spin $(t_proc_state "$N_SPIN") $(t_policy "$N_SPIN")"
t_log "no dts-load: gang released (phase none, spin running at SCHED_OTHER)"

chmod 755 "$agent"
# the back-off doubles from 100 ms up to 10 s: within 15 s it runs again
t_wait_for 15 grep -q "dts-load runs again: slicing resumes" "$T_LOG/dts.log" ||
	t_fail "dts did not start dts-load again"
t_wait_for 5 n_phase_is LS || t_fail "slicing did not resume"
t_wait_for 5 n_is_stopped "$N_SPIN" || t_fail "the gang is not stopped in LS again"
N_AGENT=$(_n_child_named "$N_DTS" dts-load)
[ -n "$N_AGENT" ] || t_fail "no dts-load after the restart"
t_log "dts-load $N_AGENT runs again; slicing resumed"

n_halt || t_fail "dts did not exit after halt"
n_no_leftovers || t_fail "left over after halt"
t_pass
