#!/bin/bash
# bench-master.sh BUILD OUTDIR [--quick] - dts-master, the master daemon,
# and dts-console as its client ([R4 3/5] rows 4, 5 and 6).
#
# Row 4: a 3-host cluster of real dts nodes (tests/system/cluster.sh);
# dts-master -d on h0 in STATIC, IP 100 ms, PS 80 %, SI 1 s.  R times
# (10; --quick 4) root's `dts-console -c "mode M"` on h0, M balanced and
# static in turn, goes to the master's socket; each node's dts logs the
# new schedule ("schedule: mode M", its CLOCK_REALTIME in ms): the delay
# from just before the console ran to the last node's line.  Goal: every
# node runs it within 1 SI + 100 ms.  Facts: no node refused a schedule
# as another master's (rej_master), each node took a master once ("is now
# the master": one line), and every change reached every node.
#
# Row 6: N simulated nodes (tests/tools/simnodes, N = 10000; --quick 1000)
# with J jobs of 4-64 nodes each (J = 1000; --quick 100; simnodes -J),
# a dts-master pair on this host (console.peer, each its own socket): the
# master in STATIC, IP 100 ms, PS 50 %, SI 1 s, the standby -S.  After
# 8 s `jobs --json` from the master's socket; kill -9 the master; 6 s on
# (more than silence, 3 SI) `jobs --json` from the standby's socket.
# Facts: no node fell back to its own schedule (simnodes' fallbacks), no
# bad or split slot table, and the matrix after the takeover is the one
# before (the same rows of the same jobs, the same jobs at every node).
# Speed, reported: the takeover's time after the kill (the last node's
# first SCHEDULE of the standby), goal 1.5 SI + 500 ms.
# Row 5, in the same run before the kill: `jobs --json` and `status`
# through the master's socket, each <= 2 s (status_wait 1.5 s), every
# node in the status.
#
# Writes OUTDIR/master.csv (row 4: one line a change), master-6.csv and
# OUTDIR/master.md.  Verdicts as tests/bench/common.sh says.
. "$(dirname "$0")/common.sh"
b_init master "$@"
. "$SRC/tests/system/cluster.sh"
SIM=$B_BUILD/tests/tools/simnodes
MASTER=$B_BUILD/master/dts-master
CON=$B_BUILD/console/dts-console
for f in "$SIM" "$MASTER" "$CON"; do
	[ -x "$f" ] || t_fail "not built: $f"
done
R=10 SIM_N=10000 SIM_J=1000
[ "$B_QUICK" = 1 ] && R=4 SIM_N=1000 SIM_J=100
[ -n "${MASTER_SIM_N:-}" ] && SIM_N=$MASTER_SIM_N
SI_MS=1000
MD=$B_OUT/master.md

# (row 6 first: the cluster of row 4 takes its directory away when it ends)
# ---- row 6: the takeover at scale -------------------------------------------
PORT=$((23000 + $$ % 2000))
P1=$((PORT + 1)) P2=$((PORT + 2))
t_keys "$T_DIR" || t_fail "no keys"
NODES=$T_DIR/nodes.$SIM_N
awk -v n="$SIM_N" 'BEGIN { for (i = 0; i < n; i++)
    printf "127.1.%d.%d\n", int((i + 1) / 256), (i + 1) % 256 }' > "$NODES"
JOBS=$T_DIR/jobs.$SIM_N
awk -v n="$SIM_N" -v J="$SIM_J" 'BEGIN {
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
}' > "$JOBS"
conf() {	# conf PEER_PORT OWN_PORT SOCK
	cat <<-EOF
	port = $PORT;
	console_keys = ["$(cat "$T_DIR/console.pub")"];
	console = { nodes = ["@$NODES"]; node_secret = "$T_DIR/nodes.key";
	    sign_key = "$T_DIR/console.key"; history = ""; status_wait = "1500ms";
	    peer = "127.0.0.1:$1"; peer_port = $2; master_socket = "$3"; };
	EOF
}
conf "$P2" "$P1" "$T_DIR/m.sock" > "$T_DIR/m.conf"
conf "$P1" "$P2" "$T_DIR/s.sock" > "$T_DIR/s.conf"
"$SIM" -V -f "$T_DIR/m.conf" -n "$SIM_N" -b 127.1.0.1 -J "$JOBS" \
    > "$T_DIR/sim.out" 2> "$T_DIR/sim.err" &
sim=$!
t_track "$sim"
t_wait_for 60 grep -q '^ready=' "$T_DIR/sim.out" ||
    t_fail "simnodes did not start: $(cat "$T_DIR/sim.err")"
out=$("$MASTER" -f "$T_DIR/m.conf" -d -c "mode static; ip 100ms; ps 50%; si ${SI_MS}ms; start" 2>&1) ||
    t_fail "dts-master: $out"
m=$(sed -n 's/^dts-master: running in the background, pid \([0-9]*\)$/\1/p' <<< "$out")
[ -n "$m" ] || t_fail "no dts-master pid: $out"
t_track "$m"
out=$("$MASTER" -f "$T_DIR/s.conf" -d -S 2>&1) || t_fail "dts-master -S: $out"
s=$(sed -n 's/^dts-master: running in the background, pid \([0-9]*\)$/\1/p' <<< "$out")
[ -n "$s" ] || t_fail "no standby pid: $out"
t_track "$s"
t_sleep 8
t0=$(_t_now_us)
"$CON" -n -f "$T_DIR/m.conf" -c "jobs --json" > "$T_DIR/jobs.before" 2> "$T_DIR/jobs.before.err" ||
    t_fail "jobs from the master: $(cat "$T_DIR/jobs.before.err")"
t1=$(_t_now_us)
"$CON" -n -f "$T_DIR/m.conf" -c "status" > "$T_DIR/status.out" 2> "$T_DIR/status.err" ||
    t_fail "status from the master: $(cat "$T_DIR/status.err")"
t2=$(_t_now_us)
jobs_ms=$(( (t1 - t0) / 1000 )) status_ms=$(( (t2 - t1) / 1000 ))
status_n=$(sed -n 's/^\([0-9]*\) nodes\{0,1\} answered.*/\1/p' "$T_DIR/status.out" | tail -n 1)
k0=$(_t_now_us)
kill -9 "$m"
t_wait_for 10 eval '! kill -0 '"$m"' 2>/dev/null'
t_untrack "$m"
t_sleep 6
"$CON" -n -f "$T_DIR/s.conf" -c "jobs --json" > "$T_DIR/jobs.after" 2> "$T_DIR/jobs.after.err" ||
    t_fail "jobs from the standby: $(cat "$T_DIR/jobs.after.err")"
kill "$s"
t_wait_for 10 eval '! kill -0 '"$s"' 2>/dev/null'
t_untrack "$s"
kill "$sim"
wait "$sim"
t_untrack "$sim"
v() { sed -n "s/^$1=//p" "$T_DIR/sim.out" | tail -n 1; }
# the matrix, normalised: each row's jobs, and each node's jobs
norm() {
	python3 - "$1" <<-'EOP'
	import json, sys
	t = open(sys.argv[1]).read()
	d = json.loads(t[t.index("{"):])
	rows = sorted(",".join(sorted(r["jobs"])) for r in d["rows"])
	nodes = sorted(n["host"] + ":" + ",".join(sorted(j["job"] for j in n["jobs"])) for n in d["nodes"])
	print(len(rows), len(nodes))
	print("\n".join(rows))
	print("\n".join(nodes))
	EOP
}
norm "$T_DIR/jobs.before" > "$T_DIR/mx.before" || t_fail "jobs before: not JSON: $(head -c 300 "$T_DIR/jobs.before")"
norm "$T_DIR/jobs.after" > "$T_DIR/mx.after" || t_fail "jobs after: not JSON: $(head -c 300 "$T_DIR/jobs.after")"
same=0
cmp -s "$T_DIR/mx.before" "$T_DIR/mx.after" && same=1
read -r rows_b nodes_b < "$T_DIR/mx.before"
last=$(awk -v t="$(v switch_last_real_ns)" -v k="$k0" 'BEGIN { printf "%.0f", (t > 0 ? (t / 1e3 - k) / 1e3 : -1) }')
fb=$(v fallbacks) bad=$(v tables_bad) split=$(v tables_split)
CSV6=$B_OUT/master-6.csv
echo "nodes,jobs,rows,nodes_with_jobs_listed,takeover_last_ms,fallbacks,tables_bad,tables_split,matrix_same,switched,jobs_ms,status_ms,status_nodes" > "$CSV6"
njobs=$(wc -l < "$JOBS")
echo "$SIM_N,$njobs,$rows_b,$nodes_b,$last,$fb,$bad,$split,$same,$(v switched),$jobs_ms,$status_ms,${status_n:-0}" >> "$CSV6"
b_goal fact 6 "fb == 0 && bad == 0 && spl == 0 && same == 1 && rows > 0" fb="$fb" bad="$bad" spl="$split" same="$same" rows="$rows_b"; f6=$B_V
b_goal speed 6 "last >= 0 && last <= 1.5 * si + 500" last="$last" si="$SI_MS"; v6=$B_V
b_goal speed 5 "j <= 2000 && s <= 2000 && n == nodes" j="$jobs_ms" s="$status_ms" n="${status_n:-0}" nodes="$SIM_N"; v5=$B_V
[ "$same" = 1 ] || diff "$T_DIR/mx.before" "$T_DIR/mx.after" | head -n 20 >&2

# ---- row 4: mode changes through the master's socket ------------------------
N=3
C_CONF_EXTRA='mode = "off";'
c_up $N --no-pvm
nodes=
for ((k = 0; k < N; k++)); do nodes="$nodes${nodes:+, }\"$(c_addr h$k)\""; done
C_SC_CONSOLE_EXTRA="nodes = [$nodes]; status_wait = \"300ms\"; master_socket = \"$T_DIR/h0.sock\";"
c_sc_write_console_conf || t_fail "cannot write the console's configuration"
c_exec h0 "$MASTER" -f "$C_SC_CONF" -d -c "mode static; ip 100ms; ps 80%; si ${SI_MS}ms; start" \
    > "$T_LOG/master-h0.out" 2>&1 < /dev/null || t_fail "dts-master: $(cat "$T_LOG/master-h0.out")"
M0=$(sed -n 's/^dts-master: running in the background, pid \([0-9]*\)$/\1/p' "$T_LOG/master-h0.out")
[ -n "$M0" ] || t_fail "no dts-master pid: $(cat "$T_LOG/master-h0.out")"
t_track "$M0"
static_all() {
	local k
	for ((k = 0; k < N; k++)); do
		[ "$(c_status h$k mode)" = static ] || return 1
	done
}
t_wait_for 10 static_all || t_fail "the nodes do not run the master's static"

CSV=$B_OUT/master.csv
echo "change,mode,node_max_ms,nodes" > "$CSV"
# line_ms K MODE AFTER_MS: the time (ms) of node K's first "schedule: mode
# MODE" line at or after AFTER_MS, or nothing
line_ms() {
	local ts
	while read -r ts _; do
		ms=$(date -d "$ts" +%s%3N) || continue
		[ "$ms" -ge "$3" ] && { echo "$ms"; return 0; }
	done < <(grep "info: schedule: mode $2," "$T_LOG/dts-h$1.log")
	return 1
}
all_logged() {
	local k
	for ((k = 0; k < N; k++)); do
		line_ms "$k" "$1" "$2" > /dev/null || return 1
	done
}
worst=0 reached=0
for ((i = 1; i <= R; i++)); do
	m=balanced
	[ $((i % 2)) = 0 ] && m=static
	t_sleep 0.7
	t0=$(date +%s%3N)
	c_exec h0 "$CON" -n -f "$C_SC_CONF" -c "mode $m" > "$T_LOG/con.$i.out" 2>&1 < /dev/null ||
	    t_fail "mode $m: $(cat "$T_LOG/con.$i.out")"
	t_wait_for 5 all_logged "$m" "$t0" || { echo "$i,$m,-1,0" >> "$CSV"; continue; }
	mx=0
	for ((k = 0; k < N; k++)); do
		d=$(( $(line_ms "$k" "$m" "$t0") - t0 ))
		[ "$d" -gt "$mx" ] && mx=$d
	done
	reached=$((reached + 1))
	[ "$mx" -gt "$worst" ] && worst=$mx
	echo "$i,$m,$mx,$N" >> "$CSV"
done
rej=0 took=0
for ((k = 0; k < N; k++)); do
	rej=$((rej + $(c_status h$k rej_master)))
	took=$((took + $(grep -c 'is now the master' "$T_LOG/dts-h$k.log")))
done
b_goal speed 4 "w <= si + 100" w="$worst" si="$SI_MS"; v4=$B_V
b_goal fact 4 "rej == 0 && took == n && got == r" rej="$rej" took="$took" n="$N" got="$reached" r="$R"; f4=$B_V
kill "$M0"
t_wait_for 5 eval '! kill -0 '"$M0"' 2>/dev/null'
t_untrack "$M0"
c_down


{
	echo "## dts-master ([R4 3/5] rows 4, 5 and 6)"
	echo
	echo "| # | Goal | Measured | Verdict |"
	echo "|---|---|---|---|"
	echo "| 4 | \`dts-console -c \"mode M\"\` against the running dts-master: every node runs it within 1 SI + 100 ms ($((SI_MS + 100)) ms) | worst of $R changes over $N real nodes: $worst ms | $v4 |"
	echo "| 4 | no node hears two masters; every change reaches every node | $rej schedules refused, $took takeovers logged by $N nodes, $reached of $R changes everywhere | $f4 |"
	echo "| 5 | \`dts-console -c jobs\` and \`status\` against a master of $SIM_N nodes: <= 2 s each (console.status_wait 1.5 s) | jobs --json $jobs_ms ms, status $status_ms ms ($status_n nodes answered) | $v5 |"
	echo "| 6 | standby takeover at N = $SIM_N with $njobs jobs: no node falls back; the matrix is the same after | $fb fallbacks, $bad bad and $split split tables, $rows_b rows, matrix $([ "$same" = 1 ] && echo same || echo DIFFERENT) | $f6 |"
	echo "| 6 | the takeover within 1.5 SI + 500 ms of the kill | last node $last ms | $v6 |"
} > "$MD"
cat "$MD"
b_done
