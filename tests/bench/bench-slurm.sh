#!/bin/bash
# bench-slurm.sh BUILD OUTDIR [--quick] - issue [R4 2/5]: Slurm places, DTS
# coschedules.  A real Slurm cluster (tests/system/slurm.sh): munged,
# slurmctld and a slurmd on each of 3 hosts h0 h1 h2 (network namespaces,
# tests/system/cluster.sh), each with its dts and DTS's SPANK plugin, the
# operator's master (dts-console -n --daemon, STATIC, IP 100 ms, SI 1 s);
# every process of the run on CPU 1 (as ./quickstart slurm), two test
# users a and b.
#  1. Two Slurm jobs on the same 3 nodes (sbatch -N3 --dts, one spinning
#     task per host, one job per user), a CPU hog on h1, PS 80 %: each
#     job's share of CPU 1 (its 3 tasks' CPU time over CPU 1's time less
#     steal) and the hog's, over WIN s.  Goal: each job 40 +- 1 points,
#     the local load >= 18 %.  Against: the same jobs with --dts=off under
#     Slurm's own gang scheduling (PreemptMode=SUSPEND,GANG,
#     SchedulerTimeSlice=5, its minimum), in the same run, over GWIN s (2
#     or 4 slices): both jobs start under the plain partition, then
#     slurmctld restarts with gang scheduling and time-slices them (srun
#     cannot start the step of a job that gang scheduling suspends at its
#     allocation: it waited over 20 s here).  A fact: with DTS each job's
#     3 tasks are in its gang on every host.
#  3. Job start (the last of the job's 3 tasks started: Slurm's launch
#     done, each task adopted before it execs) to the job's first PS on
#     every host (a member at RT has run): goal <= 1 SI + 100 ms; from
#     srun -N3 --dts submitted, Slurm's launch in, and to the first
#     SCHEDULE that names the job (sniffed): references.  Job end (the last
#     task's exit; and scancel) to every host's job cgroups (v2 and v1
#     mirrors) gone: goal <= 1 s.  REPS each.
#  4. 20 short jobs in a row (srun -N3 --dts true): facts: afterwards no
#     job cgroup, state file or matrix row of theirs is left; speed: dts's
#     CPU (the 3 dts, over the run) under 2 % (of one CPU, each).
#  5. slurmd and slurmstepd stay responsive beside real-time gangs:
#     `srun -N1 hostname` on h0, NSRUN times in a row, while the two jobs
#     of row 1 spin at PS 90 %: p99 <= 1 s.  (The PVM console's figure,
#     for reference: docs/performance.md, lifts.)
#  2. A busy-polling MPI job (MPICH's mpiloop, srun -N2 --mpi=pmi2, user
#     a) beside a bulk-synchronous one (mpiloop -w 5000: 5 ms of CPU
#     between its exchanges, user b) on h0 and h1, host K on CPU K (every
#     process of its namespace), a CPU hog on each: the MPI job's time per
#     iteration over MRUN s with DTS (PS 80 %, 2 rows) and under plain
#     oversubscription (--dts=off, Slurm as configured above): goal DTS
#     >= 3x faster.  Not measured against Slurm's gang scheduling (the
#     job would be suspended at its allocation: see row 1).
# Writes OUTDIR/slurm.csv and OUTDIR/slurm.md.  Full: WIN 8 s, Slurm's
# window 20 s, REPS 3, NSRUN 50, MRUN 8 s; --quick: WIN 4 s, 10 s, REPS 1,
# NSRUN 10, MRUN 4 s, and no Slurm gang window (row 1's reference).
set -u
if [ -z "${B_SLURM_PINNED:-}" ] && [ "$(nproc --all)" -ge 2 ]; then
	B_SLURM_PINNED=1 exec taskset -c 1 bash "$0" "$@"
fi
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
b_init slurm "$@"
. "$SRC/tests/system/cluster.sh"
. "$SRC/tests/system/slurm.sh"
s_need
command -v python3 > /dev/null || t_skip "needs python3 (the SCHEDULE sniffer)"
[ "$(nproc --all)" -ge 2 ] && [ "${B_SLURM_PINNED:-}" = 1 ] || t_skip "needs 2 CPUs (everything on CPU 1)"

if [ "$B_QUICK" = 1 ]; then
	WIN=4 GWIN=10 REPS=1 NSRUN=10 MRUN=4
else
	WIN=8 GWIN=20 REPS=${BENCH_REPS:-3} NSRUN=50 MRUN=8
fi
SI_S=1
CSV=$B_OUT/slurm.csv
echo "row,what,value,unit,goal,verdict" > "$CSV"
# row ROW WHAT VALUE UNIT GOAL VERDICT: one line of the CSV (commas in a
# field become semicolons)
row() {
	local f out= a
	for a in "$@"; do f=${a//,/;}; out=${out:+$out,}$f; done
	echo "$out" >> "$CSV"
	t_log "row $1: $2 = $3 $4 ($5): $6"
}

c_make_user UA a
c_make_user UB b
C_CONF_EXTRA="ip = \"100ms\";
console = { status_wait = \"500ms\"; history = \"\";
    sign_key = \"$T_DIR/console.key\"; node_secret = \"$T_DIR/nodes.key\"; };"
c_up 3 --no-pvm
c_sched_watch
s_up
CONF=$T_DIR/h0/dts.conf
op() { c_exec h0 "$BUILD/console/dts-console" -f "$CONF" -n "$@"; }
MASTER=
master() {
	if [ -n "$MASTER" ]; then
		kill -TERM "$MASTER" 2> /dev/null
		t_wait_for 5 eval '! _t_alive "$MASTER"'
		wait "$MASTER" 2> /dev/null
		t_untrack "$MASTER"
	fi
	c_bg h0 "master-$1" "$BUILD/console/dts-console" -f "$CONF" -n --daemon \
	    -c "mode static; ip 100ms; ps $1%; si ${SI_S}s; start"
	MASTER=$C_BG_PID
	t_wait_for 10 grep -q "^started: mode static" "$T_LOG/master-$1.log" ||
	    t_fail "the master did not start: $(cat "$T_LOG/master-$1.log")"
}
master 80
WD=$T_DIR/h0/home
cd "$WD" || t_fail "cd $WD"

# spins USER: the spinning tasks of USER's Slurm job (sh, child of slurmstepd)
spins() {
	local uid k p out=
	uid=$(id -u "$1")
	for k in 0 1 2; do
		for p in $(c_pids "h$k"); do
			[ "$(stat -c %u "/proc/$p" 2> /dev/null)" = "$uid" ] &&
			    [ "$(_c_comm "$p")" = sh ] &&
			    [ "$(_c_comm "$(ps -o ppid= -p "$p" | tr -d ' ')")" = slurmstepd ] && out="$out $p"
		done
	done
	echo $out
}
declare -A JOB SRUN
# submit V DTS: V's job (UA or UB), --dts or --dts=off: srun -N3 of one
# spinning task a host, in the background (a job of its own: under Slurm's
# gang scheduling a batch script's step may wait for its turn)
submit() {
	local u=${!1} v=${1}_ARGV[@]
	s_bg h0 "job-$u-$2" "${!v}" srun -N3 --ntasks-per-node=1 "$2" -J spin sh -c \
	    'echo "job $SLURM_JOB_ID"; while [ ! -e "$0" ]; do sleep 0.1; done; while :; do :; done' "$GO"
	SRUN[$u]=$C_BG_PID
}
three_each() {
	local u
	[ "$(spins "$UA" | wc -w)" = 3 ] && [ "$(spins "$UB" | wc -w)" = 3 ] || return 1
	for u in "$UA" "$UB"; do
		JOB[$u]=$(sed -n 's/^job \([0-9]*\)$/\1/p' "$T_LOG"/job-"$u"-*.log | tail -n 1)
	done
}
# both jobs' tasks first, then the spinning (a file, GO): every host is on
# CPU 1, and once one job spins in its slots the other's step would start
# in the LS only
GO=$WD/go
# share W: A, B, H = the shares of CPU 1 over W s of the tasks PA, PB and
# the hog (lib.sh's t_cpu_split: CPU 1's time less steal)
share() {
	local n
	# shellcheck disable=SC2086
	t_cpu_split 1 "$1" "$HOG" - $PA $PB || t_fail "a task or the hog ended"
	n=$(echo $PA | wc -w)
	A=$(awk -v s="${T_SH[*]:0:n}" 'BEGIN { k = split(s, v, " "); for (i = 1; i <= k; i++) t += v[i]; printf "%.1f", t }')
	B=$(awk -v s="${T_SH[*]:n}" 'BEGIN { k = split(s, v, " "); for (i = 1; i <= k; i++) t += v[i]; printf "%.1f", t }')
	H=$T_SH_HOG
}
cancel_all() {
	local u
	s_run h0 scancel -u "$UA" > /dev/null 2>&1
	s_run h0 scancel -u "$UB" > /dev/null 2>&1
	t_wait_for 15 eval '[ -z "$(spins "$UA")$(spins "$UB")" ]' || t_fail "jobs left after scancel"
	for u in "$UA" "$UB"; do
		[ -n "${SRUN[$u]:-}" ] || continue
		t_wait_for 15 eval '! _t_alive "${SRUN[$u]}"'
		wait "${SRUN[$u]}" 2> /dev/null
		t_untrack "${SRUN[$u]}"
		SRUN[$u]=
	done
	rm -f "$GO"
}
c_bg h1 hog "$BUILD/tests/tools/hog" -t 0 -p "$T_DIR/hog.pid"
t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
HOG=$(cat "$T_DIR/hog.pid")

# ---- 1. two jobs, DTS --------------------------------------------------------------
rm -f "$GO"
submit UA --dts
submit UB --dts
t_wait_for 30 three_each && : > "$GO" || t_fail "not 3 tasks each: $(s_run h0 squeue 2>&1 | paste -sd'|')"
PA=$(spins "$UA") PB=$(spins "$UB")
for u in "$UA" "$UB"; do
	for k in 0 1 2; do
		[ "$(c_job_pids "$k" "$u" "s${JOB[$u]}" | wc -l)" -ge 1 ] ||
		    { row 1 "$u's job s${JOB[$u]} in its gang on h$k" no - "every host" FAIL; B_FAILED+=(1); }
	done
done
t_wait_for 10 eval 'op -c jobs 2> /dev/null | grep -q "^2 rows, 2 jobs on 3 nodes"' ||
    t_fail "the matrix has not 2 rows: $(op -c jobs 2>&1)"
op -c jobs > "$T_LOG/matrix-80.txt" 2>&1
t_sleep 1
share "$WIN"
t_log "DTS, PS 80 %: job a $A %, job b $B %, hog $H %"
b_goal speed 1 'a >= 39 && a <= 41 && b >= 39 && b <= 41 && h >= 18' a="$A" b="$B" h="$H"
V1=$B_V
row 1 "DTS PS 80%: job a / job b / local load" "$A / $B / $H" "% of CPU 1" "40 +- 1 each; load >= 18" "$V1"

# ---- 5. srun hostname beside two jobs at PS 90 % --------------------------------------
master 90
t_sleep 2
# srun_times FILE: NSRUN x srun -N1 -w h0 hostname as user a, ms each
srun_times() {
	local i t0
	: > "$1"
	for i in $(seq "$NSRUN"); do
		t0=$(_t_now_us)
		s_run h0 "${UA_ARGV[@]}" timeout 30 srun -N1 -w h0 hostname > "$T_LOG/srun-hostname.log" 2>&1 ||
		    { t_log "srun hostname failed: $(cat "$T_LOG/srun-hostname.log")"; continue; }
		echo $((($(_t_now_us) - t0) / 1000)) >> "$1"
	done
}
srun_times "$T_DIR/srun.ms"
read -r n p50 p99 max _ <<< "$(b_stats < "$T_DIR/srun.ms")"
[ "$n" = "$NSRUN" ] || { B_FAILED+=(5); t_log "FAIL: row 5: $n of $NSRUN srun hostname answered"; }
b_goal speed 5 'p <= 1000' p="$p99"
row 5 "srun hostname beside 2 jobs at PS 90% (n=$n; p50 $p50 ms; max $max ms)" "$p99" "ms p99" "<= 1000" "$B_V"
master 80
cancel_all

# ---- 3. job start to first PS; job end to cgroups gone -----------------------------------
# cgs_left K USER J: the job's cgroups on host K (v2 and the v1 mirrors)
cgs_left() {
	local d
	d=$(c_job_dir "$1" "$2" "s$3")
	for d in "$d" $(_t_cg_v1 "$d"); do [ ! -d "$d" ] || echo "$d"; done
}
# gone_at USER J: wait (20 ms polls, 10 s) until no host has a cgroup of
# the job; GONE = the time (us) each host's went, max
gone_at() {
	local k end=$(($(_t_now_us) + 10000000)) left
	declare -A g=()
	while [ "$(_t_now_us)" -lt "$end" ]; do
		left=0
		for k in 0 1 2; do
			[ -n "${g[$k]:-}" ] && continue
			if [ -z "$(cgs_left "$k" "$1" "$2")" ]; then g[$k]=$(_t_now_us); else left=1; fi
		done
		[ "$left" = 0 ] && break
		sleep 0.02
	done
	GONE=0
	for k in 0 1 2; do
		[ -n "${g[$k]:-}" ] || { GONE=; return 1; }
		[ "${g[$k]}" -le "$GONE" ] || GONE=${g[$k]}
	done
	return 0
}
# first_ps J SINCE_S: the latest, over the hosts, of the first PS of job sJ
# after SINCE_S (the first SCHEDULE naming it, + 2 ms, + the slot's start)
first_ps() {
	FIRST=$(for k in 0 1 2; do
		awk -v j=":s$1@" -v t0="$2" '$1 >= t0 { for (i = 3; i <= NF; i++) if (index($i, j)) {
			split($i, a, "@"); split(a[2], b, "+"); printf "%.6f\n", $1 + 0.002 + b[1] / 1e6; exit } }' \
		    "$T_LOG/sched-h$k.log"
	done | sort -g | awk 'END { if (NR == 3) print; }')
	[ -n "$FIRST" ]
}
: > "$T_DIR/start.ms"; : > "$T_DIR/launch.ms"; : > "$T_DIR/table.ms"; : > "$T_DIR/end.ms"; : > "$T_DIR/cancel.ms"
# in_ps J: wait (10 ms polls, 10 s) until, on every host, a member of job
# sJ at real-time priority (RR or FIFO) has run (its schedstat run time
# grew: it ran in a PS; this poll, on CPU 1 too, runs only in the LS, so
# a host's time is the poll after that PS, up to a PS late); PS_T = the
# latest of the hosts' (us)
in_ps() {
	local k p ns end=$(($(_t_now_us) + 10000000)) left
	local -a f
	declare -A t=() ns0=()
	while [ "$(_t_now_us)" -lt "$end" ]; do
		left=0
		for k in 0 1 2; do
			[ -n "${t[$k]:-}" ] && continue
			left=1
			for p in $(c_job_pids "$k" "$UA" "s$1"); do
				read -r -a f < "/proc/$p/stat" 2> /dev/null || continue
				read -r ns _ < "/proc/$p/schedstat" 2> /dev/null || continue
				case ${f[40]} in 1 | 2) ;; *) continue ;; esac
				if [ -z "${ns0[$p]:-}" ]; then
					ns0[$p]=$ns
				elif [ "$ns" -gt "${ns0[$p]}" ]; then
					t[$k]=$(_t_now_us)
					break
				fi
			done
		done
		[ "$left" = 0 ] && break
		sleep 0.01
	done
	PS_T=0
	for k in 0 1 2; do
		[ -n "${t[$k]:-}" ] || { PS_T=; WHY_PS="h$k: $(for p in $(c_job_pids "$k" "$UA" "s$1"); do echo "$p:$(t_policy "$p"):$(t_proc_state "$p")"; done | paste -sd' ')"; return 1; }
		[ "${t[$k]}" -le "$PS_T" ] || PS_T=${t[$k]}
	done
	return 0
}
# the job: spins until the file $0 exists, then says when it ended
SPINSTOP='echo "job $SLURM_JOB_ID"; echo "start $(date +%s.%N)"; while [ ! -e "$0" ]; do :; done; echo "end $(date +%s.%N)"'
ARGA=("${UA_ARGV[@]}")
for r in $(seq "$REPS"); do
	for how in end cancel; do
		stop=$WD/stop.$how.$r
		rm -f "$stop"
		ts=$EPOCHREALTIME t0=$(_t_now_us)
		s_bg h0 "$how-$r" "${ARGA[@]}" timeout 60 srun -N3 --dts sh -c "$SPINSTOP" "$stop"
		SP=$C_BG_PID
		t_wait_for 20 eval 'grep -q "^job " "$T_LOG/$how-$r.log"' || t_fail "row 3: no job: $(cat "$T_LOG/$how-$r.log")"
		J=$(sed -n 's/^job //p' "$T_LOG/$how-$r.log" | head -n 1)
		if in_ps "$J"; then
			echo $(((PS_T - t0) / 1000)) >> "$T_DIR/launch.ms"
			# from the last of its 3 tasks' start (Slurm's launch done;
			# the plugin adopts a task before it execs)
			t_wait_for 5 eval '[ "$(grep -c "^start " "$T_LOG/$how-$r.log")" -ge 3 ]'
			st=$(sed -n 's/^start //p' "$T_LOG/$how-$r.log" | sort -g | tail -n 1)
			[ -n "$st" ] && awk -v a="$st" -v p="$PS_T" 'BEGIN { printf "%.0f\n", (p / 1e6 - a) * 1000 }' >> "$T_DIR/start.ms"
		else
			B_FAILED+=(3)
			t_log "FAIL: row 3: job s$J not seen in a PS on every host within 10 s ($WHY_PS; tables: $(for k in 0 1 2; do tail -n 1 "$T_LOG/sched-h$k.log"; done | paste -sd'|'))"
		fi
		first_ps "$J" "$ts" &&
		    awk -v a="$ts" -v b="$FIRST" 'BEGIN { printf "%.0f\n", (b - a) * 1000 }' >> "$T_DIR/table.ms"
		if [ "$how" = end ]; then
			: > "$stop"
			gone_at "$UA" "$J" || { B_FAILED+=(3); t_log "FAIL: row 3: job s$J's cgroups not gone in 10 s"; }
			last=$(sed -n 's/^end //p' "$T_LOG/$how-$r.log" | sort -g | tail -n 1)
			[ -n "$last" ] && [ -n "$GONE" ] &&
			    awk -v a="$last" -v g="$GONE" 'BEGIN { printf "%.0f\n", (g / 1e6 - a) * 1000 }' >> "$T_DIR/end.ms"
		else
			t0=$(_t_now_us)
			s_run h0 scancel "$J"
			gone_at "$UA" "$J" && echo $(((GONE - t0) / 1000)) >> "$T_DIR/cancel.ms" ||
			    { B_FAILED+=(3); t_log "FAIL: row 3: cancelled job s$J's cgroups not gone in 10 s"; }
			: > "$stop"
		fi
		t_wait_for 15 eval '! _t_alive "$SP"'
		wait "$SP" 2> /dev/null
		t_untrack "$SP"
	done
done
read -r n _ _ smax _ <<< "$(b_stats < "$T_DIR/start.ms")"
read -r sn _ _ srmax _ <<< "$(b_stats < "$T_DIR/launch.ms")"
read -r tn _ _ tmax _ <<< "$(b_stats < "$T_DIR/table.ms")"
b_goal speed 3 'n > 0 && m <= si + 100' n="$n" m="$smax" si=$((SI_S * 1000))
row 3 "job start (the last of its tasks started by Slurm) to its first PS on every node, a member at RT and running (n=$n; max)" "$smax" ms "<= SI + 100 ms ($((SI_S * 1000 + 100)))" "$B_V"
row 3 "srun submitted to the job's first PS on every node (Slurm's own launch in; n=$sn; max; the master's first table naming it: n=$tn, max $tmax ms)" "$srmax" ms "reference" "-"
read -r n _ _ emax _ <<< "$(b_stats < "$T_DIR/end.ms")"
b_goal speed 3 'm <= 1000' m="$emax"
row 3 "job end to every node's cgroups gone (n=$n; max)" "$emax" ms "<= 1000" "$B_V"
read -r n _ _ cmax _ <<< "$(b_stats < "$T_DIR/cancel.ms")"
b_goal speed 3 'm <= 1000' m="$cmax"
row 3 "scancel to every node's cgroups gone (n=$n; max)" "$cmax" ms "<= 1000" "$B_V"

# ---- 4. 20 short jobs ------------------------------------------------------------------
DTSP=$(for k in 0 1 2; do c_dts_pid "h$k"; done)
b_snap $DTSP
S0=("${B_SNAP[@]}")
: > "$T_DIR/short.ids"
for i in $(seq 20); do
	s_run h0 "${ARGA[@]}" timeout 60 srun -N3 --dts sh -c '[ "$SLURM_PROCID" != 0 ] || echo "$SLURM_JOB_ID"' \
	    >> "$T_DIR/short.ids" 2> "$T_LOG/short.err" || t_log "short job $i: $(cat "$T_LOG/short.err")"
done
b_snap $DTSP
S1=("${B_SNAP[@]}")
DCPU=$(awk -v w=$((S1[0] - S0[0])) -v a=$((S1[1] - S0[1])) -v b=$((S1[2] - S0[2])) -v c=$((S1[3] - S0[3])) \
    'BEGIN { m = a; if (b > m) m = b; if (c > m) m = c; printf "%.2f\n", m / (w * 10) }')
NSHORT=$(wc -l < "$T_DIR/short.ids")
left_short() {
	local j k
	LEFT=
	for j in $(cat "$T_DIR/short.ids"); do
		for k in 0 1 2; do
			[ -z "$(cgs_left "$k" "$UA" "$j")" ] || LEFT="$LEFT cgroup:h$k:s$j"
			ls "$T_RUN/h$k.state.$UA@s$j"* > /dev/null 2>&1 && LEFT="$LEFT state:h$k:s$j"
		done
		op -c jobs 2> /dev/null | grep -q ":s$j\b" && LEFT="$LEFT row:s$j"
	done
	[ -z "$LEFT" ]
}
t_wait_for 5 left_short
b_goal fact 4 'n == 20 && l == 0' n="$NSHORT" l="${#LEFT}"
row 4 "20 x srun -N3 --dts true: jobs run / left (cgroups, state files, rows)" "$NSHORT / ${LEFT:-none}" - "20 / none" "$B_V"
b_goal speed 4 'c < 2' c="$DCPU"
row 4 "dts's CPU over the 20 jobs (the busiest of 3)" "$DCPU" "% of a CPU" "< 2" "$B_V"

# ---- 5'. srun hostname with no job (the hog only), for reference ------------------------
srun_times "$T_DIR/srun0.ms"
read -r n p50 p99 max _ <<< "$(b_stats < "$T_DIR/srun0.ms")"
row 5 "srun hostname with no job, the hog only (n=$n; p50 $p50 ms; max $max ms)" "$p99" "ms p99" reference -

# ---- 2. a busy-polling MPI job beside a bsp job, host K on CPU K ------------------------
c_mpi_setup mpich
MPIP=$WD/$(basename "$C_MPI_PROG")
cp "$C_MPI_PROG" "$MPIP" && chmod 755 "$MPIP" || t_fail "cannot copy $C_MPI_PROG to $WD"
# pin_h0 CPU: every process (and thread) of h0's namespace to CPU
pin_h0() {
	local p
	for p in $(c_pids h0); do taskset -a -p -c "$1" "$p" > /dev/null 2>&1; done
}
HOG0=
hog0() {
	if [ "$1" = on ]; then
		c_bg h0 hog0 "$BUILD/tests/tools/hog" -c 0 -t 0
		HOG0=$C_BG_PID
	elif [ -n "$HOG0" ]; then
		kill -TERM "$HOG0" 2> /dev/null
		wait "$HOG0" 2> /dev/null
		t_untrack "$HOG0"
		HOG0=
	fi
}
# mpi_pair DTS SECS NAME: the bsp job (user b) in the background, then the
# MPI job (user a) for SECS; ITER = the MPI job's us per iteration
mpi_pair() {
	local bsp rc
	s_run h0 "${UB_ARGV[@]}" timeout $(($2 + 60)) srun -N2 -w h0,h1 "$1" --mpi=pmi2 \
	    "$MPIP" -i 0 -t $(($2 + 3)) -w 5000 > "$T_LOG/$3-bsp.log" 2>&1 &
	bsp=$!
	t_track "$bsp"
	t_wait_for 20 eval '[ "$(s_run h0 squeue -h -u "$UB" -t R | wc -l)" -ge 1 ]' ||
	    t_fail "row 2 $3: the bsp job does not run: $(cat "$T_LOG/$3-bsp.log")"
	[ "$1" = --dts ] && t_sleep $((SI_S + 1))
	s_run h0 "${UA_ARGV[@]}" timeout $(($2 + 60)) srun -N2 -w h0,h1 "$1" --mpi=pmi2 \
	    "$MPIP" -i 0 -t "$2" > "$T_LOG/$3-mpi.log" 2>&1
	rc=$?
	wait "$bsp" 2> /dev/null
	t_untrack "$bsp"
	ITER=$(sed -n 's/^mpiloop .* iter_us=\([0-9.]*\) complete=1$/\1/p' "$T_LOG/$3-mpi.log")
	BSPIT=$(sed -n 's/^mpiloop .* iter_us=\([0-9.]*\) complete=1$/\1/p' "$T_LOG/$3-bsp.log")
	[ "$rc" = 0 ] && [ -n "$ITER" ] ||
	    { B_FAILED+=(2); t_log "FAIL: row 2 $3: the MPI job: status $rc: $(tail -n 3 "$T_LOG/$3-mpi.log" | paste -sd'|')"; ITER=nan; }
	t_log "row 2 $3: MPI $ITER us/iteration, bsp ${BSPIT:-?} us/iteration"
}
pin_h0 0
hog0 on
mpi_pair --dts "$MRUN" dts
IT_DTS=$ITER BSP_DTS=$BSPIT
mpi_pair --dts=off "$MRUN" plain
IT_PLAIN=$ITER BSP_PLAIN=$BSPIT
hog0 off
pin_h0 1

for w in plain; do
	it=IT_${w^^}
	b_goal speed 2 'd > 0 && o / d >= 3' d="$IT_DTS" o="${!it}"
	row 2 "MPI job us/iteration, DTS vs $w (bsp job: ${BSP_DTS:-?} vs $(eval echo "\${BSP_${w^^}:-?}") us/iteration)" \
	    "$IT_DTS vs ${!it} ($(awk -v d="$IT_DTS" -v o="${!it}" 'BEGIN { if (d > 0) printf "%.1fx", o / d; else print "-" }'))" \
	    "us/iteration" ">= 3x faster" "$B_V"
done
row 2 "MPI job under Slurm's gang scheduling: not measured (srun cannot start a step of a job that gang scheduling suspends at its allocation: 22.05's srun waited over 20 s)" - - ">= 3x faster" -

# ---- 1'. the same two jobs under Slurm's gang scheduling --------------------------------
# Both jobs start under the partition as above (srun cannot start the step
# of a job suspended at its allocation), then slurmctld restarts with
# PreemptMode=SUSPEND,GANG and its shortest SchedulerTimeSlice, and
# time-slices the running jobs.  A reference without a goal (t120 checks
# that srun --dts=off puts a task in no gang): not in --quick.
if [ "$B_QUICK" != 1 ]; then
	rm -f "$GO"
	submit UA --dts=off
	submit UB --dts=off
	t_wait_for 30 three_each && : > "$GO" || t_fail "not 3 tasks each (--dts=off): $(s_run h0 squeue 2>&1 | paste -sd'|')"
	PA=$(spins "$UA") PB=$(spins "$UB")
	for p in $PA $PB; do
		grep -q '/jobs/job\.' "/proc/$p/cgroup" && t_fail "--dts=off: task $p is in a DTS gang"
	done
	printf '%s\n' PreemptType=preempt/partition_prio PreemptMode=SUSPEND,GANG SchedulerTimeSlice=5 >> "$S_CONF"
	s_ctl_restart
	t_wait_for 20 eval '[ -n "$(s_run h0 squeue -h -t S -o %i)" ]' ||
	    t_fail "Slurm's gang scheduling suspends neither job: $(s_run h0 squeue 2>&1 | paste -sd'|')"
	share "$GWIN"
	t_log "Slurm gang (SchedulerTimeSlice 5 s): job a $A %, job b $B %, hog $H %"
	row 1 "Slurm PreemptMode=GANG, SchedulerTimeSlice=5 (the same jobs, --dts=off): job a / job b / local load" "$A / $B / $H" "% of CPU 1" "reference" -
	cancel_all
else
	row 1 "Slurm PreemptMode=GANG, SchedulerTimeSlice=5 (the same jobs, --dts=off): not measured (--quick)" - - reference -
fi

# ---- the table -------------------------------------------------------------------------
# the machine's CPUs again for the note (nproc counts those of our affinity)
taskset -p -c "0-$(($(nproc --all) - 1))" $$ > /dev/null
{
	echo "## Slurm places, DTS coschedules (bench-slurm)"
	echo
	echo "3 hosts h0 h1 h2 (network namespaces, a slurmd and a dts each) on CPU 1, slurmctld, the operator's"
	echo "master (STATIC, IP 100 ms, SI ${SI_S} s); DTS's share windows ${WIN} s, Slurm's gang window ${GWIN} s."
	echo
	echo "| Row | What | Value | Unit | Goal | Verdict |"
	echo "|---|---|---|---|---|---|"
	tail -n +2 "$CSV" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
	echo
	b_env_note
} > "$B_OUT/slurm.md"
cat "$B_OUT/slurm.md"
b_done
