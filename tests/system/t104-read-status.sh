#!/bin/bash
# Read requests (dts(8) SECURITY, dts-console(1) KEYS): a PVM user's
# dts-console without the console key, on a real dts with one of the
# user's jobs (dts-run --job r1) and a master (sendgram with the keys,
# from a fixed port: the node's master):
#  1. `-c status` and `-c jobs` (and --json) of the keyless console show
#     the node and the user's job, with the line that says the answers
#     are read-only and authenticated by the read key only.
#  2. start, stop, takeover, load, metrics and trace fail in one line
#     naming the key; `mode static`, `set weight` are the console's own
#     settings and reach nobody: the node's STATUS (its schedule, master,
#     jobs) is the same before and after.
#  3. A flood of read requests by the user (python3: the read key from
#     dts.conf's console_keys, more than AUTH_SENDERS_MAX forged senders,
#     stamped 25 s ahead) is answered, but enters no replay table: the
#     master's next SCHEDULE (a new sender stamped now) is obeyed.  Had the
#     flood been remembered, evicting senders would have raised the floor
#     for new senders above now (auth.h), and it would have been refused.
#  4. read_requests = false: the keyless status gets no answer, in one
#     line, and the node counts the refusals as forged (rej_mac).
#  5. A dts.conf without console_keys: status fails in one line saying so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup readst
t_need python3 python3
[ "$(id -u)" = 0 ] || t_skip "needs root: dts is a root service"

t_make_user
t_pub_bin "$BUILD/run/dts-run" "$BUILD/console/dts-console" || t_fail "cannot copy the binaries"
t_user_argv
MPORT=$((N_PORT + 1))	# the master's source port

n_conf mode='"static"' ip='"100ms"' ps='"50%"'
n_start_dts
# the user's dts.conf: the node's file (0644, console_keys in it), no
# console key pair, no node secret
UCONF=$T_DIR/user.conf
ucons_conf() {
	cp "$N_CONF" "$UCONF" && chmod 644 "$UCONF" && cat >> "$UCONF" <<-EOF
	console = { nodes = ["127.0.0.1"]; history = ""; status_wait = "500ms"; sign_key = "$T_DIR/none/console.key"; node_secret = "$T_DIR/none/nodes.key"; };
	EOF
}
ucons_conf || t_fail "cannot write $UCONF"
OUT=$T_LOG/ucons.out
ERR=$T_LOG/ucons.err
# ucons CMDS: the user's console, no PVM (-n); output in $OUT, $ERR, status $RC
ucons() {
	"${T_USER_ARGV[@]}" "$T_DIR/bin/dts-console" -n -f "$UCONF" -c "$1" > "$OUT" 2> "$ERR" < /dev/null
	RC=$?
	{ echo "\$ (user) dts-console -c '$1'   # $RC"; cat "$OUT" "$ERR"; } >> "$T_LOG/ucons.log"
	return "$RC"
}
# what the keyless console says beside its errors: its start-up notice
errs() { grep -v '^dts-console: no console key (.*): the PVM commands' "$ERR"; }
# the node's state as the operator sees it (sendgram with the keys):
# schedule, master, jobs; not the counters
state() {
	n_status | grep -E '^(mode|sync|active|own|ls_policy|ps_us|ip_us|si_us|master|members|job[0-9]*)=' |
	    sort
}
field() { sed -n "s/^$1=//p" <<< "$2"; }

# the master: the first SCHEDULE with the keys, from a fixed port
out=$(n_send -P "$MPORT" schedule static 60000 100000) || t_fail "master: no reply"
[ "$(field ps_us "$out")" = 60000 ] && [ "$(field yours "$out")" = 1 ] ||
    t_fail "sendgram is not the master: $(paste -sd' ' <<< "$out")"
# the user's job
"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job r1 -- sleep 600 \
    > "$T_LOG/job.out" 2> "$T_LOG/job.err" &
JOB=$!
t_track "$JOB"
JOBNAME=$T_USER:r1
t_wait_for 5 eval '[ -d "$(n_job_cg "$T_USER" r1)" ]' || t_fail "no cgroup of job $JOBNAME: $(cat "$T_LOG/job.err")"

# ---- 1. status and jobs, read-only --------------------------------------------
READONLY="read-only: a keyless console's answers are authenticated only by the read key"
has_job() { grep -qF "$JOBNAME" "$OUT"; }
t_wait_for 5 eval 'ucons status && has_job' ||
    t_fail "keyless status: status $RC, no job $JOBNAME: $(cat "$OUT" "$ERR")"
grep -q "^$READONLY" "$OUT" || t_fail "keyless status: no read-only line: $(cat "$OUT")"
grep -q "^dts-console: no console key (.*): the PVM commands, and status and jobs read-only$" "$ERR" ||
    t_fail "keyless console: no start-up notice of its read keys: $(cat "$ERR")"
grep -q "1 node answered" "$OUT" || t_fail "keyless status: the node did not answer: $(cat "$OUT")"
ucons jobs || t_fail "keyless jobs: status $RC: $(cat "$OUT" "$ERR")"
has_job || t_fail "keyless jobs: no $JOBNAME: $(cat "$OUT")"
grep -q "^$READONLY" "$OUT" || t_fail "keyless jobs: no read-only line: $(cat "$OUT")"
ucons "jobs --json" || t_fail "keyless jobs --json: status $RC: $(cat "$ERR")"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$OUT" ||
    t_fail "keyless jobs --json is not JSON: $(cat "$OUT")"
has_job || t_fail "keyless jobs --json: no $JOBNAME: $(cat "$OUT")"
grep -q "$READONLY" "$ERR" || t_fail "keyless jobs --json: no read-only notice: $(cat "$ERR")"
ucons "status --json" && has_job || t_fail "keyless status --json: status $RC: $(cat "$OUT" "$ERR")"
t_log "keyless status and jobs: the node and $JOBNAME, read-only"

# ---- 2. nothing else ------------------------------------------------------------
before=$(state) || t_fail "no status before"
for cmd in start stop takeover load metrics "trace /dev/null"; do
	ucons "mode static; ip 50ms; set weight $JOBNAME 3; $cmd"
	e=$(errs)
	[ "$RC" != 0 ] && [ "$(wc -l <<< "$e")" = 1 ] &&
	    grep -q "^\(dts-console: \)\?${cmd%% *}: no console key (.*): this console runs the PVM commands, and status and jobs read-only" <<< "$e" ||
	    t_fail "keyless $cmd: exit $RC, '$e'"
done
after=$(state) || t_fail "no status after"
[ "$before" = "$after" ] || t_fail "the keyless console changed the node: $(diff <(echo "$before") <(echo "$after") | paste -sd' ')"
[ "$(field ps_us "$after")" = 60000 ] && [ "$(field master "$after")" = 127.0.0.1 ] ||
    t_fail "the master's schedule is gone: $(paste -sd' ' <<< "$after")"
t_log "keyless start, stop, takeover, load, metrics, trace: refused in one line each; the node unchanged"

# ---- 3. a flood of read requests: the master is not evicted -----------------------
# (tests/tools/readflood.py, copied where the user can read it)
cp "$SRC/tests/tools/readflood.py" "$T_DIR/bin/" && chmod 0644 "$T_DIR/bin/readflood.py" ||
    t_fail "cannot copy readflood.py"
read -r replies _ < <("${T_USER_ARGV[@]}" python3 "$T_DIR/bin/readflood.py" "$UCONF" "$N_PORT" -n 1500 -a 25)
[ -n "$replies" ] || t_fail "the flood client failed"
# more answered than a replay table holds: had they entered it, the
# master's sender would have been evicted and the floor raised
[ "$replies" -gt 300 ] || t_fail "only $replies of the flood's read requests answered (want > 300)"
out=$(n_send -P "$MPORT" schedule static 70000 100000) || t_fail "master after the flood: no reply"
[ "$(field ps_us "$out")" = 70000 ] && [ "$(field yours "$out")" = 1 ] ||
    t_fail "the master's SCHEDULE after the flood was not obeyed: $(paste -sd' ' <<< "$out")"
[ "$(field rej_replay "$out")" = 0 ] || t_fail "refused as replays after the flood: $(field rej_replay "$out")"
t_log "a flood of $replies answered read requests from 1500 senders; the master's next SCHEDULE obeyed"
# the same as fast as python sends: the source's token bucket (400/s,
# burst 400) refuses most, as for any datagram (it is spent before the
# tag is checked)
rate0=$(n_status rej_rate) || t_fail "no status"
read -r burst ms < <("${T_USER_ARGV[@]}" python3 "$T_DIR/bin/readflood.py" "$UCONF" "$N_PORT" -n 3000 -g 0)
[ -n "$burst" ] || t_fail "the burst client failed"
rate1=$(n_status rej_rate) || t_fail "no status"
# every refusal counted is a read request's (nothing else is sent now);
# answered: at most the burst and what the bucket earned until the
# client stopped listening, 1 s after (+ 20 % and 50 for the clocks);
# what the socket's buffer cannot hold the kernel drops, uncounted
most=$((400 + (ms + 1100) * 400 * 12 / 10 / 1000 + 50))
[ "$((rate1 - rate0))" -gt 0 ] && [ "$burst" -le "$most" ] ||
    t_fail "a burst of 3000 read requests in $ms ms: $burst answered (want <= $most), rej_rate $rate0 -> $rate1"
out=$(n_send -P "$MPORT" schedule static 60000 100000) || t_fail "master after the burst: no reply"
[ "$(field ps_us "$out")" = 60000 ] || t_fail "the master's SCHEDULE after the burst was not obeyed"
t_log "a burst of 3000 read requests in $ms ms: $burst answered (<= $most), $((rate1 - rate0)) refused by the rate limit; the master obeyed"

# ---- 4. read_requests = false ----------------------------------------------------
kill "$N_DTS" && n_wait_exit "$N_DTS" 10 || t_fail "dts did not stop"
n_conf mode='"static"' ip='"100ms"' ps='"50%"' read_requests=false
ucons_conf || t_fail "cannot write $UCONF"
n_start_dts
mac0=$(n_status rej_mac) || t_fail "no status"
ucons status
e=$(errs)
[ "$RC" != 0 ] && [ "$(wc -l <<< "$e")" = 1 ] && grep -q "status: no node answered within 500ms" <<< "$e" ||
    t_fail "keyless status with read_requests = false: exit $RC, '$e' $(cat "$OUT")"
mac1=$(n_status rej_mac) || t_fail "no status"
[ "$mac1" -gt "$mac0" ] || t_fail "the refused read request is not counted as forged: rej_mac $mac0 -> $mac1"
t_log "read_requests = false: keyless status in one line ($e); rej_mac $mac0 -> $mac1"

# ---- 5. no console_keys in the user's dts.conf ----------------------------------------
grep -v console_keys "$UCONF" > "$UCONF.new" && mv "$UCONF.new" "$UCONF" && chmod 644 "$UCONF"
ucons status
e=$(errs)
[ "$RC" != 0 ] && [ "$(wc -l <<< "$e")" = 1 ] &&
    grep -q "status: no console key (.*), and console_keys is empty in .* too, so there is no read key either" <<< "$e" ||
    t_fail "keyless status without console_keys: exit $RC, '$e'"
t_log "no console_keys: $e"
t_pass
