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
#  5. No local user keeps dts from starting (dts(8) SECURITY, "Taking the
#     control port first").  A test user binds the default port (476,
#     as dts -n -v says) on 0.0.0.0 and 127.0.0.1 (SO_REUSEPORT set):
#     refused, before dts
#     starts and while it runs; dts starts on it, answers STATUS there and
#     logs no warning about the port.  The old squat on a port a user may
#     bind (this run's N_PORT, >= 1024): the user's socket first, then
#     dts -d exits 1 with one line, "control socket 0.0.0.0:N: Address
#     already in use"; once the user's socket is gone dts starts there,
#     with its one warning line that a local user could take the port.
# The daemon is found by PID (/proc: our build's dts with this run's
# config), tracked, and stopped with SIGTERM; its cgroup subtree is
# tracked too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup startup

n_conf mode='"static"' ip='"100ms"' ps='"50%"'
t_track_cg "$N_CG"
dts=$BUILD/dts/dts

# daemons CONF: PIDs of our dts processes running with CONF (not dts-load,
# nor dts-oom, a fork of dts that dies with it: dts(8) MEMORY)
daemons() {
	local d exe
	for d in /proc/[0-9]*; do
		exe=$(readlink "$d/exe" 2> /dev/null) || continue
		[ "$exe" = "$(readlink -f "$dts")" ] || continue
		[ "$(cat "$d/comm" 2> /dev/null)" = dts-oom ] && continue
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
t_need python3 python3
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

# 5. the control port against a local user
t_make_user
t_user_argv
squat() {	# squat ADDR PORT OUT: the test user binds ADDR:PORT, and holds it
	"${T_USER_ARGV[@]}" python3 - "$1" "$2" > "$3" 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError as e:
    print("refused: %s" % e.strerror, flush=True)
    sys.exit(0)
print("bound", flush=True)
time.sleep(300)
PY
	SQUAT=$!
	t_track "$SQUAT"
	t_wait_for 10 test -s "$3" || t_fail "the user's bind of $1:$2 said nothing"
}
def=$T_DIR/default-port.conf
sed -e "/^port/d" "$N_CONF" > "$def"
DP=$("$dts" -n -v -f "$def" | sed -n 's/^port = \([0-9]*\);$/\1/p')
[ -n "$DP" ] || t_fail "dts -n -v prints no port"
start=$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start 2> /dev/null || echo 1024)
[ "$start" -gt 477 ] || t_fail "net.ipv4.ip_unprivileged_port_start is $start: every user may bind $DP"
! grep -q "^ *[0-9]*: [0-9A-F]*:$(printf %04X "$DP") " /proc/net/udp ||
	t_fail "UDP port $DP is taken on this machine already"
for a in 0.0.0.0 127.0.0.1; do
	squat "$a" "$DP" "$T_LOG/squat-$a.out"
	grep -qx "refused: Permission denied" "$T_LOG/squat-$a.out" ||
		t_fail "the user's bind of the default port, $a:$DP: $(cat "$T_LOG/squat-$a.out")"
	t_wait_for 5 _n_gone "$SQUAT"
	t_untrack "$SQUAT"
done
log0=$(wc -l < "$T_LOG/dts.log")
"$dts" -d -f "$def" > "$T_LOG/d5.out" 2> "$T_LOG/d5.err"
rc=$?
N_DTS=$(daemons "$def")
for p in $N_DTS; do t_track "$p"; done
[ "$rc" = 0 ] || t_fail "dts -d on port $DP: exit status $rc: $(cat "$T_LOG/d5.err")"
st=$(N_PORT=$DP n_status phase) && case $st in PS | LS) ;; *) false ;; esac ||
	t_fail "dts on port $DP: STATUS phase '$st'"
squat 0.0.0.0 "$DP" "$T_LOG/squat-live.out"
grep -qx "refused: Permission denied" "$T_LOG/squat-live.out" ||
	t_fail "the user's bind of $DP beside dts: $(cat "$T_LOG/squat-live.out")"
t_untrack "$SQUAT"
tail -n +$((log0 + 1)) "$T_LOG/dts.log" | grep -q "ready: jobs in" ||
	t_fail "dts on port $DP: no 'ready' line in its log"
! tail -n +$((log0 + 1)) "$T_LOG/dts.log" | grep "any local user may bind" ||
	t_fail "dts on port $DP warns that a local user may bind it"
t_log "default port $DP: the user's binds refused ($(cat "$T_LOG/squat-live.out")); dts started, STATUS phase $st"
kill -TERM "$N_DTS"
t_wait_for 10 _n_gone "$N_DTS" || t_fail "dts on port $DP did not end on SIGTERM"
t_untrack "$N_DTS"
N_DTS=

squat 0.0.0.0 "$N_PORT" "$T_LOG/squat-high.out"
grep -qx bound "$T_LOG/squat-high.out" ||
	t_fail "the user could not bind $N_PORT: $(cat "$T_LOG/squat-high.out")"
t_expect_log "dts\[[0-9]+\] err: control socket 0\.0\.0\.0:$N_PORT: Address already in use"
"$dts" -d -f "$N_CONF" > "$T_LOG/d6.out" 2> "$T_LOG/d6.err"
rc=$?
[ "$rc" = 1 ] || t_fail "dts -d beside the user's socket: exit status $rc (want 1)"
[ "$(cat "$T_LOG/d6.err")" = "dts: control socket 0.0.0.0:$N_PORT: Address already in use" ] ||
	t_fail "dts -d beside the user's socket: stderr '$(cat "$T_LOG/d6.err")'"
[ -z "$(daemons "$N_CONF")" ] || t_fail "a failed dts -d left dts running"
kill -TERM "$SQUAT"
t_wait_for 5 _n_gone "$SQUAT" || t_fail "the user's socket did not end"
t_untrack "$SQUAT"
log0=$(wc -l < "$T_LOG/dts.log")
"$dts" -d -f "$N_CONF" > "$T_LOG/d7.out" 2> "$T_LOG/d7.err"
rc=$?
N_DTS=$(daemons "$N_CONF")
for p in $N_DTS; do t_track "$p"; done
[ "$rc" = 0 ] || t_fail "dts -d on $N_PORT once free: exit status $rc: $(cat "$T_LOG/d7.err")"
warn=$(tail -n +$((log0 + 1)) "$T_LOG/dts.log" | grep "warn: port $N_PORT: any local user may bind this port")
[ "$(grep -c . <<< "$warn")" = 1 ] ||
	t_fail "dts on $N_PORT: not one warning line: '$warn'"
t_log "port $N_PORT: squatted, dts -d exit 1: $(cat "$T_LOG/d6.err"); free: ${warn#*warn: }"
kill -TERM "$N_DTS"
t_wait_for 10 _n_gone "$N_DTS" || t_fail "dts did not end on SIGTERM"
t_untrack "$N_DTS"
N_DTS=
t_pass
