#!/bin/bash
# Several jobs on one node (dts(8), JOBS), on a real dts, STATIC at IP
# 100 ms, PS 80 %, no console, max_jobs = 4; user A (a test user) and
# user B (nobody) start CPU spinners with dts-run --job LABEL:
#  1. A's jobs a1 and a2 and B's b1: three jobs, each in its own cgroup
#     job.USER@LABEL, each start logged in one line.
#  2. B's b2 makes four, each spinning one process on CPU 1 beside a local
#     hog: each job's CPU share (its cgroup's cpu.stat) is 20 % of the
#     CPU, the four together at most the PS, and the hog keeps about the
#     LS (20 %).  Then b2 is replaced by a job whose member sleeps: its
#     slot goes to the three others (work-conserving), not to the hog.
#  3. A fifth job (A's a3) is refused in one line (max_jobs); so is a bad
#     label (by dts-run, and by dts on a raw request); B's JOIN of A's
#     spinner is refused; nothing of any job changed.
#  4. A job whose processes exit ends: its cgroup is gone within 2 s, and
#     its end is logged.
#  5. kill -9 of dts with three jobs: every job's cgroup thawed, no member
#     stopped or at SCHED_RR/FIFO, within 2 s; a new dts takes the three
#     jobs over and slices them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup jobs
t_need python3 python3
t_need_user nobody

t_make_user
t_pub_bin "$BUILD/run/dts-run" || t_fail "cannot copy dts-run"
OUT=$T_DIR/out	# user B's raw client writes there
mkdir -p "$OUT" && chmod 1777 "$OUT" || t_fail "cannot make $OUT"
t_pub_bin "$SRC/tests/tools/ask.py" || t_fail "cannot publish ask.py"
B_UID=$(id -u nobody)
B_ARGV=(setpriv --reuid="$B_UID" --regid="$(id -g nobody)" --clear-groups
    --inh-caps=-all --bounding-set=-all --)
t_user_argv
SPIN=(sh -c 'while :; do :; done')

n_conf mode='"static"' ip='"100ms"' ps='"80%"' max_jobs=4 \
    users="[\"@$T_GROUP\", \"nobody\"]"
n_split_cpus
n_start_dts

# job USER LABEL [COMMAND...]: a spinner (or COMMAND) of USER (A or B) in
# job LABEL, on CPU 1; J_PID = its pid (one exec chain: setpriv, env,
# taskset, dts-run, sh)
declare -A J_PID J_CG
job() {
	local who=$1 label=$2 user
	local cmd=("${@:3}")
	[ ${#cmd[@]} -gt 0 ] || cmd=("${SPIN[@]}")
	if [ "$who" = A ]; then
		"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" taskset -c 1 \
		    "$T_DIR/bin/dts-run" --job "$label" -- "${cmd[@]}" 2> "$T_LOG/job.$label.err" &
		user=$T_USER
	else
		"${B_ARGV[@]}" env DTS_SOCKET="$N_SOCK" taskset -c 1 \
		    "$T_DIR/bin/dts-run" --job "$label" -- "${cmd[@]}" 2> "$T_LOG/job.$label.err" &
		user=nobody
	fi
	J_PID[$label]=$!
	J_CG[$label]=$(n_job_cg "$user" "$label")
	t_track "${J_PID[$label]}"
}
cg_of() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2> /dev/null; }
in_cg() { [ "$(cg_of "$1")" = "${2#"$(t_cg_mount)"}" ]; }
is_sh() { [ "$(cat "/proc/$1/comm" 2> /dev/null)" = sh ]; }
njobs() { find "$N_CG/jobs" -mindepth 1 -maxdepth 1 -type d -name 'job.*' | wc -l; }

# ---- 1. three jobs, three cgroups ---------------------------------------------
job A a1; job A a2; job B b1
for l in a1 a2 b1; do
	t_wait_for 5 in_cg "${J_PID[$l]}" "${J_CG[$l]}" ||
		t_fail "job $l: pid ${J_PID[$l]} is in $(cg_of "${J_PID[$l]}"), not ${J_CG[$l]}: $(cat "$T_LOG/job.$l.err")"
	t_wait_for 5 is_sh "${J_PID[$l]}" || t_fail "job $l: dts-run did not exec the spinner"
	[ "$(wc -l < "${J_CG[$l]}/cgroup.procs")" = 1 ] || t_fail "job $l: $(cat "${J_CG[$l]}/cgroup.procs" | paste -sd' ') in its cgroup"
done
[ "$(njobs)" = 3 ] || t_fail "3 jobs, but $(njobs) job cgroups: $(ls "$N_CG/jobs")"
t_logged "job $T_USER:a1 started: uid $T_UID, cgroup ${J_CG[a1]}" || t_fail "no start line for $T_USER:a1"
t_logged "job nobody:b1 started: uid $B_UID, cgroup ${J_CG[b1]}" || t_fail "no start line for nobody:b1"
t_log "3 jobs: $T_USER:a1, $T_USER:a2, nobody:b1, each in its own cgroup"

# ---- 2. four jobs: each its slot's share of CPU 1 ------------------------------
job B b2
t_wait_for 5 in_cg "${J_PID[b2]}" "${J_CG[b2]}" || t_fail "job b2 not in ${J_CG[b2]}"
n_start_hog 1
cpu_us() { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"; }
# shares SECONDS [LABEL...]: each job's share of CPU 1 (percent of wall
# time) into SH[label], the hog's into SH_HOG; jobs a1 a2 b1 b2 by default
declare -A SH
shares() {
	local l t0 t1 h0 h1 labels=("${@:2}")
	declare -A u0 u1
	[ ${#labels[@]} -gt 0 ] || labels=(a1 a2 b1 b2)
	t0=$(t_cpu_clock 1); h0=$(t_cpu_ns "$N_HOG")
	for l in "${labels[@]}"; do u0[$l]=$(cpu_us "${J_CG[$l]}"); done
	t_sleep "$1"
	t1=$(t_cpu_clock 1); h1=$(t_cpu_ns "$N_HOG")
	for l in "${labels[@]}"; do u1[$l]=$(cpu_us "${J_CG[$l]}"); done
	for l in "${labels[@]}"; do
		SH[$l]=$(awk -v a="${u0[$l]}" -v b="${u1[$l]}" -v w="$((t1 - t0))" 'BEGIN { printf "%.1f", 100 * (b - a) / w }')
	done
	SH_HOG=$(awk -v a="$h0" -v b="$h1" -v w="$((t1 - t0))" 'BEGIN { printf "%.1f", (b - a) / (w * 10) }')
}
t_sleep 1
shares 5
line="a1 ${SH[a1]}%, a2 ${SH[a2]}%, b1 ${SH[b1]}%, b2 ${SH[b2]}%, hog ${SH_HOG}%"
t_log "4 jobs, IP 100 ms, PS 80 %: $line"
# a job runs at real-time priority in the PS: only RT work of the machine
# could take from it (the hog's LS is what other work takes from)
for l in a1 a2 b1 b2; do
	awk -v s="${SH[$l]}" 'BEGIN { exit !(s >= 16 && s <= 24) }' ||
		t_fail "job $l got ${SH[$l]}% of CPU 1, not 20 +- 4: $line"
done
awk -v a="${SH[a1]}" -v b="${SH[a2]}" -v c="${SH[b1]}" -v d="${SH[b2]}" \
    'BEGIN { exit !(a + b + c + d <= 84) }' || t_fail "the jobs together got more than the PS: $line"
awk -v h="$SH_HOG" 'BEGIN { exit !(h >= 5 && h <= 24) }' ||
	t_fail "the hog got ${SH_HOG}% of CPU 1, not about the LS (20 %): $line"

# ---- 2b. work-conserving: a slot whose job sleeps goes to the other jobs --------
# b2 ends and B's job z, whose one member sleeps, takes its place: z's slot
# (a quarter of the PS) runs the three spinning jobs (below z, which would
# preempt them the moment it woke), not the hog, which keeps about the LS.
kill "${J_PID[b2]}"; wait "${J_PID[b2]}" 2> /dev/null; t_untrack "${J_PID[b2]}"
t_wait_for 3 test ! -d "${J_CG[b2]}" || t_fail "job b2's cgroup is still there 3 s after its end"
job B z sleep 600
t_wait_for 5 in_cg "${J_PID[z]}" "${J_CG[z]}" || t_fail "job z not in ${J_CG[z]}"
t_sleep 1
shares 5 a1 a2 b1
sum=$(awk -v a="${SH[a1]}" -v b="${SH[a2]}" -v c="${SH[b1]}" 'BEGIN { printf "%.1f", a + b + c }')
line="a1 ${SH[a1]}%, a2 ${SH[a2]}%, b1 ${SH[b1]}%: together $sum%, hog ${SH_HOG}%"
t_log "z's member sleeps: $line (z alone in its slot would leave them 60 % and the hog 40 %)"
awk -v s="$sum" 'BEGIN { exit !(s >= 70 && s <= 84) }' ||
	t_fail "the spinning jobs got $sum% of CPU 1, not about the PS (80 %): z's slot went elsewhere: $line"
awk -v h="$SH_HOG" 'BEGIN { exit !(h >= 5 && h <= 28) }' ||
	t_fail "the hog got ${SH_HOG}% of CPU 1, not about the LS (20 %): $line"
[ "$(t_policy "${J_PID[z]}")" = RR ] && [ "$(t_proc_state "${J_PID[z]}")" != T ] ||
	t_fail "z's member: $(t_policy "${J_PID[z]}") $(t_proc_state "${J_PID[z]}"), not RR and running or asleep"
kill "${J_PID[z]}"; wait "${J_PID[z]}" 2> /dev/null; t_untrack "${J_PID[z]}"
t_wait_for 3 test ! -d "${J_CG[z]}" || t_fail "job z's cgroup is still there 3 s after its end"
job B b2
t_wait_for 5 in_cg "${J_PID[b2]}" "${J_CG[b2]}" || t_fail "job b2 not in ${J_CG[b2]} again"
kill "$N_HOG"; wait "$N_HOG" 2> /dev/null; t_untrack "$N_HOG"

# ---- 3. refusals: a fifth job, a bad label, another user's JOIN ------------------
snapshot() { local l; for l in a1 a2 b1 b2; do echo "$l $(cat "${J_CG[$l]}/cgroup.procs" | paste -sd,) $(t_policy "${J_PID[$l]}")"; done; }
before=$(snapshot)
out=$("${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job a3 -- true 2>&1); rc=$?
[ "$rc" = 126 ] || t_fail "a fifth job: exit $rc ($out)"
[ "$(wc -l <<< "$out")" = 1 ] &&
    grep -q "^dts-run: this node runs max_jobs = 4 jobs already: .*$T_USER:a1.*nobody:b2.* (dts.conf: max_jobs)$" <<< "$out" ||
	t_fail "a fifth job: '$out'"
t_log "a fifth job: $out"
out=$("${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job 'bad/label' -- true 2>&1); rc=$?
[ "$rc" != 0 ] && [ "$(wc -l <<< "$out")" = 1 ] && grep -q 'job label "bad/label"' <<< "$out" ||
	t_fail "a bad label (dts-run): exit $rc, '$out'"
t_log "a bad label: $out"
"${T_USER_ARGV[@]}" python3 "$T_DIR/bin/ask.py" "$N_SOCK" "$OUT/badlabel" $'ADOPT run\nJOB this-label-is-far-too-long' ||
	t_fail "the raw client failed"
out=$(cat "$OUT/badlabel")
[ "$(wc -l <<< "$out")" = 1 ] && grep -q '^ERR job label "this-label-is-f.*" is too long (at most 15 bytes)$' <<< "$out" ||
	t_fail "a bad label (dts): '$out'"
# B, from inside its job b1, asks for A's spinner
"${B_ARGV[@]}" env DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job b1 -- \
    python3 "$T_DIR/bin/ask.py" "$N_SOCK" "$OUT/join" "JOIN ${J_PID[a1]}" ||
	t_fail "B's JOIN client failed"
out=$(cat "$OUT/join")
[ "$out" = "ERR pid ${J_PID[a1]} is in job $T_USER:a1: a process stays in its job" ] ||
	t_fail "B's JOIN of A's pid: '$out'"
t_logged "join refused: asked by pid [0-9]*, uid $B_UID: pid ${J_PID[a1]} is in job $T_USER:a1" ||
	t_fail "B's JOIN refusal not logged"
t_log "B's JOIN of A's pid ${J_PID[a1]}: $out"
t_wait_for 2 eval '[ "$(snapshot)" = "$before" ]' ||
	t_fail "the refusals changed a job: before: $before; after: $(snapshot)"
[ "$(njobs)" = 4 ] || t_fail "the refusals left $(njobs) job cgroups: $(ls "$N_CG/jobs")"

# ---- 4. a job ends when its processes exit ---------------------------------------
t0=$(_t_now_us)
kill "${J_PID[b2]}"
t_wait_for 2 test ! -d "${J_CG[b2]}" || t_fail "job b2's cgroup is still there 2 s after its end"
t1=$(_t_now_us)
wait "${J_PID[b2]}" 2> /dev/null; t_untrack "${J_PID[b2]}"
t_logged "job nobody:b2 ended (its gang is empty)" || t_fail "no end line for nobody:b2"
[ "$(njobs)" = 3 ] || t_fail "3 jobs left, but $(njobs) job cgroups"
t_log "job nobody:b2 ended: its cgroup gone $(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1e6 }') s after the kill (inotify on cgroup.events; the scan is every 1 s)"

# ---- 5. kill -9 of dts with three jobs -------------------------------------------
released() {
	local l p v
	for l in a1 a2 b1; do
		read -r v < "${J_CG[$l]}/cgroup.freeze" || return 1
		[ "$v" = 0 ] || return 1
		grep -qx "frozen 0" "${J_CG[$l]}/cgroup.events" || return 1
		for p in $(cat "${J_CG[$l]}/cgroup.procs"); do
			[ "$(t_proc_state "$p")" != T ] || return 1
			case "$(t_policy "$p")" in FF|RR|IDL) return 1 ;; esac
		done
	done
}
t_sleep 0.$((RANDOM % 10))	# in a slot, or in LS
ok=0
{	# (no "Killed" line from bash)
	kill -KILL "$N_DTS"
	t_wait_for 2 released && ok=1
	n_reap_dts
} 2> /dev/null
[ "$ok" = 1 ] || t_fail "not every job released 2 s after kill -9 of dts: $(for l in a1 a2 b1; do echo "$l: freeze $(cat "${J_CG[$l]}/cgroup.freeze") $(t_policy "${J_PID[$l]}") $(t_proc_state "${J_PID[$l]}")"; done | paste -sd';')"
for l in a1 a2 b1; do
	p=${J_PID[$l]}
	[ "$(sed -n 's/^policy *: *//p' "/proc/$p/sched")" = 0 ] || t_fail "job $l: pid $p policy $(grep policy "/proc/$p/sched")"
done
t_log "kill -9 of dts with 3 jobs: every job thawed, SCHED_OTHER"
n_start_dts
for l in a1 a2 b1; do
	t_logged "taking over the gang in ${J_CG[$l]} (1 processes)" || t_fail "the new dts did not take job $l over"
done
rt() { [ "$(t_policy "${J_PID[a1]}")" = RR ]; }
t_wait_for 3 rt || t_fail "the new dts does not slice job a1 ($(t_policy "${J_PID[a1]}"))"
t_log "a new dts took the 3 jobs over"

# ---- 6. a dts of the layout before base/jobs, and base/jobs left frozen ---------
# dts stops (the jobs run on, released); a1 is moved back to where a dts
# before base/jobs kept it (base/job.USER@a1), and base/jobs is frozen, as
# a dts killed in an LS with no dts-load after it leaves it.  The next dts
# releases the jobs, thaws base/jobs, and moves a1 into base/jobs.
kill -TERM "$N_DTS"
n_reap_dts
OLD=$N_CG/job.$T_USER@a1
mkdir "$OLD" && echo "${J_PID[a1]}" > "$OLD/cgroup.procs" && rmdir "${J_CG[a1]}" ||
	t_fail "cannot make the old layout for a1"
echo 1 > "$N_CG/jobs/cgroup.freeze"
frozen() { grep -qx "frozen 1" "${J_CG[a2]}/cgroup.events"; }
t_wait_for 2 frozen || t_fail "base/jobs did not freeze a2"
n_start_dts
t_logged "$N_CG/jobs was frozen: every gang released" || t_fail "no release of the frozen base/jobs"
t_logged "taking over the gang in ${J_CG[a1]} (1 processes)" || t_fail "a1 not taken over from $OLD"
[ ! -d "$OLD" ] || t_fail "the old cgroup $OLD is still there"
[ "$(cg_of "${J_PID[a1]}")" = "${J_CG[a1]#"$(t_cg_mount)"}" ] || t_fail "a1 is in $(cg_of "${J_PID[a1]}"), not ${J_CG[a1]}"
t_wait_for 3 rt || t_fail "the new dts does not slice job a1 ($(t_policy "${J_PID[a1]}"))"
# a2 runs again: its CPU time grows
cpu() { awk '$1 == "usage_usec" { print $2 }' "${J_CG[a2]}/cpu.stat"; }
u0=$(cpu); t_sleep 1; u1=$(cpu)
[ $((u1 - u0)) -gt 50000 ] || t_fail "a2 got $((u1 - u0)) us of CPU in 1 s after the takeover"
t_log "the old layout's job moved into base/jobs, the frozen base/jobs released"
for l in a1 a2 b1; do kill "${J_PID[$l]}"; done
t_wait_for 3 eval '[ "$(njobs)" = 0 ]' || t_fail "the jobs did not end: $(ls "$N_CG/jobs")"
t_pass
