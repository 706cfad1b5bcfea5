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
# The gang matrix at the cluster's scale ([R4 3/5] rows 1-3; N = 10000,
# --quick too): 1,000 jobs of 4-64 nodes each (contiguous blocks at
# random places, 50 users, at most 7 a node), and one more job on 64
# nodes that starts at T_IN s and ends at T_OUT s (simnodes -J: each node
# lists its jobs, pushes a STATUS when one starts or ends, and checks
# every SCHEDULE's slot table against its jobs and the job's other
# nodes).  The master's CPU and RSS as above; tables_bad: SCHEDULEs
# whose table lacks a job the node runs or names one it does not (from
# each node's 3rd SCHEDULE, a job changed within 2 SIs let be);
# tables_split: a job whose slot differs between two of its nodes in one
# send; the 64-node job: at each node, its first table with the job
# after the start, and without it after the end (OUTDIR/scale-matrix.csv).
# tests/bench/packcost.c times the master's matrix work an SI on the same
# jobs (matrix_init, add, pack, every node's table).
# Verdicts (tests/bench/common.sh): a SCHEDULE or a table missed, a split
# gang, a fallback in the takeover, a node that never got the new PS or
# the job's table: FAIL (exit 1); a speed or size goal: MISSED (exit 3).
# Writes OUTDIR/scale.csv and OUTDIR/scale.md.  Full: WIN = 60 SIs; --quick
# 10 SIs (about 2 min in all).
. "$(dirname "$0")/common.sh"
b_init scale "$@"
SIM=$B_BUILD/tests/tools/simnodes
CON=${SCALE_CONSOLE:-$B_BUILD/console/dts-console}	# another build's, to compare
[ -x "$SIM" ] || t_fail "no tests/tools/simnodes in $B_BUILD (the suite builds it)"
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
# console.status_wait: a round lasts that long, and its goal is 2 s in
# all, so it waits 1.5 s
WAIT=1500ms

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

# Rows 1-3 of [R4 3/5]: the gang matrix at N = 10000 with 1,000 jobs.
MX_N=${SCALE_MX_N:-10000}
MX_JOBS=${SCALE_MX_JOBS:-1000}
T_IN=7 T_OUT=11		# the 64-node job, s after simnodes' start
MCSV=$B_OUT/scale-matrix.csv
echo "nodes,jobs,sis,cpu_pct,cpu_ms_per_si,rss_kib,missed,tables_checked,tables_bad,tables_bad_nodes,tables_split,in_got,in_max_ms,out_got,out_max_ms,job_nodes,verify_full,sim_cpu_pct,pack_p50_ms,pack_max_ms,rows,tables_differ,fallbacks,spread_p99_us,spread_max_us" > "$MCSV"
# mkjobs N JOBS FILE: the jobs, in simnodes -J's form
mkjobs() {
	awk -v n="$1" -v J="$2" -v tin="$T_IN" -v tout="$T_OUT" 'BEGIN {
	    srand(37)
	    for (k = 0; k < J; k++) {
		size = 4 + int(rand() * 61)
		if (size > n) size = n
		for (try = 0; try < 1000; try++) {
			at = int(rand() * (n - size + 1))
			ok = 1
			for (i = at; i < at + size && ok; i++)
				ok = load[i] < 7
			if (ok) break
		}
		if (!ok) continue
		for (i = at; i < at + size; i++) load[i]++
		printf "u%d:j%d 0 0 %d-%d\n", k % 50, k, at, at + size - 1
	    }
	    c = 0; spec = ""
	    for (i = int(n / 2); c < 64 && c < n; i = (i + 1) % n)
		if (load[i] < 8) { spec = spec (c ? "," : "") i; c++ }
	    printf "r3:enter %d %d %s\n", tin, tout, spec
	}' > "$3"
}
if [ "$MX_N" -gt 0 ]; then
	N=$MX_N
	NODES=$T_DIR/nodes.$N
	[ -f "$NODES" ] || awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	    printf "127.1.%d.%d\n", int((i + 1) / 256), (i + 1) % 256 }' > "$NODES"
	CONF=$T_DIR/scale.$N.conf
	[ -f "$CONF" ] || cat > "$CONF" <<-EOF
	port = $PORT;
	console_keys = ["$(cat "$T_DIR/console.pub")"];
	console = { nodes = ["@$NODES"]; node_secret = "$T_DIR/nodes.key";
	    sign_key = "$T_DIR/console.key"; history = ""; status_wait = "$WAIT"; };
	EOF
	JOBS=$T_DIR/jobs.$N
	mkjobs "$N" "$MX_JOBS" "$JOBS"
	gcc -O2 -std=gnu11 -Wall -I"$B_SRC/common" -I"$B_SRC/master" \
	    -o "$B_OUT/packcost" "$B_SRC/tests/bench/packcost.c" \
	    "$B_SRC/master/matrix.c" "$B_SRC/common/job.c" ||
	    t_fail "cannot compile packcost.c"
	"$B_OUT/packcost" "$N" "$JOBS" 20 > "$T_DIR/pack.out" ||
	    t_fail "packcost: $(cat "$T_DIR/pack.out")"
	# the matrix's cost against its size and layout: a tenth of the
	# cluster, and the same jobs on nodes drawn at random (no blocks)
	PCSV=$B_OUT/scale-pack.csv
	echo "layout,nodes,jobs,pairs,rows,tables_differ,round_p50_ms,round_max_ms" > "$PCSV"
	mkjobs $((N / 10)) $((MX_JOBS / 10)) "$T_DIR/jobs.tenth"
	awk -v n="$N" -v J="$MX_JOBS" 'BEGIN { srand(37)
	    for (k = 0; k < J; k++) {
		size = 4 + int(rand() * 61); spec = ""; c = 0
		for (t = 0; c < size && t < 100000; t++) {
			i = int(rand() * n)
			if (load[i] >= 7 || ((k, i) in on)) continue
			on[k, i] = 1; load[i]++
			spec = spec (c++ ? "," : "") i
		}
		printf "u%d:j%d 0 0 %s\n", k % 50, k, spec
	    } }' > "$T_DIR/jobs.random"
	for l in "blocks $((N / 10)) $T_DIR/jobs.tenth" "blocks $N $JOBS" "random $N $T_DIR/jobs.random"; do
		set -- $l
		"$B_OUT/packcost" "$2" "$3" 20 > "$T_DIR/pk.out" || t_fail "packcost $2 $3"
		echo "$1,$(awk -F= '{ v[$1] = $2 } END { print v["nodes"] "," v["jobs"] "," v["pairs"] "," v["rows"] "," v["tables_differ"] "," v["round_p50_ms"] "," v["round_max_ms"] }' "$T_DIR/pk.out")" >> "$PCSV"
	done
	start_pair mx "mode static; ip 100ms; ps 50%; si 1s; start" -J "$JOBS" \
	    -o "$B_OUT/scale-matrix"
	window
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$con"/status)
	t_sleep 2
	stop_pair
	S=$T_DIR/mx.$N.out
	v() { sed -n "s/^$1=//p" "$S" | tail -n 1; }
	p() { sed -n "s/^$1=//p" "$T_DIR/pack.out"; }
	echo "$N,$(( $(v jobs) - 1 )),$(v sis_inner),$cpu,$cpsi,$rss,$(v missed_inner),$(v tables_checked),$(v tables_bad),$(v tables_bad_nodes),$(v tables_split),$(v job_0_in_got),$(v job_0_in_max_ms),$(v job_0_out_got),$(v job_0_out_max_ms),$(v job_0_nodes),$(v verify_full),$scpu,$(p round_p50_ms),$(p round_max_ms),$(p rows),$(p tables_differ),$(v fallbacks),$(v spread_p99_max_us),$(v spread_max_us)" >> "$MCSV"
	tail -n 1 "$MCSV"
fi

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

# The verdicts: each row's goal, from what this run measured.
GOALS=$T_DIR/goals.md
: > "$GOALS"
# goal KIND ROW GOAL MEASURED COND [VAR=VALUE...]: a row of the goals
# table with its verdict (b_goal); KIND "-": no verdict (WHY in COND)
goal() {
	local kind=$1 row=$2 g=$3 m=$4 cond=$5
	shift 5
	if [ "$kind" = - ]; then
		B_V=$cond
	else
		b_goal "$kind" "$row" "$cond" "$@" || :
	fi
	echo "| $row | $g | $m | $B_V |" >> "$GOALS"
}
# the issue 23 rows: at N = 10000, the largest N of this run
IFS=, read -r NMAX sis cpu cpsi missed sp99 spmax floor st_ms st_n me_ms me_n rss drops refused scpu \
    < <(tail -n 1 "$CSV")
mall=$(awk -F, 'NR > 1 { m += $5; if ($2 <= 0) z++ } END { print m + 0, z + 0 }' "$CSV")
if [ "$NMAX" = 10000 ]; then
	goal speed 23.1 "CPU <= 10 % of a core at N = 10,000" "$cpu %" 'c <= 10' c="$cpu"
else
	goal - 23.1 "CPU <= 10 % of a core at N = 10,000" "$cpu % at N = $NMAX" "not run at N = 10,000 (--quick)"
fi
goal fact 23.2 "no SCHEDULE missed, at every N" "${mall% *} missed (every N: ${NS// /, }), the largest over $sis SIs" \
    'm == 0 && z == 0' m="${mall% *}" z="${mall#* }"
goal speed 23.3 "spread p99 <= 5 ms at N = $NMAX" "$(awk -v s="$sp99" 'BEGIN { printf "%.1f", s / 1000 }') ms (floor $floor µs)" \
    's <= 5000' s="$sp99"
goal speed 23.4 "status within 2 s with every node; metrics within 10 s" \
    "status: $st_ms ms in all (console.status_wait $WAIT), $st_n of $NMAX nodes; metrics $me_ms ms, $me_n nodes" \
    'st <= 2000 && sn == n && me <= 10000 && mn == n' st="$st_ms" sn="$st_n" me="$me_ms" mn="$me_n" n="$NMAX"
goal speed 23.6 "RSS <= 64 MiB" "$(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }') MiB at N = $NMAX" 'r <= 65536' r="$rss"
if [ "$(wc -l < "$GCSV")" -gt 1 ]; then
	IFS=, read -r gn gsis gcpu gmissed gsp99 gspmax gowd gowd50 gscpu < <(tail -n 1 "$GCSV")
	goal fact 23.3g "console.group: no SCHEDULE missed" "N = $gn: $gmissed missed over $gsis SIs; daemon CPU $gcpu %" \
	    'm == 0 && s > 0' m="$gmissed" s="$gsis"
	goal - 23.3g "console.group: spread p99 <= 5 ms" \
	    "spread p99 $(awk -v s="$gsp99" 'BEGIN { printf "%.1f", s / 1000 }') ms; console to node $gowd µs (p50 $gowd50 µs)" \
	    "n/a on loopback (one receive stamp for every socket; bench-lan measures a LAN)"
fi
if [ "$(wc -l < "$BCSV")" -gt 1 ]; then
	IFS=, read -r bn bch bms bcpu < <(tail -n 1 "$BCSV")
	goal fact 23.5 "BALANCED: a load change on 10 % of the nodes reaches every node" "N = $bn: $bch nodes had the new PS (daemon CPU $bcpu %)" \
	    'c == n' c="$bch" n="$bn"
	goal speed 23.5 "... within one SI" "every node $bms ms after the LOADs" 'm >= 0 && m <= 1000' m="$bms"
fi
if [ "$(wc -l < "$SCSV")" -gt 1 ]; then
	IFS=, read -r sn sfirst slast ssw sfb sgap sover smiss ssi ssil < <(tail -n 1 "$SCSV")
	goal fact 23.7 "master killed: every node follows the standby, none falls back, none misses 2 SIs" \
	    "N = $sn: $ssw nodes followed the standby $sfirst-$slast ms after the kill; $sfb fell back; longest gap $sgap ms (SI $ssi ms), $sover nodes over 2 SIs" \
	    'w == n && f == 0 && o == 0' w="$ssw" n="$sn" f="$sfb" o="$sover"
	goal speed 23.7 "... within silence ($ssil ms)" "the last node $slast ms after the kill" 'l >= 0 && l < s' l="$slast" s="$ssil"
fi
# [R4 3/5] rows 1-3: the gang matrix
if [ "$(wc -l < "$MCSV")" -gt 1 ]; then
	IFS=, read -r xn xj xsis xcpu xcpsi xrss xmissed xchk xbad xbadn xsplit xin xinms xout xoutms xjn xvf xscpu xp50 xpmax xrows xdiff xfb xsp99 xspmax \
	    < <(tail -n 1 "$MCSV")
	goal fact 37.1 "$xj jobs of 4-64 nodes on $xn nodes: every node gets its slot table every SI, none missed" \
	    "$xmissed SCHEDULEs missed over $xsis SIs; $xchk tables checked: $xbad bad ($xbadn nodes), $xsplit split gangs; $xfb fallbacks; an SI's last node $(awk -v s="$xspmax" 'BEGIN { printf "%.0f", s / 1000 }') ms after its first" \
	    'm == 0 && s > 0 && c > 0 && b == 0 && p == 0 && f == 0' m="$xmissed" s="$xsis" c="$xchk" b="$xbad" p="$xsplit" f="$xfb"
	goal speed 37.2 "master CPU <= 10 % of a core, RSS <= 128 MiB (N = $xn, $xj jobs)" \
	    "$xcpu % ($xcpsi ms an SI; about $((xvf / (xsis > 0 ? xsis : 1))) Ed25519 signatures an SI), $(awk -v r="$xrss" 'BEGIN { printf "%.1f", r / 1024 }') MiB; matrix $xp50 ms an SI (max $xpmax), $xrows rows" \
	    'c <= 10 && r <= 131072' c="$xcpu" r="$xrss"
	goal fact 37.3 "a job's start and end on $xjn of the $xn nodes: in every one of its nodes' tables" \
	    "start: $xin of $xjn nodes; end: $xout of $xjn" 'i == n && o == n && n > 0' i="$xin" o="$xout" n="$xjn"
	goal speed 37.3 "... within 1 SI" "the last node $xinms ms after the start, $xoutms ms after the end" \
	    'i >= 0 && i <= 1000 && o >= 0 && o <= 1000' i="$xinms" o="$xoutms"
fi
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
	# each SI's spread p99 (simnodes' PREFIX.si.csv), its median over the SIs
	med=
	for n in $(tail -n +2 "$CSV" | cut -d, -f1); do
		m=$(tail -n +2 "$B_OUT/scale-$n.si.csv" 2> /dev/null | cut -d, -f6 | sort -g |
		    awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", v[int((NR + 1) / 2)] / 1000 }')
		[ -n "$m" ] && med="$med${med:+, }$m ms (N = $n)"
	done
	echo "Median over the SIs of each SI's spread p99: ${med:-none}."
	if [ "$(wc -l < "$MCSV")" -gt 1 ]; then
		echo
		echo "## The gang matrix at N nodes with jobs ([R4 3/5])"
		echo
		echo "The same master, STATIC, with \`simnodes -J\`: $xj jobs of 4-64 nodes (contiguous blocks at random places,"
		echo "50 users, at most 7 a node), and a job on $xjn more nodes from $T_IN s to $T_OUT s. CPU over ${WIN} SIs; tables: every"
		echo "SCHEDULE's slot table checked at its node; signed: datagrams whose signature simnodes checked in full over the"
		echo "run (one a signature: up to 16 distinct tables a send under one, wire v6); matrix: tests/bench/packcost.c, the master's matrix work an SI on the"
		echo "same jobs (CPU time); tables differ: nodes whose table differs from the node before theirs."
		echo
		echo "| N | jobs | SIs | CPU % | CPU ms/SI | RSS KiB | missed | tables checked | bad | bad nodes | split | start: nodes | start: last ms | end: nodes | end: last ms | job nodes | signed | simnodes CPU % | matrix p50 ms | matrix max ms | rows | tables differ | fallbacks | spread p99 µs | spread max µs |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		tail -n +2 "$MCSV" | tr ',' '|' | sed 's/^/| /; s/$/ |/'
		echo
		echo "The matrix's work an SI (packcost: init, add, pack, every node's table; CPU time, 20 rounds) by size and"
		echo "layout; tables differ: nodes whose table differs from the node before theirs (16 of them cost the master a signature)."
		echo
		echo "| layout | N | jobs | node-job pairs | rows | tables differ | p50 ms | max ms |"
		echo "|---|---|---|---|---|---|---|---|"
		tail -n +2 "$PCSV" | tr ',' '|' | sed 's/^/| /; s/$/ |/'
	fi
	echo
	echo "| # | goal | measured | verdict |"
	echo "|---|---|---|---|"
	cat "$GOALS"
	echo
	b_env_note
} > "$B_OUT/scale.md"
cat "$B_OUT/scale.md"
b_done
