#!/bin/bash
# t72-cluster-balanced.sh - BALANCED mode on a real 4-host PVM virtual
# machine (tests/system/cluster.sh), driven by a dts-console that stays.
#
# The Load agents sample load.sample 10ms, fold every 500ms into Q with a
# 1 s window and report moves of 0.25; per_cpu = false.  Every host
# samples the run queue of the whole machine (procs_running in /proc/stat
# is not per network namespace), so a hog on one host is load on every
# host: the nodes' Q rise and fall together, and what is checked is that
# the console turns them into one PS for the whole cluster at once.
#
#  1. `mode balanced; ip 100ms; ps 80%; si 60s; start` (console.timeout
#     120s: a node is live while heard, and the SI replies are its
#     heartbeat): the console takes the nodes' Q from their replies,
#     computes the RLA and sends the PS of Table 2.1; every host runs it.
#     The baseline must leave room for the hogs and hold still within
#     40 s (a failure, with the RLA seen, if other work on the machine
#     makes the load swing all that time).
#  2. Three CPU hogs (SCHED_OTHER, on h1, h2 and h3): the RLA rises by more
#     than 1 and PS shrinks by a band or more.  Every change is announced
#     by the console ("balanced: RLA r over n nodes: LS x%, PS y") with
#     x = Table 2.1(r) and y = IP - x%, and reaches all 4 hosts within
#     250 ms of each other: one broadcast, sent at once (the SI, 60 s, is
#     re-armed just before the hogs and nothing else asks the nodes, so
#     the load reaches the console only in the nodes' LOAD datagrams).
#     `load` and `status` agree with what the hosts run.
#  3. Hogs stopped: the RLA falls and PS grows back on every host, at once.
#  4. A host falls silent (its dts SIGSTOPped; `si 1s; set timeout 2s`;
#     its dts-load releases its gang, which runs at SCHED_OTHER meanwhile):
#     `load` shows it not live and the RLA over the 3 others, `status`
#     "no reply"; hogs again: the 3 live hosts get the new PS, the RLA
#     "over 3 nodes", the silent host nothing.  SIGCONT: the host is live
#     again and runs the cluster's PS within a few SIs.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t72-cluster-balanced
t_need_built console/dts-console
t_need_built tests/tools/hog

N=4
IP_US=100000
C_CONF_EXTRA='mode = "balanced"; ip = "100ms"; ps = "80%"; si = "60s"; sync = "arrival";
load = { sample = "10ms"; interval = "500ms"; window = "1s"; threshold = 0.25; per_cpu = false; };'
C_SC_CONSOLE_EXTRA='timeout = "120s"; status_wait = "400ms";'
T0=$(_t_now_us)
c_up $N --no-pvm
c_start_console_master
c_sc_add $N
t_log "VM of $N hosts up through the console in $(_c_secs "$T0" "$(_t_now_us)") s"

# ---- helpers -----------------------------------------------------------------
# Table 2.1 (the default load.table, step 0.5): LS percent for a load.
table() {
	awk -v r="$1" 'BEGIN { i = (r <= 0) ? 1 : int(r / 0.5); if (i * 0.5 < r) i++
	    if (i < 1) i = 1; if (i > 9) i = 9; print 10 * i }'
}
dur_us() {	# "60ms" -> 60000
	awk -v d="$1" 'BEGIN { v = d + 0; u = d; sub(/^[0-9.]+/, "", u)
	    m = (u == "s") ? 1e6 : (u == "ms") ? 1e3 : (u == "us") ? 1 : (u == "ns") ? 1e-3 : -1
	    if (m < 0) exit 1; printf "%d\n", v * m + 0.5 }'
}
# sched_lines K FROM: "ms ps_us" of each new schedule host K logged from
# line FROM of its dts log on (ms since the epoch, from the log's stamp
# 2026-11-22T02:36:48.773+0000)
sched_lines() {
	tail -n +"$2" "$T_LOG/dts-h$1.log" |
	    sed -n 's/^\([^ ]*\) dts\[[0-9]*\] info: schedule: mode balanced, PS \([0-9]*\) us of IP.*/\1 \2/p' |
	    awk '{ split($1, a, /[-T:+]/); y = a[1]; m = a[2]; d = a[3]
		# days from the civil date (H. Hinnant)
		y -= (m <= 2); era = int(y / 400); yoe = y - era * 400
		doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
		doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
		days = era * 146097 + doe - 719468
		printf "%.0f %s\n", ((days * 24 + a[4]) * 60 + a[5]) * 60000 + a[6] * 1000, $2 }'
}
last_ps() {	# the PS host K was last told (its dts log)
	sed -n 's/.* info: schedule: mode balanced, PS \([0-9]*\) us of IP.*/\1/p' \
	    "$T_LOG/dts-h$1.log" | tail -n 1
}
log_mark() { wc -l < "$T_LOG/dts-h$1.log"; }
# all_ps HOSTS...: the one PS every given host runs, or fail (status 1)
all_ps() {
	local k p v=
	for k in "$@"; do
		p=$(last_ps "$k")
		[ -n "$p" ] && { [ -z "$v" ] || [ "$p" = "$v" ]; } || return 1
		v=$p
	done
	echo "$v"
}
# ps_now HOSTS...: all_ps, given 2 s to settle (a change may be on its way
# while the logs are read one after the other)
ps_now() {
	local v i
	for i in $(seq 20); do
		v=$(all_ps "$@") && { echo "$v"; return 0; }
		sleep 0.1
	done
	return 1
}
ps_below() { local v; v=$(all_ps "${@:2}") && [ "$v" -lt "$1" ]; }
ps_above() { local v; v=$(all_ps "${@:2}") && [ "$v" -gt "$1" ]; }

# cload: `load` in the console; sets RLA, NLIVE, LSP (LS %), PSU (PS us)
cload() {
	c_sc_cmd load || t_fail "console load: $C_SC_ERR"
	LOADOUT=$C_SC_OUT
	RLA=$(sed -n 's/^RLA mean \([0-9.]*\),.*/\1/p' <<< "$LOADOUT")
	NLIVE=$(sed -n 's/^RLA .* over \([0-9]*\) live node.*/\1/p' <<< "$LOADOUT")
	LSP=$(sed -n 's/.*; balanced uses the mean: LS \([0-9]*\)%, PS .*/\1/p' <<< "$LOADOUT")
	PSU=$(dur_us "$(sed -n 's/.*; balanced uses the mean: LS [0-9]*%, PS \(.*\)$/\1/p' <<< "$LOADOUT")")
	[ -n "$RLA" ] && [ -n "$NLIVE" ] && [ -n "$LSP" ] && [ -n "$PSU" ] ||
	    t_fail "cannot read the load output: $LOADOUT"
}
live_of() { awk -v h="h$1" '$1 == h { print $7 }' <<< "$LOADOUT"; }

# check_notices ERRTEXT: every "balanced:" notice follows Table 2.1
check_notices() {
	local r n x y line
	while read -r line; do
		[ -n "$line" ] || continue
		read -r r n x y <<< "$(sed -n 's/^dts-console: balanced: RLA \([0-9.]*\) over \([0-9]*\) nodes\{0,1\}: LS \([0-9]*\)%, PS \(.*\)$/\1 \2 \3 \4/p' <<< "$line")"
		[ -n "$y" ] || t_fail "unreadable notice: $line"
		# r is printed to 0.01: allow the band either side of a rounded edge
		[ "$x" = "$(table "$r")" ] || [ "$x" = "$(table "$(awk -v r="$r" 'BEGIN { print r - 0.005 }')")" ] ||
		    [ "$x" = "$(table "$(awk -v r="$r" 'BEGIN { print r + 0.005 }')")" ] ||
		    t_fail "notice '$line': LS $x% is not Table 2.1 for RLA $r ($(table "$r")%)"
		[ "$(dur_us "$y")" = $((IP_US * (100 - x) / 100)) ] ||
		    t_fail "notice '$line': PS $y is not IP - $x%"
	done < <(grep '^dts-console: balanced: ' <<< "$1")
}

# check_broadcast HOSTS: since the marks M[k], every PS a host was sent
# reached every host of HOSTS, within 250 ms of each other.  A change sent
# in the last 300 ms may still be on its way to the hosts read first: the
# console moves the PS whenever a report moves the RLA.
check_broadcast() {
	local k now=$(( $(_t_now_us) / 1000 ))
	for k in "$@"; do sched_lines "$k" "$((M[k] + 1))" | sed "s/^/$k /"; done |
	    awk -v hosts="$*" -v now="$now" '
	    BEGIN { nh = split(hosts, h, " ") }
	    { key = $3; t = $2; n[key]++
	      if (!(key in lo) || t < lo[key]) lo[key] = t
	      if (!(key in hi) || t > hi[key]) hi[key] = t
	      seen[key, $1] = 1 }
	    END { for (key in n) {
		    if (lo[key] > now - 300) continue
		    for (i = 1; i <= nh; i++) if (!((key, h[i]) in seen)) {
			printf "PS %s never reached h%s\n", key, h[i]; bad = 1 }
		    if (hi[key] - lo[key] > 250) {
			printf "PS %s reached the hosts %d ms apart\n", key, hi[key] - lo[key]; bad = 1 }
		    printf "# PS %s us: %d schedule(s), within %d ms\n", key, n[key], hi[key] - lo[key] > "/dev/stderr" }
		  exit bad }' || t_fail "a new PS did not reach every host at once (see above)"
}

declare -a M
mark_all() { local k; for ((k = 0; k < N; k++)); do M[k]=$(log_mark "$k"); done; }
HOGS=()
hogs_on() {
	local k
	for k in 1 2 3; do
		c_bg h$k "hog$k" "$BUILD/tests/tools/hog" -t 60
		HOGS+=("$C_BG_PID")
	done
}
hogs_off() {
	local p
	for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; t_untrack "$p"; done
	HOGS=()
}

# ---- 1. balanced from a console that stays ---------------------------------
c_sc_open
for cmd in "mode balanced" "ip 100ms" "ps 80%" "si 60s"; do
	c_sc_cmd "$cmd" && [ -z "$C_SC_ERR" ] || t_fail "console: $cmd: $C_SC_ERR"
done
c_sc_cmd start || t_fail "console start: $C_SC_ERR"
grep -q "^started: mode balanced, PS 80ms of IP 100ms, SI 60s" <<< "$C_SC_OUT" ||
    t_fail "start: $C_SC_OUT $C_SC_ERR"
# The baseline: Q settles in a few LI.  It must leave room for the hogs'
# +3 to move PS by a band at least (Table 2.1 ends at > 4), and hold
# still: what else runs on the machine is load on every host too, and a
# load that swings by about as much as our hogs makes the test meaningless:
# after 40 s of that, a failure that says the RLA it saw.
t_sleep 2
calm() {
	local lo=99 hi=0 i
	for i in 1 2 3 4; do
		cload
		lo=$(awk -v a="$lo" -v b="$RLA" 'BEGIN { print (b < a) ? b : a }')
		hi=$(awk -v a="$hi" -v b="$RLA" 'BEGIN { print (b > a) ? b : a }')
		[ $i = 4 ] || t_sleep 0.5
	done
	CALM="RLA $lo..$hi over 1.5 s"
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(hi < 3 && hi - lo < 0.75) }'
}
t_wait_for 40 calm ||
    t_fail "the load index did not settle in 40 s before our hogs: last $CALM (want the highest < 3 and a swing < 0.75): $LOADOUT"
t_wait_for 10 eval 'cload; [ "$(all_ps 0 1 2 3)" = "$PSU" ]' ||
    t_fail "the hosts do not run the console's PS $PSU: $(for k in 0 1 2 3; do printf 'h%s=%s ' $k "$(last_ps $k)"; done)"
[ "$NLIVE" = $N ] || t_fail "RLA over $NLIVE nodes, not $N: $LOADOUT"
RLA0=$RLA P0=$PSU
t_log "baseline: RLA $RLA0, LS $LSP%, every host PS $P0 us"
check_notices "$(cat "$T_LOG/console.err")"

# ---- 2. hogs: RLA up, PS down everywhere at once --------------------------
c_sc_cmd "si 60s" || t_fail "si 60s: $C_SC_ERR"	# re-arms the SI: next one in 60 s
T_SI=$(_t_now_us)
mark_all
E0=$(_c_sc_size "$T_LOG/console.err")
P0=$(ps_now 0 1 2 3) || t_fail "the hosts run different PS"
hogs_on
# (had the console waited for the SI, nothing would change for 60 s)
t_wait_for 25 ps_below $((P0 - 10000 + 1)) 0 1 2 3 ||
    t_fail "PS did not shrink on every host within 25 s of 3 hogs (from $P0): $(for k in 0 1 2 3; do printf 'h%s=%s ' $k "$(last_ps $k)"; done)"
t_sleep 1.5	# let it settle
P1=$(ps_now 0 1 2 3) || t_fail "the hosts run different PS under load"
dt=$(( ($(_t_now_us) - T_SI) / 1000 ))
[ "$dt" -lt 55000 ] || t_fail "the change took $dt ms: it may have waited for the SI"
# `load` and the hosts agree (Q may still be converging: the PS may move
# on between a `load` and the next; each change goes out at once, long
# before the next `load` prints)
t_wait_for 10 eval 'cload; [ "$(all_ps 0 1 2 3)" = "$PSU" ]' ||
    t_fail "load: PS $PSU over $NLIVE nodes, the hosts run $(all_ps 0 1 2 3): $LOADOUT"
[ "$NLIVE" = $N ] || t_fail "RLA over $NLIVE nodes, not $N: $LOADOUT"
awk -v a="$RLA" -v b="$RLA0" 'BEGIN { exit !(a >= b + 1) }' ||
    t_fail "3 hogs raised the RLA only from $RLA0 to $RLA"
P1=$PSU
ERR=$(tail -c +"$((E0 + 1))" "$T_LOG/console.err")
grep -q "^dts-console: balanced: RLA .* over $N nodes" <<< "$ERR" ||
    t_fail "no balanced notice over $N nodes: $ERR"
check_notices "$ERR"
check_broadcast 0 1 2 3
c_sc_cmd status || t_fail "status: $C_SC_ERR"
rows=$(awk '$3 == "balanced" && $4 == "slicing" && $5 + $6 == 100000 { print $1, $5 }' <<< "$C_SC_OUT")
[ "$(awk '{ print $1 }' <<< "$rows" | paste -sd' ')" = "h0 h1 h2 h3" ] &&
    [ "$(awk '{ print $2 }' <<< "$rows" | sort -u | wc -l)" = 1 ] ||
    t_fail "status: not every host balanced/slicing with one PS: $C_SC_OUT"
t_log "3 hogs: RLA $RLA0 -> $RLA, PS $P0 -> $P1 us on all $N hosts, $(grep -c '^dts-console: balanced' <<< "$ERR") change(s), ${dt} ms after the SI"

# ---- 3. hogs gone: PS grows back -------------------------------------------
c_sc_cmd "si 60s" || t_fail "si 60s: $C_SC_ERR"
T_SI=$(_t_now_us)
mark_all
E0=$(_c_sc_size "$T_LOG/console.err")
P1=$(ps_now 0 1 2 3) || t_fail "the hosts run different PS under load"
hogs_off
t_wait_for 25 ps_above "$P1" 0 1 2 3 ||
    t_fail "PS did not grow back after the hogs (still $P1): $(for k in 0 1 2 3; do printf 'h%s=%s ' $k "$(last_ps $k)"; done)"
t_sleep 1
P2=$(ps_now 0 1 2 3) || t_fail "the hosts run different PS after the hogs"
dt=$(( ($(_t_now_us) - T_SI) / 1000 ))
[ "$dt" -lt 55000 ] || t_fail "the change took $dt ms: it may have waited for the SI"
ERR=$(tail -c +"$((E0 + 1))" "$T_LOG/console.err")
grep -q "^dts-console: balanced: RLA .* over $N nodes" <<< "$ERR" ||
    t_fail "no balanced notice over $N nodes: $ERR"
check_notices "$ERR"
check_broadcast 0 1 2 3
cload
t_log "hogs stopped: RLA $RLA, PS $P1 -> $P2 us on all $N hosts"

# ---- 4. a silent host ---------------------------------------------------------
# A node is live while heard within console.timeout; the SI replies are
# its heartbeat, so the timeout must exceed SI (above: SI 60s, timeout
# 120s).  Now SI 1s and a timeout of 2 s.
c_sc_cmd "si 1s" && c_sc_cmd "set timeout 2s" || t_fail "si 1s, set timeout: $C_SC_ERR"
# (at SI 1 s the console's own "balanced: RLA ..." lines may fall between
# the two commands' marks: they are news, not an error of the command)
[ -z "$(grep -v '^dts-console: balanced: RLA ' <<< "$C_SC_ERR")" ] ||
    t_fail "set timeout 2s: $C_SC_ERR"
D3=$(c_dts_pid h3) || t_fail "no dts on h3"
kill -STOP "$D3"
t_log "h3's dts ($D3) stopped"
# its dts-load sees no slice edge for 2 IP and releases the gang
h3_released() {
	local p
	p=$(c_pvmd_pid h3) && ! c_gang_frozen h3 && [ "$(t_policy "$p")" = TS ]
}
t_wait_for 3 h3_released ||
    t_fail "h3's gang not released while its dts is stopped: frozen $(cat "$(c_gang_dir h3)/cgroup.events" | paste -sd' '), pvmd $(t_policy "$(c_pvmd_pid h3)")"
t_wait_for 10 eval 'cload; [ "$(live_of 3)" = no ] && [ "$NLIVE" = 3 ]' ||
    t_fail "h3 silent: the console still counts it live: $LOADOUT"
for k in 0 1 2; do
	[ "$(live_of $k)" = yes ] || t_fail "h$k is not live: $LOADOUT"
done
c_sc_cmd status || t_fail "status: $C_SC_ERR"
grep -q '^h3 .* no reply' <<< "$C_SC_OUT" && grep -q '^3 nodes answered' <<< "$C_SC_OUT" ||
    t_fail "status with h3 silent: $C_SC_OUT"
P3_OLD=$(last_ps 3)
P3=$(ps_now 0 1 2) || t_fail "the live hosts run different PS"
mark_all
E0=$(_c_sc_size "$T_LOG/console.err")
hogs_on
t_wait_for 25 ps_below $((P3 - 10000 + 1)) 0 1 2 ||
    t_fail "with h3 silent the others' PS did not follow the load (from $P3): $(for k in 0 1 2; do printf 'h%s=%s ' $k "$(last_ps $k)"; done)"
t_sleep 1
P4=$(ps_now 0 1 2) || t_fail "the live hosts run different PS"
ERR=$(tail -c +"$((E0 + 1))" "$T_LOG/console.err")
grep -q "^dts-console: balanced: RLA .* over 3 nodes" <<< "$ERR" ||
    t_fail "no balanced notice over the 3 live nodes: $ERR"
grep -q "over 4 nodes" <<< "$ERR" && t_fail "the silent host counted in an RLA: $ERR"
check_notices "$ERR"
check_broadcast 0 1 2
[ "$(last_ps 3)" = "$P3_OLD" ] || t_fail "the stopped h3 logged a new PS"
cload
[ "$NLIVE" = 3 ] && [ "$(live_of 3)" = no ] || t_fail "h3 counted again while stopped: $LOADOUT"
t_log "h3 silent: RLA $RLA over $NLIVE live nodes, PS $P3 -> $P4 us on h0-h2"

kill -CONT "$D3"
t_wait_for 15 eval '[ "$(all_ps 0 1 2 3)" = "$(all_ps 0 1 2)" ]' ||
    t_fail "h3 back: it did not get the cluster's PS: $(for k in 0 1 2 3; do printf 'h%s=%s ' $k "$(last_ps $k)"; done)"
t_wait_for 10 eval 'cload; [ "$(live_of 3)" = yes ] && [ "$NLIVE" = 4 ]' ||
    t_fail "h3 back: not live again: $LOADOUT"
t_log "h3 back: live, RLA $RLA over $NLIVE nodes, PS $(last_ps 3) us"
hogs_off

c_sc_close || t_fail "the console exited with status $C_SC_RC: $(cat "$T_LOG/console.err")"
t_pass
