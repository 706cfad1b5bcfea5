#!/bin/bash
# bench-users.sh BUILD OUTDIR [--quick] - issue [R4 1/5] row 5: fair share
# per user on one node.
#
# A real dts, STATIC, IP 100 ms, PS 80 %, no console.  User A (a test
# user) runs 3 CPU-bound jobs and user B (nobody) 1 (dts-run --job, one
# spinning process each), all on CPU 1 beside a local CPU hog.  Each job's
# CPU time from its cgroup's cpu.stat, the wall time from CPU 1's ticks
# less host steal (t_cpu_clock), over BENCH_REPS windows (default 3 of
# 10 s; --quick: 1 of 4 s) after a 1 s warm-up:
#   share "user" (the default): goal each user 40 +- 1 points of CPU 1
#     (PS/2 of PS 80 %);
#   share "job", the same jobs in the same run (dts restarted with it; it
#     takes the jobs over): the split by job, A 60 and B 20, for reference.
# Writes OUTDIR/users.csv (one line a window, and the means), users.md;
# MISSED (reported) if the goal is missed; fails if a share is outside
# 40 +- 5 (not split by user).
. "$(dirname "$0")/common.sh"
b_init users "$@"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (pins everything to CPU 1)"
id nobody > /dev/null 2>&1 || t_skip "needs the user nobody (user B)"

if [ "$B_QUICK" = 1 ]; then
	REPS=1 WIN=4
else
	REPS=${BENCH_REPS:-3} WIN=10
fi
CSV=$B_OUT/users.csv
echo "share,window,wall_s,a_pct,b_pct,a1_pct,a2_pct,a3_pct,hog_pct,steal_cpu1_pct,goal,verdict" > "$CSV"

t_make_user
t_pub_bin "$B_BUILD/run/dts-run" || t_fail "cannot copy dts-run"
t_user_argv
B_ARGV=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)"
    --clear-groups --inh-caps=-all --bounding-set=-all -- env)
SPIN=(sh -c 'while :; do :; done')

conf() {
	n_conf mode='"static"' ip='"100ms"' ps='"80%"' log_level='"info"' \
	    share="\"$1\"" users="[\"@$T_GROUP\", \"nobody\"]"
}
conf user
n_split_cpus
n_start_dts

declare -A J_PID J_CG
cg_of() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2> /dev/null; }
in_cg() { [ "$(cg_of "$1")" = "${2#"$(t_cg_mount)"}" ]; }
# job A|B LABEL: a spinner of user A or B in job LABEL on CPU 1
job() {
	local argv user
	if [ "$1" = A ]; then
		argv=("${T_USER_ARGV[@]}") user=$T_USER
	else
		argv=("${B_ARGV[@]}") user=nobody
	fi
	"${argv[@]}" DTS_SOCKET="$N_SOCK" taskset -c 1 "$T_DIR/bin/dts-run" \
	    --job "$2" -- "${SPIN[@]}" 2> "$T_LOG/job.$2.err" &
	J_PID[$2]=$!
	J_CG[$2]=$(n_job_cg "$user" "$2")
	t_track "${J_PID[$2]}"
	t_wait_for 5 in_cg "${J_PID[$2]}" "${J_CG[$2]}" ||
		t_fail "job $2 not in ${J_CG[$2]}: $(cat "$T_LOG/job.$2.err")"
}
job A a1; job A a2; job A a3; job B b1
n_start_hog 1
t_log "dts $N_DTS; A ($T_USER) a1 a2 a3, B (nobody) b1, hog $N_HOG, all on CPU 1"

cpu_us() { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"; }
# measure SHARE K: one window into the CSV
measure() {
	local l t0 t1 h0 h1 s0 s1 goal
	declare -A u0 u1
	s0=$(b_steal_ticks 1)
	t0=$(t_cpu_clock 1); h0=$(t_cpu_ns "$N_HOG")
	for l in a1 a2 a3 b1; do u0[$l]=$(cpu_us "${J_CG[$l]}"); done
	t_sleep "$WIN"
	t1=$(t_cpu_clock 1); h1=$(t_cpu_ns "$N_HOG")
	for l in a1 a2 a3 b1; do u1[$l]=$(cpu_us "${J_CG[$l]}"); done
	s1=$(b_steal_ticks 1)
	goal="A 40 +- 1; B 40 +- 1"
	[ "$1" = job ] && goal="reference (A 60; B 20)"
	awk -v sh="$1" -v k="$2" -v w="$((t1 - t0))" -v goal="$goal" \
	    -v a1="$((u1[a1] - u0[a1]))" -v a2="$((u1[a2] - u0[a2]))" \
	    -v a3="$((u1[a3] - u0[a3]))" -v b="$((u1[b1] - u0[b1]))" \
	    -v h="$((h1 - h0))" -v st="$((s1 - s0))" 'BEGIN {
		a = 100 * (a1 + a2 + a3) / w; bb = 100 * b / w
		v = "-"
		if (sh == "user")
			v = (a >= 39 && a <= 41 && bb >= 39 && bb <= 41) ? "pass" : (a >= 35 && a <= 45 && bb >= 35 && bb <= 45) ? "MISSED" : "FAIL"
		printf "%s,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%s,%s\n", sh, k,
		    w / 1e6, a, bb, 100 * a1 / w, 100 * a2 / w, 100 * a3 / w,
		    h / (w * 10), st / (w / 1e6), goal, v }' >> "$CSV"
	t_log "$(tail -n 1 "$CSV")"
}
run_share() {
	local k
	t_sleep 1
	for k in $(seq "$REPS"); do measure "$1" "$k"; done
}
run_share user

# the same jobs split by job: dts restarted with share "job" takes them over
kill -TERM "$N_DTS"
n_reap_dts
conf job
n_start_dts
for l in a1 a2 a3 b1; do
	t_logged "taking over the gang in ${J_CG[$l]}" || t_fail "the new dts did not take job $l over"
done
run_share job

# the means a share, and the verdict
MEANS=$(awk -F, 'NR > 1 { n[$1]++; for (i = 3; i <= 10; i++) s[$1, i] += $i
		if ($12 == "FAIL") bad[$1] = 1; else if ($12 == "MISSED") off[$1] = 1 }
	END { for (sh in n) { printf "%s,mean", sh
		for (i = 3; i <= 10; i++) printf ",%.2f", s[sh, i] / n[sh]
		printf ",%s,%s\n", sh == "user" ? "A 40 +- 1; B 40 +- 1" : "reference (A 60; B 20)",
		    sh == "user" ? (bad[sh] ? "FAIL" : off[sh] ? "MISSED" : "pass") : "-" } }' "$CSV" | sort -r)
echo "$MEANS" >> "$CSV"
VERDICT=$(awk -F, '$1 == "user" && $2 == "mean" { print $12 }' <<< "$MEANS")
row() { awk -F, -v s="$1" '$1 == s && $2 == "mean"' <<< "$MEANS"; }
# (n_split_cpus pinned this shell to CPU 0: b_env_note counts every CPU)
taskset -p -c "0-$(($(nproc --all) - 1))" $$ > /dev/null
{
	echo "## Users kept apart on a node (issue [R4 1/5] row 5)"
	echo
	echo "STATIC, IP 100 ms, PS 80 %, no console. User A runs 3 CPU-bound jobs and user B 1 (\`dts-run --job\`,"
	echo "one spinner each), on CPU 1 beside a local hog (SCHED_OTHER). CPU shares from each job's cgroup"
	echo "(cpu.stat), the wall time from CPU 1 less host steal, $REPS window(s) of $WIN s a share after a 1 s"
	echo "warm-up; share \"job\" is the same jobs in the same run, taken over by a dts restarted with it."
	echo "Goal: with the default share \"user\", each user 40 ± 1 points of CPU 1 (PS/2), every window."
	echo
	echo "| share | A % (a1, a2, a3) | B % | hog % | steal CPU 1 % | goal | verdict |"
	echo "|---|---|---|---|---|---|---|"
	for sh in user job; do
		row "$sh" | awk -F, '{ printf "| %s | **%s** (%s, %s, %s) | **%s** | %s | %s | %s | %s |\n",
		    $1, $4, $6, $7, $8, $5, $9, $10, $11, $12 }'
	done
	echo
	echo "Before (the issue): A 59.8 %, B 20.2 % (shares by job). Every window: \`users.csv\`."
	echo
	b_env_note
	echo "The jobs run at real-time priority in the PS: other tenants take from them only by their own"
	echo "real-time work or host steal; the hog's share also loses what other processes on CPU 1 take."
	echo "Run time: $(b_elapsed) s$([ "$B_QUICK" = 1 ] && echo " (--quick)")."
} > "$B_OUT/users.md"
cat "$B_OUT/users.md"
for l in a1 a2 a3 b1; do kill "${J_PID[$l]}" 2> /dev/null; done
# 40 +- 1 is the goal (MISSED: a speed figure, reported); outside 40 +- 5
# the split is not by user at all (by job it is 60 / 20): that fails
[ -n "$VERDICT" ] || t_fail "row 5: no window was measured (users.csv)"
b_goal fact row5-by-user 'v != "FAIL"' v="$VERDICT" ||
    t_log "row 5: a user's share was outside 40 +- 5 points in a window: not split by user (users.md)"
b_goal speed row5 'v == "pass"' v="$VERDICT" ||
    t_log "row 5: a user's share was not 40 +- 1 points in every window (users.md)"
b_done
