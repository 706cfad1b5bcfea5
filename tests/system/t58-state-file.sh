#!/bin/bash
# The state file (dts(8), SUSPEND AWARENESS), on a node in STATIC mode,
# PS 50 ms of IP 100 ms, ls_policy stop:
#  1. dts keeps it at state_file: root's, mode 0644 (the job's user reads
#     it, and can neither write nor replace it), a size that never
#     changes, and leaves it with phase none when it ends; the next dts
#     goes on from its counts.  It locks state_file.lock, root's and
#     0600: a second dts with the same state_file is refused, while a
#     user with no gang who holds an flock on the state file itself
#     (flock -s, on a read-only descriptor) keeps no dts from starting.
#  2. A gang member started by dts-run -- sh finds it in DTS_STATE and
#     reads it for 2 s with dts-state(1) (as dts(8) says): it
#     reads phase PS (it only runs in PS), the counts move by what the
#     clock did (ps_ns + ls_ns by at_ns, stopped_ns by ls_ns: the gang is
#     stopped exactly in LS), and stopped_ns by about half the time the
#     member saw pass (40 to 60%: a read and its clock may straddle an
#     LS edge, 50 ms of 2 s, at either end).  20 new jobs whose one
#     member runs dts-state at once: each reads a filled file, never
#     phase none or at_ns 0.
#  3. pvmd started through the launch script (run/pvmd.in) has DTS_STATE,
#     and so has a task it spawns; pvm-examples' timing (spawned by pvmd,
#     and spawning timing_slave through it) runs in that gang unchanged
#     and completes.
#  4. With state_file = "" dts-run sets no DTS_STATE, and removes one it
#     inherited.
# And the adoption requests: the reply has the STATE line only when
# asked for (a dts-run from before reads the reply it always did), and a
# second line that is not STATE is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup state-file
for p in timing timing_slave; do
	t_need "$p" pvm-examples
done
t_need python3 python3
n_split_cpus

n_conf mode='"static"' ip='"100ms"' ps='"50ms"' ls_policy='"stop"'
n_start_dts
t_wait_for 5 test -s "$N_STATE" || t_fail "no state file $N_STATE"
read -r mode owner size <<< "$(stat -c '%a %U %s' "$N_STATE")"
[ "$mode $owner" = "644 root" ] || t_fail "state file: mode $mode, owner $owner"
read -r mode owner <<< "$(stat -c '%a %U' "$N_STATE.lock")"
[ "$mode $owner" = "600 root" ] || t_fail "state file's lock: mode $mode, owner $owner"
# the job's own user, who may read it, can neither write it nor put
# another file in its place (the others of the gang trust it)
t_make_user
t_as_user sh -c 'cat "$1" > /dev/null' sh "$N_STATE" ||
	t_fail "the job's user cannot read the state file"
t_as_user sh -c 'echo "stopped_ns 0" >> "$1"' sh "$N_STATE" 2> /dev/null &&
	t_fail "the job's user could write the state file"
t_as_user sh -c 'mv -f "$1" "$1.x" || ln -sf /dev/null "$1.new"' sh "$N_STATE" 2> /dev/null &&
	t_fail "the job's user could replace the state file"
[ "$(stat -c %s "$N_STATE")" = "$size" ] || t_fail "the state file changed size"
t_as_user sh -c ': < "$1.lock"' sh "$N_STATE" 2> /dev/null &&
	t_fail "the job's user could open the state file's lock"

# a second dts with the same state file (and its own socket, cgroup,
# port and log) is refused, and says why
sed -e "s|^socket = .*|socket = \"$T_DIR/dts2.sock\";|" \
    -e "s|^cgroup = .*|cgroup = \"$(t_cg_name 2)\";|" \
    -e "s|^port = .*|port = $((N_PORT + 1));|" \
    -e "s|^log_file = .*|log_file = \"$T_LOG/dts2.log\";|" "$N_CONF" > "$T_DIR/dts2.conf"
t_track_cg "$(t_cg_dir 2)"
t_expect_log "dts\[[0-9]+\] err: state file $N_STATE: another dts keeps it"
timeout 10 "$BUILD/dts/dts" -f "$T_DIR/dts2.conf" > /dev/null 2> "$T_LOG/dts2.err"
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] ||
	t_fail "a second dts with the same state file: exit $rc"
grep -q "state file $N_STATE: another dts keeps it" "$T_LOG/dts2.err" ||
	t_fail "the second dts did not say the state file is kept: $(cat "$T_LOG/dts2.err")"

# state VAR: the state file, read by dts-state, as key=value words into
# VAR
state() {
	local _s
	_s=$("$BUILD/run/dts-state" -f "$N_STATE") || return 1
	printf -v "$1" '%s' "$(awk '{ printf "%s=%s ", $1, $2 }' <<< "$_s")"
}
state s || t_fail "dts-state: $("$BUILD/run/dts-state" -f "$N_STATE" 2>&1)"
for kv in mode=static ls_policy=stop ps_us=50000 ip_us=100000; do
	grep -q " $kv " <<< " $s" || t_fail "state file: no $kv in $s"
done
# one key, as a script asks for it; an unknown key is refused
[ "$("$BUILD/run/dts-state" -f "$N_STATE" mode)" = static ] ||
	t_fail "dts-state mode: $("$BUILD/run/dts-state" -f "$N_STATE" mode 2>&1)"
out=$("$BUILD/run/dts-state" -f "$N_STATE" nokey 2>&1) &&
	t_fail "dts-state nokey: exit 0, $out"
[ "$out" = "dts-state: no key nokey in a state file" ] || t_fail "dts-state nokey: $out"
# an empty -f is a usage error; an empty DTS_STATE names no file
out=$("$BUILD/run/dts-state" -f '' phase 2>&1); rc=$?
[ "$rc $out" = "2 dts-state: -f: the file name is empty" ] || t_fail "dts-state -f '': $rc $out"
out=$(DTS_STATE='' "$BUILD/run/dts-state" phase 2>&1); rc=$?
[ "$rc $out" = "1 dts-state: DTS_STATE is empty: it names no state file" ] ||
	t_fail "DTS_STATE='' dts-state: $rc $out"

# state_moved: the file is whole and its seq is above $left's; s = it
state_moved() {
	state s && [ "$((10#$(sed 's/.*seq=\([0-9]*\).*/\1/' <<< "$s")))" -gt \
	    "$((10#$(sed 's/.*seq=\([0-9]*\).*/\1/' <<< "$left")))" ] &&
	    grep -q " phase=PS \| phase=LS " <<< " $s"
}

# ---- the adoption protocol (adopt_msg.h): the STATE line on request only ------
# (a job's gang gets the job's own file, state_file.USER@LABEL: dts(8), JOBS)
J_STATE=$N_STATE.root@pvm
# ask REQUEST: dts's reply to one raw request; the asker, adopted,
# leaves the gang as it ends
ask() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(5)
s.connect(sys.argv[1])
s.send(sys.argv[2].encode())
sys.stdout.write(s.recv(512).decode())' "$N_SOCK" "$1"
}
out=$(ask "ADOPT run") && [ "$out" = "OK " ] ||
	t_fail "ADOPT run (a dts-run from before): '$out'"
t_wait_for 5 n_gang_empty || t_fail "the asker stayed in the gang"
out=$(ask $'ADOPT run\nSTATE') && [ "$out" = $'OK \nSTATE '"$J_STATE" ] ||
	t_fail "ADOPT run + STATE: '$out'"
t_wait_for 5 n_gang_empty || t_fail "the asker stayed in the gang"
out=$(ask $'ADOPT run\nSTATES') && [ "${out#ERR malformed request}" != "$out" ] ||
	t_fail "ADOPT run + a bad second line: '$out'"
n_gang_empty || t_fail "a malformed request changed the gang"

# ---- 2. a gang member reads it ----------------------------------------------
# Its own clock: date +%s%N after each read (CLOCK_REALTIME, which NTP
# slews by far less than the tolerance over 2 s).  dts-state ($1) finds
# the file in DTS_STATE.
cat > "$T_DIR/reader.sh" <<'EOF'
echo "env ${DTS_STATE-unset}"
whole() {
	s=$("$1") || exit 1
	t=$(date +%s%N)
	echo "read $t $(echo $s)"
}
stop=$(($(date +%s%N) + 2000000000))
while [ "$(date +%s%N)" -lt "$stop" ]; do
	whole "$1"
	sleep 0.02
done
whole "$1"
EOF
"${N_ON[@]}" "$BUILD/run/dts-run" -S "$N_SOCK" -- sh "$T_DIR/reader.sh" "$BUILD/run/dts-state" \
    > "$T_DIR/reads" 2> "$T_LOG/reader.err" &
reader=$!
t_track "$reader"
t_wait_for 20 _n_gone "$reader" || t_fail "the reader did not end within 20 s"
wait "$reader" || t_fail "the reader failed: $(cat "$T_LOG/reader.err")"
t_untrack "$reader"
[ "$(sed -n 's/^env //p' "$T_DIR/reads")" = "$J_STATE" ] ||
	t_fail "the gang member's DTS_STATE: $(grep '^env' "$T_DIR/reads")"
out=$(awk '
	$1 != "read" { next }
	{ n++; t = $2; for (i = 3; i < NF; i += 2) v[$i] = $(i + 1) + 0 }
	$5 != "phase" { bad = "not a state file: " $0 }
	$6 != "PS" { ls++ }
	n == 1 { t0 = t; s0 = v["stopped_ns"]; p0 = v["ps_ns"]; l0 = v["ls_ns"]; a0 = v["at_ns"] }
	END {
		if (bad != "") { print bad; exit 1 }
		if (n < 10) { print "only " n " reads"; exit 1 }
		dt = t - t0; ds = v["stopped_ns"] - s0; dl = v["ls_ns"] - l0
		dp = v["ps_ns"] - p0; da = v["at_ns"] - a0
		printf "%d reads over %.2f s of its clock, %d in LS; stopped %.2f s (%.0f%%), PS %.2f s, LS %.2f s, at %.2f s later\n",
		    n, dt / 1e9, ls, ds / 1e9, 100 * ds / dt, dp / 1e9, dl / 1e9, da / 1e9
		if (dp + dl != da) { print "ps_ns + ls_ns moved by " dp + dl ", at_ns by " da; exit 1 }
		if (ds != dl) { print "stopped_ns moved by " ds ", ls_ns by " dl; exit 1 }
		if (ds < 0.4 * dt || ds > 0.6 * dt) { print "stopped is not about half"; exit 1 }
		if (ls > n / 50) { print "too many reads in LS"; exit 1 }
	}' "$T_DIR/reads") || t_fail "gang member: $out"
t_log "gang member: $out"
# (a member reads LS only if an LS edge came while it was inside read(2):
# it is stopped on the way out; hence the 2% allowed)

# A new job's member that reads the file as its first act: dts fills it
# before the member runs (at_ns 0 and phase none were read once, when a
# job was made in a PS: the hook ran before the job counted)
t_wait_for 5 n_gang_empty || t_fail "the reader left the gang busy"
for i in $(seq 20); do
	s=$("${N_ON[@]}" "$BUILD/run/dts-run" -S "$N_SOCK" -- "$BUILD/run/dts-state" phase at_ns 2> "$T_LOG/first.err") ||
		t_fail "dts-state as a new job's first act: $(cat "$T_LOG/first.err")"
	read -r ph at <<< "$(echo $s)"
	[ "$ph" != none ] && [ "${at:-0}" -gt 0 ] ||
		t_fail "a new job's member read its state file before dts filled it ($i of 20): phase $ph, at_ns $at"
	t_wait_for 5 n_gang_empty || t_fail "the first reader $i left the gang busy"
	t_sleep 0.0$((RANDOM % 10))
done
t_log "20 new jobs' members read a filled state file as their first act"

# ---- 3. pvmd through the launch script, its tasks, timing ----------------------
mkdir -p "$T_DIR/bin" && chmod 755 "$T_DIR/bin"
sed "s|^exec .*/dts-run |exec $BUILD/run/dts-run |" "$BUILD/run/pvmd" > "$T_DIR/bin/pvmd"
chmod 755 "$T_DIR/bin/pvmd"
grep -q "^exec $BUILD/run/dts-run --pvmd -- \"\$@\"$" "$T_DIR/bin/pvmd" ||
	t_fail "the launch script: $(grep exec "$T_DIR/bin/pvmd")"
N_LAUNCH=$T_DIR/bin/pvmd n_start_pvmd
has_state() { tr '\0' '\n' < "/proc/$1/environ" | grep -qx "DTS_STATE=$J_STATE"; }
has_state "$N_PVMD" || t_fail "pvmd's environment has no DTS_STATE=$J_STATE"
n_pvm spawn -n 1 "$BUILD/tests/pvm/spin" 3 > /dev/null || t_fail "spawn failed"
t_wait_for 5 n_has_task spin || t_fail "no PVM task"
spin=$(n_gang_pids spin | head -n 1)
has_state "$spin" || t_fail "the task pvmd spawned has no DTS_STATE=$J_STATE"
t_wait_for 10 _n_gone "$spin" || t_fail "spin 3 did not end"

arch=$(/usr/lib/pvm3/lib/pvmgetarch 2>/dev/null) || arch=LINUX64
mkdir -p "$T_HOME/pvm3/bin/$arch"
ln -sf "$(command -v timing_slave)" "$T_HOME/pvm3/bin/$arch/timing_slave"
pvml=$T_TMP/pvml.$(id -u)
# (timing's main() returns no value: its exit status means nothing; it
# prints "done" last)
"$BUILD/tests/pvm/dts-pvmctl" -T 120 run -n 1 "$(command -v timing)" \
    > "$T_DIR/timing.run" 2>&1 &
run=$!
t_track "$run"
t_wait_for 120 _n_gone "$run" || t_fail "timing did not finish within 120 s"
wait "$run" || t_fail "timing: $(cat "$T_DIR/timing.run")"
t_untrack "$run"
grep -q "RTT Avg uSec [0-9]" "$pvml" && grep -q "Message size 1000000" "$pvml" &&
    grep -q "\] done$" "$pvml" ||
	t_fail "timing: unexpected output: $(grep -v pvmd "$pvml" | tail -n 5)"
t_log "timing in the gang: $(grep -o 'RTT Avg uSec [0-9]*' "$pvml"), $(cat "$T_DIR/timing.run")"

# ---- 1. dts leaves the file, phase none ----------------------------------------
n_halt || t_fail "halt: the gang did not empty, or dts did not stop"
[ "$N_RC" = 0 ] || t_fail "dts exited with $N_RC"
state s || t_fail "the state file after dts: $(cat "$N_STATE")"
grep -q " phase=none " <<< " $s" || t_fail "after dts ended: $s"
[ "$(stat -c %s "$N_STATE")" = "$size" ] || t_fail "the size changed: $size, then $(stat -c %s "$N_STATE")"
t_log "left by dts: $s"

# a new dts goes on from the counts it finds (seconds of them: from 0 it
# would be below them for seconds); it starts while a user with no gang
# holds an flock on the state file (which once kept every dts out)
left=$s
t_user_argv
"${T_USER_ARGV[@]}" sh -c 'exec 3< "$1" && flock -s 3 && exec sleep 60' sh "$N_STATE" &
holder=$!
t_track "$holder"
t_wait_for 5 sh -c '! flock -n -x "$1" true' sh "$N_STATE" ||
	t_fail "the user's flock -s on the state file did not take"
n_start_dts
t_wait_for 5 state_moved || t_fail "the new dts did not write the file: $(cat "$N_STATE")"
kill -TERM "$N_DTS"; n_wait_exit || t_fail "dts did not stop"
kill -TERM "$holder"; wait "$holder" 2> /dev/null; t_untrack "$holder"
t_log "dts started while a user held flock -s on the state file"
awk -v a="$left" -v b="$s" 'BEGIN {
	n = split(a, x, " "); for (i = 1; i <= n; i++) { split(x[i], kv, "="); o[kv[1]] = kv[2] + 0 }
	n = split(b, x, " "); for (i = 1; i <= n; i++) { split(x[i], kv, "="); m[kv[1]] = kv[2] + 0 }
	exit !(m["seq"] > o["seq"] && m["stopped_ns"] >= o["stopped_ns"] &&
	    m["ps_ns"] >= o["ps_ns"] && m["ls_ns"] >= o["ls_ns"]) }' ||
	t_fail "the counts went back: $left, then $s"
t_log "the next dts went on to: $s"

# ---- 4. state_file = "": no DTS_STATE ------------------------------------------
n_conf mode='"static"' ip='"100ms"' ps='"50ms"' state_file='""'
n_start_dts
out=$(DTS_STATE=/inherited "$BUILD/run/dts-run" -S "$N_SOCK" -- sh -c 'echo "${DTS_STATE-unset}"' 2>&1) ||
	t_fail "dts-run: $out"
[ "$out" = unset ] || t_fail "with state_file \"\": DTS_STATE is '$out'"
kill -TERM "$N_DTS"; n_wait_exit || t_fail "dts did not stop"
t_pass
