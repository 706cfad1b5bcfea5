#!/bin/bash
# The adoption socket: dts-run -- CMD puts CMD in the gang; every refusal
# is one clear line from dts-run (exit 126) and changes nothing: a job
# beyond max_jobs, a bad job label, a user the config does not allow, a
# malformed request, no dts at all.  Clients that connect and say nothing cannot lock others out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup adopt
t_need python3 python3

run() { DTS_SOCKET=$N_SOCK "$BUILD/run/dts-run" "$@"; }

# no dts, no_service = "refuse": one line, no command run (the default,
# "run", runs it unmanaged: t98-no-service)
n_conf mode='"static"' ip='"100ms"' ps='"50%"' no_service='"refuse"'
out=$(DTS_CONF=$N_CONF run -- touch "$T_DIR/ran" 2>&1); rc=$?
[ "$rc" = 126 ] || t_fail "no dts: exit $rc, want 126"
[ "$(wc -l <<< "$out")" = 1 ] && grep -q "DTS is not running on this node (nothing answers on $N_SOCK): touch not started" <<< "$out" ||
	t_fail "no dts: '$out'"
[ ! -e "$T_DIR/ran" ] || t_fail "the command ran without dts"

# dts-run -- CMD: a plain command becomes the gang (of job root:pvm)
n_conf mode='"static"' ip='"100ms"' ps='"50%"' no_service='"refuse"' max_jobs=1
n_start_dts
DTS_SOCKET=$N_SOCK "$BUILD/run/dts-run" -- sleep 30 > /dev/null 2>&1 &
cmd=$!
t_track "$cmd"
t_wait_for 5 n_in_gang "$cmd" || t_fail "dts-run -- sleep: not in the gang"
is_sleep() { [ "$(cat "/proc/$cmd/comm" 2>/dev/null)" = sleep ]; }
t_wait_for 5 is_sleep || t_fail "dts-run did not exec the command"
t_log "dts-run -- sleep 30: pid $cmd in the gang at $(t_policy "$cmd")"

# max_jobs = 1: a second job (another label) is refused in one line; so
# is a bad label; the running job is unchanged
raw() {
	python3 - "$N_SOCK" "$1" <<-'EOF'
	import socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	s.settimeout(5)
	s.connect(sys.argv[1])
	s.send(sys.argv[2].encode())
	print(s.recv(512).decode())
	EOF
}
out=$(raw $'ADOPT run\nJOB second')
[ "$out" = "ERR this node runs max_jobs = 1 jobs already: root:pvm (dts.conf: max_jobs)" ] ||
	t_fail "second job: '$out'"
out=$(raw $'ADOPT run\nJOB no/slash')
grep -q "^ERR job label \"no/slash\" " <<< "$out" && [ "$(wc -l <<< "$out")" = 1 ] ||
	t_fail "bad label: '$out'"
[ "$(n_gang_pids | wc -l)" = 1 ] || t_fail "the refused requests changed the gang"
[ "$(find "$N_CG/jobs" -mindepth 1 -maxdepth 1 -name 'job.*' | wc -l)" = 1 ] ||
	t_fail "a refused job left a cgroup: $(ls "$N_CG/jobs")"

# idle connections do not lock the socket; a malformed request is answered
python3 - "$N_SOCK" > "$T_LOG/raw.log" 2>&1 <<-'EOF' || t_fail "raw client: $(cat "$T_LOG/raw.log")"
	import socket, sys
	idle = []
	for _ in range(12):
	    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	    s.connect(sys.argv[1])
	    idle.append(s)
	s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	s.settimeout(5)
	s.connect(sys.argv[1])
	s.send(b"GIMME ROOT")
	print(s.recv(512).decode())
EOF
grep -q "^ERR malformed request" "$T_LOG/raw.log" || t_fail "malformed: $(cat "$T_LOG/raw.log")"
kill -0 "$N_DTS" || t_fail "dts died"

kill -TERM "$cmd"
wait "$cmd" 2>/dev/null
t_untrack "$cmd"
t_wait_for 5 n_gang_empty || t_fail "gang not empty after the command ended"

# users: only the listed users may start a gang
kill -TERM "$N_DTS"; n_wait_exit || t_fail "dts did not stop"
t_make_user
n_conf mode='"static"' ip='"100ms"' ps='"50%"' users='["nobody-else"]'
n_start_dts
t_pub_bin "$BUILD/run/dts-run" || t_fail "cannot copy dts-run"
out=$(t_as_user env DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" -- true 2>&1); rc=$?
[ "$rc" = 126 ] || t_fail "user not listed: exit $rc"
grep -q "user $T_USER (uid $T_UID) may not run a gang on this node" <<< "$out" ||
	t_fail "user not listed: '$out'"
t_logged "adoption refused: .*uid $T_UID" || t_fail "refusal not logged"
t_log "refusals: $(grep -c 'adoption refused' "$T_LOG/dts.log") logged"
t_pass
