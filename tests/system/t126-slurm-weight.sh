#!/bin/bash
# t126-slurm-weight.sh - a Slurm job's weight in the master's gang matrix
# (dts_spank(8) --dts-weight, qos_weight=, weight_max=; dts-console(1) jobs,
# set weight) on a real Slurm cluster (tests/system/slurm.sh): munged,
# slurmctld and a slurmd with a dts on each of h0 h1, the operator's master
# (dts-master -d, STATIC, IP 100 ms, PS 80 %, SI 1 s) on h0, root's
# dts-console -n its client (jobs, set weight), the
# plugstack "default=off weight_max=5 qos_weight=normal:2".
#  1. Bad weights are refused by srun in one line each, and nothing runs:
#     --dts-weight=0, =101, =1.5, =6 (above weight_max=5).  The nodes'
#     dts.conf says max_job_weight = 4: --dts-weight=5, which srun lets
#     through, is refused by each node's dts in one line, the task not run.
#  2. Two users' jobs on the same two hosts, srun -N2 --dts of one spinning
#     task a host: user a's with --dts-weight=3, user b's without.  The
#     master's `jobs` shows two rows weighing 3 and 1 and "A:sJ 3 (slurm)";
#     the CPU time of the jobs' tasks over 6 s splits 3:1: a's fraction of
#     the two jobs' own total 0.75 +- 0.1 (an equal split is 0.5; the
#     fraction of the jobs' own time, whatever else the machine runs).
#  3. The operator's `set weight A:sJ 1` wins over the nodes' 3: `jobs`
#     shows 1 (no "(slurm)"), and the split is 0.5 +- 0.1; `set weight
#     A:sJ auto` gives the nodes' 3 back.
#  4. QOS: a third job, user b's, without --dts-weight and of QOS normal
#     weighs qos_weight's 2 (`jobs`: "B:sJ 2 (slurm)").  This cluster has
#     no accounting, so Slurm puts no SLURM_JOB_QOS in the task's
#     environment (b's first job shows none); the job's srun has it in its
#     own environment, as Slurm would set it, and srun passes it on.
# The harness's traps stop every daemon and task by PID and leave no
# namespace, user, cgroup or file of Slurm or munge behind.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
. "$SRC/tests/system/slurm.sh"
t_setup t126-slurm-weight
s_need
t_need_built console/dts-console
t_need_built master/dts-master

c_make_user UA a
c_make_user UB b
C_CONF_EXTRA="mode = \"static\"; ip = \"100ms\"; ps = \"80%\"; max_job_weight = 4;
console = { status_wait = \"500ms\"; history = \"\"; master_socket = \"$T_DIR/master.sock\";
    sign_key = \"$T_DIR/console.key\"; node_secret = \"$T_DIR/nodes.key\"; };"
S_PLUG_ARGS="default=off weight_max=5 qos_weight=normal:2"
c_up 2 --no-pvm
s_up
CONF=$T_DIR/h0/dts.conf
op() { c_exec h0 "$BUILD/console/dts-console" -f "$CONF" -n "$@"; }
c_exec h0 "$BUILD/master/dts-master" -f "$CONF" -d -c "mode static; ip 100ms; ps 80%; si 1s; start" \
    > "$T_LOG/master.log" 2>&1 < /dev/null || t_fail "dts-master: $(cat "$T_LOG/master.log")"
M_PID=$(sed -n 's/^dts-master: running in the background, pid \([0-9][0-9]*\)$/\1/p' "$T_LOG/master.log")
[ -n "$M_PID" ] || t_fail "dts-master: no pid: $(cat "$T_LOG/master.log")"
t_track "$M_PID"
WD=$T_DIR/h0/home
cd "$WD" || t_fail "cd $WD"

# ---- 1. bad weights ---------------------------------------------------------------
for w in 0 101 1.5 6; do
	out=$(s_run h0 "${UA_ARGV[@]}" timeout 20 srun -N2 --dts --dts-weight="$w" \
	    sh -c 'echo RAN' 2>&1)
	! grep -q RAN <<< "$out" || t_fail "--dts-weight=$w: the task ran: $out"
	grep -q "dts: --dts-weight" <<< "$out" ||
	    t_fail "--dts-weight=$w: no line of the plugin's: $out"
	[ "$(grep -c "dts:" <<< "$out")" = 1 ] ||
	    t_fail "--dts-weight=$w: not one line: $out"
done
t_log "1. --dts-weight=0, 101, 1.5, 6 (weight_max 5) refused: $(grep "dts:" <<< "$out")"
out=$(s_run h0 "${UA_ARGV[@]}" timeout 20 srun -N2 --dts --dts-weight=5 sh -c 'echo RAN' 2>&1)
! grep -q RAN <<< "$out" || t_fail "--dts-weight=5 above max_job_weight 4: the task ran: $out"
[ "$(grep -c "weight 5 is above this node's max_job_weight = 4: task not started" <<< "$out")" = 2 ] ||
    t_fail "--dts-weight=5: not one line a node: $out"
t_log "1. --dts-weight=5 above the nodes' max_job_weight 4: $(grep -m1 "max_job_weight" <<< "$out")"

# ---- 2. 3:1 -------------------------------------------------------------------------
# spins UID: the spinning tasks (sh, children of slurmstepd) of that uid
spins() {
	local k p out=
	for k in 0 1; do
		for p in $(c_pids "h$k"); do
			[ "$(stat -c %u "/proc/$p" 2> /dev/null)" = "$1" ] &&
			    [ "$(_c_comm "$p")" = sh ] &&
			    [ "$(_c_comm "$(ps -o ppid= -p "$p" | tr -d ' ')")" = slurmstepd ] && out="$out $p"
		done
	done
	# shellcheck disable=SC2086
	echo $out
}
GO=$WD/go
# shellcheck disable=SC2016
SPIN='echo "job $SLURM_JOB_ID qos=${SLURM_JOB_QOS:-none}"; while [ ! -e "$0" ]; do sleep 0.1; done; while :; do :; done'
rm -f "$GO"
s_bg h0 job-a "${UA_ARGV[@]}" srun -N2 --ntasks-per-node=1 --dts --dts-weight=3 -J wa sh -c "$SPIN" "$GO"
s_bg h0 job-b "${UB_ARGV[@]}" srun -N2 --ntasks-per-node=1 --dts -J wb sh -c "$SPIN" "$GO"
two_each() {
	[ "$(spins "$UA_UID" | wc -w)" = 2 ] && [ "$(spins "$UB_UID" | wc -w)" = 2 ] &&
	    JA=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$T_LOG/job-a.log" | head -n 1) &&
	    JB=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$T_LOG/job-b.log" | head -n 1) &&
	    [ -n "$JA" ] && [ -n "$JB" ]
}
t_wait_for 30 two_each ||
    t_fail "not 2 tasks each: $(s_run h0 squeue 2>&1 | paste -sd'|') $(cat "$T_LOG/job-a.log" "$T_LOG/job-b.log")"
: > "$GO"
PA=$(spins "$UA_UID") PB=$(spins "$UB_UID")
for k in 0 1; do
	[ "$(c_job_pids "$k" "$UA" "s$JA" | wc -l)" -ge 1 ] || t_fail "$UA:s$JA is not in its gang on h$k"
	[ "$(c_job_pids "$k" "$UB" "s$JB" | wc -l)" -ge 1 ] || t_fail "$UB:s$JB is not in its gang on h$k"
done
QOS=$(sed -n 's/^job [0-9]* qos=\(.*\)$/\1/p' "$T_LOG/job-b.log" | head -n 1)

# jobs_has RE: the master's jobs output matches RE (grep -E), within 10 s
_jobs_re=
_jobs_match() { op -c jobs > "$T_LOG/jobs.txt" 2>&1 && grep -Eq -- "$_jobs_re" "$T_LOG/jobs.txt"; }
jobs_has() { _jobs_re=$1; t_wait_for 10 _jobs_match; }
WB=1
jobs_has "^2 rows, 2 jobs on 2 nodes" || t_fail "the matrix has not 2 rows: $(cat "$T_LOG/jobs.txt")"
jobs_has "$UA:s$JA 3 \(slurm\)" || t_fail "jobs does not show $UA:s$JA 3 (slurm): $(cat "$T_LOG/jobs.txt")"
grep -Eq "^0 .* 3  +$UA:s$JA +$UA:s$JA" "$T_LOG/jobs.txt" && grep -Eq "^1 .* $WB  +$UB:s$JB +$UB:s$JB" "$T_LOG/jobs.txt" ||
    t_fail "the rows do not weigh 3 ($UA) and $WB ($UB): $(cat "$T_LOG/jobs.txt")"
cp "$T_LOG/jobs.txt" "$T_LOG/jobs-3.txt"

# ticks PIDS: their utime + stime, clock ticks, together
ticks() {
	local p s=0 v
	for p in "$@"; do
		v=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$p/stat" 2> /dev/null) ||
		    t_fail "task $p ended"
		s=$((s + v))
	done
	echo "$s"
}
# fraction W: a's fraction of both jobs' CPU time over W s, into FA
fraction() {
	local a0 b0 a1 b1
	# shellcheck disable=SC2086
	a0=$(ticks $PA) b0=$(ticks $PB)
	t_sleep "$1"
	# shellcheck disable=SC2086
	a1=$(ticks $PA) b1=$(ticks $PB)
	[ $((a1 - a0 + b1 - b0)) -gt 0 ] || t_fail "the jobs got no CPU in $1 s"
	FA=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.3f", a / (a + b) }')
	t_log "over $1 s: $UA's job $((a1 - a0)) ticks, $UB's $((b1 - b0)): $UA's fraction $FA"
}
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
t_sleep 2
want=$(awk -v w="$WB" 'BEGIN { printf "%.3f", 3 / (3 + w) }')
fraction 6
within "$FA" "$(awk -v w="$want" 'BEGIN { print w - 0.1 }')" "$(awk -v w="$want" 'BEGIN { print w + 0.1 }')" ||
    t_fail "weights 3:$WB: $UA's job got $FA of the two jobs' CPU, not $want +- 0.1"
F3=$FA

# ---- 3. the operator's weight wins ------------------------------------------------
op -c "set weight $UA:s$JA 1" > "$T_LOG/set1.txt" 2>&1 || t_fail "set weight: $(cat "$T_LOG/set1.txt")"
jobs_has "weights: $UA:s$JA 1(,|\$)" || t_fail "jobs does not show the operator's 1: $(cat "$T_LOG/jobs.txt")"
! grep -q "$UA:s$JA [0-9]* (slurm)" "$T_LOG/jobs.txt" || t_fail "jobs still shows the nodes' weight: $(cat "$T_LOG/jobs.txt")"
t_sleep 2
want1=$(awk -v w="$WB" 'BEGIN { printf "%.3f", 1 / (1 + w) }')
fraction 6
within "$FA" "$(awk -v w="$want1" 'BEGIN { print w - 0.1 }')" "$(awk -v w="$want1" 'BEGIN { print w + 0.1 }')" ||
    t_fail "the operator's 1: $UA's job got $FA of the two jobs' CPU, not $want1 +- 0.1"
F1=$FA
op -c "set weight $UA:s$JA auto" > "$T_LOG/setauto.txt" 2>&1 || t_fail "set weight auto: $(cat "$T_LOG/setauto.txt")"
jobs_has "$UA:s$JA 3 \(slurm\)" || t_fail "auto: jobs does not show the nodes' 3 again: $(cat "$T_LOG/jobs.txt")"

# ---- 4. QOS --------------------------------------------------------------------------
! grep -q "$UB:s$JB [0-9]* (slurm)" "$T_LOG/jobs-3.txt" ||
    t_fail "$UB's job (QOS '$QOS') has a weight: $(cat "$T_LOG/jobs-3.txt")"
s_bg h0 job-c "${UB_ARGV[@]}" env SLURM_JOB_QOS=normal srun -N2 --ntasks-per-node=1 --dts -J wc sh -c "$SPIN" "$GO"
t_wait_for 30 grep -q "^job [0-9]* qos=normal" "$T_LOG/job-c.log" ||
    t_fail "$UB's job of QOS normal did not start: $(cat "$T_LOG/job-c.log")"
JC=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$T_LOG/job-c.log" | head -n 1)
jobs_has "$UB:s$JC 2 \(slurm\)" || t_fail "QOS normal: $UB's job s$JC has not qos_weight's 2: $(cat "$T_LOG/jobs.txt")"
t_log "4. QOS normal: $UB:s$JC weighs 2 (qos_weight); $UB:s$JB (SLURM_JOB_QOS '$QOS') none"
t_log "2. weights 3:$WB: $UA's fraction $F3 (want $want); 3. the operator's 1: $F1 (want $want1)"
s_run h0 scancel -u "$UA" > /dev/null 2>&1
s_run h0 scancel -u "$UB" > /dev/null 2>&1
t_wait_for 15 eval '[ -z "$(spins "$UA_UID")$(spins "$UB_UID")" ]' || t_fail "tasks left after scancel"
t_pass
