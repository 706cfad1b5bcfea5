# lib.sh - shared helpers of the DTS system tests (bash; source it).
#
#   . "$(dirname "$0")/lib.sh"
#   t_setup my-test            # private run dir, PVM env, cleanup trap
#   some_daemon & t_track $!   # everything tracked is ended by t_cleanup
#   ... t_fail "why" / t_skip "why" / t_pass
#   t_need python3 python3     # what quickstart installs or the suite
#   t_need_built console/dts-console   # builds: missing fails, never skips
#   t_expect_log 'REGEX'       # before provoking an error line on purpose
#
# t_pass fails the test if dts, dts-load or dts-console logged a line at
# level err, or a sanitizer reported anything, in this run's logs, unless
# a pattern of t_expect_log matches the line; it prints those lines.
#
# Each test gets ${TMPDIR:-/tmp}/dts-test.$$.NAME with tmp/ (PVM_TMP),
# home/ (HOME) and log/.  t_cleanup runs on exit and on INT/TERM: every
# tracked process and process group is continued, put back to SCHED_OTHER,
# terminated and, after 2 s, killed; then the run dir is removed (KEEP=1
# keeps it).  Only processes the test tracked are ever signalled.
#
# Variables: SRC (source tree, or $DTS_SRC), BUILD (build tree with
# dts/dts, load/dts-load, tests/...; $DTS_BUILD, else $SRC/_build or $SRC),
# T_NAME, T_DIR, T_TMP, T_HOME, T_LOG.
# Exit codes: 0 pass, 1 fail, 77 skip (automake's convention).

SRC=${DTS_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [ -n "${DTS_BUILD:-}" ]; then
	BUILD=$DTS_BUILD
elif [ -x "$SRC/_build/dts/dts" ]; then
	BUILD=$SRC/_build
else
	BUILD=$SRC
fi
export SRC BUILD

T_NAME=${T_NAME:-$(basename "$0" .sh)}
T_DIR=
T_RUN=
T_PIDS=()
T_PGS=()
T_CGS=()
T_USER=
T_UID=
# the group of this run's users (dts.conf: users = ["@T_GROUP"], as
# node.sh and the cluster harness write it): a test user is in it, as an
# administrator puts a user in the package's group `dts`
T_GROUP=dtsg$$
T_GROUP_MADE=
T_CLEANED=0
T_SLEEP_PID=

# ---- results -------------------------------------------------------------

t_log() {
	echo "# $*" >&2
}

# Show the tail of every log of this run, so a failure explains itself.
_t_dump_logs() {
	local f
	[ -n "$T_DIR" ] && [ -d "$T_DIR/log" ] || return 0
	for f in "$T_DIR"/log/* "$T_TMP"/pvml.*; do
		[ -f "$f" ] || continue
		echo "# ---- ${f#"$T_DIR"/} (last 20 lines)" >&2
		tail -n 20 "$f" | sed 's/^/#   /' >&2
	done
}

t_fail() {
	echo "FAIL: $T_NAME: $*"
	_t_dump_logs
	if _t_unexpected_lines > /dev/null; then
		echo "# also, lines no test declared expected (t_expect_log):" >&2
		_t_unexpected_lines | sed 's/^/#   /' >&2
	fi
	exit 1
}

# t_pass: the test passed, if the daemons said nothing wrong: any line at
# level err (common/log.c: fatal, fatalx, a start-up refusal) from dts,
# dts-load or dts-console, or any sanitizer report, in the logs of this
# run that the test did not declare expected with t_expect_log, fails it
# and is printed (as chrony's test suite checks chronyd's messages).
# The daemons this run left are stopped only by t_cleanup (EXIT trap),
# and they may still log then (a LeakSanitizer report comes at exit): so
# t_cleanup looks again once they have ended, and only then says PASS.
T_PASSED=0
t_pass() {
	if _t_unexpected_lines > /dev/null; then
		echo "FAIL: $T_NAME: the daemons logged errors the test did not expect (t_expect_log):"
		_t_unexpected_lines | sed 's/^/#   /' >&2
		_t_dump_logs
		exit 1
	fi
	case $(trap -p EXIT) in
	*t_cleanup* | *_c_on_exit*) T_PASSED=1 ;;	# t_cleanup says it
	*) echo "PASS: $T_NAME" ;;
	esac
	exit 0
}

# _t_passed RC: at the end of t_cleanup, after t_pass: the verdict, with
# what the daemons logged while they ended; 1 if that failed the test.
_t_passed() {
	[ "$T_PASSED" = 1 ] && [ "$1" = 0 ] || return 0
	if _t_unexpected_lines > /dev/null; then
		echo "FAIL: $T_NAME: the daemons logged errors the test did not expect (t_expect_log), as they ended:"
		_t_unexpected_lines | sed 's/^/#   /' >&2
		return 1
	fi
	echo "PASS: $T_NAME"
}

# t_expect_log REGEX: a line of a daemon's log at level err, or of a
# sanitizer, that matches REGEX (grep -E, anywhere in the line) is one
# the test provokes on purpose: t_pass lets it pass.  Call it before
# provoking the line, with a pattern as narrow as the message.
T_EXPECT_LOG=()
t_expect_log() {
	[ -n "${1:-}" ] || { echo "t_expect_log: REGEX missing" >&2; return 2; }
	T_EXPECT_LOG+=("$1")
}

# What t_pass looks for: "TIME IDENT[PID] LEVEL: MESSAGE" at level err
# (log_level_names; error and fatal too, should they ever be levels) from
# one of the daemons, in a log file or on a stderr that a test kept; and
# the first line of a report of AddressSanitizer, LeakSanitizer or
# UndefinedBehaviorSanitizer ("FILE:LINE:COL: runtime error: ...").
T_BAD_LOG_RE='(^|[[:space:]])(dts|dts-load|dts-console)\[[0-9]+\] (err|error|fatal): |AddressSanitizer|LeakSanitizer|runtime error:'

# _t_log_files: every text file of this run where a daemon's output may
# be: all of $T_LOG (node.sh's dts.log, dts.err, ...; cluster.sh's
# dts-hK.log, dts-hK.err, console.*, ...) and the files of $T_DIR beside
# it (a test's own captures: err, dump.err, ...), but not the PVM
# temporary directories and homes (pvmd's logs, the tasks' output) nor
# bin/.
_t_log_files() {
	[ -n "$T_DIR" ] && [ -d "$T_DIR" ] || return 0
	{
		[ -d "$T_LOG" ] && find "$T_LOG" -type f
		find "$T_DIR" -maxdepth 2 -type f ! -path "$T_LOG/*" \
		    ! -path "$T_DIR/bin/*" ! -path "$T_TMP/*" ! -path "$T_HOME/*" \
		    ! -path "$T_DIR/*/tmp/*" ! -path "$T_DIR/*/home/*"
	} 2> /dev/null | sort -u
}

# _t_unexpected_lines: the lines t_pass fails on, each as "FILE: LINE"
# (FILE relative to $T_DIR); status 0 if there is one, 1 if none.
_t_unexpected_lines() {
	local f found=1
	[ -n "$T_LOG_KEPT" ] && printf '%s\n' "$T_LOG_KEPT" | _t_drop_expected | grep . &&
	    found=0
	while read -r f; do
		[ -f "$f" ] || continue
		grep -IE -- "$T_BAD_LOG_RE" "$f" 2> /dev/null | _t_drop_expected |
		    sed "s|^|${f#"$T_DIR"/}: |" | grep . && found=0
	done < <(_t_log_files)
	return "$found"
}

# t_keep_log_lines: before the run dir goes (cluster.sh's c_down removes
# it), keep the lines t_pass would fail on, so that it still sees them.
T_LOG_KEPT=
t_keep_log_lines() {
	local l
	l=$(_t_unexpected_lines) || return 0
	T_LOG_KEPT=${T_LOG_KEPT:+$T_LOG_KEPT$'\n'}$l
}

# stdin less the lines that match a pattern of t_expect_log
_t_drop_expected() {
	local re
	local -a e=()
	for re in "${T_EXPECT_LOG[@]}"; do e+=(-e "$re"); done
	if [ "${#e[@]}" = 0 ]; then cat; else grep -vE "${e[@]}"; fi
}

# t_skip WHY: only for a machine that cannot run the test (one CPU, no
# cgroup2 cpu controller, no /dev/net/tun, not root), never for a result
# the test did not like, nor for what quickstart installs or the suite
# builds (t_need, t_need_built: those fail).
t_skip() {
	echo "SKIP: $T_NAME: $*"
	exit 77
}

# t_need CMD PACKAGE: CMD is on the PATH, else the test fails: quickstart
# installs PACKAGE (a skip would let a machine without it pass the suite).
t_need() {
	command -v "$1" > /dev/null ||
	    t_fail "needs $1: quickstart installs it (apt-get install $2)"
}

# t_need_built FILE...: each FILE (relative to BUILD, or absolute), which
# the suite builds (make all; make check TESTS=), is there, else the test
# fails: with nothing built, every test must fail, not skip.
t_need_built() {
	local f
	for f in "$@"; do
		case $f in /*) ;; *) f=$BUILD/$f ;; esac
		[ -f "$f" ] || t_fail "not built: $f (make all && make check TESTS=)"
	done
}

# t_need_user NAME: the system user NAME (nobody, munge) exists, else the
# test fails (Debian's base-passwd, or quickstart's packages, make it).
t_need_user() {
	id "$1" > /dev/null 2>&1 || t_fail "needs the user $1"
}

# t_foreign_rt [PID...]: how many user-space processes at SCHED_FIFO or
# SCHED_RR run on this machine besides the PIDs given (the test's own):
# other sessions' real-time gangs, which can delay even a FIFO 99 wake-up
# (a SCHED_OTHER load such as a build or stress-ng cannot).
t_foreign_rt() {
	ps -eo pid=,ppid=,cls=,stat= | awk -v ours=" $* " '
		$3 != "FF" && $3 != "RR" { next }
		$4 ~ /^Z/ { next }	# ended, not yet reaped: runs no more
		$1 == 2 || $2 == 2 { next }	# kernel threads
		index(ours, " " $1 " ") == 0 { n++ } END { print n + 0 }'
}

# ---- setup and cleanup ---------------------------------------------------

t_setup() {
	[ -n "${1:-}" ] || { echo "t_setup: NAME missing" >&2; exit 2; }
	T_NAME=$1
	T_DIR=${TMPDIR:-/tmp}/dts-test.$$.$T_NAME
	T_TMP=$T_DIR/tmp
	T_HOME=$T_DIR/home
	T_LOG=$T_DIR/log
	# on a tmpfs, as /run/dts is: dts's state file (a shared mapping the
	# edge thread stores into) on ext4 could fault on a slice edge
	T_RUN=/dev/shm/dts-test.$$.$T_NAME
	# the traps first: a signal right after mkdir must still clean up
	trap 't_cleanup; exit $?' EXIT	# t_cleanup may fail a passed test
	trap '_t_on_signal 130' INT
	trap '_t_on_signal 143' TERM
	rm -rf "$T_DIR" "$T_RUN"
	mkdir -p "$T_TMP" "$T_HOME" "$T_LOG" "$T_RUN" || exit 1
	# reachable by a test user even when the checkout is not (0700 /root)
	chmod 755 "$T_DIR" "$T_TMP" "$T_HOME" "$T_LOG"
	export T_NAME T_DIR T_TMP T_HOME T_LOG T_RUN
	# Open MPI's shared-memory segments there too, not left in /dev/shm
	export OMPI_MCA_btl_vader_backing_directory=$T_RUN
	export PVM_TMP=$T_TMP HOME=$T_HOME PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1
	unset PVM_VMID PVM_DPATH PVM_EXPORT
}

_t_on_signal() {
	echo "FAIL: $T_NAME: interrupted" >&2
	exit "$1" # runs the EXIT trap, which cleans up
}

_t_is_num() {
	case "$1" in
	'' | *[!0-9]*) return 1 ;;
	esac
	[ "$1" -gt 1 ]
}

t_track() {
	if ! _t_is_num "${1:-}" || [ "$1" = $$ ]; then
		echo "t_track: bad pid '${1:-}'" >&2
		return 1
	fi
	T_PIDS+=("$1")
}

# t_untrack PID: forget a process the test has reaped itself (wait), so
# that cleanup never signals a PID the kernel may have given to another.
t_untrack() {
	local p keep=()
	for p in "${T_PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	T_PIDS=("${keep[@]}")
}

t_track_pg() {
	if ! _t_is_num "${1:-}" || [ "$1" = "$(_t_my_pgid)" ]; then
		echo "t_track_pg: bad or own process group '${1:-}'" >&2
		return 1
	fi
	T_PGS+=("$1")
}

_t_my_pgid() {
	local s pgid
	s=$(cat /proc/$$/stat 2>/dev/null) || return 0
	read -r _ _ pgid _ <<< "${s##*) }"
	echo "$pgid"
}

# Alive and not a zombie.
_t_alive() {
	kill -0 "$1" 2>/dev/null && [ "$(t_proc_state "$1")" != Z ]
}

# Live members of process group $1.
_t_pg_members() {
	ps -eo pid=,pgid=,stat= | awk -v g="$1" '$2 == g && $3 !~ /^Z/ { print $1 }'
}

# Continue, make normal and terminate: a stopped or RT process must not
# outlive the test or starve the cleanup.
_t_release_pid() {
	kill -CONT "$1" 2>/dev/null
	chrt -o -p 0 "$1" >/dev/null 2>&1
	kill -TERM "$1" 2>/dev/null
}

_t_release_pg() {
	local p
	kill -CONT -- "-$1" 2>/dev/null
	for p in $(_t_pg_members "$1"); do
		chrt -o -p 0 "$p" >/dev/null 2>&1
	done
	kill -TERM -- "-$1" 2>/dev/null
}

# ---- cgroups: dts's subtree of each node under test ----------------------

# The cgroup v2 mount point (dts keeps its gang there).
t_cg_mount() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts
}

# t_cg_name SUFFIX: a cgroup path, relative to the mount, unique to this
# run (dts.conf's `cgroup`); t_cg_dir SUFFIX: the same, absolute.
t_cg_name() { echo "/dts-test.$$.${T_NAME}${1:+.$1}"; }
t_cg_dir() { echo "$(t_cg_mount)$(t_cg_name "${1:-}")"; }

# t_job_cg USER [LABEL [SUFFIX]]: the cgroup of job USER:LABEL (LABEL
# defaults to pvm, dts-run's without --job, DTS_JOB or PVM_VMID) in the
# subtree t_cg_dir SUFFIX: dts names it jobs/job.USER@LABEL (dts(8), JOBS).
t_job_cg() { echo "$(t_cg_dir "${3:-}")/jobs/job.$1@${2:-pvm}"; }

# t_track_cg DIR: cleanup releases and ends every process in DIR (dts's
# subtree: the gang included) and removes the directories.
t_track_cg() {
	T_CGS+=("$1")
}

# Live processes of every cgroup under $1.
_t_cg_members() {
	[ -d "$1" ] || return 0
	find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null
}

# Normal priority (every thread), thawed, continued, terminated.
_t_release_cg() {
	local p f
	[ -d "$1" ] || return 0
	for p in $(_t_cg_members "$1"); do chrt -a -o -p 0 "$p" >/dev/null 2>&1; done
	while read -r f; do echo 0 > "$f"; done < <(find "$1" -name cgroup.freeze 2>/dev/null)
	for p in $(_t_cg_members "$1"); do
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
	done
}

# Remove DIR and its children, deepest first (only empty cgroups go).
_t_rm_cg() {
	[ -d "$1" ] || return 0
	find "$1" -depth -type d -exec rmdir {} + 2>/dev/null
}

# The mirrors of the cgroup2 DIR in the v1 hierarchies of memory and pids
# (dts bounds each job there on a hybrid host: dts(8), MEMORY), one a line.
_t_cg_v1() {
	local rel=${1#"$(t_cg_mount)"}
	awk '$3 == "cgroup" && $4 ~ /(^|,)(memory|pids)(,|$)/ { print $2 }' \
	    /proc/self/mounts | while read -r m; do echo "$m$rel"; done
}

# ---- a user who owns the parallel job (attacks, least privilege) --------

# t_make_user [--no-group]: an unprivileged user unique to this run;
# T_USER, T_UID (the test fails without useradd or setpriv).  It is
# in the run's group T_GROUP (made here), which the harness's dts.conf
# names in `users`: so dts lets it start a gang.  --no-group: not in it
# (t_join_group puts it there later).  Cleanup ends its processes and
# deletes it, and the group.
t_make_user() {
	t_need useradd passwd
	t_need setpriv util-linux
	_t_make_group
	T_USER=dtst$$
	useradd -M -N -d "$T_HOME" -s /bin/sh "$T_USER" >/dev/null 2>&1 ||
		t_fail "useradd $T_USER failed"
	T_UID=$(id -u "$T_USER")
	chown "$T_USER" "$T_HOME" "$T_TMP"
	[ "${1:-}" = --no-group ] || t_join_group
}

# t_join_group: T_USER into T_GROUP (as `adduser USER dts` does).
t_join_group() {
	usermod -a -G "$T_GROUP" "$T_USER" ||
		t_fail "cannot put $T_USER in group $T_GROUP"
}

_t_make_group() {
	[ -n "$T_GROUP_MADE" ] && return 0
	getent group "$T_GROUP" > /dev/null &&
		t_fail "group $T_GROUP exists already (left by another run?)"
	groupadd "$T_GROUP" || t_fail "groupadd $T_GROUP failed"
	T_GROUP_MADE=1
}

# t_as_user CMD...: run CMD as T_USER with the test's PVM environment.
t_as_user() {
	setpriv --reuid="$T_UID" --regid="$(id -g "$T_USER")" --init-groups \
	    --inh-caps=-all --bounding-set=-all -- \
	    env HOME="$T_HOME" PVM_TMP="$T_TMP" PVM_ROOT=/usr/lib/pvm3 "$@"
}

# t_user_argv: T_USER_ARGV, the command words of t_as_user (setpriv ...
# env ...), for a program that runs another one (setsid, a PREFIX).
t_user_argv() {
	T_USER_ARGV=(setpriv --reuid="$T_UID" --regid="$(id -g "$T_USER")" --init-groups
	    --inh-caps=-all --bounding-set=-all --
	    env HOME="$T_HOME" PVM_TMP="$T_TMP" PVM_ROOT=/usr/lib/pvm3)
}

# t_pub_bin FILE...: copy FILE into $T_DIR/bin (mode 755), where a test
# user can run it even when the build lies under a 0700 directory.
t_pub_bin() {
	local f
	mkdir -p "$T_DIR/bin" && chmod 755 "$T_DIR/bin" || return 1
	for f in "$@"; do
		cp "$f" "$T_DIR/bin/" && chmod 755 "$T_DIR/bin/$(basename "$f")" || return 1
	done
}

_t_user_pids() {
	[ -n "$T_UID" ] || return 0
	ps -eo pid=,uid= | awk -v u="$T_UID" '$2 == u { print $1 }'
}

_t_remove_user() {
	local p
	[ -n "$T_USER" ] || return 0
	for p in $(_t_user_pids); do
		chrt -a -o -p 0 "$p" >/dev/null 2>&1
		kill -CONT "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	for _ in $(seq 40); do [ -z "$(_t_user_pids)" ] && break; sleep 0.05; done
	userdel "$T_USER" >/dev/null 2>&1
}

_t_remove_group() {
	[ -n "$T_GROUP_MADE" ] && groupdel "$T_GROUP" >/dev/null 2>&1
	T_GROUP_MADE=
}

# Wait up to 2 s for everything tracked to end, then SIGKILL the rest.
_t_reap() {
	local p g c left
	for _ in $(seq 40); do
		left=0
		for p in "${T_PIDS[@]}"; do _t_alive "$p" && left=1; done
		for g in "${T_PGS[@]}"; do [ -n "$(_t_pg_members "$g")" ] && left=1; done
		for c in "${T_CGS[@]}"; do [ -n "$(_t_cg_members "$c")" ] && left=1; done
		[ "$left" = 0 ] && return 0
		sleep 0.05
	done
	for p in "${T_PIDS[@]}"; do _t_alive "$p" && kill -KILL "$p" 2>/dev/null; done
	for g in "${T_PGS[@]}"; do
		[ -n "$(_t_pg_members "$g")" ] && kill -KILL -- "-$g" 2>/dev/null
	done
	for c in "${T_CGS[@]}"; do
		for p in $(_t_cg_members "$c"); do kill -KILL "$p" 2>/dev/null; done
	done
	return 0
}

t_cleanup() {
	local rc=$? p g
	[ "$T_CLEANED" = 1 ] && return "$rc"
	T_CLEANED=1
	set +e
	[ -n "$T_SLEEP_PID" ] && kill "$T_SLEEP_PID" 2>/dev/null
	for p in "${T_PIDS[@]}"; do _t_release_pid "$p"; done
	for g in "${T_PGS[@]}"; do _t_release_pg "$g"; done
	for g in "${T_CGS[@]}"; do _t_release_cg "$g"; done
	_t_reap
	_t_remove_user
	_t_remove_group
	for g in "${T_CGS[@]}"; do
		for _ in $(seq 20); do [ -z "$(_t_cg_members "$g")" ] && break; sleep 0.05; done
		_t_rm_cg "$g"
		for p in $(_t_cg_v1 "$g"); do _t_rm_cg "$p"; done
	done
	for p in "${T_PIDS[@]}"; do # reap the ones that are our children
		_t_alive "$p" || wait "$p" 2>/dev/null
	done
	t_zram_off
	_t_passed "$rc" || rc=1
	# mounts the test made below T_DIR (t88's overlay root and its binds,
	# in its own mount namespace): off first, deepest first, or rm -rf
	# meets a busy mount point and leaves T_DIR behind
	if [ -n "$T_DIR" ] && [ "${KEEP:-0}" != 1 ]; then
		awk -v d="$T_DIR/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts |
		    sort -r | while read -r p; do umount -l "$p" 2> /dev/null; done
	fi
	if [ -n "$T_DIR" ] && [ -d "$T_DIR" ]; then
		if [ "${KEEP:-0}" = 1 ]; then
			echo "# kept $T_DIR" >&2
		else
			rm -rf "$T_DIR"
		fi
	fi
	[ -n "$T_RUN" ] && [ "${KEEP:-0}" != 1 ] && rm -rf "$T_RUN"
	# a bench whose correctness held but whose speed goals were MISSED
	# (bench/common.sh's b_done): exit 3, once everything is down
	if [ "$rc" = 0 ] && [ -n "${B_SUMMARY:-}" ]; then
		echo "$B_SUMMARY"
		rc=3
	fi
	return "$rc"
}

# ---- zram swap ------------------------------------------------------------
# t_zram_on SIZE: a zram swap device of the test's own (T_ZRAM: its number),
# at priority 100; 1 (with T_ZRAM_WHY) where the machine has none to give
# (no zram, no device to add), 2 if one would not set up.  t_cleanup
# (t_zram_off) takes it away again: swapoff, reset, hot_remove.
T_ZRAM= T_ZRAM_WHY=
t_zram_on() {
	[ -d /sys/class/zram-control ] || modprobe zram num_devices=0 2> /dev/null
	[ -d /sys/class/zram-control ] || { T_ZRAM_WHY="no zram (modprobe zram failed)"; return 1; }
	T_ZRAM=$(cat /sys/class/zram-control/hot_add) || { T_ZRAM= T_ZRAM_WHY="zram: hot_add failed"; return 1; }
	echo "$1" > "/sys/block/zram$T_ZRAM/disksize" && mkswap "/dev/zram$T_ZRAM" > /dev/null &&
	    swapon -p 100 "/dev/zram$T_ZRAM" && return 0
	T_ZRAM_WHY="zram$T_ZRAM: disksize $1, mkswap or swapon failed"
	t_zram_off
	return 2
}
t_zram_off() {
	[ -n "$T_ZRAM" ] || return 0
	swapoff "/dev/zram$T_ZRAM" 2> /dev/null
	echo 1 > "/sys/block/zram$T_ZRAM/reset" 2> /dev/null
	echo "$T_ZRAM" > /sys/class/zram-control/hot_remove 2> /dev/null
	T_ZRAM=
}

# ---- autogroups -----------------------------------------------------------
# ls_policy idle needs kernel.sched_autogroup_enabled = 0.  t_autogroup_lock
# takes the machine-wide lock that serializes the runs that turn it off (t12,
# t94, t95, bench-idle; waits up to 10 min, else fails) and makes the EXIT
# trap run t_cleanup and then put the sysctl back, even on failure;
# t_autogroups_off then turns autogroups off if they are on (skips if it
# cannot).  Needs flock (util-linux).
T_AG=/proc/sys/kernel/sched_autogroup_enabled
T_AG0=
T_AG_LOCK=
_t_restore_autogroups() { [ -z "$T_AG0" ] || echo "$T_AG0" > "$T_AG"; }

t_autogroup_lock() {
	trap 't_cleanup; rc=$?; _t_restore_autogroups; exit $rc' EXIT
	exec {T_AG_LOCK}> /run/lock/dts-test-autogroup.lock || t_fail "cannot open the lock"
	flock -w 600 "$T_AG_LOCK" || t_fail "another run held the autogroup lock for 10 min"
}

t_autogroups_off() {
	[ "$(cat "$T_AG" 2>/dev/null)" = 1 ] || return 0
	T_AG0=1
	echo 0 > "$T_AG" 2> /dev/null || t_skip "cannot turn autogroups off ($T_AG)"
}

# ---- waiting and inspecting ----------------------------------------------

# _t_now_us [VAR]: microseconds since the epoch (CLOCK_REALTIME, which
# every network namespace shares), printed or, without a fork, into VAR:
# the tests' one clock (node.sh's n_now_us and cluster.sh's _c_now are
# this; t_secs turns two readings into seconds).
_t_now_us() {
	local _t_nu
	if [ -n "${EPOCHREALTIME:-}" ]; then
		_t_nu=${EPOCHREALTIME/[.,]/}
		_t_nu=$((10#$_t_nu))
	else
		_t_nu=$(($(date +%s%N) / 1000))
	fi
	if [ -n "${1:-}" ]; then printf -v "$1" %d "$_t_nu"; else echo "$_t_nu"; fi
}

# t_secs T0_US [T1_US]: the seconds from T0 to T1 (default: now), both
# _t_now_us readings, 2 decimals.
t_secs() {
	awk -v a="$1" -v b="${2:-$(_t_now_us)}" 'BEGIN { printf "%.2f\n", (b - a) / 1e6 }'
}

# "2", "0.5", "1.25" seconds -> microseconds.
_t_secs_to_us() {
	awk -v s="$1" 'BEGIN { printf "%d\n", s * 1000000 }'
}

# t_sleep SECONDS: like sleep, but INT/TERM end the test (and clean up) at
# once; bash runs traps only after a foreground command has finished.
t_sleep() {
	local rc
	sleep "$1" &
	T_SLEEP_PID=$!
	wait "$T_SLEEP_PID" 2>/dev/null
	rc=$?
	T_SLEEP_PID=
	return "$rc"
}

# t_wait_for TIMEOUT_S CMD...: run CMD every 10-90 ms until it succeeds.
# CMD's words are expanded once, by the caller: `t_wait_for 5 test -n
# "$(f)"` tests the one value f gave before the wait.  Wait on a function,
# or on eval '[ -n "$(f)" ]' (run-all.sh's unit stage refuses the first).
t_wait_for() {
	local end
	end=$(($(_t_now_us) + $(_t_secs_to_us "$1")))
	shift
	while :; do
		"$@" && return 0
		[ "$(_t_now_us)" -ge "$end" ] && return 1
		# 10-90 ms at random: polls of a phase must not alias with IP
		# (on a busy machine a poll plus its query can take one IP)
		sleep "0.0$((RANDOM % 9 + 1))"
	done
}

# t_cpu_ticks CPU BUSY ALL [STEAL]: CPU's ticks (10 ms) from /proc/stat
# (CPU "": all CPUs together) into the variables BUSY (user, nice,
# system, irq, softirq), ALL (those, idle and iowait) and STEAL (the time
# the hypervisor ran something else on this virtual CPU: nobody here ran
# then, at any priority, and a task's own CPU time leaves it out, so a
# share is of ALL, never of the wall clock's time; CI saw 4.5 % stolen
# from a gang at 80 % of CPU 1).
t_cpu_ticks() {
	local name u n s i io irq sirq st rest
	while read -r name u n s i io irq sirq st rest; do
		[ "$name" = "cpu$1" ] || continue
		printf -v "$2" %d $((u + n + s + irq + sirq))
		printf -v "$3" %d $((u + n + s + i + io + irq + sirq))
		[ -z "${4:-}" ] || printf -v "$4" %d "$st"
		return 0
	done < /proc/stat
	return 1
}

# t_cpu_clock CPU: microseconds since the epoch less CPU's stolen time so
# far (t_cpu_ticks): the clock that a share of CPU is measured against.
t_cpu_clock() {
	local b a st t=${EPOCHREALTIME/[.,]/}
	t_cpu_ticks "$1" b a st || return 1
	echo $((10#$t - st * 10000))
}

# t_logged PATTERN [FILE]: FILE (dts's log by default) gets a line that
# matches PATTERN within 3 s.  dts writes its log from a thread of its own
# at normal priority (dts(8), Start-up), a little after the event; where
# the gang spins at real-time priority on its CPU, up to a PS later.
t_logged() {
	t_wait_for 3 grep -q -- "$1" "${2:-$T_LOG/dts.log}"
}

# t_cpu_ns PID [VAR]: the CPU time of PID in ns, printed or, without a
# fork, into VAR: the first field of /proc/PID/task/*/schedstat summed
# over its threads (dts has three); or, for a cgroup v2 directory DIR
# (an absolute path) instead of PID, its cpu.stat usage_usec in ns: every
# process that ran in DIR and below, those that ended too.  Status 1 if
# PID (DIR) is gone.  The tests' one reader of a CPU time.
t_cpu_ns() {
	local _t_cn_ns _t_cn_k _t_cn_sum=0 _t_cn_f
	if [ "${1#/}" != "$1" ]; then
		_t_cn_sum=
		while read -r _t_cn_k _t_cn_ns; do
			[ "$_t_cn_k" = usage_usec ] && _t_cn_sum=$((_t_cn_ns * 1000))
		done 2> /dev/null < "$1/cpu.stat"
		[ -n "$_t_cn_sum" ] || return 1
	else
		for _t_cn_f in /proc/"$1"/task/*/schedstat; do
			read -r _t_cn_ns _ 2> /dev/null < "$_t_cn_f" && _t_cn_sum=$((_t_cn_sum + _t_cn_ns))
		done
		[ -e "/proc/$1" ] || return 1
	fi
	if [ -n "${2:-}" ]; then printf -v "$2" %d "$_t_cn_sum"; else echo "$_t_cn_sum"; fi
}

# t_cpu_snap VAR CPU PID...: one snapshot of CPU's ticks and the PIDs'
# CPU time (t_cpu_ns: a PID, or a cgroup v2 directory), with builtins
# only, into the array VAR: (wall_us busy_ticks
# all_ticks ns_of_PID...).  No fork between the reads: on a loaded
# machine a fork can wait a whole PS, and reads spread over it skew a
# share by points.  wall_us is the middle of the reads, less the CPU's
# stolen time so far (t_cpu_ticks; /proc/stat's ticks are 10 ms): a
# share is of the time that the virtual CPU ran.
t_cpu_snap() {
	local -n _t_snap=$1
	local _t_cpu=$2 _t_a _t_b _t_busy _t_all _t_st _t_p _t_sum
	shift 2
	_t_a=${EPOCHREALTIME/[.,]/}
	t_cpu_ticks "$_t_cpu" _t_busy _t_all _t_st || return 1
	_t_snap=(0 "$_t_busy" "$_t_all")
	for _t_p in "$@"; do
		t_cpu_ns "$_t_p" _t_sum || return 1
		_t_snap+=("$_t_sum")
	done
	_t_b=${EPOCHREALTIME/[.,]/}
	_t_snap[0]=$(( (10#$_t_a + 10#$_t_b) / 2 - _t_st * 10000 ))
}

# t_cpu_split CPU SECS HOG GANG PID...: over SECS, shares of CPU's time
# (percent of it, less what the hypervisor stole: t_cpu_snap; 1 decimal):
# each PID's in T_SH[i] (all of them: T_SH_SUM), the hog's own in
# T_SH_HOG, the gang's in T_SH_GANG and the rest of CPU's busy time in T_SH_OTHER (other local
# work: a build, stress-ng, dts, pvmd).  GANG is the jobs' cgroup v2
# directory (dts's jobs/: every process of every job, those the caller
# did not list and those that ended too), or - for the PIDs together.
# The tests' one split of a CPU between a gang and the owner's load
# (node.sh's n_split, cluster.sh's c_host_shares, t114).
t_cpu_split() {
	local cpu=$1 secs=$2 hog=$3 gang=$4 i out rest
	shift 4
	local -a who=("$hog") s0 s1 d
	[ "$gang" = - ] || who+=("$gang")
	who+=("$@")
	t_cpu_snap s0 "$cpu" "${who[@]}" || return 1
	t_sleep "$secs"
	t_cpu_snap s1 "$cpu" "${who[@]}" || return 1
	for i in "${!s0[@]}"; do d[i]=$((s1[i] - s0[i])); done
	out=$(awk -v d="${d[*]}" -v g="$gang" 'BEGIN {
		n = split(d, v, " "); w = v[1] * 10; k = (g == "-") ? 5 : 6
		for (i = k; i <= n; i++) { s = s " " sprintf("%.1f", v[i] / w); sum += v[i] }
		gang = (g == "-") ? sum : v[5]
		o = 100 * v[2] / v[3] - (gang + v[4]) / w
		printf "%.1f %.1f %.1f %.1f%s\n", v[4] / w, gang / w, (o > 0 ? o : 0), sum / w, s }')
	read -r T_SH_HOG T_SH_GANG T_SH_OTHER T_SH_SUM rest <<< "$out"
	read -ra T_SH <<< "$rest"
}

# t_stats: numbers on stdin -> "n p50 p99 max mean" (their unit; nearest
# rank: the smallest value with at least that fraction at or below it;
# "0 nan nan nan nan" for none).  The tests' one percentile.
t_stats() {
	sort -g | awk '{ v[NR] = $1; s += $1 }
	END {
		if (NR == 0) { print "0 nan nan nan nan"; exit }
		i50 = int(NR * 0.50); if (i50 < NR * 0.50) i50++
		i99 = int(NR * 0.99); if (i99 < NR * 0.99) i99++
		printf "%d %.6g %.6g %.6g %.6g\n", NR, v[i50], v[i99], v[NR], s / NR
	}'
}

# t_run_demo SCRIPT: tests/SCRIPT (a README demo) run as a new user would,
# on CPU 1 where there are two, without waiting for the lock check.sh
# holds; its output in T_DEMO_OUT (and the test's log); fails if it did.
t_run_demo() {
	local rc
	local -a pin=()
	[ "$(nproc)" -ge 2 ] && pin=(taskset -c 1)
	T_DEMO_OUT=$(DTS_DEMO_LOCKED=1 "${pin[@]}" bash "$SRC/tests/$1" "$BUILD" 2>&1)
	rc=$?
	echo "$T_DEMO_OUT" | sed 's/^/# /'
	[ "$rc" = 0 ] || t_fail "the demo exited $rc: $(grep -m1 '^FAIL' <<< "$T_DEMO_OUT")"
}

# t_shares_ok JOB... -- HOG SLOT LS: what the README says of the demo's
# shares (percent of a CPU): each JOB's within 3 points of its SLOT, the
# hog's own at least LS - 2 points.  Status 1 if not, with T_SHARES_WHY.
# tests/demo.sh asserts it and t99 again on what the demo printed.
t_shares_ok() {
	local j bad=
	local -a jobs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do jobs+=("$1"); shift; done
	shift
	for j in "${jobs[@]}"; do
		awk -v s="$j" -v w="$2" 'BEGIN { exit !(s >= w - 3 && s <= w + 3) }' ||
		    bad="$bad a job got $j%, not its slot's $2% (+-3);"
	done
	awk -v h="$1" -v l="$3" 'BEGIN { exit !(h >= l - 2) }' ||
	    bad="$bad the hog got $1%, not the LS's $3% less 2 at least;"
	T_SHARES_WHY=${bad# }
	[ -z "$bad" ]
}

# State letter (R, S, T, Z, ...) from /proc/PID/stat.
t_proc_state() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	echo "${s%% *}"
}

# A process's identity, PID:START (start time, field 22 of /proc/PID/stat):
# pid_max is 32768 here, so a PID recorded now may be someone else's later;
# that process has another START.
t_proc_id() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	set -- "$1" ${s##*) }
	echo "$1:${21}"
}

# t_id_alive PID:START: does that very process still live (not a zombie)?
t_id_alive() {
	[ "$(t_proc_id "${1%%:*}")" = "$1" ] && [ "$(t_proc_state "${1%%:*}")" != Z ]
}

# The real-time priority of PID (0 if not real-time, empty if gone):
# /proc/PID/stat's 40th field, with builtins.
t_rtprio() {
	local s f
	read -r s 2> /dev/null < "/proc/$1/stat" || return 0
	read -ra f <<< "${s##*) }"
	echo "${f[37]:-}"
}

# t_joined_fast WHO CMD...: CMD runs `dts-pvmctl ... joined`; it must say
# the task ran in the gang at RR within 200 ms of enrolling (IP 100 ms),
# in one of 3 tries (a busy machine may delay one).
t_joined_fast() {
	local who=$1 out ms try
	shift
	for try in 1 2 3; do
		out=$("$@" 2>&1) || t_fail "$who: joined: $out"
		ms=$(sed -n 's/^joined_ms=\([0-9.]*\) .*/\1/p' <<< "$out")
		grep -q " policy=RR$" <<< "$out" || t_fail "$who: joined, but at $out"
		t_log "$who: a task from a shell ran in the gang $ms ms after enrolling"
		awk -v m="$ms" 'BEGIN { exit !(m < 200) }' && return 0
	done
	t_fail "$who: joined only $ms ms after enrolling (IP 100 ms), 3 times"
}

# Scheduling class as ps(1) names it: TS, FF, RR, B, IDL, DLN; empty if
# the process is gone.  Read from /proc/PID/stat (its 41st field) with
# shell builtins, no fork: a check of two processes within one short PS
# must not take a PS's worth of time on a busy machine.
t_policy() {
	local s f
	read -r s 2> /dev/null < "/proc/$1/stat" || return 0
	read -ra f <<< "${s##*) }"	# fields 3.. (comm may hold spaces)
	case "${f[38]:-}" in
	0) echo TS ;; 1) echo FF ;; 2) echo RR ;; 3) echo B ;; 5) echo IDL ;;
	6) echo DLN ;; *) echo "${f[38]:-}" ;;
	esac
}

# ---- files ---------------------------------------------------------------

# A DTS key file: 64 hexadecimal digits, mode 600.
t_keygen() {
	(umask 077 &&
		od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$1" &&
		echo >> "$1") || return 1
	chmod 600 "$1"
}

# t_keys DIR: a test cluster's keys in DIR (kept if there): nodes.key, the
# consoles' secret every node's key derives from (console.node_secret);
# console.key, a console's key pair (console.sign_key), and console.pub,
# its public key (the nodes' console_keys).
t_keys() {
	[ -f "$1/nodes.key" ] || t_keygen "$1/nodes.key" || return 1
	[ -f "$1/console.key" ] ||
	    "$BUILD/console/dts-console" -k "$1/console.key" > "$1/console.pub" ||
	    return 1
}

# t_nodekey SECRET ADDR FILE: the key of the node at ADDR (its key_file),
# as an administrator makes it: dts-console -N with SECRET as its
# console.node_secret.
t_nodekey() {
	local conf=$3.conf
	printf 'console = { node_secret = "%s"; };\n' "$1" > "$conf" &&
	    (umask 077 && "$BUILD/console/dts-console" -f "$conf" -N "$2" > "$3") &&
	    rm -f "$conf"
}

# t_conf FILE [-H COMMENT] [-d KEY=VALUE]... [KEY=VALUE]... [-x TEXT]...:
# the one writer of a test's libconfig file (node.sh's n_conf and
# cluster.sh's _c_write_conf call it with their defaults).  It writes, in
# this order: "# COMMENT"; each default (-d, in the order given) as
# "KEY = VALUE;" unless a KEY=VALUE or a TEXT sets KEY; each KEY=VALUE
# (in the order given; a KEY given again keeps its first place and takes
# the last VALUE); each TEXT that is not empty, verbatim (any libconfig,
# "a = 1; b = 2;" or groups).  Keys and values lose the blanks around
# them; values are otherwise verbatim: quote strings yourself
# (name='"x"').  A bad argument: nothing written, status 1.
t_conf() {
	local file=${1:-} opt arg i j text head=
	local -a dk=() dv=() kk=() kv=() xt=()
	[ -n "$file" ] || { echo "t_conf: FILE missing" >&2; return 1; }
	shift
	while [ $# -gt 0 ]; do
		opt=
		case $1 in
		-H | -d | -x)
			[ $# -ge 2 ] || { echo "t_conf: $1 needs an argument" >&2; return 1; }
			opt=$1
			shift ;;
		esac
		arg=$1
		shift
		case $opt in
		-H) head=$arg; continue ;;
		-x) xt+=("$arg"); continue ;;
		esac
		_t_conf_kv "$arg" || return 1
		if [ "$opt" = -d ]; then
			dk+=("$_T_K") dv+=("$_T_V")
			continue
		fi
		i=${#kk[@]}
		for j in "${!kk[@]}"; do [ "${kk[$j]}" = "$_T_K" ] && i=$j; done
		kk[i]=$_T_K kv[i]=$_T_V
	done
	text=$(printf '%s\n' "${xt[@]}" | tr ';' '\n')
	{
		[ -z "$head" ] || printf '# %s\n' "$head"
		for i in "${!dk[@]}"; do
			for j in "${kk[@]}"; do [ "$j" = "${dk[$i]}" ] && continue 2; done
			grep -qE "^[[:space:]]*${dk[$i]}[[:space:]]*[=:]" <<< "$text" &&
			    continue
			printf '%s = %s;\n' "${dk[$i]}" "${dv[$i]}"
		done
		for i in "${!kk[@]}"; do printf '%s = %s;\n' "${kk[$i]}" "${kv[$i]}"; done
		for arg in "${xt[@]}"; do [ -z "$arg" ] || printf '%s\n' "$arg"; done
	} > "$file"
}

# _t_conf_kv KEY=VALUE: _T_K and _T_V, without the blanks around them.
_t_conf_kv() {
	local k v
	case $1 in
	?*=*) ;;
	*) echo "t_conf: not KEY=VALUE: $1" >&2; return 1 ;;
	esac
	k=${1%%=*} v=${1#*=}
	k=${k#"${k%%[![:space:]]*}"} k=${k%"${k##*[![:space:]]}"}
	v=${v#"${v%%[![:space:]]*}"} v=${v%"${v##*[![:space:]]}"}
	[ -n "$k" ] || { echo "t_conf: no KEY in: $1" >&2; return 1; }
	_T_K=$k _T_V=$v
}

# t_bg NAME CMD...: start CMD in the background, output to $T_LOG/NAME.log,
# track it; sets T_BG_PID.
t_bg() {
	local name=$1
	shift
	"$@" > "$T_LOG/$name.log" 2>&1 &
	T_BG_PID=$!
	t_track "$T_BG_PID"
}

# t_udp_drops PORT [RUNNER...]: how many datagrams the kernel dropped at
# the full buffers of the UDP sockets bound to PORT (/proc/net/udp of the
# network namespace RUNNER runs in: c_exec hK on a cluster host).
t_udp_drops() {
	local port=$1
	shift
	"$@" awk -v p=":$(printf '%04X' "$port")" \
	    'substr($2, length($2) - 4) == p { d += $NF } END { print d + 0 }' /proc/net/udp
}

# t_udp_queued PORT [RUNNER...]: bytes waiting in the receive queues of
# the UDP sockets bound to PORT (0: the receiver has read everything sent
# to it so far), as t_udp_drops.
t_udp_queued() {
	local port=$1
	shift
	"$@" awk -v p=":$(printf '%04X' "$port")" '
	    function hex(s,  i, v) {	# mawk has no strtonum
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789ABCDEF", substr(s, i, 1)) - 1
		return v
	    }
	    substr($2, length($2) - 4) == p { split($5, q, ":"); n += hex(q[2]) }
	    END { print n + 0 }' /proc/net/udp
}

# t_udp_drained TIMEOUT_S PORT [RUNNER...]: wait until every datagram sent
# to PORT so far has been read by its receiver or dropped by the kernel
# (then a count of them is final, whatever the load on the machine).
t_udp_drained() {
	local secs=$1
	shift
	t_wait_for "$secs" _t_udp_empty "$@"
}
_t_udp_empty() { [ "$(t_udp_queued "$@")" = 0 ]; }
