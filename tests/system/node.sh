# node.sh - helpers for system tests of one DTS node: a real dts service
# on this host, and a real master pvmd that it adopted into its gang.
# Source after lib.sh and t_setup.
#
#   n_conf mode='"static"' ip='"100ms"' ps='"80%"'   # writes $N_CONF
#   n_start [taskset -c 1]      # dts service + pvmd through dts-run;
#                               # sets N_DTS, N_PVMD, N_AGENT
#   n_start_dts [PREFIX...]     # only the service (N_DTS, N_AGENT)
#   n_start_pvmd [PREFIX...]    # only the pvmd, adopted (N_PVMD)
#   n_status [FIELD]            # STATUS of the node (sendgram)
#   n_pvm spawn -n 1 "$BUILD/tests/pvm/spin" 0
#   n_halt                      # pvm_halt, wait for the gang to empty,
#                               # then stop dts (N_RC = its status)
#   n_released / n_until_released T0 MS   # gang thawed, running, TS
#   n_split_ok CPU PS TOL HOG GANG...     # the gang's PS, the hog's own LS
#   n_control_conf; n_start_dts; n_control_gang   # 64 spinning tasks
#   n_control_op halt           # one PVM command, timed (N_OP_US)
#
# N_CG is dts's cgroup subtree (tracked: cleanup empties and removes it),
# N_GANG the gang cgroup of the job under test (root's job "pvm" until
# n_start_pvmd sets the one of the pvmd it started: n_job_cg), N_SOCK the
# adoption socket, N_STATE the state file (dts.conf: state_file).

N_PORT=${N_PORT:-$((20000 + ($$ * 7 + RANDOM) % 20000))}
N_CONF=
N_KEY=
N_SECRET=
N_SIGN=
N_PUB=
N_CG=
N_GANG=
N_SOCK=
N_STATE=
N_DTS=
N_PVMD=
N_AGENT=
N_ON=()	# n_split_cpus: the prefix that pins the node to CPU 1

# n_split_cpus: the node and its gang on CPU 1 (n_start, n_start_dts and
# n_start_pvmd prefix them with "${N_ON[@]}" from now on), this shell and
# what it starts on CPU 0.  A poller that wakes on the CPU of a spinning
# RT task waits there for the rest of the PS (the kernel seldom moves it):
# on a busy machine every phase poll then lands in an LS.
n_split_cpus() {
	[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (node on CPU 1, polls on CPU 0)"
	taskset -p -c 0 $$ > /dev/null || t_fail "cannot pin the test to CPU 0"
	N_ON=(taskset -c 1)
}

# n_conf KEY=VALUE...: $N_CONF (t_conf) with the test defaults (private
# port, key, log, agent path; users: the run's group, which t_make_user's
# user is in), then the given keys, which replace them.
n_conf() {
	N_CONF=$T_DIR/dts.conf
	N_KEY=$T_DIR/dts.key
	N_SECRET=$T_DIR/nodes.key
	N_SIGN=$T_DIR/console.key
	N_SOCK=$T_DIR/dts.sock
	N_STATE=$T_RUN/state
	N_CG=$(t_cg_dir)
	N_GANG=$(n_job_cg root)
	t_keys "$T_DIR" || t_fail "cannot make the keys"
	[ -f "$N_KEY" ] || t_nodekey "$N_SECRET" 127.0.0.1 "$N_KEY" ||
	    t_fail "cannot write the node's key"
	N_PUB=$(cat "$T_DIR/console.pub")
	_t_make_group	# the group users names exists, as the package's does
	t_conf "$N_CONF" -d port="$N_PORT" -d key_file="\"$N_KEY\"" \
	    -d console_keys="[\"$N_PUB\"]" -d log_file="\"$T_LOG/dts.log\"" \
	    -d log_level='"debug"' -d load_agent="\"$BUILD/load/dts-load\"" \
	    -d socket="\"$N_SOCK\"" -d state_file="\"$N_STATE\"" \
	    -d cgroup="\"$(t_cg_name)\"" -d users="[\"@$T_GROUP\"]" "$@" ||
	    t_fail "n_conf: cannot write $N_CONF"
}

# n_start [PREFIX...]: the dts service, then the master pvmd through
# dts-run (each optionally under PREFIX, e.g. taskset); waits until pvmd
# has printed its socket path.
n_start() {
	n_start_dts "$@"
	n_start_pvmd "$@"
}

# n_start_dts [PREFIX...]: dts in the foreground of a background job;
# waits for its adoption socket.
n_start_dts() {
	[ -n "$N_CONF" ] || n_conf
	t_track_cg "$N_CG"
	"${N_ON[@]}" "$@" "$BUILD/dts/dts" -f "$N_CONF" > "$T_LOG/dts.out" 2> "$T_LOG/dts.err" &
	N_DTS=$!
	t_track "$N_DTS"
	t_wait_for 10 test -S "$N_SOCK" ||
		t_fail "dts did not start (see dts.err, dts.log)"
	t_wait_for 5 _n_has_agent || t_fail "dts started no dts-load"
	N_AGENT=$(_n_child_named "$N_DTS" dts-load)
}

_n_has_agent() { [ -n "$(_n_child_named "$N_DTS" dts-load)" ]; }

# n_start_pvmd [PREFIX...]: the master pvmd, adopted into the gang by
# dts-run (what the launch script does); its stdout is pvmd.out.  N_RUN
# overrides the dts-run binary (e.g. a copy a test user can reach); the
# dts-pvmjoin beside it is the helper it starts for a user's pvmd
# (DTS_PVMJOIN; a copy that is not there: no helper).  N_LAUNCH: a
# launch script to run instead of `dts-run --pvmd --` (run/pvmd.in).
n_start_pvmd() {
	local run=${N_RUN:-$BUILD/run/dts-run}
	local -a launch=("$run" --pvmd --)
	[ -n "${N_LAUNCH:-}" ] && launch=("$N_LAUNCH")
	# emptied here, not only by the child's redirection: a grep that ran
	# before the child opened it saw the last pvmd's line and went on
	: > "$T_LOG/pvmd.out"
	DTS_SOCKET=$N_SOCK DTS_PVMJOIN=$(dirname "$run")/dts-pvmjoin \
	    setsid "${N_ON[@]}" "$@" "${launch[@]}" \
	    > "$T_LOG/pvmd.out" 2> "$T_LOG/pvmd.err" &
	N_PVMD=$!
	t_track "$N_PVMD"
	t_wait_for 10 grep -q pvmtmp "$T_LOG/pvmd.out" ||
		t_fail "pvmd did not start in the gang (see pvmd.err, dts.log)"
	local uid
	uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/$N_PVMD/status")
	N_GANG=$(n_job_cg "$(id -nu "$uid")" "${DTS_JOB:-pvm}")
	n_in_gang "$N_PVMD" || t_fail "pvmd $N_PVMD is not in the gang $N_GANG"
}

# n_job_cg USER [LABEL]: the cgroup of job USER:LABEL of this node
# (t_job_cg; LABEL defaults to pvm).
n_job_cg() { echo "$N_CG/jobs/job.$1@${2:-pvm}"; }

_n_child_named() {
	ps -eo pid=,ppid=,comm= | awk -v p="$1" -v c="$2" '$2 == p && $3 == c { print $1; exit }'
}

# n_status [FIELD]: the node's STATUS as key=value lines, or one value.
n_status() {
	local out
	out=$("$BUILD/tests/tools/sendgram" -k "$N_SECRET" -s "$N_SIGN" -p "$N_PORT" status) || return 1
	if [ -n "${1:-}" ]; then
		sed -n "s/^$1=//p" <<< "$out"
	else
		echo "$out"
	fi
}

# n_send ARGS...: sendgram as this node's console (its keys) to its port.
n_send() {
	"$BUILD/tests/tools/sendgram" -k "$N_SECRET" -s "$N_SIGN" -p "$N_PORT" "$@"
}

# n_pvm ARGS...: the PVM client against this node's pvmd.
n_pvm() {
	"$BUILD/tests/pvm/dts-pvmctl" "$@"
}

# n_spawn_spin: one CPU-bound PVM task in the gang; N_SPIN = its pid.
n_spawn_spin() {
	n_pvm spawn -n 1 "$BUILD/tests/pvm/spin" "${1:-0}" > /dev/null || t_fail "spawn failed"
	t_wait_for 5 n_has_task spin || t_fail "no PVM task"
	N_SPIN=$(n_gang_pids spin | head -n 1)
}

# n_start_hog [CPU]: a local CPU hog (pinned to CPU if given); N_HOG = pid.
n_start_hog() {
	"$BUILD/tests/tools/hog" ${1:+-c "$1"} -t 0 -p "$T_DIR/hog.pid" &
	t_track $!
	t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
	N_HOG=$(cat "$T_DIR/hog.pid")
}

# n_gang_pids [NAME]: PIDs in the gang cgroup (whose command is NAME).
n_gang_pids() {
	local p
	for p in $(cat "$N_GANG/cgroup.procs" 2>/dev/null); do
		if [ -z "${1:-}" ] || [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ]; then
			echo "$p"
		fi
	done
}

# n_in_gang PID: is PID in the gang cgroup?  (Builtins only: cheap to poll.)
n_in_gang() {
	local p
	while read -r p; do [ "$p" = "$1" ] && return 0; done 2>/dev/null < "$N_GANG/cgroup.procs"
	return 1
}

# n_shares SECONDS PID...: CPU share (percent, 1 decimal) of each PID over
# SECONDS of wall time, from /proc/PID/schedstat.
n_shares() {
	local secs=$1 p t0 t1
	shift
	local -a c0 c1
	t0=$(_t_now_us)
	for p in "$@"; do c0+=("$(t_cpu_ns "$p")"); done
	t_sleep "$secs"
	t1=$(_t_now_us)
	for p in "$@"; do c1+=("$(t_cpu_ns "$p")"); done
	local i
	for i in "${!c0[@]}"; do
		awk -v a="${c0[$i]}" -v b="${c1[$i]}" -v w="$((t1 - t0))" \
		    'BEGIN { printf "%.1f\n", (b - a) / (w * 10) }'
	done
}

# n_halt: halt the VM, wait for the gang to empty, then stop the dts
# service; N_RC = dts's exit status.  (Not in a subshell: only this shell
# can wait for dts.)
n_halt() {
	n_pvm halt > /dev/null 2>&1
	t_wait_for 10 n_gang_empty || return 1
	kill -TERM "$N_DTS" 2>/dev/null
	n_wait_exit
}

n_gang_empty() { [ -z "$(n_gang_pids)" ]; }

# n_wait_exit: wait (10 s) for dts to end; N_RC = its exit status.
n_wait_exit() {
	t_wait_for 10 _n_gone "$N_DTS" || return 1
	wait "$N_DTS" 2>/dev/null
	N_RC=$?
	t_untrack "$N_DTS"
}

# Predicates for t_wait_for (its arguments are expanded once, so a test
# must not pass "$(...)": use these).
# Stopped: SIGSTOPped (signal backend) or in the gang while it is frozen
# (freezer backend; a frozen task shows no T state).
# (Builtins only, so that sampling them often costs little.)
n_is_stopped() { local s; _n_state s "$1"; [ "$s" = T ] || { n_in_gang "$1" && n_gang_frozen; }; }
n_is_running() { local s; _n_state s "$1" && [ "$s" != T ] && ! { n_in_gang "$1" && n_gang_frozen; }; }
n_gang_frozen() {
	local k v
	while read -r k v; do
		[ "$k" = frozen ] && { [ "$v" = 1 ]; return; }
	done 2>/dev/null < "$N_GANG/cgroup.events"
	return 1
}
# _n_state VAR PID: PID's state letter into VAR (t_proc_state, no fork)
_n_state() {
	local _l
	printf -v "$1" %s ''
	read -r _l 2>/dev/null < "/proc/$2/stat" || return 1
	_l=${_l##*) }
	printf -v "$1" %s "${_l%% *}"
}
n_has_task() { [ -n "$(n_gang_pids "$1")" ]; }
n_phase_is() { [ "$(n_status phase)" = "$1" ]; }

_n_gone() { ! kill -0 "$1" 2>/dev/null || [ "$(t_proc_state "$1")" = Z ]; }

# n_no_leftovers: nothing of the gang is stopped, frozen or at RT priority.
n_no_leftovers() {
	local p bad=
	n_gang_frozen && bad=" (gang frozen)"
	for p in $(n_gang_pids); do
		[ "$(t_proc_state "$p")" = T ] && bad="$bad $p(stopped)"
		case "$(t_policy "$p")" in
		FF|RR) bad="$bad $p(RT)" ;;
		IDL) bad="$bad $p(SCHED_IDLE)" ;;
		esac
	done
	[ -z "$bad" ] || { t_log "left over:$bad"; return 1; }
}

# n_reap_dts: after dts was killed, reap it quietly (no "Killed" line from
# bash) and forget its pid.
n_reap_dts() {
	{ wait "$N_DTS"; } 2>/dev/null
	t_untrack "$N_DTS"
}

# n_released: the gang runs unrestricted: not frozen, no member stopped,
# every member at SCHED_OTHER.  Builtins only (no fork), so that polling
# it is cheap and fine-grained.
n_released() {
	local k v p line f pids
	while read -r k v; do
		[ "$k" = frozen ] && [ "$v" = 1 ] && return 1
	done < "$N_GANG/cgroup.events"
	mapfile -t pids < "$N_GANG/cgroup.procs"
	for p in "${pids[@]}"; do
		read -r line < "/proc/$p/stat" 2>/dev/null || continue
		f=(${line##*) })
		case "${f[0]}" in T|t) return 1 ;; esac
		[ "${f[38]}" = 0 ] || return 1	# field 41, policy: SCHED_OTHER
	done
	return 0
}

# n_until_released T0_US TIMEOUT_MS: poll n_released without pause until
# it holds; N_REL_US = microseconds from T0_US (from n_now_us) to the end
# of the first check that held (an upper bound).
n_until_released() {
	local end=$(($1 + $2 * 1000)) rel now
	while :; do
		n_released && rel=1 || rel=0
		n_now_us now
		[ "$rel" = 1 ] && { N_REL_US=$((now - $1)); return 0; }
		[ "$now" -ge "$end" ] && return 1
	done
}

# n_now_us VAR: microseconds since the epoch into VAR, without a fork
# (lib.sh's _t_now_us).
n_now_us() { _t_now_us "$1"; }

# n_split CPU SECONDS HOG GANG...: over SECONDS, the share of CPU (lib.sh's
# t_cpu_split) that the PIDs GANG... together got, that HOG got, that
# everything else got (foreign: CPU's busy time less the hog and the
# whole gang: another build, stress-ng, dts itself), and that the whole
# gang got (every process of dts's jobs/, listed or not), into
# N_SPLIT=(gang hog foreign gang_all).
n_split() {
	local cpu=$1 secs=$2 hog=$3
	shift 3
	t_cpu_split "$cpu" "$secs" "$hog" "$N_CG/jobs" "$@" || return 1
	N_SPLIT=("$T_SH_SUM" "$T_SH_HOG" "$T_SH_OTHER" "$T_SH_GANG")
}

# n_split_ok CPU PS TOL HOG GANG...: the gang (GANG...) gets PS% of CPU
# and the hog, by its own CPU time, the rest (LS), each to TOL points;
# and no process of the gang, listed or not (every one in dts's jobs/),
# runs in the LS: the whole gang gets at most PS + 1 point (a stop lands
# within microseconds of its edge).  Other work at SCHED_OTHER on CPU
# (a build) would take part of the LS from the hog and fail it: the
# owner's share is the owner's.  Measured over 6 s; a miss is measured
# once more, with the machine's load and other sessions' real-time
# processes printed.  N_SPLIT_MSG: the figures.
n_split_ok() {
	local cpu=$1 ps=$2 tol=$3 try
	shift 3
	for try in 1 2; do
		n_split "$cpu" 6 "$@" || { N_SPLIT_MSG="a process ended"; return 1; }
		N_SPLIT_MSG="gang ${N_SPLIT[0]}% (all of its processes ${N_SPLIT[3]}%), hog ${N_SPLIT[1]}%, other work on CPU $cpu ${N_SPLIT[2]}%"
		# the owner's: the hog's own and other work on the CPU beside
		# the test (a build, stress-ng), which the LS serves too
		awk -v p="$ps" -v t="$tol" -v g="${N_SPLIT[0]}" -v h="${N_SPLIT[1]}" -v o="${N_SPLIT[2]}" \
		    -v a="${N_SPLIT[3]}" 'BEGIN {
			d1 = g - p; d2 = h + o - (100 - p)
			exit !(d1 < t && d1 > -t && d2 < t && d2 > -t && a <= p + 1) }' &&
		    return 0
		[ "$try" = 1 ] && t_log "PS $ps%: $N_SPLIT_MSG (want gang $ps, hog and other work $((100 - ps)), +-$tol; all of the gang <= $((ps + 1))); load $(cut -d' ' -f1-3 /proc/loadavg), $(t_foreign_rt "$N_DTS" "$N_AGENT" "$N_PVMD" "$@") other real-time processes: measuring again"
	done
	return 1
}

# ---- the control path under load (t54, bench-control) --------------------
# 64 CPU-bound PVM tasks spinning at real-time priority, PS 90 % of IP
# 1 ms: pvmd, one RT priority above them, must still answer the PVM
# commands at once.  The goal for each command is one IP + 100 ms.
N_CTL_TASKS=64
N_CTL_IP_MS=1
N_CTL_PS_PCT=90
N_CTL_GOAL_MS=$((N_CTL_IP_MS + 100))

# n_control_conf [KEY=VALUE...]: n_conf with that schedule.
n_control_conf() {
	n_conf mode='"static"' ip="\"${N_CTL_IP_MS}ms\"" ps="\"$N_CTL_PS_PCT%\"" "$@"
}

# n_control_gang: a pvmd in the gang (dts runs) and N_CTL_TASKS spinning
# tasks, each one RT priority below it (they inherited pvmd's own and dts
# brought them down); N_PVMD = that pvmd.  Again after a halt, too.
n_control_gang() {
	n_start_pvmd
	n_pvm -T 30 spawn -n "$N_CTL_TASKS" "$BUILD/tests/pvm/spin" 0 > /dev/null ||
		t_fail "cannot spawn $N_CTL_TASKS tasks"
	t_wait_for 30 eval '[ "$(n_gang_pids spin | wc -w)" = "$N_CTL_TASKS" ]' ||
		t_fail "not $N_CTL_TASKS tasks in the gang: $(n_gang_pids spin | wc -w)"
	N_PVMD=$(n_gang_pids pvmd | head -n 1)
	[ -n "$N_PVMD" ] || t_fail "no pvmd in the gang"
	t_wait_for 5 _n_below_pvmd ||
		t_fail "tasks not one below pvmd ($(t_rtprio "$N_PVMD")): $(for p in $(n_gang_pids spin); do t_rtprio "$p"; done | sort | uniq -c | tr '\n' ' ')"
}

_n_below_pvmd() {
	local p want=$(($(t_rtprio "$N_PVMD") - 1))
	for p in $(n_gang_pids spin); do
		[ "$(t_rtprio "$p")" = "$want" ] || return 1
	done
}

# n_control_op OP: one command of the control path through the PVM client,
# lifted (dts-pvmctl -L; dts(8), LIFTS)
# (20 s at most), its output in $T_LOG/OP.out and its wall time in
# N_OP_US: spawn (one more spinning task), add and delete (a host that
# does not exist: pvmd's error), tasks, halt (then the gang empties).
# Returns 1 if the command did not do that (the output says why).
n_control_op() {
	local op=$1 out=$T_LOG/$1.out t0 t1
	local -a cmd
	case $op in
	spawn) cmd=(spawn -n 1 "$BUILD/tests/pvm/spin" 0) ;;
	add|delete) cmd=("$op" nosuchhost.invalid) ;;
	tasks|halt) cmd=("$op") ;;
	*) t_fail "n_control_op: no operation $op" ;;
	esac
	n_now_us t0
	DTS_SOCKET=$N_SOCK n_pvm -T 20 -L "${cmd[@]}" > "$out" 2>&1
	n_now_us t1
	N_OP_US=$((t1 - t0))
	case $op in
	spawn) grep -q '^[0-9a-f][0-9a-f]*$' "$out" ;;
	add|delete) grep -q "nosuchhost.invalid error" "$out" ;;
	tasks) [ "$(grep -c spin "$out")" = "$(n_gang_pids spin | wc -w)" ] ;;
	halt) t_wait_for 10 n_gang_empty ||
		{ echo "halt left $(n_gang_pids | wc -w) gang members" >> "$out"; return 1; } ;;
	esac
}
