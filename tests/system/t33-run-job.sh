#!/bin/bash
# dts-run's job label (dts-run(1), Jobs): --job, else DTS_JOB, else
# "pvm" (never PVM_VMID: a VM is USER:pvm on every host); a bad label is one line and exit 126 before dts
# is asked, and nothing runs; a good one travels as the request's
# "JOB <label>" line and reaches the command in DTS_JOB.  A dts from
# before the JOB line refuses it word for word (ADOPT_REFUSAL_OLD):
# dts-run then asks again without it.  The dts here is a stand-in that
# writes down every request it gets and answers as told.
. "$(dirname "$0")/lib.sh"
t_setup run-job
t_need python3 python3

SOCK=$T_DIR/dts.sock
REQS=$T_LOG/requests
# the stand-in: one answer a connection; MODE old answers the first
# request with a JOB line as a dts from before does
fake() {
	rm -f "$SOCK" "$REQS" "$T_DIR/ready"
	python3 - "$SOCK" "$REQS" "$1" "$T_DIR/ready" "$T_DIR/pvmd" \
	    > "$T_LOG/fake.log" 2>&1 <<-'PY' &
	import socket, sys
	path, log, mode, ready, pvmd = sys.argv[1:6]
	s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	s.bind(path)
	s.listen(4)
	open(ready, "w").close()
	s.settimeout(20)
	while True:
	    try:
	        c, _ = s.accept()
	    except socket.timeout:
	        break
	    req = c.recv(512).decode()
	    with open(log, "a") as f:
	        f.write(req.replace("\n", "|") + "\n")
	    if mode == "old" and "\nJOB" in req:
	        c.send(b'ERR malformed request (expected "ADOPT pvmd", '
	               b'"ADOPT run" or "JOIN <pid>")')
	    elif req.startswith("ADOPT pvmd"):
	        c.send(("OK " + pvmd).encode())
	    else:
	        c.send(b"OK")
	    c.close()
	PY
	FAKE=$!
	t_track "$FAKE"
	t_wait_for 5 test -e "$T_DIR/ready" || t_fail "the stand-in dts did not start"
}
stop_fake() {
	kill "$FAKE" 2> /dev/null
	wait "$FAKE" 2> /dev/null
	t_untrack "$FAKE"
}
# run ENV... -- ARGS: dts-run with a clean job environment
run() {
	env -u DTS_JOB -u PVM_VMID DTS_SOCKET="$SOCK" "$@"
}
RUN=$BUILD/run/dts-run
# shellcheck disable=SC2016 # expanded by the command's shell
SHOW='echo "DTS_JOB=$DTS_JOB"'
# the "real pvmd" the stand-in names
# shellcheck disable=SC2016
printf '#!/bin/sh\necho "pvmd $* DTS_JOB=$DTS_JOB"\n' > "$T_DIR/pvmd"
chmod 755 "$T_DIR/pvmd"

fake new
# the label's sources, in order; the request carries it, the command
# sees it
out=$(run "$RUN" -- sh -c "$SHOW" 2>&1) || t_fail "default: '$out'"
[ "$out" = "DTS_JOB=pvm" ] || t_fail "default label: '$out'"
out=$(run PVM_VMID=vm7 "$RUN" -- sh -c "$SHOW" 2>&1)
[ "$out" = "DTS_JOB=pvm" ] || t_fail "PVM_VMID is no label: '$out'"
out=$(run PVM_VMID=vm7 DTS_JOB=mine "$RUN" -- sh -c "$SHOW" 2>&1)
[ "$out" = "DTS_JOB=mine" ] || t_fail "DTS_JOB over PVM_VMID: '$out'"
out=$(run DTS_JOB=mine "$RUN" --job opt.1 -- sh -c "$SHOW" 2>&1)
[ "$out" = "DTS_JOB=opt.1" ] || t_fail "--job over DTS_JOB: '$out'"
out=$(run DTS_JOB= PVM_VMID=vm7 "$RUN" --job=o_2 -- sh -c "$SHOW" 2>&1)
[ "$out" = "DTS_JOB=o_2" ] || t_fail "--job=: '$out'"
out=$(run DTS_JOB= PVM_VMID=vm7 "$RUN" -- sh -c "$SHOW" 2>&1)
[ "$out" = "DTS_JOB=pvm" ] || t_fail "empty DTS_JOB is unset: '$out'"
# the launch script's way: --pvmd, pvmd's arguments after it
out=$(run DTS_PVMJOIN=/nonexistent PVM_VMID=vm8 "$RUN" --job pv --pvmd -- -d0x1 hosts 2> "$T_LOG/pvmd.err")
[ "$out" = "pvmd -d0x1 hosts DTS_JOB=pv" ] || t_fail "--pvmd: '$out' $(cat "$T_LOG/pvmd.err")"
# a dts.conf whose pvmd is the launch script (which would run dts-run
# --pvmd again, for ever): refused in one line, the script not run
mv "$T_DIR/pvmd" "$T_DIR/pvmd.real"
printf '#!/bin/sh\n# DTS launch script (a stand-in)\necho ran\n' > "$T_DIR/pvmd"
chmod 755 "$T_DIR/pvmd"
out=$(run "$RUN" --pvmd -- -d0x1 2>&1); rc=$?
[ "$rc $out" = "126 dts-run: pvmd $T_DIR/pvmd, as dts names it, is the launch script itself (dts.conf: pvmd); not started" ] ||
	t_fail "pvmd is the launch script: exit $rc, '$out'"
t_log "pvmd is the launch script: $out"
mv "$T_DIR/pvmd.real" "$T_DIR/pvmd"
want='ADOPT run|STATE|JOB pvm
ADOPT run|STATE|JOB pvm
ADOPT run|STATE|JOB mine
ADOPT run|STATE|JOB opt.1
ADOPT run|STATE|JOB o_2
ADOPT run|STATE|JOB pvm
ADOPT pvmd|STATE|JOB pv
ADOPT pvmd|STATE|JOB pvm'
[ "$(cat "$REQS")" = "$want" ] || t_fail "requests: $(cat "$REQS")"
t_log "labels: $(cut -d'|' -f3 "$REQS" | tr '\n' ' ')"

# bad labels: one line, exit 126, dts not asked, the command not run
: > "$REQS"
bad() {
	local want=$1 out rc
	shift
	out=$(run "$@" -- touch "$T_DIR/ran" 2>&1); rc=$?
	[ "$rc" = 126 ] || t_fail "$*: exit $rc, want 126 ('$out')"
	[ "$(wc -l <<< "$out")" = 1 ] || t_fail "$*: not one line: '$out'"
	grep -qF -- "$want" <<< "$out" || t_fail "$*: '$out', want '$want'"
	t_log "refused: $out"
}
bad 'dts-run: --job: job label "a b" has a byte that is not a letter, digit' \
	"$RUN" --job 'a b'
bad 'dts-run: DTS_JOB: job label "abcdefghij12345..." is too long (at most 15 bytes); not started' \
	DTS_JOB=abcdefghij123456 "$RUN"
bad 'dts-run: DTS_JOB: job label "x/y" has a byte' DTS_JOB=x/y "$RUN"
bad 'job label "x\x0ay"' "$RUN" --job "$(printf 'x\ny')"
bad 'dts-run: --job: the label is empty' "$RUN" --job ''
[ ! -s "$REQS" ] || t_fail "dts was asked: $(cat "$REQS")"
[ ! -e "$T_DIR/ran" ] || t_fail "a refused command ran"
stop_fake

# a dts from before the JOB line: asked again without it, adopts
fake old
out=$(run "$RUN" --job j1 -- sh -c "$SHOW" 2>&1) || t_fail "old dts: '$out'"
[ "$out" = "DTS_JOB=j1" ] || t_fail "old dts: '$out'"
[ "$(cat "$REQS")" = 'ADOPT run|STATE|JOB j1
ADOPT run|STATE' ] || t_fail "old dts: requests $(cat "$REQS")"
stop_fake
t_pass
