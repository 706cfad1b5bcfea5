#!/bin/bash
# Lifts (dts(8), LIFTS): a user's PVM command, lifted into the user's own
# job's gang one level above its tasks, answers while the gang spins; a
# lift is the asker's own process, into its own job only; a loop of lifts
# is cut off by the budget; a lifted spinner gets no more than the PS (it
# is frozen in every LS); nothing is left at RT, frozen or in the gang
# after a lift, after kill -9 of a lifted process, and after the halt.
# User A (T_USER) runs a VM of 8 spinning tasks on CPU 1 beside
# `stress-ng --cpu 1` there; user B is nobody.  Tolerant bounds: hard
# figures are tests/bench/bench-control.sh's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup lift
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
t_need stress-ng stress-ng
t_need_user nobody

t_make_user
t_user_argv
t_pub_bin "$BUILD/run/dts-run" "$BUILD/run/dts-pvmjoin" "$BUILD/tests/pvm/dts-pvmctl" \
    "$BUILD/tests/pvm/spin" "$BUILD/tests/tools/lifter" || t_fail "cannot publish binaries"
bin=$T_DIR/bin
n_conf mode='"static"' ip='"100ms"' ps='"90%"' users="[\"$T_USER\", \"nobody\"]"
B_ARGV=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups
    --inh-caps=-all --bounding-set=-all -- env HOME=/ DTS_SOCKET="$N_SOCK")
n_split_cpus
n_start_dts
N_RUN=$bin/dts-run n_start_pvmd "${T_USER_ARGV[@]}"
N_GANG=$(n_job_cg "$T_USER")
# A's commands and lifter on CPU 1, where the gang spins
apvm() { t_as_user env DTS_SOCKET="$N_SOCK" taskset -c 1 "$bin/dts-pvmctl" -T 30 "$@"; }
A_LIFT=("${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" taskset -c 1 "$bin/lifter")
alift() { "${A_LIFT[@]}" "$@"; }
t_as_user env DTS_SOCKET="$N_SOCK" "$bin/dts-pvmctl" -T 30 spawn -n 8 "$bin/spin" 0 > /dev/null || t_fail "cannot spawn A's tasks"
t_wait_for 10 eval '[ "$(n_gang_pids spin | wc -w)" = 8 ]' ||
	t_fail "not 8 tasks in A's gang: $(n_gang_pids spin | wc -w)"
taskset -c 1 stress-ng --cpu 1 --timeout 300 --quiet &
t_track $!
t_sleep 1.5	# a priority scan has brought the tasks below pvmd

# 1. A's command lifted (tolerant: < 5 s, beside another build too; it
# took 514-709 ms under load here; unlifted, it waits for an LS of 10 ms
# at each of its round trips to pvmd, and takes minutes; the hard figure
# is bench-control's)
timed() {	# timed VAR ARGS...: apvm ARGS, its ms into VAR
	local t0 t1
	n_now_us t0
	apvm "${@:2}" > "$T_LOG/cmd.out" 2>&1 || t_fail "apvm ${*:2}: $(cat "$T_LOG/cmd.out")"
	n_now_us t1
	printf -v "$1" %d $(((t1 - t0) / 1000))
}
max=0
for i in 1 2 3; do
	timed ms -L tasks
	grep -q "not lifted" "$T_LOG/cmd.out" && t_fail "A's command not lifted: $(cat "$T_LOG/cmd.out")"
	[ "$(grep -c spin "$T_LOG/cmd.out")" = 8 ] || t_fail "tasks: $(cat "$T_LOG/cmd.out")"
	[ "$ms" -gt "$max" ] && max=$ms
done
t_logged "(uid $T_UID) into $N_GANG for at most" || t_fail "dts did not log A's lift"
t_logged "ended after .*: the console let go" || t_fail "dts did not log the lift's end"
t_log "A's tasks beside 8 spinners and stress-ng on CPU 1 (PS 90% of IP 100 ms): lifted, max of 3 $max ms"
[ "$max" -lt 5000 ] || t_fail "a lifted command took $max ms"

# 2. after a lift the process is back: its cgroup, SCHED_OTHER, running
home=$(sed -n 's/^0:://p' /proc/self/cgroup)
"${A_LIFT[@]}" -n 1 -h 20 -w 3000 > "$T_LOG/back.out" &
pid=$!
t_track "$pid"
t_wait_for 5 grep -q granted= "$T_LOG/back.out" || t_fail "lifter: $(cat "$T_LOG/back.out")"
grep -q "lift 1: OK .* policy=RR,reset_on_fork cgroup=${N_GANG#"$(t_cg_mount)"} " "$T_LOG/back.out" ||
	t_fail "not lifted into A's gang at RR with SCHED_RESET_ON_FORK (a thread it makes is born at SCHED_OTHER): $(cat "$T_LOG/back.out")"
t_wait_for 2 eval '[ "$(sed -n "s/^0:://p" /proc/$pid/cgroup)" = "$home" ]' ||
	t_fail "lifted pid $pid not back in $home: $(sed -n 's/^0:://p' "/proc/$pid/cgroup")"
[ "$(t_policy "$pid")" = TS ] || t_fail "lifted pid $pid at $(t_policy "$pid") after its lift"
[ "$(t_proc_state "$pid")" != T ] || t_fail "lifted pid $pid left stopped"
wait "$pid"
t_untrack "$pid"
t_log "after its lift: $(head -n 1 "$T_LOG/back.out"); back in $home at SCHED_OTHER"

# 3. B: no lift into A's job, none of A's processes moves
before=$(sort "$N_GANG/cgroup.procs" | tr '\n' ' ')
"${B_ARGV[@]}" DTS_JOB=pvm taskset -c 1 "$bin/lifter" -n 1 -h 10 > "$T_LOG/b.out" 2>&1
grep -q "lift 1: ERR no job nobody:pvm runs on this node" "$T_LOG/b.out" ||
	t_fail "B's lift: $(cat "$T_LOG/b.out")"
"${B_ARGV[@]}" DTS_JOB="$T_USER" taskset -c 1 "$bin/lifter" -n 1 -h 10 > "$T_LOG/b2.out" 2>&1
grep -q "lift 1: ERR no job nobody:$T_USER runs" "$T_LOG/b2.out" ||
	t_fail "B's lift (JOB $T_USER): $(cat "$T_LOG/b2.out")"
after=$(sort "$N_GANG/cgroup.procs" | tr '\n' ' ')
[ "$before" = "$after" ] || t_fail "A's gang changed by B's lifts: $before -> $after"
t_log "B: $(head -n 1 "$T_LOG/b.out")"

# 4. a lifted spinner gets the PS, not the LS (PS 50% of IP 100 ms now)
n_send schedule static 50000 100000 > /dev/null || t_fail "no reply to schedule"
t_sleep 0.5
alift -n 1 -h 200 -s > "$T_LOG/share.out" || t_fail "lifter: $(cat "$T_LOG/share.out")"
read -r held cpu <<< "$(sed -n 's/^lift 1: OK .*held_ms=\([0-9.]*\) cpu_ms=\([0-9.]*\)$/\1 \2/p' "$T_LOG/share.out")"
[ -n "$held" ] || t_fail "no lift for the spinner: $(cat "$T_LOG/share.out")"
share=$(awk -v c="$cpu" -v h="$held" 'BEGIN { printf "%.0f", 100 * c / h }')
t_log "a lifted spinner: ${cpu} ms of CPU in ${held} ms (${share}%) at PS 50%"
[ "$share" -le 65 ] || t_fail "a lifted spinner got $share% of CPU 1 with PS 50%: it ran in the LS"

# 5. a loop of lifts is cut off by the budget (1 s, then 10 % of the
# time): for 6 s it asks for a lift, spins 50 ms, lets go, asks again (and
# spins 50 ms unlifted when refused), about 60 % of the time; the budget
# grants 1 s + 10 % of 6 s at most, so it cuts the lifts short and then
# refuses them.  The lifted time counted by the lifter and by dts's log.
"${A_LIFT[@]}" -d 6000 -h 50 -s > "$T_LOG/loop.out" 2>&1 &
pid=$!
t_track "$pid"
wait "$pid" || t_fail "lifter: $(tail -n 3 "$T_LOG/loop.out")"
t_untrack "$pid"
read -r g r l e <<< "$(sed -n 's/^granted=\([0-9]*\) refused=\([0-9]*\) lifted_ms=\([0-9]*\) elapsed_ms=\([0-9]*\)$/\1 \2 \3 \4/p' "$T_LOG/loop.out")"
[ -n "$e" ] || t_fail "lifter: $(tail -n 3 "$T_LOG/loop.out")"
ended() { [ "$(grep -c "lift of pid $pid .* ended after" "$T_LOG/dts.log")" -ge "$g" ]; }
t_wait_for 3 ended || t_fail "dts logged $(grep -c "lift of pid $pid .* ended after" "$T_LOG/dts.log") ends of $g lifts"
dl=$(sed -n "s/^.*lift of pid $pid .* ended after \([0-9.]*\) ms.*$/\1/p" "$T_LOG/dts.log" |
	awk '{ s += $1 } END { printf "%.0f", s }')
cut=$(grep -c '^lift [0-9]*: OK \([0-9]\|[1-4][0-9]\) ' "$T_LOG/loop.out")
t_log "a loop of lifts of 50 ms for $e ms: $g granted ($cut of them shorter than 50 ms), $r refused; $l ms lifted (dts: $dl ms), budget $((1000 + e / 10)) ms"
[ "${r:-0}" -gt 0 ] || t_fail "the budget cut no lift off: $(tail -n 1 "$T_LOG/loop.out")"
grep -q "^lift [0-9]*: ERR uid $T_UID has spent its lift budget (lifts take at most 10% of the time, 1000 ms at once): again in [0-9]* ms$" "$T_LOG/loop.out" ||
	t_fail "no budget refusal: $(grep ERR "$T_LOG/loop.out" | head -n 1)"
[ "$l" -le $((1000 + e / 10 + 300)) ] || t_fail "$l ms lifted in $e ms: over the budget"
[ "$dl" -le $((1000 + e / 10 + 300)) ] || t_fail "dts: $dl ms lifted in $e ms: over the budget"

# 6. kill -9 of a lifted process mid-lift
: > "$T_LOG/kill.out"
t_sleep 2	# some credit back
"${A_LIFT[@]}" -n 1 -h 5000 > "$T_LOG/kill.out" &
pid=$!
t_track "$pid"
t_wait_for 5 grep -q "^lift 1: \|ERR" "$T_LOG/kill.out" || true
kill -9 "$pid"
wait "$pid" 2> /dev/null
t_untrack "$pid"
t_logged "lift of pid $pid (uid $T_UID, job $T_USER:pvm) ended after" || t_fail "no end of the killed lift logged"
grep -q "lift of pid $pid .*are up" "$T_LOG/dts.log" && t_log "(the kill came after the cap)"
alift -n 1 -h 10 > "$T_LOG/again.out"
grep -q "lift 1: OK" "$T_LOG/again.out" || t_fail "no lift after the kill: $(cat "$T_LOG/again.out")"

# 7. halt (lifted); then nothing of A's or B's at RT, stopped or in a gang
apvm -L halt > /dev/null 2>&1
t_wait_for 10 n_gang_empty || t_fail "halt left $(n_gang_pids | wc -w) gang members"
t_wait_for 5 n_no_leftovers || t_fail "left behind after halt"
for u in "$T_USER" nobody; do
	# every thread; a zombie (pvmd and its tasks, not yet reaped) keeps
	# its last policy but runs no more
	bad=$(ps -u "$u" -Lo pid=,cls=,stat= | awk '$3 !~ /^Z/ && ($2 != "TS" || $3 ~ /^T/)')
	[ -z "$bad" ] || t_fail "$u: left at RT or stopped: $bad"
done
t_pass "lifted commands answer under a spinning gang, within their bounds"
