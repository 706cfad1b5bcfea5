#!/bin/bash
# ls_policy idle: in LS the gang runs at SCHED_IDLE instead of being
# stopped.  dts, its pvmd and a CPU-bound PVM task on CPU 1, STATIC PS 50%
# of IP 100 ms:
#  1. the task alone: CPU 1 is almost never idle (with `stop` it would be
#     idle half the time; that figure is measured too, for the log: other
#     work on the machine may fill it), and the task is seen at SCHED_RR in
#     PS and at SCHED_IDLE in LS;
#  2. with a local hog on CPU 1: the hog still gets its LS (the task at
#     SCHED_IDLE yields to it), within 4 points;
#  3. DISTRIBUTED: the load agent does not count the task that runs in LS
#     as local load, so with no local load the node keeps Table 2.1's
#     smallest LS (10%), as it does with `stop`;
#  4. kill -9 of dts in an idle LS: the fail-safe puts the task back at
#     SCHED_OTHER and its autogroup back at nice 0;
#  5. after halt nothing is left stopped, real-time or at SCHED_IDLE.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup ls-idle
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (pins everything to CPU 1)"

n_conf mode='"static"' ip='"100ms"' ps='"50%"' ls_policy='"idle"' \
    load='{ sample = "100ms"; interval = "500ms"; window = "1s"; per_cpu = false; }'
n_start taskset -c 1
n_spawn_spin
spin=$N_SPIN
[ "$(n_status ls_policy)" = idle ] || t_fail "STATUS: ls_policy $(n_status ls_policy), not idle"

# cpu1_idle SECONDS: percent of CPU 1 idle over SECONDS (/proc/stat)
cpu1_idle() {
	local a b
	a=$(awk '$1 == "cpu1" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	t_sleep "$1"
	b=$(awk '$1 == "cpu1" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
	    printf "%.1f\n", 100 * (y[1] - x[1]) / (y[2] - x[2]) }'
}

# ---- 1. alone: idle CPU goes to the task -----------------------------------
t_sleep 1
idle=$(cpu1_idle 4)
t_log "ls_policy idle, the task alone: CPU 1 idle $idle%"
awk -v i="$idle" 'BEGIN { exit !(i < 10) }' ||
    t_fail "CPU 1 idle $idle% of the time with ls_policy idle (want < 10%)"
rr=0 idl=0
for _ in $(seq 60); do
	case "$(t_policy "$spin")" in RR) rr=$((rr + 1)) ;; IDL) idl=$((idl + 1)) ;; esac
	t_sleep 0.037
done
t_log "the task's policy over 60 looks: SCHED_RR $rr, SCHED_IDLE $idl"
[ "$rr" -gt 0 ] && [ "$idl" -gt 0 ] ||
    t_fail "the task was not seen at both SCHED_RR ($rr) and SCHED_IDLE ($idl)"
# the same with stop, for the log (a sanity check of the measure)
n_send schedule static 50000 100000 arrival 3 > /dev/null || t_fail "no reply to schedule"
[ "$(n_status ls_policy)" = stop ] || t_fail "ls_policy stop not applied"
t_sleep 0.5
t_log "ls_policy stop, the task alone: CPU 1 idle $(cpu1_idle 4)%"
n_send schedule static 50000 100000 arrival 11 > /dev/null || t_fail "no reply to schedule"
[ "$(n_status ls_policy)" = idle ] || t_fail "ls_policy idle not applied"

# ---- 2. a local hog keeps its LS --------------------------------------------
n_start_hog 1
hog=$N_HOG
t_sleep 1
n_shares_quiet 6 "$spin" "$hog" ||
    t_skip "CPU 1 stayed busy with other work (task ${N_SHARES[0]}%, hog ${N_SHARES[1]}%): shares cannot be judged"
t_log "with a local hog: PVM task ${N_SHARES[0]}%, hog ${N_SHARES[1]}%"
awk -v a="${N_SHARES[0]}" -v b="${N_SHARES[1]}" 'BEGIN {
    exit !(b > 46 && a < 54) }' ||
    t_fail "with a hog: task ${N_SHARES[0]}%, hog ${N_SHARES[1]}% (want the hog >= 46%)"
kill "$hog"
t_wait_for 5 eval '! kill -0 '"$hog"' 2>/dev/null' || t_fail "the hog did not end"
t_untrack "$hog"

# ---- 3. distributed: the task in LS is not local load -----------------------
n_send schedule distributed 50000 100000 arrival 11 > /dev/null || t_fail "no reply to schedule"
t_sleep 3
st=$(n_status)
load=$(sed -n 's/^load=//p' <<< "$st") ps=$(sed -n 's/^ps_us=//p' <<< "$st")
t_log "distributed, idle LS, no local load: Q $load, PS $ps us"
awk -v q="$load" 'BEGIN { exit !(q != "" && q < 0.5) }' ||
    t_fail "the load agent counts the gang as local load: Q $load"
[ "$ps" = 90000 ] || t_fail "distributed chose PS $ps us, not 90000 (LS 10%)"

# ---- 4. kill -9 of dts in an idle LS: released, autogroup nice 0 ---------
n_send schedule static 50000 100000 arrival 11 > /dev/null || t_fail "no reply to schedule"
t_wait_for 3 eval '[ "$(t_policy '"$spin"')" = IDL ]' || t_fail "the task never at SCHED_IDLE"
grep -q "nice 19" "/proc/$spin/autogroup" ||
    t_log "autogroup in LS: $(cat "/proc/$spin/autogroup" 2>&1) (autogroups off?)"
{
	n_now_us t0
	kill -KILL "$N_DTS"
	n_until_released "$t0" 2000 && ok=1 || ok=0
	n_reap_dts
} 2>/dev/null
[ "$ok" = 1 ] || t_fail "gang not released 2 s after kill -9 of dts in an idle LS"
t_log "kill -9 of dts in an idle LS: gang at SCHED_OTHER after $N_REL_US us"
[ ! -e "/proc/$spin/autogroup" ] || grep -q "nice 0" "/proc/$spin/autogroup" ||
    t_fail "the task's autogroup stays at $(cat "/proc/$spin/autogroup")"

# ---- 5. nothing left over -----------------------------------------------------
n_pvm halt > /dev/null 2>&1
t_wait_for 10 n_gang_empty || t_fail "the gang did not empty after halt"
n_no_leftovers || t_fail "left over after halt"
t_pass
