#!/bin/bash
# No service, no PVM? (dts.conf(5), no_service; dts-run(1)) The launch
# script (run/pvmd.in, exec dts-run --pvmd) with no dts on the node,
# started as a PVM user starts pvmd, with a private PVM_TMP:
#  1. no_service = "run" (the default; the config here does not set it,
#     then sets it): a real pvmd starts and prints its
#     socket path as PVM expects; its stderr has one line that says DTS
#     is not running and the job is not coscheduled; it runs outside any
#     gang, at SCHED_OTHER, without DTS_STATE.  The same for a socket
#     left by a dts that died (nobody accepts on it).
#  2. no_service = "refuse": the script exits 126 at once with one line
#     naming DTS and no_service; no pvmd starts.
#  3. An unreadable dts.conf (0600): refused too, saying why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup no-service
t_make_user
t_pub_bin "$BUILD/run/dts-run" "$BUILD/tests/pvm/dts-pvmctl" || t_fail "t_pub_bin"
sed "s|^exec .*/dts-run |exec $T_DIR/bin/dts-run |" "$BUILD/run/pvmd" > "$T_DIR/bin/pvmd"
chmod 755 "$T_DIR/bin/pvmd"
grep -q "^exec $T_DIR/bin/dts-run --pvmd -- \"\$@\"$" "$T_DIR/bin/pvmd" ||
	t_fail "the launch script: $(grep exec "$T_DIR/bin/pvmd")"
t_user_argv

# launch: the launch script as the user, in the background; L_PID
launch() {
	: > "$T_LOG/pvmd.out"
	: > "$T_LOG/pvmd.err"
	DTS_SOCKET=$N_SOCK DTS_CONF=$N_CONF DTS_STATE=/stale/state \
	    setsid "${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" DTS_CONF="$N_CONF" \
	    DTS_STATE=/stale/state "$T_DIR/bin/pvmd" \
	    > "$T_LOG/pvmd.out" 2> "$T_LOG/pvmd.err" &
	L_PID=$!
	t_track "$L_PID"
}
no_pvmd_files() { [ -z "$(ls "$T_TMP" 2> /dev/null)" ]; }

# ---- 1. run --------------------------------------------------------------
for how in missing dead; do
	if [ "$how" = missing ]; then n_conf; else n_conf no_service='"run"'; fi	# the default, and said
	if [ "$how" = dead ]; then	# a socket file nobody accepts on
		python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1])' "$N_SOCK" ||
			t_fail "cannot leave a dead socket at $N_SOCK"
		chmod 666 "$N_SOCK"	# as dts makes it
	fi
	launch
	t_wait_for 10 grep -q pvmtmp "$T_LOG/pvmd.out" ||
		t_fail "$how socket: no pvmd started: $(cat "$T_LOG/pvmd.err")"
	[ "$(wc -l < "$T_LOG/pvmd.err")" = 1 ] &&
	    grep -q "^dts-run: DTS is not running on this node .*: pvmd runs unmanaged, at normal priority, not coscheduled" "$T_LOG/pvmd.err" ||
		t_fail "$how socket: pvmd's stderr: '$(cat "$T_LOG/pvmd.err")'"
	exe=$(readlink "/proc/$L_PID/exe")
	[ "$(basename "$exe")" = pvmd3 ] || [ "$(basename "$exe")" = pvmd ] ||
		t_fail "$how socket: pid $L_PID runs $exe, not pvmd"
	[ "$(stat -c %u "/proc/$L_PID")" = "$T_UID" ] || t_fail "pvmd is not the user's"
	[ "$(t_policy "$L_PID")" = TS ] || t_fail "pvmd runs at $(t_policy "$L_PID")"
	grep -q '/dts' "/proc/$L_PID/cgroup" && t_fail "pvmd is in a dts cgroup: $(cat "/proc/$L_PID/cgroup")"
	tr '\0' '\n' < "/proc/$L_PID/environ" | grep -q '^DTS_STATE=' &&
		t_fail "the unmanaged pvmd has a DTS_STATE"
	t_log "$how socket: pvmd $L_PID ($exe) runs, SCHED_OTHER; stderr: $(cat "$T_LOG/pvmd.err")"
	"${T_USER_ARGV[@]}" "$T_DIR/bin/dts-pvmctl" -T 10 halt > /dev/null 2>&1
	t_wait_for 10 _n_gone "$L_PID" || t_fail "pvmd did not halt"
	wait "$L_PID" 2> /dev/null
	t_untrack "$L_PID"
	rm -f "$N_SOCK"
	rm -rf "${T_TMP:?}"/*
done

# ---- 2. refuse -------------------------------------------------------------
n_conf no_service='"refuse"'
launch
t_wait_for 5 _n_gone "$L_PID" || t_fail "refuse: the launch script is still running"
wait "$L_PID"
rc=$?
t_untrack "$L_PID"
[ "$rc" = 126 ] || t_fail "refuse: exit status $rc (want 126)"
[ "$(wc -l < "$T_LOG/pvmd.err")" = 1 ] &&
    grep -q "^dts-run: DTS is not running on this node .*: pvmd not started (dts.conf: no_service = \"refuse\"" "$T_LOG/pvmd.err" ||
	t_fail "refuse: stderr '$(cat "$T_LOG/pvmd.err")'"
[ ! -s "$T_LOG/pvmd.out" ] && no_pvmd_files ||
	t_fail "refuse: a pvmd started: $(cat "$T_LOG/pvmd.out"; ls "$T_TMP")"
t_log "refuse: exit 126: $(cat "$T_LOG/pvmd.err")"

# ---- 3. a dts.conf the user cannot read -------------------------------------
n_conf
chmod 600 "$N_CONF"
launch
t_wait_for 5 _n_gone "$L_PID" || t_fail "unreadable: the launch script is still running"
wait "$L_PID"
rc=$?
t_untrack "$L_PID"
[ "$rc" = 126 ] && grep -q "cannot say whether pvmd may run without it: .*$N_CONF" "$T_LOG/pvmd.err" ||
	t_fail "unreadable dts.conf: exit status $rc, stderr '$(cat "$T_LOG/pvmd.err")'"
no_pvmd_files || t_fail "unreadable dts.conf: a pvmd started"
t_log "unreadable dts.conf: exit 126: $(cat "$T_LOG/pvmd.err")"
t_pass
