#!/bin/bash
# Users kept apart on one node (dts(8), JOBS; dts.conf(5) share,
# max_jobs_user), on a real dts, STATIC at IP 100 ms, PS 80 %, no console,
# the shipped share ("user") and max_jobs (8, so max_jobs_user 4); user A
# (a test user) and user B (nobody) start jobs with dts-run --job LABEL:
#  1. A runs 3 spinning jobs and B 1, all on CPU 1 beside a local hog:
#     each user's jobs together get PS/2 (40 % of the CPU), not A 60 and
#     B 20 as a split by job gives; A's three about a third of that each;
#     the four together at most the PS, and the hog about the LS.  The
#     bench (tests/bench/bench-users.sh) holds the hard +-1 point.
#  2. Under a master (dts-console -n --daemon, mode static, PS 80 %,
#     set weight A:a1 3): its gang matrix divides a job's weight among
#     its user's jobs on the node, so `jobs` (another console's, the
#     same matrix from the node's STATUS) shows a1's row of 30 ms at
#     weight 1 (3 / 3), a2's and a3's of 10 ms at 0.33 and B's of 30 ms
#     at 1; the node follows that slot table (its own split would give
#     a1 13.3 %): a1 30 %, a2 and a3 10 %, B 30 % (+-6 each).  The
#     master ends; the node goes back to its own split, 40 % a user,
#     after its silence.  The master ends; the node goes back
#     to its own split after its silence.
#  3. A's fourth job (its member sleeps) starts: A's 4 of max_jobs_user 4.
#     A's fifth is refused in one line naming the limit (exit 126), its
#     command not run, nothing of any job changed; B's second job still
#     starts on the node, which has room.
#  4. dts restarts with max_jobs_user 2: it takes over all 6 jobs (A's 4
#     too), logs the two of A's beyond the limit, and refuses A's next
#     job in one line that counts A's 4.
# The harness's traps leave nothing frozen or real-time and no user.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup user-share
t_need_user nobody

t_make_user
t_pub_bin "$BUILD/run/dts-run" || t_fail "cannot copy dts-run"
OUT=$T_DIR/out
mkdir -p "$OUT" && chmod 1777 "$OUT" || t_fail "cannot make $OUT"
B_UID=$(id -u nobody)
B_ARGV=(setpriv --reuid="$B_UID" --regid="$(id -g nobody)" --clear-groups
    --inh-caps=-all --bounding-set=-all --)
t_user_argv
SPIN=(sh -c 'while :; do :; done')

CON=$BUILD/console/dts-console
t_need_built "$CON"
# one file for the node and the master (the first n_conf names the keys)
n_conf
conf() {
	n_conf mode='"static"' ip='"100ms"' ps='"80%"' si='"1s"' \
	    users="[\"@$T_GROUP\", \"nobody\"]" \
	    console="{ nodes = [\"127.0.0.1\"]; history = \"\"; status_wait = \"300ms\"; sign_key = \"$N_SIGN\"; node_secret = \"$N_SECRET\"; }" "$@"
}
conf
n_split_cpus
n_start_dts

# job A|B LABEL [COMMAND...]: a spinner (or COMMAND) of user A or B in job
# LABEL, on CPU 1, waited for in its job's cgroup
declare -A J_PID J_CG
cg_of() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2> /dev/null; }
in_cg() { [ "$(cg_of "$1")" = "${2#"$(t_cg_mount)"}" ]; }
job() {
	local who=$1 label=$2 user argv
	local cmd=("${@:3}")
	[ ${#cmd[@]} -gt 0 ] || cmd=("${SPIN[@]}")
	if [ "$who" = A ]; then
		argv=("${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK")
		user=$T_USER
	else
		argv=("${B_ARGV[@]}" env DTS_SOCKET="$N_SOCK")
		user=nobody
	fi
	"${argv[@]}" taskset -c 1 "$T_DIR/bin/dts-run" --job "$label" -- \
	    "${cmd[@]}" 2> "$T_LOG/job.$label.err" &
	J_PID[$label]=$!
	J_CG[$label]=$(n_job_cg "$user" "$label")
	t_track "${J_PID[$label]}"
	t_wait_for 5 in_cg "${J_PID[$label]}" "${J_CG[$label]}" ||
		t_fail "job $label: pid ${J_PID[$label]} is in $(cg_of "${J_PID[$label]}"), not ${J_CG[$label]}: $(cat "$T_LOG/job.$label.err")"
}
njobs() { find "$N_CG/jobs" -mindepth 1 -maxdepth 1 -type d -name 'job.*' | wc -l; }

t_logged "ready: jobs in .*, at most 8 (4 a user), PS shared by user" ||
	t_fail "dts does not say its limits and share: $(grep ready "$T_LOG/dts.log")"

# ---- 1. A's 3 jobs, B's 1: each user PS/2 ---------------------------------------
job A a1; job A a2; job A a3; job B b1
n_start_hog 1
# shares SECONDS (lib.sh's t_cpu_split of CPU 1): each job's share of CPU 1
# into SH[label], the hog's own into SH_HOG, the owner's side (the hog and
# other local work on CPU 1: a build beside the suite is served by the LS
# as the owner's processes are) into SH_OWN
declare -A SH
shares() {
	local i l labels=(a1 a2 a3 b1)
	t_cpu_split 1 "$1" "$N_HOG" "$N_CG/jobs" "${J_CG[a1]}" "${J_CG[a2]}" "${J_CG[a3]}" "${J_CG[b1]}" ||
		t_fail "a job or the hog ended"
	for i in "${!labels[@]}"; do SH[${labels[$i]}]=${T_SH[$i]}; done
	SH_HOG=$T_SH_HOG
	SH_OWN=$(awk -v h="$T_SH_HOG" -v o="$T_SH_OTHER" 'BEGIN { printf "%.1f", h + o }')
}
# check WHO: the shares over 5 s. Each user has half of what the jobs got
# together (0.5 +- 0.1), each of A's jobs a third of A's (+- 0.1); the jobs
# together at most the PS (84 %) and at least 40 % (they ran), the hog >=
# LS - 8. Fractions of the jobs' own total, not of the wall clock: a busy
# or stolen CPU shrinks every share alike (the bench holds 40 +- 1).  A
# window outside a bound is measured once more, with the load and other
# real-time processes named (the jobs got 84.3 % once, beside stress-ng
# and a foreign test: a regression fails both windows).
check() {
	local try
	for try in 1 2; do
		measure "$1" && return 0
		[ "$try" = 2 ] && t_fail "$WHY"
		t_log "$WHY; load $(cut -d' ' -f1-3 /proc/loadavg), $(t_foreign_rt "$N_DTS" "$N_AGENT" "$N_HOG") other real-time processes: measuring again"
	done
}
# measure WHO: one window of check's; 1 with WHY (the first bound that
# failed) if one did
why() { [ -n "$WHY" ] || WHY=$1; }
measure() {
	local u l A B J line
	t_sleep 1
	shares 5
	A=$(awk -v a="${SH[a1]}" -v b="${SH[a2]}" -v c="${SH[a3]}" 'BEGIN { printf "%.1f", a + b + c }')
	B=${SH[b1]}
	J=$(awk -v a="$A" -v b="$B" 'BEGIN { printf "%.1f", a + b }')
	line="A $A% (a1 ${SH[a1]}, a2 ${SH[a2]}, a3 ${SH[a3]}), B $B%, hog ${SH_HOG}% (with other local work ${SH_OWN}%)"
	t_log "$1: A's 3 jobs and B's 1, IP 100 ms, PS 80 %: $line (by user: A 40, B 40; by job it would be A 60, B 20)"
	WHY=
	awk -v j="$J" 'BEGIN { exit !(j >= 40 && j <= 84) }' ||
		why "$1: the jobs together got $J% of CPU 1, not between 40 and the PS (80 + 4): $line"
	for u in A B; do
		awk -v s="${!u}" -v j="$J" 'BEGIN { exit !(s / j >= 0.4 && s / j <= 0.6) }' ||
			why "$1: user $u's jobs got ${!u}% of the jobs' $J% together, not half (+- 0.1): $line"
	done
	for l in a1 a2 a3; do
		awk -v s="${SH[$l]}" -v a="$A" 'BEGIN { exit !(s / a >= 0.233 && s / a <= 0.433) }' ||
			why "$1: job $l got ${SH[$l]}% of A's $A%, not a third (+- 0.1): $line"
	done
	awk -v h="$SH_OWN" 'BEGIN { exit !(h >= 12) }' ||
		why "$1: the owner's side (the hog, other local work) got ${SH_OWN}% of CPU 1, under the LS - 8 (12 %): $line"
	[ -z "$WHY" ]
}
check "no master"

# ---- 2. a master's gang matrix: the same rule ------------------------------------
PIDF=$T_DIR/dts-console.pid
"$CON" -n -f "$N_CONF" --daemon \
    -c "mode static; ip 100ms; ps 80%; set weight $T_USER:a1 3; start" \
    2> "$T_LOG/master.err" < /dev/null |
    sed -n 's/^dts-console: running in the background, pid //p' > "$PIDF"
[ -s "$PIDF" ] || t_fail "the master did not start: $(cat "$T_LOG/master.err")"
MASTER=$(cat "$PIDF")
t_track "$MASTER"
ON=$T_DIR/jobs.out
jobs_ok() {
	"$CON" -n -f "$N_CONF" -c "set weight $T_USER:a1 3; jobs" > "$ON" 2>&1 < /dev/null &&
	    grep -qE "^0 +0\.000 +30\.000 +37\.5% +1  $T_USER:a1 *\$" "$ON" &&
	    grep -qE "^1 +30\.000 +10\.000 +12\.5% +0\.33  $T_USER:a2 *\$" "$ON" &&
	    grep -qE "^2 +40\.000 +10\.000 +12\.5% +0\.33  $T_USER:a3 *\$" "$ON" &&
	    grep -qE "^3 +50\.000 +30\.000 +37\.5% +1  nobody:b1 *\$" "$ON"
}
t_wait_for 10 jobs_ok || t_fail "the master's matrix is not a1 30 ms (1), a2 and a3 10 ms (0.33), B 30 ms (1): $(cat "$ON")"
t_log "the master's jobs: $(grep -E '^[0-9]' "$ON" | tr -s ' ' | paste -sd';')"
master() { [ "$(n_status own)" = 0 ]; }
t_wait_for 5 master || t_fail "the node does not follow the master: $(n_status | paste -sd' ')"
t_sleep 1
shares 5
line="a1 ${SH[a1]}%, a2 ${SH[a2]}%, a3 ${SH[a3]}%, B ${SH[b1]}%, hog ${SH_HOG}% (with other local work ${SH_OWN}%)"
t_log "a master, a1 weighs 3: $line (want 30, 10, 10, 30; the node's own split: 13.3, 13.3, 13.3, 40)"
J=$(awk -v a="${SH[a1]}" -v b="${SH[a2]}" -v c="${SH[a3]}" -v d="${SH[b1]}" 'BEGIN { printf "%.1f", a + b + c + d }')
awk -v j="$J" 'BEGIN { exit !(j >= 40 && j <= 84) }' ||
	t_fail "a master: the jobs together got $J% of CPU 1, not between 40 and the PS (80 + 4): $line"
for w in a1:30 a2:10 a3:10 b1:30; do
	awk -v s="${SH[${w%:*}]}" -v t="${w#*:}" -v j="$J" 'BEGIN { f = s / j; g = t / 80; exit !(f >= g - 0.075 && f <= g + 0.075) }' ||
		t_fail "a master: job ${w%:*} got ${SH[${w%:*}]}% of the jobs' $J%, not ${w#*:}/80 (+- 0.075; its slot in the master's table): $line"
done
awk -v h="$SH_OWN" 'BEGIN { exit !(h >= 12) }' ||
	t_fail "a master: the owner's side (the hog, other local work) got ${SH_OWN}% of CPU 1, under the LS - 8 (12 %): $line"
kill -TERM "$MASTER"
t_wait_for 5 sh -c "! kill -0 $MASTER 2> /dev/null" || t_fail "the master did not end on SIGTERM"
t_untrack "$MASTER"
own() { [ "$(n_status own)" = 1 ]; }
t_wait_for 10 own || t_fail "the node did not go back to its own schedule: $(n_status | paste -sd' ')"
check "the master gone"
kill "$N_HOG"; wait "$N_HOG" 2> /dev/null; t_untrack "$N_HOG"

# ---- 3. max_jobs_user: A's fifth job refused, B's second started -----------------
job A a4 sleep 600
[ "$(njobs)" = 5 ] || t_fail "5 jobs, but $(njobs) job cgroups: $(ls "$N_CG/jobs")"
snapshot() { local l; for l in a1 a2 a3 a4 b1; do echo "$l $(cat "${J_CG[$l]}/cgroup.procs" | paste -sd,) $(t_policy "${J_PID[$l]}")"; done; }
before=$(snapshot)
out=$("${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job a5 -- touch "$OUT/ran" 2>&1); rc=$?
[ "$rc" = 126 ] || t_fail "A's fifth job: exit $rc ($out)"
[ "$(wc -l <<< "$out")" = 1 ] &&
    grep -q "^dts-run: user $T_USER runs max_jobs_user = 4 jobs on this node already: $T_USER:a1, $T_USER:a2, $T_USER:a3, $T_USER:a4 (dts.conf: max_jobs_user)$" <<< "$out" ||
	t_fail "A's fifth job: '$out'"
[ ! -e "$OUT/ran" ] || t_fail "A's fifth job's command ran"
[ ! -d "$(n_job_cg "$T_USER" a5)" ] || t_fail "A's fifth job has a cgroup"
t_log "A's fifth job: $out"
job B b2 sleep 600
[ "$(njobs)" = 6 ] || t_fail "6 jobs, but $(njobs) job cgroups: $(ls "$N_CG/jobs")"
t_logged "job nobody:b2 started: uid $B_UID" || t_fail "no start line for B's second job"
t_wait_for 2 eval '[ "$(snapshot)" = "$before" ]' ||
	t_fail "the refusal changed a job: before: $before; after: $(snapshot)"
t_log "B's second job started beside A's 4 (6 of max_jobs 8)"

# ---- 4. a takeover beyond max_jobs_user keeps every job ---------------------------
kill -TERM "$N_DTS"
n_reap_dts
conf max_jobs_user=2
n_start_dts
for l in a1 a2 a3 a4 b1 b2; do
	t_logged "taking over the gang in ${J_CG[$l]} (1 processes)" || t_fail "the new dts did not take job $l over"
done
[ "$(njobs)" = 6 ] || t_fail "6 jobs taken over, but $(njobs) job cgroups: $(ls "$N_CG/jobs")"
over() { [ "$(grep -c "job $T_USER:a[1-4] taken over: its user runs [34] jobs here, above max_jobs_user = 2; no new job of theirs starts until fewer run" "$T_LOG/dts.log")" = 2 ]; }
t_wait_for 3 over || t_fail "not two lines for A's jobs beyond max_jobs_user 2: $(grep "taken over: its user" "$T_LOG/dts.log")"
out=$("${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job a5 -- touch "$OUT/ran" 2>&1); rc=$?
[ "$rc" = 126 ] && [ "$(wc -l <<< "$out")" = 1 ] &&
    grep -q "^dts-run: user $T_USER runs max_jobs_user = 2 jobs on this node already (4 of them): $T_USER:.* (dts.conf: max_jobs_user)$" <<< "$out" ||
	t_fail "A's job after the takeover: exit $rc, '$out'"
[ ! -e "$OUT/ran" ] || t_fail "A's job after the takeover ran"
t_log "max_jobs_user 2 after a restart: all 6 jobs taken over, A's 2 beyond it logged; $out"
for l in a1 a2 a3 a4 b1 b2; do kill "${J_PID[$l]}"; done
t_wait_for 3 eval '[ "$(njobs)" = 0 ]' || t_fail "the jobs did not end: $(ls "$N_CG/jobs")"
t_pass
