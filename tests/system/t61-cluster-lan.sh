#!/bin/bash
# t61-cluster-lan.sh - the test cluster on an emulated LAN (cluster.sh with
# C_LAN=tap: tests/tools/lanswitch between the hosts' TAP devices) instead
# of the zero-delay bridge.
#
#  1. Loss: c_up 2 --no-pvm with C_LAN_LOSS=0.2 (20 % per link).  200 UDP
#     echoes h0 -> h1 -> h0 (tests/tools/lanping.py, a flood: the next as
#     soon as the reply came or 50 ms passed) cross 4 links each, so
#     1 - 0.8^4 = 59 % of them are lost: between 40 and 85 % (load can
#     only add late replies).  lanswitch's own counters: every echo
#     crossed its links, and 20 % ± 6 of the link crossings were lost
#     (its random draws; load does not change them).  c_down ends
#     lanswitch and leaves nothing.
#  2. The defaults (100 µs ± 50 µs per link, 0.1 % loss, 1 Gbit/s):
#     c_up 2 with STATIC mode.  The TAP device of each host is its eth0,
#     in its namespace, none in the root namespace.  200 UDP echoes:
#     the shortest round trip >= 4 x (100 - 50) = 200 µs (the emulated
#     minimum), the median >= 350 µs (4 links of 100 µs on average), and
#     max - min >= 100 µs (the jitter: 4 draws of ± 50 µs); only lower
#     bounds, which load cannot break.
#  3. PVM across the LAN: master1 spawns slave1 on every host and gets
#     every result; a spin spawned on h1 runs in h1's gang.  A STATIC
#     schedule broadcast from h0 reaches both dts services (ps_us); both
#     hosts slice (slices counters up by >= 10 in 2 s at IP 100 ms, each
#     gang seen frozen), and spin gets >= 100 ms of CPU in those 2 s.
#  4. c_down: lanswitch ended (its counters written), no namespace,
#     process, TAP device or run directory left.
#  5. A second run with lanswitch at SCHED_FIFO 10, killed with SIGTERM in
#     the middle of a foreground c_exec, leaves nothing either.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t61-cluster-lan
t_need python3 python3
[ -e /dev/net/tun ] || t_skip "needs /dev/net/tun (TAP devices)"
t_need_built tests/tools/lanswitch
PING="python3 $SRC/tests/tools/lanping.py"
EPORT=$((C_PORT + 2))

_links() { ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort; }
links0=$(_links)

# kv KEY LINE: the value of KEY=VALUE in LINE
kv() { tr ' ' '\n' <<< "$2" | sed -n "s/^$1=//p" | head -n 1; }

# ping_run COUNT TIMEOUT_MS: an echo server on h1, COUNT echoes from h0;
# sets PING_OUT (lanping's line)
ping_run() {
	local srv
	c_bg h1 echo-srv $PING serve "$EPORT"
	srv=$C_BG_PID
	t_sleep 0.5	# it binds
	PING_OUT=$(c_exec h0 $PING ping "${C_ADDR[1]}" "$EPORT" "$1" "$2") ||
	    t_fail "lanping failed: $PING_OUT"
	kill -TERM "$srv" 2> /dev/null
	wait "$srv" 2> /dev/null
	t_untrack "$srv"
	t_log "lanping: $PING_OUT"
}

# down_clean WHAT: c_down the cluster that is up, then check that nothing
# of it is left, lanswitch included (WHAT names the run in a failure).
down_clean() {
	local prefix=$C_PREFIX dir=$T_DIR sw ids
	sw=$(t_proc_id "$C_LAN_PID")
	ids="$(_c_ids | paste -sd' ') $sw"
	c_down || t_fail "c_down reported leftovers ($1)"
	t_id_alive "$sw" && t_fail "lanswitch survived c_down ($1)"
	leftovers "$prefix" "$dir" "$ids"
}

# leftovers PREFIX DIR IDS: nothing of a cluster run left after c_down
leftovers() {
	local ns id
	ns=$(ip netns list | awk -v p="$1" 'index($1, p) == 1 { print $1 }' | paste -sd' ')
	[ -z "$ns" ] || t_fail "namespaces left after c_down: $ns"
	for id in $3; do
		t_id_alive "$id" && t_fail "process ${id%%:*} ($(_c_comm "${id%%:*}")) survived c_down"
	done
	[ "$(_links)" = "$links0" ] ||
	    t_fail "links in the root netns changed: $(comm -3 <(echo "$links0") <(_links) | paste -sd' ')"
	if [ "${KEEP:-0}" != 1 ] && [ -e "$2" ]; then
		t_fail "run dir $2 left after c_down"
	fi
}

# ---- 1. loss ----------------------------------------------------------------
C_LAN=tap C_LAN_LOSS=0.2
c_up 2 --no-pvm
[ -n "$C_LAN_PID" ] || t_fail "C_LAN=tap: no lanswitch"
# (a lost echo costs the whole timeout: 50 ms is 100 times the LAN's
# round trip, and late replies only add to the loss, whose upper bound
# leaves room for 50 of them)
ping_run 200 50
lost=$(kv lost "$PING_OUT")
awk -v l="$lost" 'BEGIN { exit !(l >= 0.40 && l <= 0.85) }' ||
    t_fail "C_LAN_LOSS=0.2: $lost of the echoes lost, not ~0.59 (1 - 0.8^4): $PING_OUT"
st=$(c_lan_stats) || t_fail "no counters from lanswitch"
tot=$(grep '^total ' <<< "$st")
t_log "lanswitch: $tot"
links=$(kv links "$tot") loss=$(kv loss "$tot")
[ "${links:-0}" -ge 400 ] || t_fail "lanswitch counted $links link crossings, not >= 400: $tot"
awk -v l="$loss" 'BEGIN { exit !(l >= 0.14 && l <= 0.26) }' ||
    t_fail "lanswitch lost $loss of the link crossings, not 0.2 +- 0.06: $tot"
down_clean "loss run"
mkdir -p "$T_LOG" || t_fail "cannot make $T_LOG"	# c_down removed $T_DIR

# ---- 2. the defaults: delay and jitter ---------------------------------------
C_LAN=tap C_LAN_LOSS=0.001
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "50%";'
c_up 2
for k in 0 1; do
	ip -n "${C_NS[$k]}" -o link show eth0 > /dev/null || t_fail "h$k: no eth0"
	ip -n "${C_NS[$k]}" -d link show eth0 | grep -q 'tun type tap' ||
	    t_fail "h$k: eth0 is not lanswitch's TAP: $(ip -n "${C_NS[$k]}" -d link show eth0 | paste -sd' ')"
done
new=$(comm -13 <(echo "$links0") <(_links) | paste -sd' ')
[ -z "$new" ] || t_fail "links in the root netns: $new"
ping_run 200 500
min=$(kv min_us "$PING_OUT") p50=$(kv p50_us "$PING_OUT") max=$(kv max_us "$PING_OUT")
[ "$(kv received "$PING_OUT")" -ge 150 ] || t_fail "too few echoes came back: $PING_OUT"
awk -v a="$min" 'BEGIN { exit !(a >= 200) }' ||
    t_fail "shortest round trip $min us < 4 x (100 - 50) us: $PING_OUT"
awk -v a="$p50" 'BEGIN { exit !(a >= 350) }' ||
    t_fail "median round trip $p50 us < 350 us (4 links of 100 us): $PING_OUT"
awk -v a="$min" -v b="$max" 'BEGIN { exit !(b - a >= 100) }' ||
    t_fail "round trips spread only $((max - min)) us (jitter 4 x +-50 us): $PING_OUT"

# ---- 3. PVM and STATIC across the LAN ----------------------------------------
c_master1 ""
tid=$(c_pvm h0 spawn -w h1 "$BUILD/tests/pvm/spin" 60) || t_fail "spawn -w h1 failed: $tid"
t_wait_for 10 eval '[ -n "$(c_gang_pids h1 spin)" ]' ||
    t_fail "spin (tid $tid) is not in h1's gang: its members $(for p in $(c_gang_pids h1); do echo -n "$p:$(_c_comm "$p") "; done); PVM's tasks: $(c_pvm h0 tasks 2>&1 | paste -sd'|'); every spin: $(for p in $(pgrep -x spin); do echo -n "$p:$(t_proc_state "$p"):$(cut -d: -f3- "/proc/$p/cgroup" | paste -sd,) "; done)"
# (sent again, up to 3 times, as a master sends its schedule each SI:
# this LAN loses 0.1 % on each link, and lanswitch, at normal priority
# beside the spinning gang and other work, drops what it cannot forward
# in time; one datagram lost failed the run once)
_bcast_arrived() { [ "$(c_status h0 ps_us)" = 40000 ] && [ "$(c_status h1 ps_us)" = 40000 ]; }
for try in 1 2 3; do
	c_exec h0 sendgram -k "$C_KEY" -s "$C_SIGN" -a "$C_BCAST" -p "$C_PORT" \
	    schedule static 40000 100000 > /dev/null || t_fail "broadcast SCHEDULE: no reply"
	t_wait_for 2 _bcast_arrived && break
	t_log "broadcast SCHEDULE, try $try: h0 ps_us $(c_status h0 ps_us), h1 ps_us $(c_status h1 ps_us): sending again"
done
for k in 0 1; do
	[ "$(c_status h$k ps_us)" = 40000 ] ||
	    t_fail "h$k: the broadcast schedule did not arrive in 3 sends (ps_us $(c_status h$k ps_us))"
done
# both hosts slice: their slice counters run, each gang is seen frozen
# (an LS), and spin on h1 gets CPU time (its PS)
spin=$(c_gang_pids h1 spin | head -n 1)
for k in 0 1; do S0[k]=$(c_status h$k slices); done
t_cpu_ns "$spin" c0 || t_fail "no spin $spin"
for k in 0 1; do
	t_wait_for 5 c_gang_frozen h$k || t_fail "h$k: gang never seen frozen (no LS)"
done
t_sleep 2
t_cpu_ns "$spin" c1 || t_fail "no spin $spin"
for k in 0 1; do
	s=$(c_status h$k slices)
	[ "$s" -ge $((S0[k] + 10)) ] || t_fail "h$k: slices ${S0[k]} -> $s in > 2 s at IP 100 ms"
done
[ $((c1 - c0)) -ge 100000000 ] || t_fail "spin on h1 got $(((c1 - c0) / 1000000)) ms of CPU in > 2 s"
t_log "slices ${S0[*]} -> $(c_status h0 slices) $(c_status h1 slices); spin on h1: $(((c1 - c0) / 1000000)) ms of CPU"
t_log "lanswitch: $(c_lan_stats | grep '^total ')"

# ---- 4. teardown ---------------------------------------------------------------
down_clean "the defaults run"

# ---- 5. killed midway -------------------------------------------------------
# A child run on the LAN with lanswitch at SCHED_FIFO 10, SIGTERM in the
# middle of a foreground c_exec: lanswitch ends too, nothing is left.
mkdir -p "$T_LOG" || t_fail "cannot make $T_LOG"
ready=$T_DIR/child.ready clog=$T_LOG/child.log
KEEP=0 READY=$ready C_LAN=tap C_LAN_RTPRIO=10 bash -c '
	set -u
	. "$SRC/tests/system/lib.sh"
	. "$SRC/tests/system/cluster.sh"
	t_setup t61-child
	c_up 2 --no-pvm
	[ "$(t_policy "$C_LAN_PID")" = FF ] || t_fail "lanswitch is not SCHED_FIFO"
	echo "$C_PREFIX $T_DIR $(t_proc_id "$C_LAN_PID") $(_c_ids | paste -sd" ")" > "$READY.tmp"
	mv "$READY.tmp" "$READY"
	c_exec h1 sleep 300
	t_pass' > "$clog" 2>&1 &
child=$!
t_track "$child"
t_wait_for 60 test -s "$ready" || t_fail "the child run did not come up: $(tail -n 3 "$clog")"
read -r cprefix cdir csw cids < "$ready"
t_sleep 0.5
kill -TERM "$child"
t_wait_for 60 eval '! kill -0 "$child" 2>/dev/null || [ "$(t_proc_state "$child")" = Z ]' ||
    t_fail "the child run did not end within 60 s of SIGTERM"
wait "$child"
crc=$?
t_untrack "$child"
[ "$crc" = 143 ] || t_fail "killed run: status $crc, not 143 (see log/child.log)"
t_id_alive "$csw" && t_fail "killed run left lanswitch ${csw%%:*}"
leftovers "$cprefix" "$cdir" "$cids"
t_pass
