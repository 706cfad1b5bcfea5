#!/bin/bash
# t78-cluster-attacks.sh - datagrams from a host without the key, on a
# real 4-host network (tests/system/cluster.sh): h0 h1 h2 run their dts
# service and form the PVM virtual machine (every pvmd in its host's
# gang), driven by dts-console on h0 (static, IP 100ms); h3 is on the
# same subnet, runs no dts and has another key.
#
# From h3, each attack goes to h0, h1 and h2 and to the broadcast
# address (so every node gets it twice), and carries mode hpdt where it
# carries a schedule, so one that got through would show:
#  1. forged: SCHEDULE signed with a random key, with h3's own key, and
#     with no key (insecure, zero tag); a STATUS request with h3's key
#     gets no reply;
#  2. malformed: truncated, oversized, bad magic, bad version, bad type,
#     bad payload length;
#  3. replayed: an authentic SCHEDULE (PS 40%) that h0 broadcast and h3
#     captured, sent again after the console moved PS to 50%;
#  4. garbage: 600 random datagrams to each node and 600 broadcast;
#  5. replayed again: one captured at PS 50%, sent after the console went
#     back to 40% and 300 other authenticated senders have talked to the
#     nodes (every console and sendgram run is a new sender): the nodes
#     must not forget what they have seen.
# After each attack every node counts it, once per copy, under the
# expected reason and under no other, and keeps mode, PS and IP; the
# nodes slice all along.  The console's `status -v` shows the same counts
# per reason as every node's own STATUS (sendgram from h0).
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t78-cluster-attacks

t_need_built console/dts-console

T0=$(_t_now_us)
REASONS="short long magic type length rate mac replay range master"

C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "40%"; si = "60s";'
C_DTS_HOSTS="0 1 2"	# h3: no dts service
c_up 4 --no-pvm
OTHER=$T_DIR/h3/other.key	# h3's keys: not the cluster's
t_keygen "$OTHER" || t_fail "cannot write $OTHER"
cmp -s "$OTHER" "$C_KEY" && t_fail "h3's key is the cluster's"
"$BUILD/console/dts-console" -k "$T_DIR/h3/other.sign" > /dev/null ||
    t_fail "cannot make h3's key pair"
H3KEYS="-k $OTHER -s $T_DIR/h3/other.sign"

# the VM h0 h1 h2, without h3; the console starts the nodes (and its SI
# of 60 s sends nothing more during the test: an attack that got
# through would not be undone)
c_ft_con -c "conf; add h1 h2; mode static; ip 100ms; ps 40%; si 60s; start" ||
    t_fail "console: $C_FT_OUT $C_FT_ERR"
for h in h1 h2; do
	grep -qx "$h: added" <<< "$C_FT_OUT" || t_fail "add $h: $C_FT_OUT"
done
c_wait_hosts 3 30 || t_fail "the VM does not have 3 hosts"
[ -z "$(c_ft_daemons h3)" ] || t_fail "h3 runs $(c_ft_daemons h3)"
t_log "VM h0 h1 h2 up, h3 outside: $(t_secs "$T0") s"

PS=40000
declare -A ST EXP
# snap: the STATUS of h0 h1 h2 into ST[k]
snap() {
	local k
	for k in 0 1 2; do ST[$k]=$(c_status h$k) || t_fail "h$k: no STATUS reply"; done
}
field() { sed -n "s/^$2=//p" <<< "$1"; }	# field STATUS_TEXT NAME
# sched_ok STATUS_TEXT: the schedule the console gave, slicing
sched_ok() {
	[ "$(field "$1" mode)" = static ] && [ "$(field "$1" ps_us)" = "$PS" ] &&
	    [ "$(field "$1" ip_us)" = 100000 ] && [ "$(field "$1" active)" = 1 ]
}
snap
declare -a SLICES0
for k in 0 1 2; do
	sched_ok "${ST[$k]}" || t_fail "h$k: not static PS $PS: $(paste -sd' ' <<< "${ST[$k]}")"
	SLICES0[k]=$(field "${ST[$k]}" slices)
	for r in $REASONS; do EXP[$k,$r]=$(field "${ST[$k]}" "rej_$r"); done
done

# from_h3 KEYOPT ACTION [ARGS]: sendgram on h3 to h0, h1, h2 and to the
# broadcast address; SENT_RC = the status of every run ("0 0 0 0")
from_h3() {
	local key=$1 a
	shift
	SENT_RC=
	for a in "${C_ADDR[0]}" "${C_ADDR[1]}" "${C_ADDR[2]}" "$C_BCAST"; do
		# shellcheck disable=SC2086
		c_exec h3 sendgram $key -a "$a" -p "$C_PORT" -t 300 "$@" \
		    >> "$T_LOG/attacks.log" 2>&1
		SENT_RC="$SENT_RC $?"
	done
	SENT_RC=${SENT_RC# }
}
# caught_up K: every count of K has reached the expected one
caught_up() {
	local out r
	out=$(c_status "h$1") || return 1
	for r in $REASONS; do
		[ "$(field "$out" "rej_$r")" -ge "${EXP[$1,$r]}" ] || return 1
	done
}
# check_nodes WHAT: every count is exactly as expected, the schedule
# unchanged (EXP updated by the caller first)
check_nodes() {
	local what=$1 k r got
	# (10 s: two datagrams, but a busy machine may hold the intake back)
	for k in 0 1 2; do t_wait_for 10 caught_up "$k"; done
	snap
	for k in 0 1 2; do
		for r in $REASONS; do
			got=$(field "${ST[$k]}" "rej_$r")
			[ "$got" = "${EXP[$k,$r]}" ] ||
			    t_fail "$what: h$k counts $got $r, want ${EXP[$k,$r]}: $(grep '^rej_' <<< "${ST[$k]}" | paste -sd' ')"
		done
		sched_ok "${ST[$k]}" ||
		    t_fail "$what changed h$k's schedule: $(paste -sd' ' <<< "${ST[$k]}")"
	done
}
# attack REASON KEYOPT ACTION [ARGS]: every node counts ACTION twice
# under REASON and nothing else changes
attack() {
	local r=$1 key=$2 k
	shift 2
	from_h3 "$key" "$@"
	[ "$SENT_RC" = "0 0 0 0" ] || t_fail "sendgram $key $* on h3: status $SENT_RC"
	for k in 0 1 2; do EXP[$k,$r]=$((EXP[$k,$r] + 2)); done
	check_nodes "${WHAT:-$1 ($key)}"
}
ATT=(hpdt 30000 100000)	# what an attack asks for

# ---- 1. forged ------------------------------------------------------------------
attack mac "$H3KEYS" forge "${ATT[@]}"	# a random key under the console's id
attack mac "$H3KEYS" -n schedule "${ATT[@]}"	# h3's own key pair
# a node's own key material (h1's key_file) commands no node
from_h3 "$H3KEYS" nodeforge "$T_DIR/h1/dts.key" "${ATT[@]}"
[ "$SENT_RC" = "0 0 0 0" ] || t_fail "sendgram nodeforge on h3: status $SENT_RC"
for k in 0 1 2; do EXP[$k,mac]=$((EXP[$k,mac] + 4)); done
check_nodes "h1's key as a key pair and as an HMAC key"
attack mac -K -n schedule "${ATT[@]}"	# no key: a zero tag
# h3 asks for STATUS with its key: dropped, no reply
from_h3 "$H3KEYS" status
[ "$SENT_RC" = "1 1 1 1" ] || t_fail "STATUS requests with the wrong key: sendgram status $SENT_RC (a reply came?)"
for k in 0 1 2; do EXP[$k,mac]=$((EXP[$k,mac] + 2)); done
check_nodes "status with the wrong key"
t_log "1. forged: $(t_secs "$T0") s"

# ---- 2. malformed ---------------------------------------------------------------
attack short "$H3KEYS" truncate "${ATT[@]}"
attack long "$H3KEYS" oversize "${ATT[@]}"
attack magic "$H3KEYS" badmagic "${ATT[@]}"
attack magic "$H3KEYS" badversion "${ATT[@]}"
attack type "$H3KEYS" badtype "${ATT[@]}"
attack length "$H3KEYS" badlen "${ATT[@]}"
t_log "2. malformed: $(t_secs "$T0") s"

# ---- 3. replayed ----------------------------------------------------------------
# h0, with the key, broadcasts the schedule the nodes have (PS 40%); h3
# captures the bytes (here: sendgram -o, as an eavesdropper would)
capture() {
	c_exec h0 sendgram -k "$C_KEY" -s "$C_SIGN" -a "$C_BCAST" -p "$C_PORT" -n -o "$1" \
	    schedule static "$PS" 100000 > /dev/null || t_fail "authentic broadcast failed"
	cp "$1" "$T_DIR/h3/${1##*/}" || t_fail "cannot copy the capture to h3"
}
# new_ps PCT: the console moves PS; every node follows
new_ps() {
	c_ft_con -n -c "mode static; ip 100ms; ps $1%; si 60s; start" ||
	    t_fail "console ps $1%: $C_FT_ERR"
	PS=$(($1 * 1000))
	for k in 0 1 2; do
		t_wait_for 3 eval '[ "$(c_status h$k ps_us)" = "$PS" ]' ||
		    t_fail "h$k: PS $(c_status h$k ps_us), not the console's $PS"
	done
}
capture "$T_DIR/captured"
new_ps 50
WHAT="replay of a SCHEDULE of PS 40%" attack replay -K raw "$T_DIR/h3/captured"
t_log "3. replayed: $(t_secs "$T0") s"

# ---- the console sees what the nodes count --------------------------------------
c_ft_con -n -c "status -v" || t_fail "status -v: $C_FT_ERR"
grep -q "^3 nodes answered" <<< "$C_FT_OUT" || t_fail "status -v: $C_FT_OUT"
for k in 0 1 2; do
	want=$(for r in $REASONS; do printf '%s=%s ' "$r" "${EXP[$k,$r]}"; done)
	want=${want% }
	got=$(c_ft_con_rej h$k) || t_fail "status -v: no rejected line for h$k: $C_FT_OUT"
	[ "$got" = "$want" ] || t_fail "status -v, h$k: '$got', want '$want'"
	[ "$(c_ft_rej h$k)" = "$want" ] || t_fail "h$k's STATUS: '$(c_ft_rej h$k)', want '$want'"
done
t_log "counts (every node): $want"

# ---- 4. garbage -----------------------------------------------------------------
N=600
sum_rej() { awk -F= '/^rej_/ { s += $2 } END { print s + 0 }' <<< "$1"; }
# each one is counted by dts or dropped by the kernel at dts's full socket
# buffer (dts's intake thread may use 3 % of a core, in bursts of 50 ms).
# Once a node's socket is empty, however long a busy machine took, the
# two add up to exactly 2N: its next STATUS is answered after every one
# was counted.  A STATUS request from h0 that got no answer may have been
# counted too (rate): each such one widens the bound by one.
declare -a SUM0 K0
for k in 0 1 2; do
	SUM0[k]=$(sum_rej "${ST[$k]}")
	K0[k]=$(t_udp_drops "$C_PORT" c_exec h$k)
done
from_h3 -K garbage "$N" 12345
[ "$SENT_RC" = "0 0 0 0" ] || t_fail "sendgram garbage on h3: status $SENT_RC"
for k in 0 1 2; do
	t_udp_drained 30 "$C_PORT" c_exec h$k ||
	    t_fail "h$k did not read its socket empty in 30 s"
	lost=0
	until ST[$k]=$(c_status h$k); do
		lost=$((lost + 1))
		[ "$lost" -lt 5 ] || t_fail "h$k: no STATUS reply after the garbage"
	done
	d=$(($(sum_rej "${ST[$k]}") - SUM0[k]))
	kd=$(($(t_udp_drops "$C_PORT" c_exec h$k) - K0[k]))
	t_log "h$k counted $d of $((2 * N)) garbage datagrams, the kernel dropped $kd, $lost STATUS requests unanswered"
	[ "$((d + kd))" -ge $((2 * N)) ] && [ "$((d + kd))" -le $((2 * N + lost)) ] &&
	    [ "$d" -ge $((N / 10)) ] ||
	    t_fail "h$k: of $((2 * N)) garbage datagrams $d counted, $kd dropped by the kernel (want $((2 * N)), +$lost unanswered STATUS requests)"
	sched_ok "${ST[$k]}" || t_fail "garbage changed h$k's schedule: $(paste -sd' ' <<< "${ST[$k]}")"
done
c_ft_con -n -c "status -v" || t_fail "status -v: $C_FT_ERR"
for k in 0 1 2; do
	got=$(c_ft_con_rej h$k) || t_fail "status -v: no rejected line for h$k: $C_FT_OUT"
	[ "$got" = "$(c_ft_rej h$k)" ] ||
	    t_fail "status -v, h$k: '$got', but its STATUS says '$(c_ft_rej h$k)'"
done
t_log "4. garbage: $(t_secs "$T0") s"

# ---- 5. replayed after many senders -------------------------------------------
# a SCHEDULE captured at PS 50%, replayed once the console is back at 40%
# and the nodes have heard 300 other authenticated senders
snap
for k in 0 1 2; do
	for r in $REASONS; do EXP[$k,$r]=$(field "${ST[$k]}" "rej_$r"); done
done
capture "$T_DIR/captured2"
new_ps 40
c_exec h0 sh -c 'i=0; while [ $i -lt 300 ]; do
	sendgram -k "$1" -s "$4" -a "$2" -p "$3" -n status || exit 1; i=$((i + 1)); done' \
    _ "$C_KEY" "$C_BCAST" "$C_PORT" "$C_SIGN" > /dev/null || t_fail "300 STATUS requests from h0"
# 300 signatures to check take a node's intake thread about 0.3 s of CPU,
# which its budget (3 % of a core, bursts of 50 ms) spreads out: wait
# until it has read its socket empty before the replay, or the kernel
# could drop that
for k in 0 1 2; do
	t_udp_drained 30 "$C_PORT" c_exec h$k ||
	    t_fail "h$k did not read its socket empty in 30 s"
done
WHAT="replay of a SCHEDULE of PS 50% after 300 other senders" \
    attack replay -K raw "$T_DIR/h3/captured2"
c_ft_con -n -c "status -v" || t_fail "status -v: $C_FT_ERR"
for k in 0 1 2; do
	got=$(c_ft_con_rej h$k) || t_fail "status -v: no rejected line for h$k: $C_FT_OUT"
	[ "$got" = "$(c_ft_rej h$k)" ] ||
	    t_fail "status -v, h$k: '$got', but its STATUS says '$(c_ft_rej h$k)'"
done
t_log "5. replayed after 300 senders: $(t_secs "$T0") s"

# ---- the nodes sliced all along ------------------------------------------------------
snap
for k in 0 1 2; do
	s=$(field "${ST[$k]}" slices)
	# ~10 slices a second; the test took several seconds
	[ "$s" -gt $((SLICES0[k] + 10)) ] || t_fail "h$k: slices ${SLICES0[k]} -> $s"
	c_dts_pid h$k > /dev/null || t_fail "h$k: dts is gone"
done
[ -z "$(c_ft_daemons h3)" ] || t_fail "h3 runs $(c_ft_daemons h3)"
t_pass
