#!/bin/bash
# Datagrams from anyone without the console's key pair change nothing and
# are counted: forged (also with a node's own key), replayed (also across
# a restart), truncated, oversized, bad magic/version/type/length, out of
# range, above the RT budget, garbage.
# Every attack carries mode hpdt, so one that got through would show.
# A process outside the gang is never signalled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup datagram

n_conf mode='"static"' ip='"100ms"' ps='"50%"'
n_start
n_pvm spawn -n 1 "$BUILD/tests/pvm/spin" 0 > /dev/null || t_fail "spawn failed"
# a bystander, not in the gang
"$BUILD/tests/tools/hog" -t 0 -p "$T_DIR/hog.pid" & t_track $!
t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
bystander=$(cat "$T_DIR/hog.pid")

rej() { n_status "rej_$1"; }
# attack ACTION REASON [ARGS]: sending ACTION raises the count of REASON
# by one and nothing else changes
attack() {
	local before after a=$1 r=$2
	shift 2
	before=$(rej "$r")
	n_send "$a" "$@" > /dev/null || t_fail "sendgram $a failed"
	t_wait_for 2 _rej_above "$r" "$before" || t_fail "$a: rej_$r stayed at $before"
	after=$(rej "$r")
	[ "$after" = $((before + 1)) ] || t_fail "$a: rej_$r went $before -> $after, want +1"
	[ "$(n_status mode)" = static ] || t_fail "$a changed the mode to $(n_status mode)"
	[ "$(n_status ps_us)" = 50000 ] || t_fail "$a changed PS to $(n_status ps_us)"
}
_rej_above() { [ "$(rej "$1")" -gt "$2" ]; }

for a in forge:mac replay-old:replay truncate:short oversize:long \
    badmagic:magic badversion:magic badtype:type badlen:length; do
	attack "${a%%:*}" "${a#*:}" hpdt 30000 100000
done
attack range range hpdt 200000 100000	# PS > IP, correctly signed

# a node's own key material (its key_file, and its dts.conf with the
# console's public key) commands no node: a key pair made from the node's
# key, posing under the console key's id, and an HMAC under the node's key
before=$(rej mac)
n_send nodeforge "$N_KEY" hpdt 30000 100000 > /dev/null || t_fail "sendgram nodeforge failed"
nodeforged() { [ "$(rej mac)" -ge $((before + 2)) ]; }
t_wait_for 2 nodeforged || t_fail "nodeforge: rej_mac went $before -> $(rej mac), want +2"
[ "$(n_status mode)" = static ] || t_fail "a node's key commanded the node"

# a replayed datagram: the first copy is authentic and applied, the second
# is dropped as a replay
before=$(rej replay)
n_send replay static 40000 100000 > /dev/null || t_fail "sendgram replay failed"
t_wait_for 2 _rej_above replay "$before" || t_fail "replay not counted"
[ "$(n_status ps_us)" = 40000 ] || t_fail "the authentic first copy was not applied"

# authentic, but above the kernel's real-time budget (95% by default)
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
if [ "$rt" -gt 0 ]; then
	before=$(rej range)
	n_send -n schedule static 990000 1000000 || t_fail "sendgram failed"
	t_wait_for 2 _rej_above range "$before" || t_fail "PS 99% not rejected"
	t_logged "real-time" || t_fail "no reason logged for the RT budget"
	[ "$(n_status ps_us)" = 40000 ] || t_fail "PS 99% was applied"
fi

# garbage: thousands of random datagrams; dts lives, and each one is either
# counted by dts or dropped by the kernel at dts's full socket buffer (the
# intake thread may use 3 % of a core, in bursts of 50 ms: dts(8)).  Once
# the socket is empty, however long a busy machine took, the two add up
# to exactly 3000: the next STATUS is answered after every one of them
# was counted.  A STATUS request of ours that got no answer may have been
# counted too (rate): each such one widens the bound by one.
sum_rej() { n_status | awk -F= '/^rej_/ { s += $2 } END { print s }'; }
udp_drops() { t_udp_drops "$N_PORT"; }
before=$(sum_rej) kbefore=$(udp_drops)
[ -n "$before" ] || t_fail "no STATUS before the garbage"
n_send garbage 3000 12345 > /dev/null || t_fail "sendgram garbage failed"
kill -0 "$N_DTS" || t_fail "dts died on garbage"
t_udp_drained 30 "$N_PORT" ||
    t_fail "dts did not read its socket empty in 30 s ($(t_udp_queued "$N_PORT") bytes left)"
unanswered=0
for _ in 1 2 3 4 5; do
	after=$(sum_rej)
	[ -n "$after" ] && break
	unanswered=$((unanswered + 1))
done
[ -n "$after" ] || t_fail "no STATUS after the garbage"
kafter=$(udp_drops)
counted=$((after - before)) dropped=$((kafter - kbefore))
t_log "garbage: $counted counted by dts, $dropped dropped by the kernel, $unanswered STATUS requests unanswered"
[ "$((counted + dropped))" -ge 3000 ] &&
    [ "$((counted + dropped))" -le $((3000 + unanswered)) ] ||
    t_fail "of 3000 garbage datagrams $counted counted by dts and $dropped dropped by the kernel (want 3000, +$unanswered unanswered STATUS requests)"
[ "$counted" -ge 100 ] || t_fail "dts counted only $counted of 3000 garbage datagrams"
[ "$(n_status mode)" = static ] || t_fail "garbage changed the mode"

# the bystander was never stopped (nor put in the gang) while the gang was
n_in_gang "$bystander" && t_fail "the bystander is in the gang"
gang_stops=0
for _ in $(seq 50); do
	n_is_stopped "$bystander" && t_fail "a process outside the gang was stopped"
	n_gang_frozen && gang_stops=$((gang_stops + 1))
	sleep 0.02
done
[ "$gang_stops" -gt 0 ] || t_fail "the gang was never seen frozen: the bystander check proves nothing"

# replay across a restart: an authentic datagram captured before dts
# restarted (here: sent to a port nobody listens on) is refused by the new
# dts, whose replay floor is its own start time
"$BUILD/tests/tools/sendgram" -k "$N_SECRET" -s "$N_SIGN" -p $((N_PORT + 1)) -n -o "$T_DIR/captured" \
    schedule hpdt 30000 100000 > /dev/null || t_fail "capture failed"
n_halt || t_fail "dts did not exit"
n_start
[ "$(rej replay)" = 0 ] || t_fail "a new dts starts with replay count $(rej replay)"
n_send raw "$T_DIR/captured" > /dev/null || t_fail "sendgram raw failed"
t_wait_for 2 _rej_above replay 0 || t_fail "datagram from before the restart was not refused"
[ "$(n_status mode)" = static ] || t_fail "the captured datagram changed the mode"
n_halt || t_fail "dts did not exit"
n_no_leftovers || t_fail "left over"
t_pass
