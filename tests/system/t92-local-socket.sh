#!/bin/bash
# Every local user against the adoption socket (dts(8), SECURITY: the
# local user), as a user made for the run, who has no gang and no key
# (tests/tools/adoptflood.py does the work):
#  1. The flood: python processes of that user loop connect / one request
#     / read the reply / close, for "ADOPT run" (1 process), "JOIN 1" (4)
#     and a malformed request (2).  During each, dts takes at most 5 % of
#     one CPU (the hard figure, 2 %, is tests/bench/bench-adopt.sh's; 44-64 %
#     before), the gang's own user (nobody) still has its ADOPT and JOIN
#     answered OK (each within 1 s, most within 100 ms), and the log stays
#     short: at most its burst and 2 lines a second, with the count of the
#     refusals it left out.
#  2. PID reuse, made to happen: a process of the user connects, hands
#     the connection to a child and exits; its pid is given to a root
#     sleep (ns_last_pid); the child sends "ADOPT run" (the user may run a
#     gang here).  Refused, and the sleep stays where it was, not at RT.
#  3. JOIN with the id of a thread (not of a process) is refused, naming
#     the process, and moves nothing; JOIN of that process joins it.
#  4. Silent clients: when 8 connections that say nothing hold every
#     slot, a new one closes the oldest of them, not another.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup local-socket
PY=/usr/bin/python3
[ -x "$PY" ] || t_fail "needs $PY (the test user runs it): quickstart installs it (apt-get install python3)"
[ -w /proc/sys/kernel/ns_last_pid ] || t_skip "needs a writable /proc/sys/kernel/ns_last_pid"

t_make_user
t_pub_bin "$SRC/tests/tools/adoptflood.py" "$BUILD/run/dts-run" || t_fail "cannot publish the tools"
FLOOD=$T_DIR/bin/adoptflood.py
OUT=$T_DIR/out	# the users' programs write their results there
mkdir -p "$OUT" && chmod 1777 "$OUT" || t_fail "cannot make $OUT"
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all
    --bounding-set=-all --)
cg_of() { sed -n 's/^0:://p' "/proc/$1/cgroup"; }
reply_of() { awk -F'\t' -v r="$2" '$1 == r { print $2 }' "$1"; }

# ---- 1. the flood -------------------------------------------------------------
n_conf mode='"hpdt"' users='["nobody"]' log_level='"info"'
N_GANG=$(n_job_cg nobody)	# the gang's user's job
n_start_dts
LOG=$T_LOG/dts.log
SECS=4		# a window

# flood NAME REQ PROCS: a window of SECS with the flood and the gang's
# requests; checks it
flood() {
	local name=$1 req=$2 procs=$3 fl lg c0 c1 t0 t1 l0 lines cpu reqs n ok fast
	local f=$OUT/flood.$name leg=$OUT/legit.$name
	t_as_user "$PY" "$FLOOD" flood "$N_SOCK" "$req" "$((SECS + 2))" "$procs" "$f" &
	fl=$!
	t_track "$fl"
	t_sleep 1
	"${NOBODY[@]}" "$PY" "$FLOOD" legit "$N_SOCK" "$((SECS * 4))" "$N_GANG/cgroup.procs" "$leg" &
	lg=$!
	t_track "$lg"
	l0=$(wc -l < "$LOG")
	t0=$(_t_now_us); c0=$(t_cpu_ns "$N_DTS")
	t_sleep "$SECS"
	t1=$(_t_now_us); c1=$(t_cpu_ns "$N_DTS")
	lines=$(($(wc -l < "$LOG") - l0))
	wait "$fl"; t_untrack "$fl"
	wait "$lg"; t_untrack "$lg"
	cpu=$(awk -v n="$((c1 - c0))" -v w="$((t1 - t0))" 'BEGIN { printf "%.2f", n / (w * 10) }')
	reqs=$(sed -n 's/^requests=//p' "$f")
	n=$(grep -c . "$leg")
	ok=$(awk '$3 ~ /^OK/ && $3 ~ /\|OK$/ && $1 <= 1000 && $2 <= 1000' "$leg" | grep -c .)
	fast=$(awk '$3 ~ /^OK/ && $3 ~ /\|OK$/ && $1 <= 100 && $2 <= 100' "$leg" | grep -c .)
	t_log "$name x$procs: ${reqs:-0} requests answered in $((SECS + 2)) s ($(sed -n 's/^reply //p' "$f" | paste -sd';')), dts $cpu % of a CPU, $lines log lines; the gang's ADOPT+JOIN: $ok/$n OK within 1 s, $fast within 100 ms"
	awk -v c="$cpu" 'BEGIN { exit !(c <= 5) }' ||
	    t_fail "$name: dts took $cpu % of a CPU under the flood (at most 5 %)"
	[ "$n" -ge $((SECS * 2)) ] || t_fail "$name: the gang's user made only $n rounds: $(head -3 "$leg")"
	[ "$ok" = "$n" ] || t_fail "$name: the gang's requests not all answered OK within 1 s: $(grep -v ' OK.*|OK$' "$leg" | head -3)"
	[ $((fast * 10)) -ge $((n * 8)) ] ||
	    t_fail "$name: only $fast of $n of the gang's ADOPT+JOIN within 100 ms: $(sort -gr -k1 "$leg" | head -3)"
	kill -0 "$N_DTS" || t_fail "dts died"
}
refusals0=$(grep -c "refused\|asks too often" "$LOG")
flood adopt "ADOPT run" 1
flood join "JOIN 1" 4
flood garbage garbage 2
# the log: the burst (30) and 2 lines a second over the ~20 s of floods,
# against thousands before; and the count of what it left out
refusals=$(($(grep -c "refused\|asks too often" "$LOG") - refusals0))
t_log "refusal lines over the three floods: $refusals"
[ "$refusals" -le 80 ] || t_fail "$refusals refusal lines logged over the floods (rate limit: at most 30 + 2/s)"
grep -Eq "\(and [0-9]+ refusal\(s\) before it not logged|[0-9]+ refusal\(s\) not logged" "$LOG" ||
    t_fail "no count of the refusals left out of the log"
grep -E "not logged" "$LOG" | tail -1 | sed 's/^/# /'
kill -TERM "$N_DTS"; n_wait_exit || t_fail "dts did not stop"

# ---- 2. pid reuse ---------------------------------------------------------------
n_conf mode='"hpdt"' users="[\"$T_USER\"]" log_level='"info"'
N_GANG=$(n_job_cg "$T_USER")
n_start_dts
t_as_user "$PY" "$FLOOD" reuse "$N_SOCK" "$OUT/ready" "$OUT/go" "$OUT/reuse" ||
    t_fail "the attacker's process failed"
t_wait_for 5 test -s "$OUT/ready" || t_fail "the attacker never connected"
P=$(cat "$OUT/ready")
[ ! -e "/proc/$P" ] || t_fail "pid $P (the attacker's, reaped) still exists"
victim=
for try in $(seq 20); do
	echo "$((P - 1))" > /proc/sys/kernel/ns_last_pid
	sleep 300 &
	s=$!
	t_track "$s"
	[ "$s" = "$P" ] && { victim=$s; break; }
	kill "$s"; wait "$s" 2> /dev/null; t_untrack "$s"
	[ -e "/proc/$P" ] && t_skip "pid $P was taken by another process of this machine"
done
[ -n "$victim" ] || t_skip "could not give pid $P to a root process in 20 tries (a busy machine)"
t_wait_for 2 eval '[ "$(cat "/proc/$victim/comm" 2> /dev/null)" = sleep ]' || t_fail "no sleep $victim"
cg0=$(cg_of "$victim")
t_log "pid $P: the attacker's connect-time process, reaped; now root's sleep in $cg0"
touch "$OUT/go"
t_wait_for 10 test -s "$OUT/reuse" || t_fail "no answer to the attacker's ADOPT"
rep=$(cat "$OUT/reuse")
t_log "the attacker's ADOPT run: $rep"
grep -q "^ERR the process that connected (pid $P) has exited" <<< "$rep" ||
    t_fail "ADOPT from a connection whose process exited: '$rep'"
[ "$(cg_of "$victim")" = "$cg0" ] || t_fail "root's sleep $victim was moved to $(cg_of "$victim")"
[ "$(t_policy "$victim")" = TS ] || t_fail "root's sleep $victim is $(t_policy "$victim") now"
n_gang_empty || t_fail "the gang is not empty: $(n_gang_pids)"
kill "$victim"; wait "$victim" 2> /dev/null; t_untrack "$victim"

# ---- 3. JOIN with a thread's id -------------------------------------------------
cat > "$T_DIR/bin/threads.py" <<-'EOF'
	import threading, time
	for _ in range(3):
	    threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
	time.sleep(120)
EOF
chmod 755 "$T_DIR/bin/threads.py"
t_user_argv
"${T_USER_ARGV[@]}" "$PY" "$T_DIR/bin/threads.py" & thr=$!
t_track "$thr"
four() { [ "$(ls "/proc/$thr/task" | wc -l)" = 4 ]; }
t_wait_for 5 four || t_fail "threads.py has no 4 threads"
tid=$(ls "/proc/$thr/task" | grep -vx "$thr" | head -1)
cg0=$(cg_of "$thr")
user_run() { t_as_user env DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" -- "$@"; }
user_run "$PY" "$FLOOD" ask "$N_SOCK" "$OUT/join-tid" "JOIN $tid" ||
    t_fail "dts-run -- (JOIN $tid) failed"
rep=$(reply_of "$OUT/join-tid" "JOIN $tid")
t_log "JOIN $tid (a thread of $thr): $rep"
[ "$rep" = "ERR pid $tid is a thread of process $thr: only a whole process joins (ask for $thr)" ] ||
    t_fail "JOIN of a thread: '$rep'"
[ "$(cg_of "$thr")" = "$cg0" ] || t_fail "JOIN of thread $tid moved process $thr to $(cg_of "$thr")"
t_wait_for 5 n_gang_empty || t_fail "the gang did not end"
user_run "$PY" "$FLOOD" ask "$N_SOCK" "$OUT/join-pid" "JOIN $thr" ||
    t_fail "dts-run -- (JOIN $thr) failed"
[ "$(reply_of "$OUT/join-pid" "JOIN $thr")" = OK ] || t_fail "JOIN $thr: $(cat "$OUT/join-pid")"
n_in_gang "$thr" || t_fail "JOIN $thr answered OK, but $thr is not in the gang"
t_log "JOIN $thr (the process): OK, in the gang"
kill "$thr"; wait "$thr" 2> /dev/null; t_untrack "$thr"
t_wait_for 5 n_gang_empty || t_fail "the gang did not end"

# ---- 4. silent clients -----------------------------------------------------------
# 8 slots (ADOPT_CONN_MAX) held by connections that say nothing; the first
# is replaced, so the oldest is now in slot 1: one more connection must
# close that one ("busy"), not the newest in slot 0 (as before)
t_as_user "$PY" "$FLOOD" mute "$N_SOCK" 8 "$OUT/mute" || t_fail "adoptflood mute failed"
t_log "silent clients, the one closed: $(tr '\n' ';' < "$OUT/mute")"
[ "$(cat "$OUT/mute")" = "1 ERR dts is busy: try again" ] ||
    t_fail "a 9th silent client closed: '$(tr '\n' ';' < "$OUT/mute")' (want the oldest, 1)"
kill -TERM "$N_DTS"; n_wait_exit || t_fail "dts did not stop"
[ "$N_RC" = 0 ] || t_fail "dts exit status $N_RC"
t_pass
