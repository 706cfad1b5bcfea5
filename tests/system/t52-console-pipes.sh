#!/bin/bash
# A console that scripts can call: `dts-console -c ... 2>&1 | tail` and
# `$(dts-console -c ... 2>&1)` return when the console exits, whether the
# console starts the master pvmd or finds it running.  A daemon it starts
# (pvmd through the launch script, dts-run's dts-pvmjoin) must hold none
# of the console's descriptors: a pipe held open by pvmd keeps `tail` and
# `$(...)` waiting for as long as the VM runs.  Checked twice: the shell
# constructs come back (within 30 s), and no process of the gang has an
# fd on the pipe the console wrote to.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup console-pipes
CON=$BUILD/console/dts-console
t_need_built "$CON"

LAUNCHER=$T_DIR/bin/pvmd-dts
mkdir -p "$T_DIR/bin" && chmod 755 "$T_DIR/bin"
n_conf
printf '#!/bin/sh\nDTS_SOCKET=%s exec %s --pvmd -- "$@"\n' "$N_SOCK" "$BUILD/run/dts-run" > "$LAUNCHER"
chmod 755 "$LAUNCHER"
n_conf mode='"static"' ip='"100ms"' ps='"50%"' si='"2s"' \
    console="{ nodes = [\"127.0.0.1\"]; launcher = \"$LAUNCHER\"; history = \"\"; status_wait = \"300ms\"; sign_key = \"$N_SIGN\"; node_secret = \"$N_SECRET\"; }"
n_start_dts
SPIN=$BUILD/tests/pvm/spin

# held PIPE_INODE: the gang members (and their helpers) holding that pipe
held() {
	local p fd
	for p in $(n_gang_pids) $(pgrep -f dts-pvmjoin); do
		for fd in /proc/"$p"/fd/*; do
			[ "$(readlink "$fd" 2> /dev/null)" = "pipe:[$1]" ] && echo "$p"
		done
	done | sort -u
}
# run_pipe NAME CMDS: dts-console -c CMDS 2>&1 | tail -2, in a shell that
# records the pipe's inode; fails if it does not come back in 30 s
run_pipe() {
	local out rc
	out=$(timeout 30 bash -c '
		readlink /proc/$$/fd/1 > "$1.pipe"
		"$2" -f "$3" -c "$4" 2>&1 < /dev/null
	' sh "$T_DIR/$1" "$CON" "$N_CONF" "$2" | tail -n 2)
	rc=${PIPESTATUS[0]}
	[ "$rc" != 124 ] || t_fail "$1: dts-console ... | tail did not return in 30 s"
	[ "$rc" = 0 ] || t_fail "$1: dts-console failed ($rc): $out"
	t_log "$1: returned; last line: $(tail -n 1 <<< "$out")"
}
run_subst() {
	local out rc
	out=$(timeout 30 bash -c '
		readlink /proc/$$/fd/1 > "$1.pipe"
		"$2" -f "$3" -c "$4" 2>&1 < /dev/null
	' sh "$T_DIR/$1" "$CON" "$N_CONF" "$2")
	rc=$?
	[ "$rc" != 124 ] || t_fail "$1: \$(dts-console ...) did not return in 30 s"
	[ "$rc" = 0 ] || t_fail "$1: dts-console failed ($rc): $out"
	t_log "$1: returned; last line: $(tail -n 1 <<< "$out")"
}
check_fds() {
	local ino h
	ino=$(sed -n 's/^pipe:\[\([0-9]*\)\]$/\1/p' "$T_DIR/$1.pipe")
	[ -n "$ino" ] || t_fail "$1: the console's output was no pipe ($(cat "$T_DIR/$1.pipe"))"
	h=$(held "$ino")
	[ -z "$h" ] || t_fail "$1: the console's pipe is held by: $(for p in $h; do
		echo "$p($(cat /proc/"$p"/comm 2> /dev/null))"; done)"
}

# 1. through a pipe, the console starting the master; 2. the same inside
# $(...); then both again with the master running
run_pipe pipe-start "mode static; start; spawn $SPIN 0"
n_has_task spin || t_fail "pipe-start: no spin task in the gang"
check_fds pipe-start
run_subst subst-running "status; spawn $SPIN 0"
check_fds subst-running
run_subst halt "halt"
t_wait_for 10 n_gang_empty || t_fail "halt left the gang: $(n_gang_pids)"
run_subst subst-start "mode static; start; spawn $SPIN 0"
check_fds subst-start
run_pipe pipe-running "status"
check_fds pipe-running
run_subst halt2 "halt; stop"
t_wait_for 10 n_gang_empty || t_fail "halt left the gang: $(n_gang_pids)"
# released (stop): not even the empty gang is frozen any more
t_wait_for 5 n_no_leftovers || t_fail "left behind after halt and stop"
t_pass "the console returns through a pipe and \$(...), its daemons hold none of its fds"
