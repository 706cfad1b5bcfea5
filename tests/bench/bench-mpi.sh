#!/bin/bash
# bench-mpi.sh BUILD OUTDIR [--quick] - MPI jobs (Open MPI) as DTS gangs.
#
# 2 hosts (tests/system/cluster.sh, --no-pvm), the MPI job launched from
# h0 as the tests do it (cluster.sh c_mpi_bg: dts-run -- mpirun.openmpi
# --mca plm_rsh_agent dts-ssh ..., one rank per host, TCP on the cluster's
# eth0 only).
#
# 1. Edge cost with an MPI gang (as bench-edge.sh measures it for a PVM
#    gang): on h0 alone, `setsid dts-run -- mpirun.openmpi -np N` of
#    tests/bench/mpiloop.c with N = 2 and 8 ranks (shared memory, busy
#    polling, -P: every rank in mpirun's process group), so the gang is
#    mpirun plus N CPU-bound ranks.  dts windows: static, IP 10 ms, PS
#    50 %, every edge's late_ns + op_ns from dts's own trace.  Floor
#    windows, alternating with them: dts in HPDT and tests/bench/floor.c
#    -g (SCHED_FIFO 99, clock_nanosleep + killpg) stopping and continuing
#    the very same processes.  Nothing pinned, no local load.
# 2. The payoff: every process of host K pinned to CPU K (C_MPI_CPUS "0
#    1": dts, dts-load, and the launcher, orted and ranks of each host), a
#    CPU hog (SCHED_OTHER) on each CPU.  Programs, each in mode OFF (plain
#    Linux) and STATIC 50/50 (IP 100 ms, in phase: one arrival-sync
#    broadcast):
#      busy     mpiloop (a ping-pong of 8 bytes with WORK_US of CPU on
#               each side, then an Allreduce, every iteration; MPI_Recv
#               polls busily: Open MPI's default progress)
#      yield    the same with --mca mpi_yield_when_idle 1 (Open MPI's only
#               other progress setting: it still polls, with sched_yield()
#               between polls)
#      sleep    the same with mpiloop -s 20: the program's own blocking
#               wait (MPI_Test, then nanosleep 20 us, until it completes):
#               Open MPI 4.1 has no progress mode that blocks in the kernel
#      netpipe  NPopenmpi (netpipe-openmpi), 1 byte to 4 KiB, 200 repeats
#               (full form only)
#    For mpiloop: its own time per iteration over its run, and the CPU
#    shares of each host's CPU (hog, gang, the rest, other sessions) over
#    a window of RUN_S inside the run (mpiloop stops when told, -f).
#
# Writes OUTDIR/mpi.csv and OUTDIR/mpi.md.  Full: 5 s windows, 2 rounds
# of 5 s edge windows per size (about 3 min); --quick: 1 s windows, busy
# and sleep only, 1 round of 1 s edge windows (under a minute: 45 s on
# 2 loaded CPUs).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
b_init mpi "$@"
. "$SRC/tests/system/cluster.sh"
command -v taskset > /dev/null || t_fail "needs taskset (quickstart installs it: missing is a failure)"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
command -v NPopenmpi > /dev/null && HAVE_NP=1 || HAVE_NP=0

if [ "$B_QUICK" = 1 ]; then
	RUN_S=1 EDGE_WIN=1 SETTLE=0.5 ROUNDS=${BENCH_ROUNDS:-1} PROGS=${BENCH_PROGS:-"busy sleep"}
else
	RUN_S=5 EDGE_WIN=5 SETTLE=1 ROUNDS=${BENCH_ROUNDS:-2} PROGS=${BENCH_PROGS:-"busy yield sleep netpipe"}
fi
[ "$HAVE_NP" = 1 ] || PROGS=${PROGS/netpipe/}
SIZES=${BENCH_SIZES:-"2 8"}
WORK_US=${BENCH_WORK_US:-50}
EDGE_IP_US=10000 EDGE_PS_US=5000
b_cc floor

C_CONF_EXTRA='mode = "off"; ip = "100ms"; ps = "50%"; silence = "60s"; log_level = "info";'
C_MPI_CPUS="0 1"
c_up 2 --no-pvm
c_mpi_setup ompi
PROG=$C_MPI_PROG
t_log "cluster of 2 up in ${C_UP_S} s; $(mpirun.openmpi --version 2>&1 | head -n 1)"

CSV=$B_OUT/mpi.csv
echo "part,prog,mode,ranks,round,count,iter_us,hog0_pct,hog1_pct,wall_s,lat_us,p50_us,p99_us,max_us,late_p50_us,op_p50_us,gang0_pct,gang1_pct,local0_pct,local1_pct,others0_pct,others1_pct" > "$CSV"

# ---- 1. edge cost ----------------------------------------------------------------
RAW=$T_DIR/edge-raw.csv
: > "$RAW"
# col FILE NAME...: the columns NAME of a CSV with a header, comma-separated
col() {
	local f=$1
	shift
	awk -F, -v want="$*" 'NR == 1 { n = split(want, w, " ")
		for (i = 1; i <= NF; i++) ix[$i] = i; next }
	    { s = ""; for (j = 1; j <= n; j++) s = s (j > 1 ? "," : "") $(ix[w[j]]); print s }' "$f"
}
n_ranks_up() { [ "$(c_gang_pids h0 "${PROG##*/}" | wc -l)" -ge "$1" ]; }
for n in $SIZES; do
	c_send h0 schedule off $EDGE_PS_US $EDGE_IP_US > /dev/null || t_fail "no reply to schedule"
	_c_cmd _c h0
	"${_c[@]}" setsid dts-run -- mpirun.openmpi --allow-run-as-root --bind-to none \
	    --oversubscribe --mca btl self,vader --host "h0:$n" -np "$n" \
	    "$PROG" -P -i 0 -t 100000 < /dev/null > "$T_LOG/edge-$n.log" 2>&1 &
	EPID=$!
	t_track "$EPID"
	t_wait_for 60 n_ranks_up "$n" || t_fail "only $(c_gang_pids h0 "${PROG##*/}" | wc -l) of $n ranks in h0's gang: $(tail -n 3 "$T_LOG/edge-$n.log")"
	[ "$(ps -o pgid= -p "$EPID" | tr -d ' ')" = "$EPID" ] || t_fail "mpirun $EPID leads no process group"
	ingroup=$(ps -eo pgid=,comm= | awk -v g="$EPID" -v c="${PROG##*/}" '$1 == g && $2 == c' | wc -l)
	[ "$ingroup" = "$n" ] || t_fail "$ingroup of $n ranks in mpirun's process group"
	members=$(c_gang_pids h0 | wc -l)
	t_log "edge: gang of mpirun + $n ranks ($members processes), $(b_elapsed) s"
	for r in $(seq "$ROUNDS"); do
		c_send h0 schedule static $EDGE_PS_US $EDGE_IP_US > /dev/null || t_fail "no reply to schedule"
		t_sleep "$SETTLE"
		since=$(date +%s%N)
		t_sleep "$EDGE_WIN"
		until=$(date +%s%N)
		c_send h0 trace "$since" > "$T_DIR/trace.csv" || t_fail "no reply to trace"
		col "$T_DIR/trace.csv" phase real_ns late_ns op_ns | awk -F, -v n="$n" -v r="$r" \
		    -v u="$until" '$2 <= u { printf "dts,%d,%d,%d,%d,%d\n", n, r, $3 + $4, $3, $4 }' >> "$RAW"
		c_send h0 schedule hpdt $EDGE_PS_US $EDGE_IP_US > /dev/null || t_fail "no reply to schedule"
		"$B_OUT/floor" -w 1 -g "$EPID" "$n" "$EDGE_WIN" $EDGE_PS_US "$T_DIR/floor.csv" \
		    > /dev/null || t_fail "floor failed"
		col "$T_DIR/floor.csv" late_ns op_ns | awk -F, -v n="$n" -v r="$r" \
		    '{ printf "floor,%d,%d,%d,%d,%d\n", n, r, $1 + $2, $1, $2 }' >> "$RAW"
	done
	c_send h0 schedule off $EDGE_PS_US $EDGE_IP_US > /dev/null
	kill -TERM "$EPID" 2> /dev/null
	t_wait_for 20 eval '! _t_alive "$EPID"' || t_fail "mpirun did not end on SIGTERM"
	wait "$EPID" 2> /dev/null
	t_untrack "$EPID"
	t_wait_for 10 eval '[ -z "$(c_gang_pids h0)" ]' || t_fail "h0's gang did not empty"
done
# per round p50 / p99 / max (us), then the median over the rounds
for n in $SIZES; do
	for who in dts floor; do
		for r in $(seq "$ROUNDS"); do
			sel() { awk -F, -v w="$who" -v n="$n" -v r="$r" -v c="$1" \
			    '$1 == w && $2 == n && $3 == r { print $c / 1000 }' "$RAW"; }
			read -r cnt p50 p99 max _ <<< "$(sel 4 | b_stats)"
			read -r _ l50 _ <<< "$(sel 5 | b_stats)"
			read -r _ o50 _ <<< "$(sel 6 | b_stats)"
			echo "edge,$who,$([ "$who" = dts ] && echo static || echo floor),$n,$r,$cnt,,,,,,$p50,$p99,$max,$l50,$o50,,,,,," >> "$CSV"
		done
	done
done
# EDGE[n] = "dts_p50 dts_p99 floor_p50 floor_p99 r50 r99 edges"
declare -A EDGE
for n in $SIZES; do
	EDGE[$n]=$(awk -F, -v n="$n" '$1 == "edge" && $4 == n {
		k = $2; m = ++c[k]; p50[k, m] = $12; p99[k, m] = $13; e[k] += $6
		l[k] = l[k] (m > 1 ? "/" : "") $15; o[k] = o[k] (m > 1 ? "/" : "") $16 }
	function med(k, a,   i, j, t, v, m) {
		m = c[k]; for (i = 1; i <= m; i++) v[i] = (a == 50 ? p50[k, i] : p99[k, i])
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
	END { d50 = med("dts", 50); d99 = med("dts", 99); f50 = med("floor", 50); f99 = med("floor", 99)
		printf "%.1f %.1f %.1f %.1f %.2f %.2f %d %s %s %s %s\n", d50, d99, f50, f99,
		    (f50 > 0 ? d50 / f50 : 0), (f99 > 0 ? d99 / f99 : 0), e["dts"],
		    l["dts"], o["dts"], l["floor"], o["floor"] }' "$CSV")
	t_log "edge, mpirun + $n ranks: dts p50/p99 / floor p50/p99 / ratios: ${EDGE[$n]}"
done

# ---- 2. the payoff ---------------------------------------------------------------
for k in 0 1; do
	for p in $(c_pids h$k); do taskset -a -p -c "$k" "$p" > /dev/null 2>&1; done
done
declare -a HOG
for k in 0 1; do
	c_bg h$k hog$k "$BUILD/tests/tools/hog" -c "$k"
	HOG[k]=$C_BG_PID
done
SG() { c_exec h0 "$BUILD/tests/tools/sendgram" -k "$C_KEY" -s "$C_SIGN" -p "$C_PORT" "$@"; }
set_mode() {
	case $1 in
	off) SG -a "$C_BCAST" schedule off 50000 100000 > /dev/null ;;
	static) SG -a "$C_BCAST" schedule static 50000 100000 arrival > /dev/null ;;
	esac || t_fail "mode $1: no reply"
}
# Shares of CPU K over a window inside a run (processes of host K are
# pinned to CPU K): the hog's; the gang's (every process in hK's gang
# cgroup, from schedstat); what everything else had, LOCAL = 100 % minus
# the gang's and the steal's (the hog, dts, and other sessions' processes
# on this shared VM: in PS the gang at SCHED_RR pushes their work into
# LS, where it competes with the hog); and OTHERS = the CPU's busy time in
# /proc/stat minus our processes' (everything in hK's namespace or gang).
TICK_NS=$((1000000000 / $(getconf CLK_TCK)))
declare -A P1 P2
declare -a B1 B2 ST1 ST2 H1 H2
# snap N: snapshot N (1 or 2): wall ns (TN), per CPU busy and steal ticks,
# the CPU ns of every process of each host (P1 / P2, key "K:PID:INGANG";
# snapshot 2 reads the processes of snapshot 1 again, and one that ended
# in between is left out of both), the hogs' CPU ns.
KP=()
snap() {
	local k p kp t ns sum got u ni sy irq sirq st g
	local -n pp=P$1 bb=B$1 ss=ST$1 hh=H$1
	pp=()
	if [ "$1" = 1 ]; then
		KP=()
		for k in 0 1; do
			g=" $(c_gang_pids h$k | paste -sd' ') "
			for p in $( { c_pids h$k; c_gang_pids h$k; } | sort -un); do
				case $g in *" $p "*) KP+=("$k:$p:1") ;; *) KP+=("$k:$p:0") ;; esac
			done
		done
	fi
	printf -v "T$1" '%s' "$(date +%s%N)"
	for kp in "${KP[@]}"; do
		sum=0 got=0 p=${kp#*:} p=${p%:*}
		for t in /proc/"$p"/task/*/schedstat; do
			read -r ns _ < "$t" 2> /dev/null && sum=$((sum + ns)) got=1
		done
		[ "$got" = 0 ] || pp[$kp]=$sum
	done
	for k in 0 1; do
		read -r _ u ni sy _ _ irq sirq st _ < <(grep "^cpu$k " /proc/stat)
		bb[k]=$((u + ni + sy + irq + sirq)) ss[k]=$st
		hh[k]=$(t_cpu_ns "${HOG[k]}")
	done
}
# shares K: "HOG% GANG% LOCAL% OTHERS%" of CPU K between snapshots 1 and 2
shares() {
	local k=$1 key d ours=0 gang=0 wall=$((T2 - T1)) hog others steal
	for key in "${!P1[@]}"; do
		[ "${key%%:*}" = "$k" ] && [ -n "${P2[$key]:-}" ] || continue
		d=$((P2[$key] - P1[$key]))
		ours=$((ours + d))
		[ "${key##*:}" = 1 ] && gang=$((gang + d))
	done
	hog=$((H2[k] - H1[k]))
	steal=$(( (ST2[k] - ST1[k]) * TICK_NS ))
	others=$(( (B2[k] - B1[k]) * TICK_NS - ours ))
	[ "$others" -ge 0 ] || others=0
	awk -v h="$hog" -v w="$wall" -v g="$gang" -v s="$steal" -v o="$others" \
	    'BEGIN { printf "%.2f %.2f %.2f %.2f\n", 100 * h / w, 100 * g / w, 100 * (w - g - s) / w, 100 * o / w }'
}
ranks_up() { grep -q '^rank 1 of ' "$T_LOG/$1.log"; }
for prog in $PROGS; do
	for mode in off static; do
		set_mode "$mode"
		t_sleep "$SETTLE"
		name=$prog-$mode
		lat= iter= count=
		t0=$(date +%s%N)
		case $prog in
		netpipe)
			snap 1
			C_MPI_PROG=$(command -v NPopenmpi) c_mpi_run 2 "$name" -l 1 -u 4096 -n 200 -p 0 \
			    -o "$T_DIR/$name.np" || t_fail "$name: status $C_MPI_RC: $(tail -n 3 "$T_LOG/$name.log")"
			snap 2
			lat=$(awk '$2 == 1 && $3 == "bytes" { print $(NF - 1); exit }' "$T_LOG/$name.log")
			count=$(grep -c ' bytes ' "$T_LOG/$name.log") ;;
		*)
			# it runs until told to stop: the window is inside the run
			# however late this shell gets the CPU on a loaded machine
			opts= args=(-r -i 0 -t 300 -f "$T_DIR/stop-$name" -w "$WORK_US")
			[ "$prog" = yield ] && opts="--mca mpi_yield_when_idle 1"
			[ "$prog" = sleep ] && args+=(-s 20)
			C_MPI_OPTS=$opts c_mpi_bg 2 "$name" "${args[@]}"
			t_wait_for 60 ranks_up "$name" || t_fail "$name: no ranks: $(tail -n 3 "$T_LOG/$name.log")"
			t_sleep 0.3
			snap 1
			t_sleep "$RUN_S"
			snap 2
			touch "$T_DIR/stop-$name"
			c_mpi_wait 60 || t_fail "$name: status $C_MPI_RC: $(tail -n 3 "$T_LOG/$name.log")"
			c_mpi_ranks_ok "$T_LOG/$name.log" 2 || t_fail "$name: $MPI_WHY"
			iter=$(sed -n 's/^mpiloop .* iter_us=\([0-9.]*\) .*/\1/p' "$T_LOG/$name.log")
			count=$(sed -n 's/^mpiloop .* iters=\([0-9]*\) .*/\1/p' "$T_LOG/$name.log")
			[ -n "$iter" ] || t_fail "$name: no result: $(tail -n 3 "$T_LOG/$name.log")" ;;
		esac
		t1=$(date +%s%N)
		read -r h0p g0 l0 o0 <<< "$(shares 0)"
		read -r h1p g1 l1 o1 <<< "$(shares 1)"
		# NetPIPE's window is its whole run: its gang did not exist yet at
		# the first snapshot, so only the hogs' shares mean something
		[ "$prog" != netpipe ] || g0= g1= l0= l1= o0= o1=
		wall=$(awk -v d="$((t1 - t0))" 'BEGIN { printf "%.3f", d / 1e9 }')
		echo "payoff,$prog,$mode,2,1,$count,$iter,$h0p,$h1p,$wall,$lat,,,,,,$g0,$g1,$l0,$l1,$o0,$o1" >> "$CSV"
		t_log "$name: $count iterations/sizes, ${iter:-?} us per iteration, latency ${lat:--} us, CPU 0 / 1: hog $h0p / $h1p %, gang $g0 / $g1 %, not the gang's $l0 / $l1 %, other sessions $o0 / $o1 %; $wall s"
	done
done
set_mode off

# ---- report -----------------------------------------------------------------------
rm -f "$B_OUT/mpi.md"
GOALS=$T_DIR/mpi.goals
python3 - "$CSV" "$B_OUT/mpi.md" "$B_QUICK" "$(b_elapsed)" "$RUN_S" "$WORK_US" "$EDGE_WIN" "$ROUNDS" \
    "$(for n in $SIZES; do echo "$n ${EDGE[$n]}"; done | paste -sd';')" "$GOALS" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
md, quick, elapsed, run_s, work, win, rounds, edges = sys.argv[2:10]
quick = quick == "1"
pay = {(r["prog"], r["mode"]): r for r in rows if r["part"] == "payoff"}
L = ["## MPI jobs as gangs (bench-mpi)\n"]
L.append("Open MPI 4.1 (Debian's `mpirun.openmpi`), one rank per host on the 2-host namespace cluster, launched as "
         "`dts-run -- mpirun.openmpi --mca plm_rsh_agent dts-ssh ...`: mpirun and rank 0 in h0's gang, orted and "
         "rank 1 in h1's. Every process of host K pinned to CPU K, with a CPU hog (SCHED_OTHER) on each CPU. "
         "OFF = plain Linux; STATIC = PS 50 %% of IP 100 ms, both hosts in phase (one arrival-sync broadcast). "
         "`mpiloop` (tests/bench/mpiloop.c): per iteration a ping-pong of 8 bytes with %s µs of CPU on each side, "
         "then an MPI_Allreduce; µs per iteration from its own clock over its whole run (stopped after a %s s "
         "window, through a stop file); CPU shares over that window. %s; took %s s.\n" % (work, run_s, "Quick form" if quick else "Full form", elapsed))
L.append("| program | waiting | mode | iterations | µs / iteration | hog h0 % | hog h1 % | gang % (CPU 0 / 1) | not the gang's % | other sessions % | NetPIPE 1-byte latency µs | wall s |")
L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
how = {"busy": "busy polling (Open MPI's default)", "yield": "`--mca mpi_yield_when_idle 1` (polls, sched_yield between)",
       "sleep": "program's own blocking wait (MPI_Test + nanosleep 20 µs)", "netpipe": "busy polling"}
for (p, m), r in pay.items():
    L.append("| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s | %s | %s |" % ("NPopenmpi" if p == "netpipe" else "mpiloop",
             how[p], m.upper(), r["count"], r["iter_us"] or "-", r["hog0_pct"], r["hog1_pct"], r["gang0_pct"] or "-",
             r["gang1_pct"] or "-", r["local0_pct"] or "-", r["local1_pct"] or "-", r["others0_pct"] or "-",
             r["others1_pct"] or "-", r["lat_us"] or "-", r["wall_s"]))
L.append("")
L.append("Shares of each host's CPU over the window: *gang* = every process in the host's gang cgroup (launcher or "
         "orted, rank; schedstat); *not the gang's* = 100 % minus that and the host's steal: what the hog, dts and "
         "everything else got; *other sessions* = the CPU's busy time (/proc/stat) minus every process of ours "
         "pinned there: other engineers' jobs on this shared VM. In PS the gang at SCHED_RR pushes their work into "
         "LS, where it competes with the hog, so the hog alone gets LS only on a CPU it does not share.")
L.append("")
L.append("Edge cost with an MPI gang on h0 (mpirun + N ranks of mpiloop, shared memory, busy polling; IP 10 ms, PS 50 %%), "
         "against tests/bench/floor.c stopping and continuing the same processes with one killpg (the ranks join "
         "mpirun's process group, mpiloop -P) while dts is in HPDT; %s round(s) of %s s windows per side; "
         "p50 / p99 = median over the rounds of late + op per edge, µs; late / op p50 per round "
         "(late = wake-up after the deadline, op = the gang operation: dts's backend, the floor's killpg):\n" % (rounds, win))
L.append("| ranks | edges | dts p50 | dts p99 | floor p50 | floor p99 | p50 ratio | p99 ratio | dts late / op p50 | floor late / op p50 |")
L.append("|---|---|---|---|---|---|---|---|---|---|")
E = {}
for e in edges.split(";"):
    if not e.strip():
        continue
    n, d50, d99, f50, f99, r50, r99, cnt, dl, do, fl, fo = e.split()
    E[n] = (float(r50), float(r99))
    L.append("| %s | %s | %s | %s | %s | %s | %sx | %sx | %s ; %s | %s ; %s |" % (n, cnt, d50, d99, f50, f99, r50, r99, dl, do, fl, fo))
L.append("")
L.append("| goal | measured | verdict |")
L.append("|---|---|---|")
why = []
goals = []
def v(kind, name, ok):
    # the verdict; the shell reads them back (b_goal)
    goals.append("%s %s %d" % (kind, name, 1 if ok else 0))
    return "met" if ok else ("MISSED" if kind == "speed" else "FAIL")
def it(p, m):
    r = pay.get((p, m))
    return float(r["iter_us"]) if r and r["iter_us"] else None
b_off, b_st = it("busy", "off"), it("busy", "static")
if b_off and b_st:
    x = b_off / b_st
    L.append("| (1) busy-polling loop: STATIC 50/50 in phase at least 3x faster than OFF | %.1fx (%.1f vs %.1f µs per iteration) | %s |"
             % (x, b_off, b_st, v("speed", "1-busy", x >= 3)))
    if x < 3:
        why.append("Goal 1 missed: under OFF the busy-polling rank and the hog split each CPU, so a message waits "
                   "for the receiver's next CFS turn; under STATIC both ranks run together in PS. A ratio under 3 "
                   "means the STATIC run lost PS time (other sessions' real-time work on these CPUs, RT throttling).")
st = [r for (p, m), r in pay.items() if m == "static" and r["local0_pct"]]
if st:
    raw = min(min(float(r["hog0_pct"]), float(r["hog1_pct"])) for r in st)
    loc = min(min(float(r["local0_pct"]), float(r["local1_pct"])) for r in st)
    oth = max(max(float(r["others0_pct"]), float(r["others1_pct"])) for r in st)
    ok = raw >= 48
    # the gang leaving LS - 2 points to the rest of its CPU is the owner's
    # promise (FAIL); the hog getting all of it beside other sessions'
    # processes on the same CPU is MISSED.  A window of RUN_S holds a
    # whole number of IPs only by chance: one PS more or less in it is
    # 100 * PS / RUN_S points (5 in the quick form's 1 s, 1 in 5 s), the
    # resolution of the fact's bound
    res = 100 * 0.050 / float(run_s)
    L.append("| (2) the hogs keep at least LS − 2 points (48 %%) under STATIC | lowest hog share %.1f %%; lowest share the gang left to the rest of its CPU %.1f %% (want >= %.1f: LS - 2 less one PS of the %s s window; other sessions took up to %.1f %%) | hog: %s; all local work: %s |"
             % (raw, loc, 48 - res, run_s, oth, v("speed", "2-hog", ok), v("fact", "2-local", loc >= 48 - res)))
    if not ok:
        why.append("Goal 2: the gang never took more than PS (it left %.1f %% or more of each CPU to the rest), but the "
                   "hog shared that LS with other sessions' processes on the same CPU (up to %.1f %% of it), whose "
                   "work the RT gang had pushed out of PS. On a CPU the hog has to itself it gets LS." % (loc, oth))
parts = []
for p in ("yield", "sleep"):
    o, s = it(p, "off"), it(p, "static")
    if o and s:
        parts.append("%s: %.2fx (%.1f vs %.1f µs)" % (p, o / s, o, s))
L.append("| (3) the blocking variant: OFF / STATIC | %s. Open MPI 4.1 cannot block in its progress engine: `mpi_yield_when_idle` still polls; the `sleep` row is the program blocking by itself | reported |"
         % ("; ".join(parts) or "not measured"))
if E:
    ok = all(r50 <= 1.1 and r99 <= 1.25 for r50, r99 in E.values())
    L.append("| (4) edge cost of an MPI gang of 2 and 8 ranks within 1.1x (p50) and 1.25x (p99) of the floor, as for a PVM gang | %s | %s |"
             % ("; ".join("N=%s: %.2fx, %.2fx" % (n, a, b) for n, (a, b) in E.items()), v("speed", "4-edge", ok)))
    if not ok:
        why.append("Goal 4 missed: the floor stops the gang with one killpg, dts with its backend (freezer: one "
                   "write to cgroup.freeze); per-window p50s of either side move by more than 10 % between "
                   "windows on this shared VM (bench-edge's notes), so a 1.1x bound is at this machine's resolution.")
L.append("")
for w in why:
    L.append("- " + w)
if why:
    L.append("")
open(md, "w").write("\n".join(L) + "\n")
open(sys.argv[10], "w").write("".join(g + "\n" for g in goals))
print("\n".join(L))
EOF
[ $? = 0 ] || t_fail "the report failed (see above)"
b_env_note >> "$B_OUT/mpi.md"
t_log "bench-mpi: $(b_elapsed) s; wrote $CSV, $B_OUT/mpi.md"
[ -f "$GOALS" ] || t_fail "the report wrote no verdicts"
while read -r kind g ok; do b_goal "$kind" "$g" 'ok == 1' ok="$ok"; done < "$GOALS"
b_done
