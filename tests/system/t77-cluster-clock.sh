#!/bin/bash
# t77-cluster-clock.sh - clock steps of a minute, either way, on the
# console's host and on a node's, while the console commands the
# cluster.  Three hosts: h0 runs the console (-n), h1 and h2 a dts
# service.  This machine's clock is shared with everything else on it,
# so h0 and h1 get clocks of their own (c_clock: tests/tools/clockstep.so
# moves CLOCK_REALTIME and the kernel's receive timestamps of every
# process the harness runs there; CLOCK_MONOTONIC, like a real step,
# stays).  h2's clock is the true one.
#
# Steps: h0 +60 s, -60 s, -60 s, +60 s (back to true), then h1 the same.
# After each one:
#  - the step reached the daemon: h1's dts logs it, the console says so
#    when it next hears a node (without that, the test would prove
#    nothing);
#  - a new PS the console gives right after the step is followed by both
#    nodes (one SI is 500 ms; the limit, 3 s, leaves room for a busy
#    machine; a node that refused the console would never follow);
#  - for the next 2 s (four SIs, more than silence) no node refuses a
#    datagram as a replay, none falls back to its own schedule, h0 stays
#    every node's master and the nodes slice;
#  - the console's `status` hears both nodes and drops nothing.
# Last, a replay across a restart: an authentic SCHEDULE, captured (sent
# where nobody listens), is refused by h1's dts after a restart.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t77-cluster-clock

t_need_built tests/tools/clockstep.so console/dts-console

c_clock h0 || t_fail "cannot give h0 a clock"
c_clock h1 || t_fail "cannot give h1 a clock"
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "50%"; si = "2s";'
C_DTS_HOSTS="1 2"
c_up 3 --no-pvm
A0=${C_ADDR[0]}

# st K: the STATUS of hK's dts, asked from h2, whose clock is true: while
# h1's clock is a minute off, h1 hears this new sender by its own stamp
# (its clock as it was at its start), not by its stepped clock
st() {
	c_exec h2 "$BUILD/tests/tools/sendgram" -k "$C_KEY" -s "$C_SIGN" \
	    -a "${C_ADDR[$1]}" -p "$C_PORT" status
}
field() { sed -n "s/^$2=//p" <<< "$1"; }
ps_is() { [ "$(field "$(st "$1")" ps_us)" = "$2" ]; }
deadman() { grep -c "back to the configured schedule" "$T_LOG/dts-h$1.log"; }

c_sc_write_console_conf || t_fail "cannot write the console's configuration"
C_SC_ARGS=-n c_sc_open || t_fail "cannot start the console"
for cmd in "mode static" "ip 100ms" "ps 40%" "si 500ms" "start"; do
	c_sc_cmd "$cmd" || t_fail "console, $cmd: $C_SC_ERR"
done
for k in 1 2; do
	t_wait_for 5 ps_is "$k" 40000 || t_fail "h$k does not follow the console"
done

# console_ok: `status` hears both nodes; returns the console's dropped count
console_ok() {
	c_sc_cmd status || t_fail "console status: $C_SC_ERR"
	grep -q "^2 nodes answered" <<< "$C_SC_OUT" ||
	    t_fail "the console does not hear both nodes: $C_SC_OUT"
	DROPPED=$(sed -n 's/.*console dropped \([0-9]*\) datagram.*/\1/p' <<< "$C_SC_OUT")
}
console_ok
DROPPED0=$DROPPED

# stepped HOST EXPECTED_S: the step reached HOST's daemon (its last report)
stepped() {
	local got
	if [ "$1" = h1 ]; then
		got=$(sed -n 's/.*CLOCK_REALTIME was stepped by \([-+][0-9.]*\) s.*/\1/p' \
		    "$T_LOG/dts-h1.log" | tail -n 1)
	else
		got=$(sed -n 's/.*real-time clock was stepped by \([-+][0-9.]*\) s.*/\1/p' \
		    "$T_LOG/console.err" | tail -n 1)
	fi
	awk -v g="$got" -v e="$2" 'BEGIN { d = g - e; exit !(g != "" && d > -0.01 && d < 0.01) }'
}

PCT=40 N=0
# step HOST TO_S STEP_S: HOST's clock to TO_S off the true time (a step of
# STEP_S), then the checks above
step() {
	local h=$1 to=$2 by=$3 k t0 ms s r
	local -a rej dm sl
	for k in 1 2; do
		s=$(st "$k") || t_fail "h$k: no STATUS before the step"
		rej[k]=$(field "$s" rej_replay) sl[k]=$(field "$s" slices)
		dm[k]=$(deadman "$k")
	done
	PCT=$((PCT == 40 ? 30 : 40)) N=$((N + 1))
	c_clock_step "$h" "$to"
	t0=$(_t_now_us)
	c_sc_cmd "ps $PCT%" || t_fail "console ps $PCT%: $C_SC_ERR"
	for k in 1 2; do
		t_wait_for 3 ps_is "$k" $((PCT * 1000)) ||
		    t_fail "$h stepped by $by s: h$k does not follow the console" \
		    "($(st "$k" | paste -sd' '))"
	done
	ms=$((($(_t_now_us) - t0) / 1000))
	t_sleep 2
	for k in 1 2; do
		s=$(st "$k") || t_fail "h$k: no STATUS after $h stepped by $by s"
		r=$(field "$s" rej_replay)
		[ "$r" = "${rej[k]}" ] ||
		    t_fail "$h stepped by $by s: h$k refused $((r - rej[k])) datagrams as replays"
		[ "$(field "$s" master)" = "$A0" ] && [ "$(field "$s" own)" = 0 ] ||
		    t_fail "$h stepped by $by s: h$k left the console: $(paste -sd' ' <<< "$s")"
		[ "$(deadman "$k")" = "${dm[k]}" ] ||
		    t_fail "$h stepped by $by s: h$k's dead-man switch fired"
		[ "$(field "$s" slices)" -gt "${sl[k]}" ] ||
		    t_fail "$h stepped by $by s: h$k does not slice"
	done
	console_ok
	[ "$DROPPED" = "$DROPPED0" ] ||
	    t_fail "$h stepped by $by s: the console dropped $((DROPPED - DROPPED0)) replies"
	stepped "$h" "$by" || t_fail "the step of $h by $by s did not reach its daemon" \
	    "(h1's log: $(grep 'was stepped' "$T_LOG/dts-h1.log" | tail -n 1); console: $(grep 'was stepped' "$T_LOG/console.err" | tail -n 1))"
	t_log "$N. $h stepped by $by s (now $to s off): both nodes on PS $PCT% after $ms ms, nothing refused"
}

step h0 60 60
step h0 0 -60
step h0 -60 -60
step h0 0 60
step h1 60 60
step h1 0 -60
step h1 -60 -60
step h1 0 60

# ---- replay across a restart of the node ----------------------------------
CAP=$T_DIR/captured
c_exec h2 "$BUILD/tests/tools/sendgram" -k "$C_KEY" -s "$C_SIGN" -a "${C_ADDR[1]}" \
    -p $((C_PORT + 1)) -n -o "$CAP" schedule hpdt 30000 100000 > /dev/null ||
    t_fail "cannot capture a SCHEDULE"
t_sleep 0.1	# the restarted dts's start is after the capture's stamp
c_stop_dts h1 || t_fail "h1's dts did not stop"
c_start_dts h1
t_wait_for 5 ps_is 1 $((PCT * 1000)) || t_fail "the restarted h1 does not follow the console"
c_exec h2 "$BUILD/tests/tools/sendgram" -K -a "${C_ADDR[1]}" -p "$C_PORT" raw "$CAP" \
    > /dev/null || t_fail "cannot send the capture"
t_wait_for 2 eval '[ "$(field "$(st 1)" rej_replay)" = 1 ]' ||
    t_fail "the restarted h1 did not refuse the capture as a replay: $(st 1 | paste -sd' ')"
s=$(st 1)
[ "$(field "$s" mode)" = static ] && [ "$(field "$s" ps_us)" = $((PCT * 1000)) ] ||
    t_fail "the capture changed h1's schedule: $(paste -sd' ' <<< "$s")"
t_log "a SCHEDULE captured before h1's dts restarted is refused as a replay"
c_sc_close
t_pass
