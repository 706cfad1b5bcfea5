#!/bin/bash
# ls_policy idle against thread churn.  A thread inherits its creator's
# policy at the clone, so a thread born while dts switches the gang to
# SCHED_IDLE one thread at a time may be born at SCHED_RR, and a chain of
# short-lived threads (each starts the next and ends, as a churning pool
# does) carries SCHED_RR through the whole LS.  The gang task here (churn,
# run by a fresh unprivileged user, pinned to CPU 1; dts on CPU 0, so that
# the chains clone while dts switches them) runs 4 such chains and 1000
# sleeping threads beside them; STATIC PS 50% of IP 100 ms, autogroups off
# (SCHED_IDLE yields only then: t12), a local hog on CPU 1.  Each link
# looks at dts's phase (its state file) and at its own policy when its
# spin ends.
#  1. first 4 threads that spin and never clone, for the reference: under
#     the kernel's fair scheduler each runnable SCHED_IDLE thread still
#     takes a little of the LS (measured: hog 39-40% of its 50% beside 4;
#     t12 allows 6 points for 2);
#  2. then the churning gang: at most 1% of the links that end in an LS
#     are at SCHED_RR there (before the fix: 99%, and the hog 4.5-5.5%),
#     and the hog keeps what it kept in 1., within 6 points;
#  3. `mode off` (the gang to SCHED_OTHER) leaves no thread of the user at
#     real-time priority, nor does SIGTERM of dts (its release); each
#     looked at 20 times over a second, every thread.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup idle-churn
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (pins the node to CPU 1)"
# dts on CPU 0, the gang task and the hog on CPU 1: the edge thread
# switches the gang's threads while the chains run and clone
n_split_cpus
N_ON=(taskset -c 0)
t_need flock util-linux
t_make_user
t_pub_bin "$BUILD/tests/tools/churn" || t_fail "cannot publish churn"

t_autogroup_lock
t_autogroups_off

n_conf mode='"static"' ip='"100ms"' ps='"50%"' ls_policy='"idle"'
n_start
[ "$(n_status ls_policy)" = idle ] || t_fail "STATUS: ls_policy $(n_status ls_policy), not idle"

# start_churn CHAINS IDLE SECONDS SPIN_US [STATE]: the gang task (churn)
# as the user, moved into the gang
start_churn() {
	t_user_argv
	"${T_USER_ARGV[@]}" taskset -c 1 "$T_DIR/bin/churn" "$@" \
	    2> "$T_LOG/churn.log" &
	churn=$!
	t_track "$churn"
	echo "$churn" > "$N_GANG/cgroup.procs" || t_fail "cannot put churn in the gang"
	t_wait_for 5 eval '[ "$(ls /proc/'"$churn"'/task | wc -l)" -gt '"$(($1 + $2))"' ]' ||
	    t_fail "churn did not start its threads"
}
end_churn() {
	t_wait_for 20 eval '! kill -0 '"$churn"' 2>/dev/null' || t_fail "churn did not end"
	wait "$churn" 2> /dev/null
	t_untrack "$churn"
	t_log "$(tr "\n" " " < "$T_LOG/churn.log")"
}

# gang_hog_split SECONDS: GANG, HOG and OTHER, percent of CPU 1: the gang
# from its cgroup's cpu.stat (links that ended count too), the hog from
# its schedstat, other work from /proc/stat's busy time of CPU 1 (at
# SCHED_OTHER it takes from the hog's LS, not from the gang's: it counts
# with the hog, as in t12)
gang_us() { sed -n 's/^usage_usec //p' "$N_GANG/cpu.stat"; }
gang_hog_split() {
	local b0 a0 b1 a1 g0 g1 h0 h1 t0 t1
	t_cpu_ticks 1 b0 a0 && g0=$(gang_us) && h0=$(t_cpu_ns "$hog") &&
	    t0=$(t_cpu_clock 1) || return 1
	t_sleep "$1"
	t_cpu_ticks 1 b1 a1 && g1=$(gang_us) && h1=$(t_cpu_ns "$hog") &&
	    t1=$(t_cpu_clock 1) || return 1
	read -r GANG HOG OTHER < <(awk -v g=$((g1 - g0)) -v h=$((h1 - h0)) \
	    -v w=$((t1 - t0)) -v b=$((b1 - b0)) -v a=$((a1 - a0)) 'BEGIN {
		g = 100 * g / w; h = h / (w * 10); f = 100 * b / a - g - h
		printf "%.1f %.1f %.1f\n", g, h, (f > 0 ? f : 0) }')
}

n_start_hog 1
hog=$N_HOG

# ---- 1. the reference: 4 threads that spin -----------------------------------
start_churn 4 0 9 9000000 "$N_STATE"
t_sleep 1
gang_hog_split 6 || t_fail "the hog ended while measured"
ref=$(awk -v h="$HOG" -v f="$OTHER" 'BEGIN { print h + f }')
t_log "4 spinning threads: gang $GANG%, hog $HOG%, other work on CPU 1 $OTHER%"
end_churn

# ---- 2. the churning gang ----------------------------------------------------
start_churn 4 1000 9 200 "$N_STATE"
t_sleep 1
gang_hog_split 6 || t_fail "the hog ended while measured"
t_log "churning gang: gang $GANG%, hog $HOG%, other work on CPU 1 $OTHER%"
end_churn
read -r ls rr < <(sed -n 's/^churn: LS links \([0-9]*\), at SCHED_RR in LS \([0-9]*\),.*/\1 \2/p' "$T_LOG/churn.log")
[ -n "$ls" ] && [ "$ls" -gt 100 ] || t_fail "churn saw ${ls:-no} links end in an LS"
[ $((rr * 100)) -le "$ls" ] ||
    t_fail "$rr of $ls links that ended in an LS were at SCHED_RR there"
awk -v h="$HOG" -v f="$OTHER" -v r="$ref" 'BEGIN { exit !(h + f >= r - 6) }' ||
    t_fail "beside a churning gang the hog (with other work) got $HOG% + $OTHER%, beside 4 spinning threads $ref%"
start_churn 4 1000 30 200

# no_rt WHAT: every thread of the user, 20 looks over a second: none at
# SCHED_RR or SCHED_FIFO
no_rt() {
	local i rt
	for i in $(seq 20); do
		rt=$(ps -L -u "$T_UID" -o cls= | grep -c -E 'RR|FF')
		[ "$rt" = 0 ] || t_fail "after $1: $rt thread(s) of the user at real-time priority"
		t_sleep 0.05
	done
	t_log "after $1: no thread of the user at real-time priority"
}

# ---- 3. mode off, then SIGTERM: nothing left at RT --------------------------
n_send schedule off 50000 100000 > /dev/null || t_fail "no reply to schedule off"
[ "$(n_status mode)" = off ] || t_fail "mode off not taken"
no_rt "mode off"
n_send schedule static 50000 100000 arrival 11 > /dev/null || t_fail "no reply to schedule"
t_wait_for 5 eval '[ "$(ps -L -u '"$T_UID"' -o cls= | grep -c RR)" -gt 0 ]' ||
    t_fail "static again, but no thread of the gang at SCHED_RR"
t_sleep 0.5
kill -TERM "$N_DTS"
n_wait_exit || t_fail "dts did not end on SIGTERM"
no_rt "SIGTERM of dts"
kill "$hog" 2> /dev/null
t_pass
