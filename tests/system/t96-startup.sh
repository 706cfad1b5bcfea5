#!/bin/bash
# dts -d (dts(8), OPTIONS): the shell learns whether the node started.
#  1. A good start: dts -d exits 0 with nothing on stderr, and by the
#     time it returns the node slices: the state file and STATUS both
#     say PS or LS, and dts-load runs.
#  2. A second dts -d beside it (same port, state file, socket): exit
#     status 1 and the reason on stderr, one "dts: " line; the first one
#     still slices.
#  3. A config that dts -n accepts but that fails after the fork (a log
#     file in a directory that does not exist): status 1, the reason on
#     stderr naming the file; a config that is plainly wrong: status 1,
#     the key named.  Neither leaves a dts running.
#  4. Under systemd (dts.service, Type=notify): dts in the foreground
#     with NOTIFY_SOCKET sends READY=1 once, and when it arrives the state
#     file says PS or LS already.  (A socket of this test plays systemd.)
# The daemon is found by PID (/proc: our build's dts with this run's
# config), tracked, and stopped with SIGTERM; its cgroup subtree is
# tracked too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup startup

n_conf mode='"static"' ip='"100ms"' ps='"50%"'
t_track_cg "$N_CG"
dts=$BUILD/dts/dts

# daemons CONF: PIDs of our dts processes running with CONF (not dts-load)
daemons() {
	local d exe
	for d in /proc/[0-9]*; do
		exe=$(readlink "$d/exe" 2> /dev/null) || continue
		[ "$exe" = "$(readlink -f "$dts")" ] || continue
		tr '\0' ' ' < "$d/cmdline" 2> /dev/null | grep -qF -- "-f $1 " &&
		    echo "${d#/proc/}"
	done
}

# 1. a good start
"$dts" -d -f "$N_CONF" > "$T_LOG/d1.out" 2> "$T_LOG/d1.err"
rc=$?
# at once, before any wait: the node must slice already
phase=$(sed -n 's/^phase *\([A-Za-z]*\).*/\1/p' "$N_STATE" 2> /dev/null)
pids=$(daemons "$N_CONF")
for p in $pids; do t_track "$p"; done
[ "$rc" = 0 ] || t_fail "dts -d: exit status $rc: $(cat "$T_LOG/d1.err")"
[ ! -s "$T_LOG/d1.err" ] && [ ! -s "$T_LOG/d1.out" ] ||
	t_fail "dts -d printed: $(cat "$T_LOG/d1.out" "$T_LOG/d1.err")"
case $phase in
PS | LS) ;;
*) t_fail "dts -d returned, but the state file says phase '$phase'" ;;
esac
[ "$(wc -w <<< "$pids")" = 1 ] || t_fail "not one dts running: '$pids'"
N_DTS=$pids
st=$(n_status phase) || t_fail "the node does not answer STATUS"
case $st in PS | LS) ;; *) t_fail "STATUS phase '$st'" ;; esac
[ -n "$(_n_child_named "$N_DTS" dts-load)" ] || t_fail "no dts-load beside dts"
t_log "dts -d: exit 0, silent; on return the state file said $phase, STATUS $st"

# 2. a second one beside it (it says why in the log too)
t_expect_log "dts\[[0-9]+\] err: another dts is running \(it answers on $N_SOCK\)"
"$dts" -d -f "$N_CONF" > "$T_LOG/d2.out" 2> "$T_LOG/d2.err"
rc=$?
[ "$rc" = 1 ] || t_fail "a second dts -d: exit status $rc (want 1): $(cat "$T_LOG/d2.err")"
[ "$(wc -l < "$T_LOG/d2.err")" = 1 ] && grep -q '^dts: .' "$T_LOG/d2.err" ||
	t_fail "a second dts -d: stderr is not one reason: '$(cat "$T_LOG/d2.err")'"
t_log "second dts -d: exit 1: $(cat "$T_LOG/d2.err")"
t_wait_for 5 eval '[ "$(daemons "$N_CONF")" = "$N_DTS" ]' ||
	t_fail "the second dts -d is still running: $(daemons "$N_CONF")"
st=$(n_status phase) && case $st in PS | LS) ;; *) false ;; esac ||
	t_fail "the first dts no longer slices: STATUS phase '$st'"

# 3. start-up failures after the fork, and before it
bad=$T_DIR/bad.conf
sed -e "/^log_file/d" -e "/^port/d" -e "/^socket/d" -e "/^state_file/d" \
    -e "/^cgroup/d" "$N_CONF" > "$bad"
printf '%s\n' "log_file = \"$T_DIR/nosuchdir/dts.log\";" "port = $((N_PORT + 1));" \
    "socket = \"$T_DIR/bad.sock\";" "state_file = \"$T_RUN/bad.state\";" \
    "cgroup = \"$(t_cg_name bad)\";" >> "$bad"
t_track_cg "$(t_cg_dir bad)"
"$dts" -n -f "$bad" > /dev/null 2>&1 || t_fail "dts -n rejects $bad: $("$dts" -n -f "$bad" 2>&1)"
"$dts" -d -f "$bad" > "$T_LOG/d3.out" 2> "$T_LOG/d3.err"
rc=$?
[ "$rc" = 1 ] || t_fail "dts -d with a log file it cannot open: exit status $rc"
grep -q "^dts: .*$T_DIR/nosuchdir/dts.log" "$T_LOG/d3.err" ||
	t_fail "dts -d, bad log file: stderr '$(cat "$T_LOG/d3.err")'"
t_log "bad log_file: exit 1: $(cat "$T_LOG/d3.err")"
sed -i '/^mode/d' "$bad" && printf 'mode = "sometimes";\n' >> "$bad"
"$dts" -d -f "$bad" > "$T_LOG/d4.out" 2> "$T_LOG/d4.err"
rc=$?
[ "$rc" = 1 ] && grep -q "^dts: .*mode" "$T_LOG/d4.err" ||
	t_fail "dts -d, bad mode: exit status $rc, stderr '$(cat "$T_LOG/d4.err")'"
t_log "bad mode: exit 1: $(cat "$T_LOG/d4.err")"
left=$(daemons "$bad")
[ -z "$left" ] || { for p in $left; do t_track "$p"; done; t_fail "a failed dts -d left dts $left running"; }

# the daemon ends on SIGTERM, releasing the gang
kill -TERM "$N_DTS"
t_wait_for 10 _n_gone "$N_DTS" || t_fail "dts -d's daemon did not end on SIGTERM"
t_untrack "$N_DTS"
N_DTS=

# 4. READY=1 for systemd, once the node slices
command -v python3 > /dev/null || t_skip "needs python3 (plays systemd's notify socket)"
t_wait_for 5 eval '! grep -q "^phase *[PL]S" "$N_STATE"' || t_fail "the state file still says slicing"
python3 - "$T_DIR/notify.sock" "$N_STATE" > "$T_LOG/notify.out" 2>&1 <<'PY' &
import socket, sys, re
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(15)
msg = s.recv(4096).decode()
m = re.search(r"^phase +(\S+)", open(sys.argv[2]).read(), re.M)
print("msg=%s phase=%s" % (msg.replace("\n", "|"), m.group(1) if m else "?"))
s.settimeout(1)
try:
    print("again=" + s.recv(4096).decode())
except socket.timeout:
    pass
PY
py=$!
t_track "$py"
t_wait_for 5 test -S "$T_DIR/notify.sock" || t_fail "no notify socket"
NOTIFY_SOCKET=$T_DIR/notify.sock "$dts" -f "$N_CONF" > "$T_LOG/dts.out" 2> "$T_LOG/dts.err" &
N_DTS=$!
t_track "$N_DTS"
t_wait_for 20 _n_gone "$py" || t_fail "the notify socket got nothing"
wait "$py"
t_untrack "$py"
[ "$(wc -l < "$T_LOG/notify.out")" = 1 ] &&
    grep -Eqx "msg=READY=1 phase=(PS|LS)" "$T_LOG/notify.out" ||
	t_fail "systemd was told: $(cat "$T_LOG/notify.out")"
t_log "NOTIFY_SOCKET: $(cat "$T_LOG/notify.out")"
kill -TERM "$N_DTS"
n_wait_exit || t_fail "dts did not end on SIGTERM"
[ "$N_RC" = 0 ] || t_fail "dts exited $N_RC"
t_pass
