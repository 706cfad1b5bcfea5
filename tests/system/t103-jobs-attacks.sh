#!/bin/bash
# The user attacks of t80, run from one job against another (dts(8),
# JOBS): nothing changes for the other job.  STATIC, IP 100 ms, PS 80 %,
# no console, max_jobs = 4, every job and a local hog on CPU 1.
#   job B: the test user's PVM virtual machine (pvmd through dts-run
#          --pvmd, one spin task): job USER:pvm;
#   jobs A:a1 and A:two: user nobody's CPU spinners (dts-run --job).
# Three jobs: each gets a third of the PS (26.7 % of CPU 1).  Then A, as
# nobody, without privileges, from inside its job a1 (dts-run --job a1 --
# ATTACK), attacks B:
#   1. signals (STOP, KILL, CONT) and ptrace of B's pvmd and task, and of
#      dts and dts-load;
#   2. writes to every cgroup file of B's job cgroup and of dts's subtree,
#      a mkdir in B's cgroup, its own pid into B's cgroup.procs, B's task
#      into the root cgroup;
#   3. adoption requests: dts-run --job with B's label (A's own job of
#      that label, not B's), DTS_JOB "B:label", '/', '..', too long, not
#      printable, a raw request naming B's job; a JOIN of B's task and of
#      B's pvmd into A's job; a JOIN of A's pid into B's job (asked from
#      inside B's job: only B's user can be pulled in); a JOIN from
#      outside any job;
#   4. B's state file (state_file.USER@pvm): read (it is 0644 by design:
#      dts(8), SUSPEND AWARENESS), written, replaced, removed;
#   5. a full node: A's third job makes four, A's fifth is refused in one
#      line, B untouched; A's third job ends and B's share comes back.
# After each: B's members the same pids, none moved out; B's CPU share
# over 3 s within 4 points of its share before the attacks and within 6
# of its slot (a miss is measured once more: the machine is noisy);
# nothing of A outside A's jobs; nothing of the test at RT outside a job.
# At the end nothing of the test is left stopped, frozen or RT.  Both
# backends.  One line of figures per check.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup jobs-attacks
t_need python3 python3
t_need_user nobody

PS_PCT=80
t_make_user
t_pub_bin "$BUILD/run/dts-run" "$BUILD/tests/pvm/dts-pvmctl" \
    "$BUILD/tests/pvm/spin" "$BUILD/tests/tools/attack" || t_fail "cannot publish binaries"
bin=$T_DIR/bin
OUT=$T_DIR/out	# A's clients write there
mkdir -p "$OUT" && chmod 1777 "$OUT" || t_fail "cannot make $OUT"
t_pub_bin "$SRC/tests/tools/ask.py" || t_fail "cannot publish ask.py"
A_USER=nobody
A_UID=$(id -u nobody)
MARK=T103_RUN=$$	# in the environment of every process of A's we start
# (in a session of its own, as a user's login is: the kernel lets
# SIGCONT through to any process of the sender's session, whoever's)
A_ARGV=(setpriv --reuid="$A_UID" --regid="$(id -g nobody)" --clear-groups
    --inh-caps=-all --bounding-set=-all -- env HOME=/ "$MARK" setsid -w env)
SPIN=(sh -c 'while :; do :; done')
t_user_argv

upvm() { t_as_user "$bin/dts-pvmctl" -T 10 "$@"; }
cg_of() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2> /dev/null; }
in_cg() { [ "$(cg_of "$1")" = "${2#"$(t_cg_mount)"}" ]; }
# is_comm PID NAME: PID has exec'd NAME (setpriv has dropped to its uid)
is_comm() { [ "$(cat "/proc/$1/comm" 2> /dev/null)" = "$2" ]; }
is_sh() { is_comm "$1" sh; }
njobs() { find "$N_CG/jobs" -mindepth 1 -maxdepth 1 -type d -name 'job.*' | wc -l; }
cpu_us() { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat" 2> /dev/null; }

# a_job LABEL: an A spinner in job LABEL on CPU 1; A_PID[LABEL], A_CG[LABEL]
declare -A A_PID A_CG
a_job() {
	local l=$1
	"${A_ARGV[@]}" DTS_SOCKET="$N_SOCK" taskset -c 1 \
	    "$bin/dts-run" --job "$l" -- "${SPIN[@]}" 2> "$T_LOG/job.$l.err" &
	A_PID[$l]=$!
	A_CG[$l]=$(n_job_cg "$A_USER" "$l")
	t_track "${A_PID[$l]}"
	t_wait_for 5 in_cg "${A_PID[$l]}" "${A_CG[$l]}" ||
		t_fail "A's job $l: pid ${A_PID[$l]} in $(cg_of "${A_PID[$l]}"): $(cat "$T_LOG/job.$l.err")"
	t_wait_for 5 is_sh "${A_PID[$l]}" || t_fail "A's job $l: dts-run did not exec the spinner"
}
a_end() {
	local l=$1
	kill "${A_PID[$l]}" 2> /dev/null
	wait "${A_PID[$l]}" 2> /dev/null
	t_untrack "${A_PID[$l]}"
	t_wait_for 3 test ! -d "${A_CG[$l]}" || t_fail "A's job $l did not end"
}

# a_in LABEL CMD...: CMD as A inside A's job LABEL (dts-run execs it: the
# status is CMD's); its output in attempt.log
a_in() {
	local l=$1
	shift
	"${A_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$bin/dts-run" --job "$l" -- "$@" \
	    > "$T_LOG/attempt.log" 2>&1
}
# a_fails WHAT CMD...: CMD, as A from inside a1, must not succeed, for
# want of a permission (not because dts-run did not run it)
a_fails() {
	local what=$1
	shift
	if a_in a1 "$@"; then
		t_fail "$BACKEND: $what succeeded as $A_USER: $(cat "$T_LOG/attempt.log")"
	fi
	grep -qE 'Operation not permitted|Permission denied' "$T_LOG/attempt.log" ||
		t_fail "$BACKEND: $what: failed, but not for a permission: $(cat "$T_LOG/attempt.log")"
}

# B: its members (sorted pids) and their moves out
b_members() { sort -n "$N_GANG/cgroup.procs" 2> /dev/null | paste -sd,; }

# nothing of A outside A's jobs: every live process carrying MARK (A's
# processes started by this test; exec chains keep the environment) is
# in a cgroup job.nobody@* of this node, or was (a process that is still
# outside 0.2 s later: dts-run asks before it execs)
_a_out_once() {
	local p c
	for p in $(ps -u "$A_UID" -o pid=,stat= | awk '$2 !~ /^Z/ { print $1 }'); do
		tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx "$MARK" || continue
		c=$(cg_of "$p")
		case "$c" in "${N_CG#"$(t_cg_mount)"}/jobs/job.$A_USER@"*) ;; *) echo "$p" ;; esac
	done
}
a_outside() {
	local first p
	first=$(_a_out_once)
	[ -n "$first" ] || return 0
	sleep 0.2
	for p in $(_a_out_once); do
		grep -qx "$p" <<< "$first" && echo "$p($(cat "/proc/$p/comm" 2> /dev/null):$(cg_of "$p"))"
	done
}
# real-time processes of A or B outside every job of the node
rt_outside() {
	local p
	for p in $(ps -u "$A_UID,$T_UID" -Lo pid=,stat=,cls= |
	    awk '$2 !~ /^Z/ && ($3 == "FF" || $3 == "RR") { print $1 }' | sort -u); do
		case "$(cg_of "$p")" in "${N_CG#"$(t_cg_mount)"}/jobs/job."*) ;; *) echo "$p" ;; esac
	done
}

# shares SECONDS: B's share of CPU 1 (its job cgroup's cpu.stat), A's two
# jobs' and the hog's, percent of CPU 1's time (t_cpu_clock), into
# SH=(b a1 two hog)
shares() {
	local t0 t1 b0 b1 x0 x1 y0 y1 h0 h1
	t0=$(t_cpu_clock 1) h0=$(t_cpu_ns "$N_HOG")
	b0=$(cpu_us "$N_GANG") x0=$(cpu_us "${A_CG[a1]}") y0=$(cpu_us "${A_CG[two]}")
	t_sleep "$1"
	t1=$(t_cpu_clock 1) h1=$(t_cpu_ns "$N_HOG")
	b1=$(cpu_us "$N_GANG") x1=$(cpu_us "${A_CG[a1]}") y1=$(cpu_us "${A_CG[two]}")
	SH=($(awk -v w=$((t1 - t0)) -v b=$((b1 - b0)) -v x=$((x1 - x0)) \
	    -v y=$((y1 - y0)) -v h=$((h1 - h0)) 'BEGIN {
		printf "%.1f %.1f %.1f %.1f\n", 100 * b / w, 100 * x / w,
		    100 * y / w, h / (w * 10) }'))
}
SLOT=$(awk -v p=$PS_PCT 'BEGIN { printf "%.1f", p / 3 }')
_share_ok() {
	awk -v s="${SH[0]}" -v b="$B_SH0" -v t="$SLOT" 'BEGIN {
		d = s - b; e = s - t
		exit !(d <= 4 && d >= -4 && e <= 6 && e >= -6) }'
}

RESULTS=()
# check NAME: nothing changed for B, nothing of A escaped; one line
check() {
	local name=$1 now out rt
	t_wait_for 2 eval '[ "$(b_members)" = "$B_MEM" ]' ||
		t_fail "$BACKEND: $name: B's members were $B_MEM, now $(b_members)"
	for p in "$B_PVMD" "$B_SPIN"; do
		in_cg "$p" "$N_GANG" || t_fail "$BACKEND: $name: B's pid $p moved to $(cg_of "$p")"
	done
	shares 3
	if ! _share_ok; then
		t_log "$name: B got ${SH[0]}% (before $B_SH0%, slot $SLOT%); load $(cut -d' ' -f1-3 /proc/loadavg); again"
		shares 3
	fi
	out=$(a_outside)
	rt=$(rt_outside)
	RESULTS+=("$(printf '%-8s %-34s B %5s%% (before %5s, slot %s)  a1 %5s%%  two %5s%%  hog %5s%%  B members %s  A outside: %s  RT outside: %s' \
	    "$BACKEND" "$name" "${SH[0]}" "$B_SH0" "$SLOT" "${SH[1]}" "${SH[2]}" "${SH[3]}" \
	    "$(b_members | tr ',' ' ' | wc -w)" "${out:-none}" "${rt:-none}")")
	t_log "${RESULTS[-1]}"
	_share_ok || t_fail "$BACKEND: $name: B got ${SH[0]}% of CPU 1, before $B_SH0%, slot $SLOT% (want +-4 of before, +-6 of the slot)"
	[ -z "$out" ] || t_fail "$BACKEND: $name: A's processes outside A's jobs: $out"
	[ -z "$rt" ] || t_fail "$BACKEND: $name: real-time outside the jobs: $rt"
}

start_node() {
	BACKEND=$1
	# share by job and 4 jobs a user: the split and the full node this
	# test measures against (t111 covers the share by user)
	n_conf mode='"static"' ip='"100ms"' ps="\"$PS_PCT%\"" max_jobs=4 \
	    max_jobs_user=4 share='"job"' \
	    backend="\"$BACKEND\"" users="[\"@$T_GROUP\", \"$A_USER\"]"
	n_start_dts
	# B: the user's pvmd through dts-run, as the launch script starts it
	"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" setsid taskset -c 1 "$bin/dts-run" --pvmd -- \
	    > "$T_LOG/pvmd.out" 2> "$T_LOG/pvmd.err" &
	LAUNCH=$!
	t_track "$LAUNCH"
	t_wait_for 10 grep -q pvmtmp "$T_LOG/pvmd.out" ||
		t_fail "$BACKEND: B's pvmd did not start (see pvmd.err)"
	N_GANG=$(n_job_cg "$T_USER")
	B_PVMD=$(n_gang_pids pvmd)
	[ -n "$B_PVMD" ] || t_fail "$BACKEND: B's pvmd is not in $N_GANG"
	upvm spawn -n 1 "$bin/spin" 0 > /dev/null || t_fail "$BACKEND: spawn failed"
	t_wait_for 5 n_has_task spin || t_fail "$BACKEND: no spin task in B's job"
	B_SPIN=$(n_gang_pids spin | head -n 1)
	B_STATE=$N_STATE.$T_USER@pvm
	a_job a1
	a_job two
	[ "$(njobs)" = 3 ] || t_fail "$BACKEND: 3 jobs, but $(njobs): $(ls "$N_CG/jobs")"
	n_start_hog 1
	t_sleep 1
	B_MEM=$(b_members)
	shares 3
	B_SH0=${SH[0]}
	# no attack yet: B near its slot (the reference for the rest)
	awk -v s="$B_SH0" -v t="$SLOT" 'BEGIN { exit !(s - t <= 6 && t - s <= 6) }' || {
		t_log "B got $B_SH0% before any attack; again"
		shares 3
		B_SH0=${SH[0]}
	}
	awk -v s="$B_SH0" -v t="$SLOT" 'BEGIN { exit !(s - t <= 6 && t - s <= 6) }' ||
		t_fail "$BACKEND: B got $B_SH0% of CPU 1 without attacks, slot $SLOT% (a1 ${SH[1]}%, two ${SH[2]}%, hog ${SH[3]}%; B: $(for p in $(cat "$N_GANG/cgroup.procs"); do echo "$p $(cat /proc/$p/comm) $(t_proc_state "$p") $(t_policy "$p")"; done | paste -sd';'))"
	check "no attack"
}

stop_node() {
	local l
	kill -TERM "$N_HOG" 2> /dev/null
	rm -f "$T_DIR/hog.pid"
	for l in a1 two; do a_end "$l"; done
	upvm halt > /dev/null 2>&1
	t_wait_for 10 n_gang_empty || t_fail "$BACKEND: B's job did not empty after halt"
	wait "$LAUNCH" 2> /dev/null
	t_untrack "$LAUNCH"
	kill -TERM "$N_DTS"
	n_wait_exit || t_fail "$BACKEND: dts did not exit on SIGTERM"
}

# one_line WHAT TEXT PATTERN: TEXT is one line matching PATTERN (grep -E)
one_line() {
	[ -n "$2" ] && [ "$(wc -l <<< "$2")" = 1 ] && grep -qE -- "$3" <<< "$2" ||
		t_fail "$BACKEND: $1: '$2' (want one line like /$3/)"
	t_log "$BACKEND: $1: $2"
}

attacks() {
	local f p n bad out rc l mode

	# 1. signals and ptrace: B's pvmd and task, dts, dts-load
	for p in "$B_PVMD" "$B_SPIN" "$N_DTS" "$N_AGENT"; do
		for s in 19 9 18; do a_fails "signal $s to $p" "$bin/attack" signal "$s" "$p"; done
		a_fails "ptrace of $p" "$bin/attack" ptrace "$p"
	done
	kill -0 "$N_DTS" && kill -0 "$N_AGENT" || t_fail "$BACKEND: dts or dts-load died"
	check "signals (STOP/KILL/CONT), ptrace"

	# 2. cgroup files of B's job and of dts's subtree, from inside a1
	n=0
	local -a files=()
	for f in "$N_GANG"/* "$N_CG"/* "$N_CG"/jobs/*; do
		[ -f "$f" ] || continue
		files+=("$f")
		n=$((n + 1))
	done
	# shellcheck disable=SC2016 # expanded by A's shell
	a_in a1 sh -c '
		me=$1 victim=$2 root=$3 gang=$4; shift 4
		for f in "$@"; do
			{ echo 0 > "$f"; } 2> /dev/null && echo "wrote 0 to $f"
			{ echo "$me" > "$f"; } 2> /dev/null && echo "wrote $me to $f"
			{ echo "$victim" > "$f"; } 2> /dev/null && echo "wrote $victim to $f"
		done
		{ echo "$victim" > "$root/cgroup.procs"; } 2> /dev/null && echo "moved B out"
		mkdir "$gang/escape" 2> /dev/null && echo "mkdir in B"
		echo done' sh "${A_PID[a1]}" "$B_SPIN" "$(t_cg_mount)" "$N_GANG" "${files[@]}"
	out=$(grep -v '^done$' "$T_LOG/attempt.log")
	grep -qx done "$T_LOG/attempt.log" || t_fail "$BACKEND: the cgroup attack did not run: $out"
	[ -z "$out" ] || t_fail "$BACKEND: A wrote cgroup files: $out"
	in_cg "${A_PID[a1]}" "${A_CG[a1]}" || t_fail "$BACKEND: A's a1 moved to $(cg_of "${A_PID[a1]}")"
	check "writes to $n cgroup files x3"

	# 3. adoption requests naming B's job
	# --job with B's label: A's own job nobody:pvm, never B's
	a_in pvm cat /proc/self/cgroup || t_fail "$BACKEND: A's --job pvm: $(cat "$T_LOG/attempt.log")"
	out=$(sed -n 's/^0:://p' "$T_LOG/attempt.log")
	[ "$out" = "${N_CG#"$(t_cg_mount)"}/jobs/job.$A_USER@pvm" ] ||
		t_fail "$BACKEND: A's --job pvm ran in '$out', not in its own job $A_USER:pvm"
	t_wait_for 3 eval '[ ! -d "$(n_job_cg "$A_USER" pvm)" ]' || t_fail "$BACKEND: A's job pvm did not end"
	t_log "$BACKEND: A's --job pvm ran in its own job: $out"
	# bad labels from dts-run: one line each, exit 126, nothing run
	for l in "$T_USER:pvm" "../pvm" "../$T_USER@pvm" "x/y" "abcdefghij1234567" "$(printf 'a\001b')" \
	    "$(printf 'a\tb')"; do
		for how in env opt; do
			rm -f "$OUT/ran"
			if [ "$how" = env ]; then
				out=$("${A_ARGV[@]}" DTS_SOCKET="$N_SOCK" DTS_JOB="$l" "$bin/dts-run" -- \
				    touch "$OUT/ran" 2>&1); rc=$?
			else
				out=$("${A_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$bin/dts-run" --job "$l" -- \
				    touch "$OUT/ran" 2>&1); rc=$?
			fi
			[ "$rc" = 126 ] || t_fail "$BACKEND: label $(printf %q "$l") ($how): exit $rc: $out"
			[ ! -e "$OUT/ran" ] || t_fail "$BACKEND: label $(printf %q "$l") ($how): the command ran"
			one_line "label $(printf %q "$l") ($how)" "$out" '^dts-run: (--job|DTS_JOB): job label .*(has a byte|too long)'
		done
	done
	# ".." is a label of dots (letters of labels): a job of A's, inside
	# dts's subtree, never its parent
	a_in .. cat /proc/self/cgroup; rc=$?
	if [ "$rc" = 0 ]; then
		out=$(sed -n 's/^0:://p' "$T_LOG/attempt.log")
		[ "$out" = "${N_CG#"$(t_cg_mount)"}/jobs/job.$A_USER@.." ] ||
			t_fail "$BACKEND: label '..' ran in $out"
		t_wait_for 3 eval '[ ! -d "$(n_job_cg "$A_USER" ..)" ]' || t_fail "$BACKEND: A's job .. did not end"
		t_log "$BACKEND: label '..': A's own job, cgroup $out"
	else
		one_line "label '..'" "$(cat "$T_LOG/attempt.log")" '^dts-run: '
	fi
	# the raw requests dts-run would not send
	for l in "$T_USER:pvm" "pvm/../../x" "$(printf 'a\001')" "abcdefghij1234567"; do
		"${A_ARGV[@]}" python3 "$bin/ask.py" "$N_SOCK" "$OUT/raw" "$(printf 'ADOPT run\nJOB %s' "$l")" ||
			t_fail "$BACKEND: the raw client failed"
		one_line "raw JOB $(printf %q "$l")" "$(cat "$OUT/raw")" '^ERR (job label|malformed)'
	done
	# JOINs: B's task and pvmd into A's job, asked from inside a1
	for p in "$B_SPIN" "$B_PVMD"; do
		a_in a1 python3 "$bin/ask.py" "$N_SOCK" "$OUT/join" "JOIN $p" ||
			t_fail "$BACKEND: A's JOIN client failed: $(cat "$T_LOG/attempt.log")"
		one_line "A's JOIN of B's pid $p" "$(cat "$OUT/join")" \
		    "^ERR pid $p is in job $T_USER:pvm: a process stays in its job$"
	done
	t_logged "join refused: asked by pid [0-9]*, uid $A_UID: pid $B_SPIN is in job $T_USER:pvm" ||
		t_fail "$BACKEND: A's JOIN refusal not logged"
	# A's pid (in no job) into B's job: B asks from inside its job
	"${A_ARGV[@]}" sleep 30 &
	p=$!
	t_track "$p"
	t_wait_for 5 is_comm "$p" sleep || t_fail "$BACKEND: A's sleep did not start"
	"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$bin/dts-run" -- \
	    python3 "$bin/ask.py" "$N_SOCK" "$OUT/joinb" "JOIN $p" > "$T_LOG/attempt.log" 2>&1 ||
		t_fail "$BACKEND: B's JOIN client failed: $(cat "$T_LOG/attempt.log")"
	one_line "B's JOIN of A's pid $p" "$(cat "$OUT/joinb")" \
	    "^ERR pid $p runs as uid $A_UID/.*not as the gang's uid $T_UID$"
	# ... and A asks from outside every job
	"${A_ARGV[@]}" python3 "$bin/ask.py" "$N_SOCK" "$OUT/joinc" "JOIN $p" ||
		t_fail "$BACKEND: A's JOIN client failed"
	one_line "A's JOIN from no job" "$(cat "$OUT/joinc")" "^ERR pid [0-9]+ is not in the gang"
	[ -z "$(cg_of "$p" | grep /job.)" ] || t_fail "$BACKEND: A's sleep was pulled into $(cg_of "$p")"
	kill "$p"; wait "$p" 2> /dev/null; t_untrack "$p"
	[ "$(njobs)" = 3 ] || t_fail "$BACKEND: the requests left $(njobs) jobs: $(ls "$N_CG/jobs")"
	check "requests naming B's job"

	# 4. B's state file
	[ -f "$B_STATE" ] || t_fail "$BACKEND: no state file $B_STATE"
	mode=$(stat -c '%a %U' "$B_STATE")
	if a_in a1 head -c 64 "$B_STATE"; then read_ok=readable; else read_ok=unreadable; fi
	a_fails "writing B's state file" sh -c "echo x >> '$B_STATE'"
	a_fails "truncating B's state file" sh -c ": > '$B_STATE'"
	a_fails "removing B's state file" rm -f "$B_STATE"
	a_fails "replacing B's state file" ln -sf /dev/null "$B_STATE"
	[ -f "$B_STATE" ] && [ "$(stat -c '%a %U' "$B_STATE")" = "$mode" ] ||
		t_fail "$BACKEND: B's state file changed: $(ls -l "$B_STATE")"
	t_log "$BACKEND: B's state file: mode $mode, $read_ok by A (SUSPEND AWARENESS), not writable"
	check "B's state file (mode $mode, $read_ok)"

	# 5. a full node: A's third job makes four; a fifth is refused
	a_job a3
	[ "$(njobs)" = 4 ] || t_fail "$BACKEND: 4 jobs, but $(njobs)"
	out=$("${A_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$bin/dts-run" --job a4 -- touch "$OUT/ran" 2>&1); rc=$?
	[ "$rc" = 126 ] || t_fail "$BACKEND: a fifth job: exit $rc ($out)"
	one_line "a fifth job" "$out" "^dts-run: this node runs max_jobs = 4 jobs already: .*$T_USER:pvm.* \\(dts.conf: max_jobs\\)$"
	[ ! -e "$OUT/ran" ] || t_fail "$BACKEND: the fifth job's command ran"
	t_wait_for 2 eval '[ "$(b_members)" = "$B_MEM" ]' ||
		t_fail "$BACKEND: full node: B's members $B_MEM, now $(b_members)"
	a_end a3
	check "full node (4 jobs, a fifth refused)"

	# 6. churn: A starts and ends short jobs in a loop, a new label each
	# time.  A may hold a fourth job (max_jobs = 4), so B keeps at least
	# PS/4, not its PS/3; nothing of the churn is left behind.
	churn 3 > "$OUT/churn" 2>&1 &
	local cp=$! n
	t_track "$cp"
	shares 3
	wait "$cp"; t_untrack "$cp"
	n=$(tail -n 1 "$OUT/churn")
	[ "${n:-0}" -ge 2 ] || t_fail "$BACKEND: churn: only '${n}' jobs started: $(head -n 3 "$OUT/churn")"
	kill -0 "$N_DTS" && kill -0 "$N_AGENT" || t_fail "$BACKEND: churn: dts or dts-load died"
	awk -v s="${SH[0]}" -v p="$PS_PCT" 'BEGIN { exit !(s >= p / 4 - 6) }' ||
		t_fail "$BACKEND: churn: B got ${SH[0]}% of CPU 1, under PS/4 - 6 ($PS_PCT% / 4)"
	t_wait_for 3 eval '[ "$(njobs)" = 3 ]' ||
		t_fail "$BACKEND: churn left $(njobs) jobs: $(ls "$N_CG/jobs")"
	out=$(ls -d "$N_STATE.$A_USER@c"* 2> /dev/null)
	[ -z "$out" ] || t_fail "$BACKEND: churn left state files: $out"
	t_log "$BACKEND: churn: $n short jobs of A in 3 s; B got ${SH[0]}% (PS/4 $((PS_PCT / 4))%, slot $SLOT%)"
	RESULTS+=("$(printf '%-8s %-34s B %5s%% (floor PS/4 %s%%), %s jobs started' "$BACKEND" "job churn" "${SH[0]}" "$((PS_PCT / 4))" "$n")")
	t_wait_for 2 eval '[ "$(b_members)" = "$B_MEM" ]' ||
		t_fail "$BACKEND: churn: B's members were $B_MEM, now $(b_members)"
}

# churn SECONDS: A's short jobs c0..c49 (true, each its own job) in a
# loop; prints how many ran
churn() {
	local end=$(($(_t_now_us) + $1 * 1000000)) i=0
	while [ "$(_t_now_us)" -lt "$end" ]; do
		"${A_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$bin/dts-run" --job "c$((i % 50))" -- true ||
			echo "job c$((i % 50)) refused"
		i=$((i + 1))
	done
	echo "$i"
}

for b in ${T103_BACKENDS:-freezer signal}; do
	start_node "$b"
	attacks
	stop_node
done

# nothing of the test left stopped, frozen or at real-time priority
left=$(ps -u "$A_UID,$T_UID" -o pid=,stat=,cls=,comm= |
    awk '$2 !~ /^Z/ && ($2 ~ /^T/ || $3 == "FF" || $3 == "RR")')
[ -z "$left" ] || t_fail "left stopped or RT: $left"
for f in "$N_CG"/jobs/job.*/cgroup.freeze; do
	[ -f "$f" ] || continue
	[ "$(cat "$f")" = 0 ] || t_fail "left frozen: $f"
done
printf '# %s\n' "${RESULTS[@]}" >&2
t_pass
