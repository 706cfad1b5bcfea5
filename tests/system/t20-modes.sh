#!/bin/bash
# Mode switches by datagram: HPDT never stops the gang and keeps it at RT;
# OFF puts it back to normal priority; STATIC slices; DISTRIBUTED takes PS
# from the local load (Table 2.1); stop releases the gang; the config's
# mode runs before any console speaks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup modes

# the configured schedule, before any datagram; a Table 2.1 of our own
# whose first band (load up to table_step, dts.conf(5)) holds any load
# this machine can have, and whose entries all differ: DISTRIBUTED's PS
# must be IP less its first entry
TABLE="20, 35, 60" STEP=50
n_conf mode='"hpdt"' ip='"100ms"' ps='"50%"' \
    load="{ table = [$TABLE]; table_step = $STEP.0; }"
n_start
n_spawn_spin
spin=$N_SPIN
[ "$(n_status mode)" = hpdt ] || t_fail "config mode hpdt not in force"

# stopped_samples SECONDS: how many of 100 samples found spin stopped
# (SIGSTOPped, or in the gang while it is frozen: either backend)
stopped_samples() {
	local n=0 i d
	d=$(awk -v s="$1" 'BEGIN { print s / 100 }')
	for i in $(seq 100); do
		n_is_stopped "$spin" && n=$((n + 1))
		sleep "$d"
	done
	echo "$n"
}
expect_policy() {	# expect_policy CLASS PID...
	local c=$1 p
	shift
	for p in "$@"; do
		[ "$(t_policy "$p")" = "$c" ] || t_fail "pid $p has class $(t_policy "$p"), want $c"
	done
}

# HPDT: never stopped, RT
n=$(stopped_samples 2)
[ "$n" = 0 ] || t_fail "hpdt: gang stopped in $n of 100 samples"
expect_policy RR "$N_PVMD" "$spin"
[ "$(n_status phase)" = none ] || t_fail "hpdt: phase $(n_status phase)"

# STATIC by datagram: slices; RR.  The spinning task (RT: nothing of
# normal priority takes its CPU) gets about PS/IP of a CPU.  (Sampling its
# state from a shell would be biased under load: a shell of normal
# priority runs mostly while the gang is stopped.)
n_send schedule static 50000 100000 > /dev/null || t_fail "no reply"
[ "$(n_status mode)" = static ] || t_fail "mode static not taken"
t_cpu_ns "$spin" c0; _t_now_us t0
t_sleep 2
t_cpu_ns "$spin" c1; _t_now_us t1
pct=$(( (c1 - c0) / 10 / (t1 - t0) ))
t_log "static 50%: the RT task got $pct% of a CPU"
[ "$pct" -ge 30 ] && [ "$pct" -le 70 ] || t_fail "static 50%: the RT task got $pct% of a CPU"
t_wait_for 2 n_gang_frozen || t_fail "static 50%: the gang was never seen frozen"
expect_policy RR "$N_PVMD" "$spin"

# OFF: normal priority, never stopped (also tasks spawned later)
n_send schedule off 50000 100000 > /dev/null || t_fail "no reply"
[ "$(n_status mode)" = off ] || t_fail "mode off not taken"
n=$(stopped_samples 1)
[ "$n" = 0 ] || t_fail "off: gang stopped in $n of 100 samples"
expect_policy TS "$N_PVMD" "$spin"
n_pvm spawn -n 1 "$BUILD/tests/pvm/spin" 30 > /dev/null || t_fail "spawn failed"
two_tasks() { [ "$(n_gang_pids spin | wc -l)" = 2 ]; }
t_wait_for 5 two_tasks || t_fail "second task missing"
expect_policy TS $(n_gang_pids spin)

# back to HPDT: every member RT again, including the later task
n_send schedule hpdt 50000 100000 > /dev/null || t_fail "no reply"
expect_policy RR "$N_PVMD" $(n_gang_pids spin)

# DISTRIBUTED: PS from the configured Table 2.1 for the local Q
n_send schedule distributed 50000 100000 > /dev/null || t_fail "no reply"
[ "$(n_status mode)" = distributed ] || t_fail "mode distributed not taken"
# PS = IP - LS, LS the table's first entry for the Q in the same reply
st=$(n_status)
q=$(sed -n 's/^load=//p' <<< "$st") ps=$(sed -n 's/^ps_us=//p' <<< "$st")
awk -v q="$q" -v s="$STEP" 'BEGIN { exit !(q != "" && q <= s) }' ||
    t_fail "distributed: load '$q' above the first band (up to $STEP)"
want=$((100000 - 1000 * ${TABLE%%,*}))
[ "$ps" = "$want" ] || t_fail "distributed: PS $ps us with Q $q, want $want (IP less the table's first entry, ${TABLE%%,*}%)"
t_log "distributed: Q $q -> PS $ps us of 100 ms"
[ "$(n_status active)" = 1 ] || t_fail "distributed: not slicing"

# stop (no ACTIVE flag): released, normal priority, not slicing
n_send schedule static 50000 100000 arrival 2 > /dev/null || t_fail "no reply"
[ "$(n_status active)" = 0 ] || t_fail "stop: still slicing"
n=$(stopped_samples 1)
[ "$n" = 0 ] || t_fail "stop: gang stopped in $n of 100 samples"
expect_policy TS "$N_PVMD" $(n_gang_pids spin)
# and start again
n_send schedule static 50000 100000 > /dev/null || t_fail "no reply"
[ "$(n_status active)" = 1 ] || t_fail "start: not slicing"
s1=$(n_status slices); t_sleep 0.5; s2=$(n_status slices)
[ "$s2" -gt "$s1" ] || t_fail "start: PS count did not grow ($s1 -> $s2)"

n_halt || t_fail "dts did not exit"
n_no_leftovers || t_fail "left over"
t_pass
