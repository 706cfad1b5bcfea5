#!/bin/bash
# t120-slurm-spank.sh - Slurm's job steps in DTS's gangs through the SPANK
# plugin (man/dts_spank.8) on a real Slurm cluster: slurmctld, munged and
# a slurmd on each of two hosts h0 h1, a dts on each
# (tests/system/slurm.sh over cluster.sh), the plugstack default off:
#  1. `srun -N2 --dts` of a CPU-bound task as a test user: on both hosts
#     the task runs in the gang of job USER:sJOBID (its cgroup
#     job.USER@sJOBID: the task's own /proc/self/cgroup and the gang's
#     members), with DTS_JOB=sJOBID; the job is cancelled (scancel):
#     within 5 s no job cgroup and no state file of the job
#     on either host.
#  2. A job that ends by itself (srun -N2 --dts of a short spin): its
#     tasks said they were in the gang, and afterwards no cgroup and no
#     state file is left on either host.
#     sbatch -N2 --dts: the batch script (on h0) and the 2 tasks of the
#     srun it runs are in the job's gang, and nothing is left after.
#  3. `srun -N2 --dts=off`: the task is in no gang of dts's.
#  4. A bad value, --dts=maybe, is refused in one line by srun.
#     salloc -N2 --dts: the 2 tasks of an srun inside the allocation are in
#     the job's gang, and nothing is left after.  The operator's default:
#     with plugstack.conf's default=on, srun without --dts lands in the
#     job's gang on both hosts, and --dts=off in none.
#  5. No dts on either host, dts.conf no_service = "refuse": srun -N2
#     --dts fails, and its output has the plugin's one line naming the
#     reason; the task did not run (exit status 126), nor where the
#     plugstack line says optional.
#  6. The same with no_service = "run": the tasks run, unmanaged, each
#     with the plugin's one line on its stderr saying so.
# The harness's traps stop every daemon by PID and leave no namespace,
# user, cgroup or file of Slurm or munge behind.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
. "$SRC/tests/system/slurm.sh"
t_setup t120-slurm-spank
s_need

c_user_a
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "80%";'
c_up 2 --no-pvm
s_up

# the tasks' cwd: a directory every host and the user can reach
WD=$T_DIR/h0/home
SPIN='while :; do :; done'

# state_files K LABEL: host K's state files of job A:LABEL (dts(8), JOBS)
state_files() {
	ls -d "$T_RUN/h$1.state.$A@$2" "$T_RUN/h$1.state.$A@$2".* 2> /dev/null | paste -sd' '
}
# job_cgs K LABEL: job A:LABEL's cgroups on host K, v2 and its v1 mirrors
# (memory, pids: dts(8), MEMORY) that exist
job_cgs() {
	local d
	d=$(c_job_dir "$1" "$A" "$2")
	for d in "$d" $(_t_cg_v1 "$d"); do [ ! -d "$d" ] || echo "$d"; done | paste -sd' '
}
# gone K LABEL: no cgroup and no state file of job A:LABEL on host K
gone() {
	[ -z "$(job_cgs "$1" "$2")" ] && [ -z "$(state_files "$1" "$2")" ]
}
job_id() {
	s_run h0 squeue -h -u "$A" -o %i 2> /dev/null | head -n 1
}
has_job() { J=$(job_id) && [ -n "$J" ]; }
members() { [ -n "$(c_job_pids "$1" "$A" "s$J")" ]; }

# ---- 1. srun --dts, then scancel -------------------------------------------------
cd "$WD" || t_fail "cd $WD"
s_bg h0 srun1 "${UA[@]}" srun -N2 --dts -l sh -c \
    'grep ^0:: /proc/self/cgroup; echo "DTS_JOB=$DTS_JOB DTS_STATE=$DTS_STATE"; exec sh -c "$0"' "$SPIN"
t_wait_for 20 has_job || t_fail "no Slurm job of $A: $(cat "$T_LOG/srun1.log")"
for k in 0 1; do
	t_wait_for 10 members "$k" ||
	    t_fail "job $J: no member in $(c_job_dir "$k" "$A" "s$J") on h$k: $(cat "$T_LOG/srun1.log")"
done
t_sleep 1
for k in 0 1; do
	[ "$(job_cgs "$k" "s$J" | wc -w)" -ge 2 ] ||
	    t_fail "h$k: job s$J has no v1 mirror of its cgroup: $(job_cgs "$k" "s$J")"
	m=$(c_job_pids "$k" "$A" "s$J" | paste -sd' ')
	for p in $m; do
		u=$(stat -c %u "/proc/$p")
		[ "$u" = "$(id -u "$A")" ] || t_fail "h$k: member $p of s$J is uid $u, not $A's"
	done
	t_log "job $J on h$k: members $m in job.$A@s$J"
done
for r in 0 1; do
	grep -q "^$r: 0::.*/jobs/job\.$A@s$J\$" "$T_LOG/srun1.log" ||
	    t_fail "task $r does not say it is in job.$A@s$J: $(cat "$T_LOG/srun1.log")"
	grep -q "^$r: DTS_JOB=s$J DTS_STATE=$T_RUN/h$r.state.$A@s$J\$" "$T_LOG/srun1.log" ||
	    t_fail "task $r has not DTS_JOB=s$J and its state file: $(cat "$T_LOG/srun1.log")"
done
for k in 0 1; do
	[ -n "$(state_files "$k" "s$J")" ] || t_fail "h$k: no state file of job s$J"
done
t0=$(_c_now)
s_run h0 scancel "$J" || t_fail "scancel $J failed"
for k in 0 1; do
	t_wait_for 5 gone "$k" "s$J" ||
	    t_fail "h$k: job s$J left after scancel: cgroups $(job_cgs "$k" "s$J"), state files $(state_files "$k" "s$J")"
done
t_log "scancel $J: both hosts' job cgroup and state file gone in $(_c_secs "$t0" "$(_c_now)") s"
wait "$C_BG_PID" 2> /dev/null
t_untrack "$C_BG_PID"

# ---- 2. a job that ends by itself ------------------------------------------------
J1=$J
s_run h0 "${UA[@]}" timeout 60 srun -N2 --dts -l sh -c \
    'grep ^0:: /proc/self/cgroup; e=$(($(date +%s) + 2)); while [ "$(date +%s)" -lt $e ]; do :; done' \
    > "$T_LOG/srun2.log" 2>&1 || t_fail "srun -N2 --dts (2 s): $(cat "$T_LOG/srun2.log")"
J=$(sed -n 's|.*/jobs/job\..*@s\([0-9]*\)$|\1|p' "$T_LOG/srun2.log" | sort -u)
[ -n "$J" ] && [ "$J" != "$J1" ] && [ "$(grep -c "/jobs/job\.$A@s$J\$" "$T_LOG/srun2.log")" = 2 ] ||
    t_fail "the 2 s job's tasks are not both in its gang: $(cat "$T_LOG/srun2.log")"
for k in 0 1; do
	t_wait_for 5 gone "$k" "s$J" ||
	    t_fail "h$k: job s$J left after its end: cgroups $(job_cgs "$k" "s$J"), state files $(state_files "$k" "s$J")"
done
t_log "job $J ended by itself: in job.$A@s$J on both hosts, then nothing left"

# ---- 2b. sbatch --dts: the batch script and its job step ------------------------------
s_run h0 "${UA[@]}" timeout 60 sbatch --wait -N2 --dts -o "$WD/sb.%j.out" --wrap \
    'echo "batch $(grep ^0:: /proc/self/cgroup)"; srun -l sh -c "grep ^0:: /proc/self/cgroup"' \
    > "$T_LOG/sbatch.log" 2>&1 || t_fail "sbatch --wait --dts: $(cat "$T_LOG/sbatch.log" "$WD"/sb.*.out)"
J=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$T_LOG/sbatch.log")
[ -n "$J" ] && [ -f "$WD/sb.$J.out" ] || t_fail "sbatch: no job or output: $(cat "$T_LOG/sbatch.log")"
grep -q "^batch 0::.*/jobs/job\.$A@s$J\$" "$WD/sb.$J.out" &&
    [ "$(grep -c "^[01]: 0::.*/jobs/job\.$A@s$J\$" "$WD/sb.$J.out")" = 2 ] ||
    t_fail "sbatch --dts: the batch script and the step's 2 tasks are not all in job.$A@s$J: $(cat "$WD/sb.$J.out")"
for k in 0 1; do
	t_wait_for 5 gone "$k" "s$J" ||
	    t_fail "h$k: batch job s$J left after its end: cgroups $(job_cgs "$k" "s$J"), state files $(state_files "$k" "s$J")"
done
t_log "sbatch --dts, job $J: the script and its step's 2 tasks in job.$A@s$J, then nothing left"

# ---- 3. --dts=off ----------------------------------------------------------------
s_run h0 "${UA[@]}" timeout 60 srun -N2 --dts=off -l sh -c 'grep ^0:: /proc/self/cgroup; echo "DTS_JOB=${DTS_JOB:-}"' \
    > "$T_LOG/srun3.log" 2>&1 || t_fail "srun --dts=off: $(cat "$T_LOG/srun3.log")"
[ "$(grep -c '^[01]: 0::' "$T_LOG/srun3.log")" = 2 ] ||
    t_fail "srun --dts=off: not 2 tasks: $(cat "$T_LOG/srun3.log")"
grep -q "dts-test\|/jobs/job\." "$T_LOG/srun3.log" &&
    t_fail "srun --dts=off: a task is in a gang: $(cat "$T_LOG/srun3.log")"
grep -q "DTS_JOB=s" "$T_LOG/srun3.log" &&
    t_fail "srun --dts=off: a task has DTS_JOB: $(cat "$T_LOG/srun3.log")"
t_log "--dts=off: $(grep -c '^[01]: 0::' "$T_LOG/srun3.log") tasks, in no gang"

# ---- 4. a bad value ----------------------------------------------------------------
if s_run h0 "${UA[@]}" timeout 60 srun -N1 --dts=maybe true > "$T_LOG/srun4.log" 2>&1; then
	t_fail "srun --dts=maybe ran: $(cat "$T_LOG/srun4.log")"
fi
grep -q "dts: --dts=maybe: expected on or off" "$T_LOG/srun4.log" ||
    t_fail "srun --dts=maybe: no one-line refusal: $(cat "$T_LOG/srun4.log")"
t_log "--dts=maybe: $(grep -m1 'dts: --dts' "$T_LOG/srun4.log")"

# ---- 4b. salloc --dts: every srun inside the allocation -----------------------------
s_run h0 "${UA[@]}" timeout 60 salloc -N2 --dts srun -l sh -c 'echo "job $SLURM_JOB_ID $(grep ^0:: /proc/self/cgroup)"' \
    > "$T_LOG/salloc.log" 2>&1 || t_fail "salloc --dts: $(cat "$T_LOG/salloc.log")"
J=$(sed -n 's/^0: job \([0-9]*\) .*/\1/p' "$T_LOG/salloc.log")
[ -n "$J" ] && [ "$(grep -c "^[01]: job $J 0::.*/jobs/job\.$A@s$J\$" "$T_LOG/salloc.log")" = 2 ] ||
    t_fail "salloc --dts: the step's 2 tasks are not in the job's gang: $(cat "$T_LOG/salloc.log")"
for k in 0 1; do
	t_wait_for 5 gone "$k" "s$J" ||
	    t_fail "h$k: salloc job s$J left after its end: cgroups $(job_cgs "$k" "s$J"), state files $(state_files "$k" "s$J")"
done
t_log "salloc --dts, job $J: the srun's 2 tasks in job.$A@s$J, then nothing left"

# ---- 4c. the operator's default: plugstack default=on ---------------------------------
sed -i 's/ default=off / default=on /' "$S_DIR/plugstack.conf"
grep -q ' default=on ' "$S_DIR/plugstack.conf" || t_fail "plugstack.conf: no default= to change: $(cat "$S_DIR/plugstack.conf")"
s_run h0 "${UA[@]}" timeout 60 srun -N2 -l sh -c 'echo "job $SLURM_JOB_ID $(grep ^0:: /proc/self/cgroup)"' \
    > "$T_LOG/default-on.log" 2>&1 || t_fail "srun with default=on: $(cat "$T_LOG/default-on.log")"
J=$(sed -n 's/^0: job \([0-9]*\) .*/\1/p' "$T_LOG/default-on.log")
[ -n "$J" ] && [ "$(grep -c "^[01]: job $J 0::.*/jobs/job\.$A@s$J\$" "$T_LOG/default-on.log")" = 2 ] ||
    t_fail "default=on, srun without --dts: not both tasks in the job's gang: $(cat "$T_LOG/default-on.log")"
s_run h0 "${UA[@]}" timeout 60 srun -N2 --dts=off -l sh -c 'grep ^0:: /proc/self/cgroup' \
    > "$T_LOG/default-on-off.log" 2>&1 || t_fail "srun --dts=off with default=on: $(cat "$T_LOG/default-on-off.log")"
[ "$(grep -c '^[01]: 0::' "$T_LOG/default-on-off.log")" = 2 ] && ! grep -q '/jobs/job\.' "$T_LOG/default-on-off.log" ||
    t_fail "default=on, srun --dts=off: a task is in a gang: $(cat "$T_LOG/default-on-off.log")"
sed -i 's/ default=on / default=off /' "$S_DIR/plugstack.conf"
t_log "plugstack default=on: srun without --dts in job.$A@s$J on both hosts; --dts=off in no gang"

# ---- 5. no dts, no_service refuse -------------------------------------------------
for k in 0 1; do
	c_stop_dts "$k" || t_fail "cannot stop h$k's dts"
	echo 'no_service = "refuse";' >> "$T_DIR/h$k/dts.conf"
done
mark=$T_DIR/h0/home/ran.$$
if s_run h0 "${UA[@]}" timeout 60 srun -N2 --dts -l touch "$mark" > "$T_LOG/srun5.log" 2>&1; then
	t_fail "srun --dts without dts and no_service refuse ran: $(cat "$T_LOG/srun5.log")"
fi
[ -e "$mark" ] && t_fail "srun --dts without dts: the task ran ($mark)"
grep -q 'dts: DTS is not running on h[01] (nothing answers on .*dts.sock): task not started (dts.conf: no_service = "refuse")' \
    "$T_LOG/srun5.log" || t_fail "srun --dts without dts: not the plugin's one line: $(cat "$T_LOG/srun5.log")"
grep -q "task [01]: Exited with exit code 126" "$T_LOG/srun5.log" ||
    t_fail "srun --dts without dts: no task exit status 126: $(cat "$T_LOG/srun5.log")"
t_log "no dts, no_service refuse: $(grep -m1 'DTS is not running' "$T_LOG/srun5.log")"
# the same where plugstack.conf says optional (Slurm ignores the errors of
# an optional plugin's callbacks: the plugin ends a refused task itself)
sed -i 's/^required /optional /' "$S_DIR/plugstack.conf"
if s_run h0 "${UA[@]}" timeout 60 srun -N2 --dts -l touch "$mark" > "$T_LOG/srun5o.log" 2>&1; then
	t_fail "srun --dts without dts, no_service refuse, optional plugin: ran: $(cat "$T_LOG/srun5o.log")"
fi
[ -e "$mark" ] && t_fail "srun --dts without dts, optional plugin: the task ran ($mark)"
[ "$(grep -c 'dts: DTS is not running on h[01] .*task not started' "$T_LOG/srun5o.log")" = 2 ] ||
    t_fail "srun --dts without dts, optional plugin: not one line a task: $(cat "$T_LOG/srun5o.log")"
sed -i 's/^optional /required /' "$S_DIR/plugstack.conf"
t_log "no dts, no_service refuse, plugstack optional: refused too"

# ---- 6. no dts, no_service run ------------------------------------------------------
for k in 0 1; do
	sed -i 's/^no_service = "refuse";$/no_service = "run";/' "$T_DIR/h$k/dts.conf"
done
s_run h0 "${UA[@]}" timeout 60 srun -N2 --dts -l sh -c 'grep ^0:: /proc/self/cgroup' > "$T_LOG/srun6.log" 2>&1 ||
    t_fail "srun --dts without dts and no_service run: $(cat "$T_LOG/srun6.log")"
[ "$(grep -c '^[01]: 0::' "$T_LOG/srun6.log")" = 2 ] && ! grep -q "/jobs/job\." "$T_LOG/srun6.log" ||
    t_fail "srun --dts without dts, no_service run: not 2 unmanaged tasks: $(cat "$T_LOG/srun6.log")"
[ "$(grep -c 'dts: DTS is not running on h[01] (nothing answers on .*dts.sock): the task runs unmanaged, not coscheduled (dts.conf: no_service)' "$T_LOG/srun6.log")" = 2 ] ||
    t_fail "srun --dts without dts, no_service run: not one line a task: $(cat "$T_LOG/srun6.log")"
t_log "no dts, no_service run: $(grep -m1 'unmanaged' "$T_LOG/srun6.log")"

t_pass
