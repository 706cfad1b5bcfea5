#!/bin/bash
# bench-scale.sh BUILD OUTDIR [--quick] - the master console against N
# simulated nodes (tests/tools/simnodes: one process, node i on 127.1.0.0
# + 1 + i, each with its own key and a real node's intake checks), issue
# 23's rows 1-4 and 6.  For N = 10, 100, 1000, 10000 (--quick: 10, 100,
# 1000): a `dts-console --daemon -n` in STATIC, IP 100 ms, PS 50 %, SI 1 s,
# whose console.nodes is a node file of the N addresses; then
#   cpu      the daemon's CPU (its threads' schedstat) over WIN SIs, % of
#            one core;
#   missed   SCHEDULEs a node did not get, over the SIs simnodes saw whole;
#   spread   one SI's arrival over the N nodes (kernel receive times):
#            p99 of the arrivals after the SI's first, the worst SI; floor:
#            the smallest one-way delay, console sealing to arrival;
#   status   a second console's `status` round (dts-console -n -c status,
#            console.status_wait 2 s, the goal: a round lasts that long):
#            its time and the nodes in it;
#   metrics  the same for `metrics FILE`;
#   rss      the daemon's VmRSS at the end;
#   drops    datagrams the daemon's socket dropped (its receive buffer
#            was full: /proc/net/udp).
# Row 5 (N = 1000, 10000; --quick 100): BALANCED, IP 100 ms, SI 1 s; at
# 8 s 10 % of the nodes send a LOAD with Q = 10: how long until every node
# had a SCHEDULE with the new PS (OUTDIR/scale-balanced.csv).
# Row 7 (N = 1000, --quick too): a master and standby pair (dts-console(1),
# STANDBY), both on this host (so the nodes see one address: simnodes tells
# the two by their sender ids), in STATIC, IP 100 ms, PS 50 %, SI 1 s;
# after 6 s the master is killed (SIGKILL): the takeover's time after the
# kill (the last node's first SCHEDULE from the standby), the nodes that
# fell back to their own schedule, the longest gap between two SCHEDULEs
# at any node and the nodes whose gap passed 2 SIs (one SI missed and
# more) (OUTDIR/scale-standby.csv).
# Row 3 again with console.group (N = 10000, or what 2 descriptors a node
# allow under the hard limit; --quick 1000): the master sends one datagram
# an SI to a multicast group that every simulated node joined (simnodes
# -g), in a network namespace of its own (OUTDIR/scale-group.csv).  On
# loopback the kernel hands every socket a clone of one received datagram,
# with one receive stamp: the spread is the master's part only (none), not
# a LAN's replication (bench-lan and bench-sync measure that).
# Writes OUTDIR/scale.csv and OUTDIR/scale.md.  Full: WIN = 60 SIs; --quick
# 10 SIs (about 90 s in all).
. "$(dirname "$0")/common.sh"
b_init scale "$@"
SIM=$B_BUILD/tests/tools/simnodes
CON=${SCALE_CONSOLE:-$B_BUILD/console/dts-console}	# another build's, to compare
[ -x "$SIM" ] || t_skip "no tests/tools/simnodes in $B_BUILD"
ip addr show lo | grep -q 'inet 127.0.0.1/8' || t_skip "lo has no 127.0.0.1/8"
WIN=60
NS="10 100 1000 10000"
if [ "$B_QUICK" = 1 ]; then
	WIN=10
	NS="10 100 1000"
fi
[ -n "${SCALE_NS:-}" ] && NS=$SCALE_NS	# e.g. SCALE_NS=10000 to try one
PORT=$((21000 + $$ % 2000))
# -V: simnodes checks a datagram's signature once for all its nodes (the
# same bytes, the same keys), else one process could not keep up with
# 10,000 signature checks an SI on 2 CPUs shared with the console
SIM_OPTS=${SCALE_SIM_OPTS--V}
WAIT=2s		# console.status_wait: a round lasts that long (goal: 2 s)

t_keys "$T_DIR" || t_fail "no keys"

# sock_drops PID: the receive-buffer drops of PID's UDP sockets so far
# (/proc/net/udp's drops column of their inodes).
sock_drops() {
	local ino
	ino=$(ls -l /proc/"$1"/fd 2> /dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')
	awk -v i=" $ino" 'NR > 1 && index(i, " " $10 " ") { d += $NF } END { print d + 0 }' /proc/net/udp
}

# cpu_ns PID: the CPU time of every thread of PID so far (ns).
cpu_ns() {
	local t ns sum=0
	for t in /proc/"$1"/task/*/schedstat; do
		read -r ns _ < "$t" 2> /dev/null && sum=$((sum + ns))
	done
	echo "$sum"
}

# round N COMMAND: a second console's round; "ms answered".
round() {
	local t0 t1 out n
	t0=$(_t_now_us)
	out=$("$CON" -n -f "$CONF" -c "$2" 2>&1)
	t1=$(_t_now_us)
	n=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) nodes\{0,1\} answered.*/\1/p' | tail -n 1)
	echo "$(( (t1 - t0) / 1000 )) ${n:-0}"
}

CSV=$B_OUT/scale.csv
echo "nodes,sis,cpu_pct,cpu_ms_per_si,missed,spread_p99_us,spread_max_us,owd_floor_us,status_ms,status_nodes,metrics_ms,metrics_nodes,rss_kib,sock_drops,sim_refused,sim_cpu_pct" > "$CSV"
# start_pair NAME COMMANDS [SIMNODES ARGS...]: simnodes for N nodes on CONF
# (output in $T_DIR/NAME.N.out, pid sim), then the master, dts-console
# --daemon running COMMANDS (pid con); both tracked.  stop_pair ends both.
# IN: a command both run under (the group's network namespace), or none.
IN=()
start_pair() {
	local name=$1 cmds=$2 out
	shift 2
	"${IN[@]}" "$SIM" $SIM_OPTS -f "$CONF" -n "$N" -b 127.1.0.1 "$@" \
	    > "$T_DIR/$name.$N.out" 2> "$T_DIR/$name.$N.err" &
	sim=$!
	t_track "$sim"
	t_wait_for 60 grep -q '^ready=' "$T_DIR/$name.$N.out" ||
	    t_fail "simnodes -n $N did not start: $(cat "$T_DIR/$name.$N.err")"
	out=$("${IN[@]}" "$CON" --daemon -n -f "$CONF" -c "$cmds" 2>&1) ||
	    t_fail "dts-console --daemon: $out"
	con=$(printf '%s\n' "$out" | sed -n 's/.*running in the background, pid \([0-9]*\).*/\1/p')
	[ -n "$con" ] || t_fail "no daemon pid in: $out"
	t_track "$con"
}
stop_pair() {
	kill "$con" 2> /dev/null
	t_wait_for 10 eval '! kill -0 '"$con"' 2>/dev/null'
	t_untrack "$con"
	kill "$sim" 2> /dev/null
	wait "$sim"
	t_untrack "$sim"
}

# window: 3 s for every node to answer once (the table is full), then
# the daemon's and simnodes' CPU over WIN SIs: cpu (% of a core), scpu,
# cpsi (ms an SI).
window() {
	local c0 s0 w0 c1 s1 w1
	t_sleep 3
	c0=$(cpu_ns "$con")
	s0=$(cpu_ns "$sim")
	w0=$(_t_now_us)
	t_sleep "$WIN"
	c1=$(cpu_ns "$con")
	s1=$(cpu_ns "$sim")
	w1=$(_t_now_us)
	cpu=$(awk -v c=$((c1 - c0)) -v w=$((w1 - w0)) 'BEGIN { printf "%.3f", c / 1e3 / w * 100 }')
	scpu=$(awk -v c=$((s1 - s0)) -v w=$((w1 - w0)) 'BEGIN { printf "%.1f", c / 1e3 / w * 100 }')
	cpsi=$(awk -v c=$((c1 - c0)) -v w=$((w1 - w0)) 'BEGIN { printf "%.3f", c / 1e6 / (w / 1e6) }')
}

for N in $NS; do
	NODES=$T_DIR/nodes.$N
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	    printf "127.1.%d.%d\n", int((i + 1) / 256), (i + 1) % 256 }' > "$NODES"
	CONF=$T_DIR/scale.$N.conf
	cat > "$CONF" <<-EOF
	port = $PORT;
	console_keys = ["$(cat "$T_DIR/console.pub")"];
	console = { nodes = ["@$NODES"]; node_secret = "$T_DIR/nodes.key";
	    sign_key = "$T_DIR/console.key"; history = ""; status_wait = "$WAIT"; };
	EOF
	start_pair sim "mode static; ip 100ms; ps 50%; si 1s; start" -o "$B_OUT/scale-$N"
	window
	read -r st_ms st_n < <(round "$N" status)
	read -r me_ms _ < <(round "$N" "metrics $T_DIR/m.$N.prom")
	me_n=$(grep -c '^dts_uptime_seconds{' "$T_DIR/m.$N.prom" 2> /dev/null)
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$con"/status)
	drops=$(sock_drops "$con")
	t_sleep 2
	stop_pair
	S=$T_DIR/sim.$N.out
	v() { sed -n "s/^$1=//p" "$S" | tail -n 1; }
	echo "$N,$(v sis_inner),$cpu,$cpsi,$(v missed_inner),$(v spread_p99_max_us),$(v spread_max_us),$(v owd_min_us),$st_ms,$st_n,$me_ms,$me_n,$rss,$drops,$(v refused),$scpu" >> "$CSV"
	tail -n 1 "$CSV"
done

# Row 5, BALANCED: at 5 s, 10 % of the nodes report Q = 10 (a LOAD each);
# every node must get the new PS within one SI.
BAL_NS="1000 10000"
[ "$B_QUICK" = 1 ] && BAL_NS=100
[ -n "${SCALE_BAL_NS+x}" ] && BAL_NS=$SCALE_BAL_NS
BCSV=$B_OUT/scale-balanced.csv
echo "nodes,changed,all_ms,cpu_pct" > "$BCSV"
for N in $BAL_NS; do
	CONF=$T_DIR/scale.$N.conf
	[ -f "$CONF" ] || continue
	start_pair bal "mode balanced; ip 100ms; si 1s; start" -l 8:0.1:10
	t_sleep 3
	c0=$(cpu_ns "$con")
	w0=$(_t_now_us)
	t_sleep 8
	c1=$(cpu_ns "$con")
	w1=$(_t_now_us)
	stop_pair
	S=$T_DIR/bal.$N.out
	cpu=$(awk -v c=$((c1 - c0)) -v w=$((w1 - w0)) 'BEGIN { printf "%.3f", c / 1e3 / w * 100 }')
	echo "$N,$(sed -n 's/^load_step_0_changed=//p' "$S"),$(sed -n 's/^load_step_0_all_ms=//p' "$S"),$cpu" >> "$BCSV"
	tail -n 1 "$BCSV"
done

# Row 7, the standby: kill -9 the master, the standby takes over.
SB_NS=1000
[ -n "${SCALE_SB_NS+x}" ] && SB_NS=$SCALE_SB_NS
SCSV=$B_OUT/scale-standby.csv
echo "nodes,takeover_first_ms,takeover_last_ms,switched,fallbacks,gap_max_ms,gap_over_2si,missed,si_ms,silence_ms" > "$SCSV"
for N in $SB_NS; do
	CONF=$T_DIR/scale.$N.conf
	[ -f "$CONF" ] || continue
	P1=$((PORT + 1)) P2=$((PORT + 2))
	# the pair: each names the other, on its own port of this host
	sed "s|^console = {|console = { peer = \"127.0.0.1:$P2\"; peer_port = $P1;|" \
	    "$CONF" > "$T_DIR/sb-master.$N.conf"
	sed "s|^console = {|console = { peer = \"127.0.0.1:$P1\"; peer_port = $P2;|" \
	    "$CONF" > "$T_DIR/sb-standby.$N.conf"
	CONF=$T_DIR/sb-master.$N.conf
	start_pair sb "mode static; ip 100ms; ps 50%; si 1s; start"
	out=$("$CON" --daemon --standby -n -f "$T_DIR/sb-standby.$N.conf" 2>&1) ||
	    t_fail "dts-console --standby: $out"
	sb=$(printf '%s\n' "$out" | sed -n 's/.*running in the background, pid \([0-9]*\).*/\1/p')
	[ -n "$sb" ] || t_fail "no standby pid in: $out"
	t_track "$sb"
	t_sleep 6	# the standby heard the master, the nodes answered it
	kill -0 "$sb" 2> /dev/null || t_fail "the standby ended"
	k0=$(_t_now_us)
	kill -9 "$con"
	t_wait_for 10 eval '! kill -0 '"$con"' 2>/dev/null'
	t_untrack "$con"
	t_sleep 6	# more than silence (3 SI): a fallback would have come
	con=$sb		# stop_pair ends the acting master
	stop_pair
	S=$T_DIR/sb.$N.out
	v() { sed -n "s/^$1=//p" "$S" | tail -n 1; }
	first=$(awk -v t="$(v switch_first_real_ns)" -v k="$k0" 'BEGIN { printf "%.0f", (t > 0 ? (t / 1e3 - k) / 1e3 : -1) }')
	last=$(awk -v t="$(v switch_last_real_ns)" -v k="$k0" 'BEGIN { printf "%.0f", (t > 0 ? (t / 1e3 - k) / 1e3 : -1) }')
	gap=$(awk -v g="$(v gap_max_us)" 'BEGIN { printf "%.0f", g / 1e3 }')
	echo "$N,$first,$last,$(v switched),$(v fallbacks),$gap,$(v gap_over_2si),$(v missed_all),1000,3000" >> "$SCSV"
	tail -n 1 "$SCSV"
done

# Row 3 with console.group: the master sends each SI's SCHEDULE once, to
# a multicast group every simulated node joined (simnodes -g: a second
# socket a node, bound to the group).  In a network namespace of its own
# (loopback with MULTICAST, nothing joined outside it).  Two descriptors a
# node: N is what this machine's hard limit allows, 10000 at most.
GCSV=$B_OUT/scale-group.csv
echo "nodes,sis,cpu_pct,missed,spread_p99_us,spread_max_us,owd_min_us,owd_p50_us,sim_cpu_pct" > "$GCSV"
G_N=$(( ($(ulimit -Hn) - 16) / 2 ))
[ "$G_N" -gt 10000 ] && G_N=10000
[ "$B_QUICK" = 1 ] && G_N=1000
[ -n "${SCALE_GROUP_N+x}" ] && G_N=$SCALE_GROUP_N
G_NS=dtsg$$
GROUP=239.255.77.46
_g_on_exit() {
	ip netns del "$G_NS" 2> /dev/null	# gone once its processes are
	eval "$G_OLD_EXIT"
}
if [ "$G_N" -gt 0 ]; then
	G_OLD_EXIT=$(trap -p EXIT)
	[ -z "$G_OLD_EXIT" ] || { eval "t=($G_OLD_EXIT)"; G_OLD_EXIT=${t[2]}; }
	trap _g_on_exit EXIT
	ip netns add "$G_NS" && ip -n "$G_NS" link set lo up multicast on ||
	    t_fail "netns $G_NS for the group run"
	IN=(ip netns exec "$G_NS")
	N=$G_N
	NODES=$T_DIR/nodes.g$N
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	    printf "127.1.%d.%d\n", int((i + 1) / 256), (i + 1) % 256 }' > "$NODES"
	CONF=$T_DIR/scale.g$N.conf
	cat > "$CONF" <<-EOF
	port = $PORT;
	console_keys = ["$(cat "$T_DIR/console.pub")"];
	console = { nodes = ["@$NODES"]; node_secret = "$T_DIR/nodes.key";
	    sign_key = "$T_DIR/console.key"; history = ""; status_wait = "$WAIT";
	    group = "$GROUP"; group_if = "127.0.0.1"; };
	EOF
	start_pair grp "mode static; ip 100ms; ps 50%; si 1s; start" -g "$GROUP" \
	    -o "$B_OUT/scale-group"
	window
	stop_pair
	IN=()
	S=$T_DIR/grp.$N.out
	v() { sed -n "s/^$1=//p" "$S" | tail -n 1; }
	owd50=$(tail -n +2 "$B_OUT/scale-group.si.csv" | cut -d, -f9 | sort -g |
	    awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "") }')
	echo "$N,$(v sis_inner),$cpu,$(v missed_inner),$(v spread_p99_max_us),$(v spread_max_us),$(v owd_min_us),$owd50,$scpu" >> "$GCSV"
	tail -n 1 "$GCSV"
fi

# the goals of issue 23 (at N = 10000; the largest N run stands in)
read -r NMAX CPU10 < <(awk -F, 'NR == 2 { c = $3 } NR > 1 { n = $1; cm = $3 }
    END { print n, c }' "$CSV")
{
	echo "## The master at scale: N simulated nodes"
	echo
	echo "One \`dts-console --daemon -n\` in STATIC (IP 100 ms, PS 50 %, SI 1 s) against \`simnodes\`: N nodes on"
	echo "127.1.0.1 and up, each with its own key and a real node's intake (signature, replay state, schedule checks)."
	echo "CPU: the daemon's threads over ${WIN} SIs; missed: SCHEDULEs a node did not get over the SIs seen whole;"
	echo "spread: one SI's arrivals after its first (kernel receive time), p99 of the worst SI; floor: the smallest"
	echo "console-to-node one-way delay; status/metrics: a second console's round (time, nodes in it); drops: the"
	echo "daemon socket's receive-buffer drops. A round lasts console.status_wait ($WAIT). simnodes shares the CPUs with the console."
	echo
	echo "| N | SIs | CPU % | CPU ms/SI | missed | spread p99 µs | spread max µs | floor µs | status ms | status nodes | metrics ms | metrics nodes | RSS KiB | socket drops | refused | simnodes CPU % |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	tail -n +2 "$CSV" | tr ',' '|' | sed 's/^/| /; s/$/ |/'
	echo
	echo "| # | goal (at N = 10,000) | measured at N = $NMAX | |"
	echo "|---|---|---|---|"
	awk -F, -v c10="$CPU10" 'NR > 1 { r = $0 } END {
	    split(r, f, ","); n = f[1]
	    g = (f[3] <= 10 && (c10 <= 0 || f[3] / c10 <= n / 10 * 1.0001)) ? "met" : "not met"
	    printf "| 1 | CPU <= 10 %% of a core, growing no faster than N | %s %% (%s %% at N = 10: x%.0f for x%.0f nodes) | %s |\n", f[3], c10, (c10 > 0 ? f[3] / c10 : 0), n / 10, g
	    printf "| 2 | no SCHEDULE missed over the SIs | %s missed over %s SIs | %s |\n", f[5], f[2], (f[5] == 0 && f[2] > 0) ? "met" : "not met"
	    printf "| 3 | spread p99 <= 5 ms | %.1f ms (floor %.0f µs) | %s |\n", f[6] / 1000, f[8], f[6] <= 5000 ? "met" : "not met"
	    printf "| 4 | status within 2 s with every node; metrics within 10 s | a 2 s status round (%s ms in all) had %s nodes; metrics %s ms, %s nodes | %s |\n", f[9], f[10], f[11], f[12], (f[10] == n && f[11] <= 10000 && f[12] == n) ? "met" : "not met"
	    printf "| 6 | RSS <= 64 MiB | %.1f MiB | %s |\n", f[13] / 1024, f[13] <= 65536 ? "met" : "not met"
	}' "$CSV"
	awk -F, 'NR > 1 { r = $0 } END { if (r == "") exit
	    split(r, f, ",")
	    printf "| 3 | the same with console.group (one datagram an SI to a multicast group) | N = %s: spread p99 %.1f ms, %s missed over %s SIs, console to node %.0f µs (p50 %.0f µs); daemon CPU %s %% | %s |\n", f[1], f[5] / 1000, f[4], f[2], f[7], f[8], f[3], (f[5] <= 5000 && f[4] == 0 && f[2] > 0) ? "met" : "not met"
	}' "$GCSV"
	awk -F, 'NR > 1 { r = $0 } END { if (r == "") exit
	    split(r, f, ",")
	    printf "| 5 | BALANCED: a load change on 10 %% of the nodes in every node'"'"'s schedule within one SI | N = %s: %s nodes had the new PS %s ms after the LOADs (daemon CPU %s %%) | %s |\n", f[1], f[2], f[3], f[4], (f[2] == f[1] && f[3] >= 0 && f[3] <= 1000) ? "met" : "not met"
	}' "$BCSV"
	awk -F, 'NR > 1 { r = $0 } END { if (r == "") exit
	    split(r, f, ",")
	    printf "| 7 | master killed in STATIC: standby master within silence, no fallback, no SI missed by more than one | N = %s: every node (%s) followed the standby %s-%s ms after the kill (silence %s ms); %s fell back; longest gap %s ms (SI %s ms), %s nodes over 2 SIs | %s |\n", f[1], f[4], f[2], f[3], f[10], f[5], f[6], f[9], f[7], (f[4] == f[1] && f[3] >= 0 && f[3] < f[10] && f[5] == 0 && f[7] == 0) ? "met" : "not met"
	}' "$SCSV"
	echo
	b_env_note
} > "$B_OUT/scale.md"
cat "$B_OUT/scale.md"
t_pass
