#!/bin/bash
# demo-slurm.sh BUILD - `./quickstart slurm`: Slurm places, DTS coschedules.
# A real Slurm cluster on this machine: munged, slurmctld and a slurmd on
# each of 3 hosts h0 h1 h2 (network namespaces, tests/system/slurm.sh),
# each host with its dts service, DTS's SPANK plugin in Slurm's plugstack
# (man/dts_spank.8), and the operator's master console.
#  - The master: root's dts-console -n --daemon, STATIC, IP 100 ms, PS
#    80 %, as dts-console.service runs it (the demo of ./quickstart demo).
#  - Two test users (made here, removed at the end) each sbatch a job of
#    one CPU-bound task per host onto the same 3 nodes (sbatch -N3 --dts;
#    the partition says OverSubscribe=FORCE:4, within each node's
#    max_jobs): each Slurm job is one DTS job, USER:sJOBID, on every
#    host, and the master packs the two into two rows of the matrix.
#  - A local load: one CPU hog on h1.
# Prints squeue, the matrix as `jobs` prints it, and the share of CPU 1
# each Slurm job and the hog got (everything runs on CPU 1), one line
# each; then scancels both jobs and tears everything down.
set -u
DTS_BUILD=$(cd "${1:?usage: demo-slurm.sh BUILD}" && pwd)
export DTS_BUILD
# the system tests' machine-wide lock, as tests/demo.sh takes it
if [ -z "${DTS_DEMO_LOCKED:-}" ]; then
	. "$(dirname "$0")/lock.sh"
	test_lock demo-slurm || exit 1
	pin=()
	[ "$(nproc)" -ge 2 ] && pin=(taskset -c 1)
	DTS_DEMO_LOCKED=1 "${pin[@]}" bash "$0" "$@" 9>&-
	exit
fi
. "$(dirname "$0")/system/lib.sh"
. "$(dirname "$0")/system/cluster.sh"
. "$(dirname "$0")/system/slurm.sh"
t_setup demo-slurm
t0_demo=$(_t_now_us)
s_need
[ -x "$BUILD/tests/tools/hog" ] || t_fail "not built: tests/tools/hog (make check TESTS=)"

# ---- the two users: dtsa<PID>, dtsb<PID> (cluster.sh's c_make_user) ---------------
c_make_user USER_A a
c_make_user USER_B b

# ---- the cluster, Slurm, the master ----------------------------------------------
C_CONF_EXTRA="ip = \"100ms\";
console = { status_wait = \"500ms\"; history = \"\";
    sign_key = \"$T_DIR/console.key\"; node_secret = \"$T_DIR/nodes.key\"; };"
c_up 3 --no-pvm > /dev/null
s_up 2> /dev/null
CONF=$T_DIR/h0/dts.conf
op() { c_exec h0 "$BUILD/console/dts-console" -f "$CONF" -n "$@"; }
echo "DTS under Slurm: 3 hosts (h0 h1 h2) in network namespaces on CPU 1"
c_bg h0 master "$BUILD/console/dts-console" -f "$CONF" -n --daemon \
    -c "mode static; ip 100ms; ps 80%; start"
master_up() { grep -q "^started: mode static" "$T_LOG/master.log"; }
t_wait_for 10 master_up || t_fail "the master console did not start: $(cat "$T_LOG/master.log")"
echo "- munged, slurmctld and a slurmd per host (partition p: h0,h1,h2,"
echo "  OverSubscribe=FORCE:4); plugstack.conf:"
sed "s|$T_DIR|\$DIR|g; s/^/    /" "$S_DIR/plugstack.conf"
echo "- every host runs its dts service; the master is the operator's console,"
echo "  root's, with the console key: dts-console -n --daemon (mode static,"
echo "  IP 100 ms, PS 80 %), as dts-console.service runs it"

# ---- each user sbatches one CPU-bound task per host --------------------------------
WD=$T_DIR/h0/home
cd "$WD" || t_fail "cd $WD"
# Both jobs' tasks first, then the spinning (a file, $GO): here the three
# hosts share CPU 1, and once one job's tasks spin in their slots, the
# other job's step starts only in the LS (Slurm's daemons run there)
GO=$WD/go
rm -f "$GO"
declare -A JOB
for v in USER_A USER_B; do
	u=${!v}
	argv=${v}_ARGV[@]
	s_run h0 "${!argv}" sbatch -N3 --ntasks-per-node=1 --dts -J spin -o "$WD/%u.%j.out" \
	    --wrap "srun sh -c 'while [ ! -e $GO ]; do sleep 0.1; done; while :; do :; done'" \
	    > "$T_LOG/sbatch-$u.log" 2>&1 ||
	    t_fail "$u's sbatch: $(cat "$T_LOG/sbatch-$u.log")"
	JOB[$u]=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$T_LOG/sbatch-$u.log")
	[ -n "${JOB[$u]}" ] || t_fail "$u's sbatch: no job id: $(cat "$T_LOG/sbatch-$u.log")"
done
# USER's spinning tasks (sh), one in the gang of USER:sJOB on each host
spins() {
	local u=$1 k p out=
	for k in 0 1 2; do
		for p in $(c_job_pids "$k" "$u" "s${JOB[$u]}"); do
			[ "$(_c_comm "$p")" = sh ] && [ "$(ps -o ppid= -p "$p" | xargs ps -o comm= -p 2> /dev/null)" = slurmstepd ] &&
			    out="$out $p"
		done
	done
	echo $out
}
three_each() {
	[ "$(spins "$USER_A" | wc -w)" = 3 ] && [ "$(spins "$USER_B" | wc -w)" = 3 ]
}
t_wait_for 30 three_each && : > "$GO" || t_fail "not 3 spinning tasks in each job's gang: $USER_A: $(spins "$USER_A"); $USER_B: $(spins "$USER_B"); $(s_run h0 squeue 2>&1)"
declare -A PROG
for u in "$USER_A" "$USER_B"; do PROG[$u]=$(spins "$u"); done
echo "- two users, $USER_A and $USER_B, each ran"
echo "    sbatch -N3 --ntasks-per-node=1 --dts --wrap \"srun sh -c 'while [ ! -e go ]; do sleep 0.1; done; while :; do :; done'\""
echo "  (the tasks spin once both jobs' tasks have started: the demo makes go then)"
echo "  each Slurm job is one DTS job, USER:sJOBID, on every host:"
for u in "$USER_A" "$USER_B"; do
	echo "    $u:s${JOB[$u]}  tasks ${PROG[$u]}"
done
echo
echo "squeue:"
s_run h0 squeue -o '%.6i %.9P %.6j %.10u %.2t %.8M %.3D %R' | sed 's/^/  /'

# ---- the matrix ----------------------------------------------------------------
two_rows() { op -c jobs 2> /dev/null | grep -q "^2 rows, 2 jobs on 3 nodes"; }
t_wait_for 10 two_rows || t_fail "the matrix has not 2 rows: $(op -c jobs 2>&1)"
echo
echo "The gang matrix, as root's console prints it (dts-console -n -c jobs: a"
echo "second console of the operator's that only asks; the daemon is the"
echo "master and sends each node its table):"
op -c jobs | sed 's/^/  /'

# ---- the local load: one hog on h1 ------------------------------------------------
c_bg h1 hog "$BUILD/tests/tools/hog" -t 0 -p "$T_DIR/hog.pid"
t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
hog=$(cat "$T_DIR/hog.pid")
t_sleep 1
# the shares (lib.sh's t_cpu_split: percent of CPU 1's time, less what
# the hypervisor stole) must be what the README says (t_shares_ok, as
# tests/demo.sh): a window that other work disturbed is measured again, 3
# windows in all, and then the demo fails with the figures
sum() { awk -v s="$*" 'BEGIN { n = split(s, v, " "); for (i = 1; i <= n; i++) t += v[i]; printf "%.1f", t }'; }
for try in 1 2 3; do
	# shellcheck disable=SC2086
	t_cpu_split 1 8 "$hog" - ${PROG[$USER_A]} ${PROG[$USER_B]} || t_fail "a task or the hog ended"
	sa=$(sum "${T_SH[@]:0:3}") sb=$(sum "${T_SH[@]:3:3}")
	t_shares_ok "$sa" "$sb" -- "$T_SH_HOG" 40 20 && break
	[ "$try" = 3 ] && break
	echo "(a window of 8 s: job ${JOB[$USER_A]} $sa%, job ${JOB[$USER_B]} $sb%, the hog $T_SH_HOG%: $T_SHARES_WHY measured again)"
done
# shellcheck disable=SC2046
foreign=$(t_foreign_rt $(for h in h0 h1 h2; do c_pids "$h"; done))
echo
echo "Share of CPU 1 over 8 s (STATIC: PS 80 ms of IP 100 ms, 2 rows of 40 ms):"
echo "slurm job ${JOB[$USER_A]} (user $USER_A): $sa%"
echo "slurm job ${JOB[$USER_B]} (user $USER_B): $sb%"
echo "local load (a hog on h1): $T_SH_HOG%"
[ "$foreign" = 0 ] ||
	echo "($foreign real-time processes of other programs ran on this machine too: they take from the slots)"
t_shares_ok "$sa" "$sb" -- "$T_SH_HOG" 40 20 ||
	t_fail "the shares are not what the README says: $T_SHARES_WHY"
kill "$hog"

# ---- the end ----------------------------------------------------------------------
s_run h0 scancel "${JOB[$USER_A]}" "${JOB[$USER_B]}" || t_fail "scancel failed"
no_jobs() { ! ls -d "$(c_cg_dir h0)"/jobs/job.* "$(c_cg_dir h1)"/jobs/job.* "$(c_cg_dir h2)"/jobs/job.* > /dev/null 2>&1; }
t_wait_for 10 no_jobs || echo "(some job cgroups were still there 10 s after scancel)"
echo
echo "scancel of both jobs: every DTS job ended on every host."
s_down
c_down > /dev/null 2>&1 || t_fail "teardown failed"
_c_rm_users
t_cleanup
left=$(getent passwd "$USER_A" "$USER_B")
[ -z "$left" ] || t_fail "users left: $left"
echo "Torn down after $((($(_t_now_us) - t0_demo) / 1000000)) s: no Slurm daemon, user, namespace, process or cgroup of the demo is left."
