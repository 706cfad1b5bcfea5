#!/bin/bash
# t112-lan-attacks.sh - a LAN host without the keys against the master's
# path, on a real 3-host network (tests/system/cluster.sh): h0 and h1 run
# dts; the master console runs on h0 (nodes h0 h1, static, PS 80 ms of
# IP 100 ms, SI 500 ms: the nodes fall back to their own configuration,
# PS 50 ms, after 1.5 s without it) and its standby on h1 (console.peer); h2 runs
# no dts and forges datagrams with a raw socket (tests/tools/flood -S).
#  1. A flood that forges the master's address and port (6 s, the
#     console key's id, random signatures) to h1's dts: it reaches the
#     master's own socket of h1.  At 5,000 a second h1 never falls back to
#     its configuration: every schedule of the master's gets through (the
#     build before this test fell back).  As fast as h2 sends (~200,000 a
#     second) h1 obeys no forgery, keeps slicing, its dts stays under 25 %
#     of a CPU, and once the flood ends its master is h0 again within 3 s;
#     how often it fell back is logged (the kernel drops most datagrams
#     at the socket then, the master's too: dts(8) SECURITY).
#  2. The same from the master's address and another port: h1's general
#     socket, where the master's broadcasts arrive; the same checks.
#  3. A read request (the read key's STATUS_REQ, as a keyless console's)
#     that h0 sent to h1 and h2 captured, sent again by h2: refused as a
#     replay (rej_replay), no answer; the first copy was answered.
#  4. A flood on the standby's peer port (h1:477): from h2's own address,
#     then forging the master console's address and port 477.  The
#     standby stays standby (no takeover while the master is alive) and
#     the nodes keep h0 as their master.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t112-lan-attacks
for p in console/dts-console tests/tools/flood; do
	t_need_built "$p"
done
t_need python3 python3

N=3
C_DTS_HOSTS="0 1"	# h2: the LAN attacker, no dts
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "50%";'	# its own: PS 50 ms
c_up $N --no-pvm
A0=$(c_addr h0) A1=$(c_addr h1) A2=$(c_addr h2)
C_SC_CONSOLE_EXTRA="nodes = [\"$A0\", \"$A1\"]; status_wait = \"300ms\"; peer = \"@PEER@\";"
c_sc_write_console_conf || t_fail "cannot write the console's configuration"
sed "s/@PEER@/$A1/" "$C_SC_CONF" > "$T_DIR/console-h0.conf"
sed "s/@PEER@/$A0/" "$C_SC_CONF" > "$T_DIR/console-h1.conf"
KEYID=${C_PUB:0:8}
PEERPORT=477

# con HOST NAME ARGS...: dts-console -n on HOST (t107's); a --daemon's pid
# in CON_PID, tracked
con() {
	local h=$1 name=$2
	shift 2
	CON_PID=
	c_exec "$h" "$BUILD/console/dts-console" -n -f "$T_DIR/console-$h.conf" "$@" \
	    > "$T_LOG/$name.out" 2>&1 < /dev/null || return 1
	CON_PID=$(sed -n 's/^dts-console: running in the background, pid \([0-9][0-9]*\)$/\1/p' \
	    "$T_LOG/$name.out")
	[ -z "$CON_PID" ] || t_track "$CON_PID"
}
# followed: h0 and h1 follow the master h0, static, PS 80 ms, slicing
followed() {
	local k out
	for k in 0 1; do
		out=$(c_status h$k) || return 1
		grep -qx "master=$A0" <<< "$out" && grep -qx "mode=static" <<< "$out" &&
		    grep -qx "ps_us=80000" <<< "$out" && grep -qx "active=1" <<< "$out" ||
		    return 1
	done
}
fallbacks() { grep -c "back to the configured schedule" "$T_LOG/dts-h1.log"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
field() { sed -n "s/^$2=//p" <<< "$1"; }

con h0 master --daemon -c "mode static; ip 100ms; ps 80%; si 500ms; start" ||
    t_fail "master on h0: $(cat "$T_LOG/master.out")"
MASTER=$CON_PID
[ -n "$MASTER" ] || t_fail "the master on h0 did not stay: $(cat "$T_LOG/master.out")"
t_wait_for 5 followed || t_fail "the nodes do not follow h0: $(c_status h1 | paste -sd' ')"
con h1 standby --daemon --standby || t_fail "standby on h1: $(cat "$T_LOG/standby.out")"
STANDBY=$CON_PID
[ -n "$STANDBY" ] || t_fail "the standby on h1 did not stay: $(cat "$T_LOG/standby.out")"
# the master console's own port: its commands come from A0:CPORT
CPORT=$(c_exec h0 ss -Hunap | awk -v p="pid=$MASTER," -v pp=":$PEERPORT" \
    'index($0, p) && $4 !~ pp"$" { n = split($4, a, ":"); print a[n]; exit }')
[ -n "$CPORT" ] || t_fail "cannot find the master console's port: $(c_exec h0 ss -Hunap)"
sleep 1
followed || t_fail "the nodes left h0 before any attack"
DTS1=$(c_dts_pid h1) || t_fail "no dts on h1"
t_log "master h0 ($MASTER, port $CPORT), standby h1 ($STANDBY); nodes follow h0"

# flood_master WHAT SPORT RATE: 6 s of forged SCHEDULEs to h1 from
# A0:SPORT, RATE a second (0: as fast as h2 can); FB = fallbacks of h1
# meanwhile, CPU = % of a CPU h1's dts used, SENT, D_RATE and D_MAC =
# what the flood sent and h1 counted
flood_master() {
	local what=$1 sport=$2 rate=$3 st0 st1 c0 c1 t0 t1 fb0
	st0=$(c_status h1) || t_fail "$what: no STATUS before"
	fb0=$(fallbacks)
	c0=$(cpu_ticks "$DTS1") t0=$(_t_now_us)
	c_exec h2 "$BUILD/tests/tools/flood" -a "$A1" -p "$C_PORT" -t 6 -r "$rate" \
	    -i "$KEYID" -S "$A0:$sport" > "$T_LOG/flood-$sport.out" 2>&1 ||
	    t_fail "$what: flood: $(cat "$T_LOG/flood-$sport.out")"
	c1=$(cpu_ticks "$DTS1") t1=$(_t_now_us)
	CPU=$(awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v t=$((t1 - t0)) \
	    'BEGIN { printf "%.1f", 100 * c / hz / (t / 1e6) }')
	SENT=$(sed -n 's/^flood: sent=\([0-9]*\) .*/\1/p' "$T_LOG/flood-$sport.out")
	t_wait_for 3 followed ||
	    t_fail "$what: 3 s after the flood h1 does not follow h0: $(c_status h1 | paste -sd' ')"
	st1=$(c_status h1) || t_fail "$what: no STATUS after"
	FB=$(($(fallbacks) - fb0))
	D_RATE=$(($(field "$st1" rej_rate) - $(field "$st0" rej_rate)))
	D_MAC=$(($(field "$st1" rej_mac) - $(field "$st0" rej_mac)))
	[ "$(field "$st1" slices)" -gt "$(($(field "$st0" slices) + 30))" ] ||
	    t_fail "$what: h1 did not slice through the flood"
	[ "$D_MAC" -gt 0 ] || t_fail "$what: h1 checked no forged signature (did the flood arrive?)"
	awk -v c="$CPU" 'BEGIN { exit !(c <= 25) }' ||
	    t_fail "$what: h1's dts used $CPU % of a CPU (more than 25)"
	t_log "$what: sent $SENT in 6 s; h1: $D_MAC refused as forged, $D_RATE as rate; dts $CPU % of a CPU; fell back $FB times; follows h0 again"
}

# ---- 1. and 2. the master's address, forged ------------------------------------
flood_master "1. forged master (its address and port), 5000/s" "$CPORT" 5000
[ "$FB" = 0 ] || t_fail "1. at 5000/s h1 fell back to its configuration $FB times: the master's schedules did not get through"
flood_master "1. forged master (its address and port), flat out" "$CPORT" 0
flood_master "2. forged master (its address, another port), 5000/s" 40404 5000
[ "$FB" = 0 ] || t_fail "2. at 5000/s h1 fell back to its configuration $FB times: the master's schedules did not get through"
flood_master "2. forged master (its address, another port), flat out" 40404 0

# ---- 3. a read request, replayed -----------------------------------------------
cat > "$T_DIR/readreq.py" <<-'EOF'
	# readreq.py make PUB OUT | send FILE ADDR PORT: a read STATUS_REQ
	# under PUB's read key into OUT; or FILE's bytes sent to ADDR:PORT,
	# printing how many STATUS replies came back in 1 s
	import hashlib, hmac, os, socket, struct, sys, time
	if sys.argv[1] == "make":
	    rk = hashlib.blake2b(b"dts read v5", digest_size=32, key=bytes.fromhex(sys.argv[2])).digest()
	    msg = struct.pack(">IBBHIIQ", 0x44545331, 6, 2, 424, struct.unpack("I", os.urandom(4))[0],
	                      0xffffffff, int(time.time() * 1e6)) + bytes(424)
	    open(sys.argv[3], "wb").write(msg + hmac.new(rk, msg, hashlib.sha256).digest() + bytes(32))
	    sys.exit(0)
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.settimeout(0.2)
	s.sendto(open(sys.argv[2], "rb").read(), (sys.argv[3], int(sys.argv[4])))
	got, end = 0, time.time() + 1
	while time.time() < end:
	    try:
	        if s.recv(2048)[5] == 3: got += 1
	    except socket.timeout:
	        pass
	print(got)
EOF
python3 "$T_DIR/readreq.py" make "$C_PUB" "$T_DIR/read.req" || t_fail "cannot make a read request"
st0=$(c_status h1)
first=$(c_exec h0 python3 "$T_DIR/readreq.py" send "$T_DIR/read.req" "$A1" "$C_PORT")
[ "$first" = 1 ] || t_fail "3. h1 did not answer the read request from h0 ($first replies)"
again=$(c_exec h2 python3 "$T_DIR/readreq.py" send "$T_DIR/read.req" "$A1" "$C_PORT")
st1=$(c_status h1)
d_replay=$(($(field "$st1" rej_replay) - $(field "$st0" rej_replay)))
[ "$again" = 0 ] && [ "$d_replay" = 1 ] ||
    t_fail "3. the replayed read request: $again replies to h2, rej_replay +$d_replay (want 0, +1)"
t_log "3. read request: answered once from h0; replayed from h2: no answer, counted as a replay"

# ---- 4. the standby's peer port ------------------------------------------------
for src in own "$A0:$PEERPORT"; do
	if [ "$src" = own ]; then spoof=(); what="4. flood on the standby's peer port from h2"
	else spoof=(-S "$src"); what="4. flood on the standby's peer port, forging the master's"; fi
	c0=$(cpu_ticks "$STANDBY") t0=$(_t_now_us)
	c_exec h2 "$BUILD/tests/tools/flood" -a "$A1" -p "$PEERPORT" -t 6 -i "$KEYID" "${spoof[@]}" \
	    > "$T_LOG/flood-peer.out" 2>&1 || t_fail "$what: flood: $(cat "$T_LOG/flood-peer.out")"
	c1=$(cpu_ticks "$STANDBY") t1=$(_t_now_us)
	cpu=$(awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v t=$((t1 - t0)) \
	    'BEGIN { printf "%.1f", 100 * c / hz / (t / 1e6) }')
	sent=$(sed -n 's/^flood: sent=\([0-9]*\) .*/\1/p' "$T_LOG/flood-peer.out")
	! grep -q "this console is the master now" "$T_LOG/standby.out" "$T_LOG"/dts-h*.log ||
	    t_fail "$what: the standby took over while the master lives: $(grep -h 'master now\|takes over' "$T_LOG/standby.out" "$T_LOG"/dts-h*.log)"
	! grep -q "takes over from console $A0" "$T_LOG"/dts-h*.log ||
	    t_fail "$what: a node logged a takeover: $(grep -h 'takes over' "$T_LOG"/dts-h*.log)"
	t_wait_for 3 followed || t_fail "$what: the nodes left h0: $(c_status h1 | paste -sd' ')"
	t_log "$what: sent $sent in 6 s; the standby used $cpu % of a CPU, stayed standby; the nodes follow h0"
done
_c_alive "$MASTER" && _c_alive "$STANDBY" || t_fail "a console died"
t_pass
